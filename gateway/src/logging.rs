//! Diagnostic lines on stderr through `tracing`: what mpinetsim is doing
//! (progress of `compare`, accept trouble, set-up steps), as opposed to
//! results and the one-sentence errors, which are printed directly.
//!
//! `-v` shows debug lines, `-vv` trace lines, `-q` hides the progress
//! (info) lines, `-qq` warnings too; `RUST_LOG` (e.g. `RUST_LOG=gateway=debug`)
//! takes precedence over both. Lines read as the rest of mpinetsim's
//! stderr does: `mpinetsim: …`, `mpinetsim: warning: …`.

use std::fmt;
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::EnvFilter;

/// The level `-v`/`-q` ask for: info by default, one step per flag.
pub fn level(verbose: u8, quiet: u8) -> Level {
    match i16::from(verbose) - i16::from(quiet) {
        i16::MIN..=-2 => Level::ERROR,
        -1 => Level::WARN,
        0 => Level::INFO,
        1 => Level::DEBUG,
        _ => Level::TRACE,
    }
}

/// Formats an event as one `mpinetsim: ` line, naming the level unless it
/// is info.
struct Line;

impl<S, N> FormatEvent<S, N> for Line
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut w: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let level = match *event.metadata().level() {
            Level::ERROR => "error: ",
            Level::WARN => "warning: ",
            Level::INFO => "",
            Level::DEBUG => "debug: ",
            Level::TRACE => "trace: ",
        };
        write!(w, "mpinetsim: {level}")?;
        ctx.field_format().format_fields(w.by_ref(), event)?;
        writeln!(w)
    }
}

/// Installs the stderr subscriber for the process (once, from `main`).
pub fn init(verbose: u8, quiet: u8) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(level(verbose, quiet).as_str().to_ascii_lowercase()));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .event_format(Line)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_flag_moves_the_level_one_step() {
        assert_eq!(level(0, 0), Level::INFO);
        assert_eq!(level(1, 0), Level::DEBUG);
        assert_eq!(level(2, 0), Level::TRACE);
        assert_eq!(level(5, 0), Level::TRACE);
        assert_eq!(level(0, 1), Level::WARN);
        assert_eq!(level(0, 2), Level::ERROR);
        assert_eq!(level(1, 1), Level::INFO);
    }
}
