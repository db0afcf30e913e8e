//! Progress of a long network setup. Building a large network (a
//! million-node torus takes seconds) shows nothing else for a while: once
//! a setup has taken longer than [`SHOW_AFTER`] (or
//! `MPINETSIM_PROGRESS_AFTER`), a watcher thread says what is being built
//! and for how long — on a terminal one line updated every second,
//! otherwise a line every 10 s — and the end says how long it took and how
//! large the network is. Short setups print nothing.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a setup runs before its progress shows.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Environment variable overriding [`SHOW_AFTER`] (a duration, e.g. `0`).
pub const ENV_SHOW_AFTER: &str = "MPINETSIM_PROGRESS_AFTER";

#[derive(Default)]
struct State {
    stage: String,
    done: bool,
    shown: bool,
}

/// A setup being watched; [`SetupProgress::finish`] ends it.
pub struct SetupProgress {
    state: Arc<(Mutex<State>, Condvar)>,
    started: Instant,
    watcher: Option<std::thread::JoinHandle<()>>,
}

fn show_after() -> Duration {
    std::env::var(ENV_SHOW_AFTER)
        .ok()
        .and_then(|t| netsim::base::units::parse_duration_ns(&t).ok())
        .map_or(SHOW_AFTER, Duration::from_nanos)
}

fn lock(m: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl SetupProgress {
    /// Starts watching a setup whose first stage is `stage` (e.g.
    /// "building the network from t.toml"). Without a thread to watch
    /// (none can be started) the setup simply runs unwatched.
    pub fn start(stage: &str) -> SetupProgress {
        let state = Arc::new((
            Mutex::new(State {
                stage: stage.to_string(),
                ..State::default()
            }),
            Condvar::new(),
        ));
        let started = Instant::now();
        let shared = Arc::clone(&state);
        let watcher = std::thread::Builder::new()
            .name("setup progress".into())
            .spawn(move || watch(&shared, started))
            .ok();
        SetupProgress {
            state,
            started,
            watcher,
        }
    }

    /// The setup moved on to `stage`.
    pub fn stage(&self, stage: &str) {
        lock(&self.state.0).stage = stage.to_string();
    }

    /// Ends the watch; if progress was shown, says how long the setup took
    /// and `summary` (e.g. "1048576 nodes, 1572864 links").
    pub fn finish(mut self, summary: &str) {
        let shown = {
            let mut s = lock(&self.state.0);
            s.done = true;
            s.shown
        };
        self.state.1.notify_all();
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
        // Also when the watcher had no chance to run before the end.
        if shown || lock(&self.state.0).shown || self.started.elapsed() >= show_after() {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(
                err,
                "{}mpinetsim: network set up in {:.1} s: {summary}",
                if std::io::stderr().is_terminal() {
                    "\r\x1b[2K"
                } else {
                    ""
                },
                self.started.elapsed().as_secs_f64()
            );
        }
    }
}

impl Drop for SetupProgress {
    /// A setup that failed stops its watcher (the error says why).
    fn drop(&mut self) {
        lock(&self.state.0).done = true;
        self.state.1.notify_all();
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
            if lock(&self.state.0).shown && std::io::stderr().is_terminal() {
                eprint!("\r\x1b[2K");
            }
        }
    }
}

/// The watcher: waits until the setup ends or [`show_after`] passes, then
/// reports every second on a terminal, every 10 s elsewhere.
fn watch(state: &(Mutex<State>, Condvar), started: Instant) {
    let tty = std::io::stderr().is_terminal();
    let period = if tty {
        Duration::from_secs(1)
    } else {
        Duration::from_secs(10)
    };
    let mut next = started + show_after();
    let mut s = lock(&state.0);
    loop {
        let now = Instant::now();
        if s.done {
            return;
        }
        if now < next {
            s = state
                .1
                .wait_timeout(s, next - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
            continue;
        }
        let line = format!(
            "mpinetsim: {}… {:.0} s",
            s.stage,
            started.elapsed().as_secs_f64()
        );
        let mut err = std::io::stderr().lock();
        let _ = if tty {
            write!(err, "\r\x1b[2K{line}")
        } else {
            writeln!(err, "{line}")
        };
        let _ = err.flush();
        s.shown = true;
        next = now + period;
    }
}
