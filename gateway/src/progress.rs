//! The progress line of `run` and `compare` on a terminal: wall time
//! elapsed, the emulated time the network reached and the largest lateness
//! so far (maxBehind), with `compare`'s row, redrawn in place at most
//! [`REDRAW_EVERY`]. Nothing is written when stderr is not a terminal (a
//! log file or a test would only collect carriage returns) or with `-q`.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Shortest time between two redraws (4 per second).
pub const REDRAW_EVERY: Duration = Duration::from_millis(250);

/// Whether a job draws the line, and with which row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// No line (`calibrate`, and `gateway`, whose ranks another launcher runs).
    Never,
    /// `run`'s line.
    Job,
    /// `compare`'s line for row `.0` of `.1`.
    Row(usize, usize),
}

impl Show {
    /// The line to draw while the job runs; None when there is none
    /// (including when stderr is not a terminal or with `-q`).
    pub fn line(self) -> Option<ProgressLine> {
        let row = match self {
            Show::Never => return None,
            Show::Job => None,
            Show::Row(k, n) => Some((k, n)),
        };
        Some(ProgressLine::start(row)).filter(|p| p.enabled)
    }
}

/// What the line shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Snapshot {
    /// Wall time since the job started, s.
    pub wall_s: f64,
    /// Emulated time the network model reached, ns.
    pub emulated_ns: u64,
    /// Largest lateness so far, ns of emulated time.
    pub max_behind_ns: u64,
    /// `compare`: the row being run (1-based) and how many there are.
    pub row: Option<(usize, usize)>,
}

/// A duration in ns as the line shows it: ns below 1 µs, µs below 1 ms,
/// ms below 1 s, else s (three significant decimals at most).
fn short_duration(ns: u64) -> String {
    match ns {
        0..=999 => format!("{ns} ns"),
        1_000..=999_999 => format!("{:.1} us", ns as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.1} ms", ns as f64 / 1e6),
        _ => format!("{:.3} s", ns as f64 / 1e9),
    }
}

/// The line's text (without the carriage return that redraws it).
pub fn line(s: &Snapshot) -> String {
    let row = s
        .row
        .map_or(String::new(), |(k, n)| format!("row {k} of {n}: "));
    format!(
        "mpinetsim: {row}{:.1} s wall, emulated {}, maxBehind {}",
        s.wall_s,
        short_duration(s.emulated_ns),
        short_duration(s.max_behind_ns)
    )
}

/// The line of one job, drawn while it runs.
#[derive(Debug)]
pub struct ProgressLine {
    enabled: bool,
    row: Option<(usize, usize)>,
    started: Instant,
    last_draw: Option<Instant>,
    drawn: bool,
}

impl ProgressLine {
    /// A line for a job starting now; `row` is `compare`'s row. Shown only
    /// when stderr is a terminal and info lines are wanted (not `-q`).
    pub fn start(row: Option<(usize, usize)>) -> ProgressLine {
        let enabled = std::io::stderr().is_terminal() && tracing::enabled!(tracing::Level::INFO);
        ProgressLine::new(enabled, row, Instant::now())
    }

    fn new(enabled: bool, row: Option<(usize, usize)>, started: Instant) -> ProgressLine {
        ProgressLine {
            enabled,
            row,
            started,
            last_draw: None,
            drawn: false,
        }
    }

    /// Whether a line is due at `now` ([`REDRAW_EVERY`] after the last).
    fn due(&self, now: Instant) -> bool {
        self.enabled && self.last_draw.is_none_or(|t| now >= t + REDRAW_EVERY)
    }

    /// Redraws the line if one is due; `state` gives the emulated time and
    /// maxBehind, ns (only asked when drawing).
    pub fn tick(&mut self, state: impl FnOnce() -> (u64, u64)) {
        let now = Instant::now();
        if !self.due(now) {
            return;
        }
        let (emulated_ns, max_behind_ns) = state();
        let text = line(&Snapshot {
            wall_s: now.duration_since(self.started).as_secs_f64(),
            emulated_ns,
            max_behind_ns,
            row: self.row,
        });
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{text}");
        let _ = err.flush();
        self.last_draw = Some(now);
        self.drawn = true;
    }

    /// Clears the line, so what follows starts on an empty line.
    pub fn clear(&mut self) {
        if self.drawn {
            eprint!("\r\x1b[2K");
            self.drawn = false;
        }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_wall_emulated_time_and_max_behind() {
        let s = Snapshot {
            wall_s: 12.345,
            emulated_ns: 3_084_000_000,
            max_behind_ns: 48_700,
            row: None,
        };
        assert_eq!(
            line(&s),
            "mpinetsim: 12.3 s wall, emulated 3.084 s, maxBehind 48.7 us"
        );
        let s = Snapshot {
            wall_s: 0.04,
            emulated_ns: 2_500_000,
            max_behind_ns: 999,
            row: Some((2, 5)),
        };
        assert_eq!(
            line(&s),
            "mpinetsim: row 2 of 5: 0.0 s wall, emulated 2.5 ms, maxBehind 999 ns"
        );
    }

    #[test]
    fn units_change_at_each_thousand() {
        let u: Vec<String> = [
            0,
            999,
            1_000,
            999_949,
            1_000_000,
            999_949_999,
            1_000_000_000,
        ]
        .into_iter()
        .map(short_duration)
        .collect();
        assert_eq!(
            u,
            ["0 ns", "999 ns", "1.0 us", "999.9 us", "1.0 ms", "999.9 ms", "1.000 s"]
        );
    }

    #[test]
    fn redraws_at_most_four_times_a_second_and_never_when_disabled() {
        let t0 = Instant::now();
        let mut p = ProgressLine::new(true, None, t0);
        assert!(p.due(t0), "the first line is due at once");
        p.last_draw = Some(t0);
        assert!(!p.due(t0 + Duration::from_millis(249)));
        assert!(p.due(t0 + Duration::from_millis(250)));
        let off = ProgressLine::new(false, Some((1, 2)), t0);
        assert!(!off.due(t0 + Duration::from_secs(10)));
    }
}
