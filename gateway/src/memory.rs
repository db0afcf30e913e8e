//! The gateway's own memory use, for the report: users sizing a large job
//! need to know what one simulator process costs per rank.

/// Peak resident set size of this process (`VmHWM` in /proc/self/status),
/// bytes; `None` where /proc is not available.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_hwm(&status)
}

/// Memory the system can give new allocations without swapping
/// (`MemAvailable` in /proc/meminfo), bytes.
pub fn available_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_kib_line(&meminfo, "MemAvailable:")
}

/// The `VmHWM:   1234 kB` line of a /proc status text, in bytes.
fn parse_vm_hwm(status: &str) -> Option<u64> {
    parse_kib_line(status, "VmHWM:")
}

/// The value of a `KEY   1234 kB` line of a /proc text, in bytes.
fn parse_kib_line(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let mut words = line[key.len()..].split_whitespace();
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
    fn reads_available_memory() {
        let info = "MemTotal:       24000000 kB\nMemFree:  1 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(
            parse_kib_line(info, "MemAvailable:"),
            Some(20_000_000 * 1024)
        );
        assert!(available_bytes().is_some_and(|b| b > 0));
    }

    #[test]
    fn this_process_has_a_peak() {
        let peak = peak_rss_bytes().expect("Linux has /proc/self/status");
        // A running test binary holds at least its own pages.
        assert!(peak > 1024 * 1024, "{peak}");
    }
}
