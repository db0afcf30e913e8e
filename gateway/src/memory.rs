//! The gateway's own memory use, for the report: users sizing a large job
//! need to know what one simulator process costs per rank.

/// Peak resident set size of this process (getrusage's `ru_maxrss`,
/// which Linux counts in KiB), bytes; `None` if the call fails.
pub fn peak_rss_bytes() -> Option<u64> {
    use nix::sys::resource::{getrusage, UsageWho};
    let kib = getrusage(UsageWho::RUSAGE_SELF).ok()?.max_rss();
    u64::try_from(kib).ok().map(|k| k * 1024)
}

/// Memory the system can give new allocations without swapping
/// (`MemAvailable` in /proc/meminfo), bytes.
pub fn available_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_kib_line(&meminfo, "MemAvailable:")
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
    fn the_peak_is_the_kernels_high_water_mark_in_bytes_and_counts_touched_memory() {
        let hwm = || {
            let status = std::fs::read_to_string("/proc/self/status").unwrap();
            parse_kib_line(&status, "VmHWM:").unwrap()
        };
        // 64 MiB written page by page is resident at once.
        let block = vec![1u8; 64 << 20];
        let before = hwm();
        let peak = peak_rss_bytes().unwrap();
        assert!(block.iter().step_by(4096).all(|&b| b == 1));
        assert!(peak >= 64 << 20, "{peak}");
        // The same mark as /proc's, in the same unit: the two reads differ
        // only by what the kernel's per-CPU counters had not yet summed and
        // by other tests' allocations between them (a KiB/byte mix-up would
        // be 1024 times off).
        let gap = before.abs_diff(peak);
        assert!(gap < 16 << 20, "VmHWM {before}, ru_maxrss {peak}");
        assert_eq!(parse_kib_line("VmHWM: 12 MB\n", "VmHWM:"), None);
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
