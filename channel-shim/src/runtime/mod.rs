//! The process-wide runtime: the connection to the gateway, scaled real
//! time, and the time-factor sleep accounting around MPI calls.

mod clock;
mod clock_sync;
mod connection;
mod flush_on_term;
mod gateway_stream;
pub mod horizon;
mod one_sided_service;
mod pacer;
mod parent_watch;
mod state;
mod timeline;
mod tool;
pub mod trace_record;

pub use clock::{
    is_adaptive as clock_is_adaptive, job_ns, monotonic_ns, poll_found_nothing, process_cpu_ns,
    program_cpu_ns, snapshot as clock_snapshot,
};
pub use clock_sync::round_due as clock_round_due;
pub use connection::GatewayTransport;
pub use flush_on_term::install as flush_output_on_sigterm;
pub use one_sided_service::window_created as serve_one_sided_while_computing;
pub use pacer::{CallEntry, Pacer};
pub use parent_watch::arm as arm_parent_watch;
pub use state::{
    abort_job, engine_held_by_this_thread, finalize, gateway_fd, init, is_finalized,
    is_initialized, job_size_from_env, now_emulated_ns, now_srt_ns, pacer, session_finished,
    start_session, try_with_engine, with_engine, JobInfo,
};
pub use tool::with_tool;

/// Ends the job because of an error the program cannot recover from: tells
/// the gateway (which prints one line naming the rank) or, when not
/// connected, prints `mpinetsim: <message>` itself; exits with status 1.
pub fn fatal(message: &str) -> ! {
    if !state::notify_gateway_of_abort(1, message) {
        eprintln!("mpinetsim: {message}");
    }
    std::process::exit(1)
}
