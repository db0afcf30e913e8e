//! The gateway's own memory use, for the report: users sizing a large job
//! need to know what one simulator process costs per rank.

/// Peak resident set size of this process (`VmHWM` in /proc/self/status),
/// bytes; `None` where /proc is not available.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_hwm(&status)
}

/// The `VmHWM:   1234 kB` line of a /proc status text, in bytes.
fn parse_vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let mut words = line["VmHWM:".len()..].split_whitespace();
    let kib: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => Some(kib * 1024),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_high_water_mark_in_bytes() {
        let status = "Name:\tmpinetsim\nVmPeak:\t  99999 kB\nVmHWM:\t   25540 kB\nVmRSS:\t 1 kB\n";
        assert_eq!(parse_vm_hwm(status), Some(25540 * 1024));
        assert_eq!(parse_vm_hwm("VmHWM: 12 MB\n"), None);
        assert_eq!(parse_vm_hwm("Name: x\n"), None);
    }

    #[test]
    fn this_process_has_a_peak() {
        let peak = peak_rss_bytes().expect("Linux has /proc/self/status");
        // A running test binary holds at least its own pages.
        assert!(peak > 1024 * 1024, "{peak}");
    }
}
