//! The record/replay trace file (`mpinetsim run --record`, read by
//! `mpinetsim replay` and `compare --replay`): a file a user may truncate,
//! copy between versions or hand over from someone else.

use crate::assert_one_sentence;
use mpinetsim_protocol::trace::Trace;

/// Reads `data` as a trace file: a refusal is one sentence; a trace read
/// writes back to a file that reads as the same trace.
pub fn trace(data: &[u8]) {
    match Trace::from_bytes(data) {
        Ok(t) => {
            let again = Trace::from_bytes(&t.to_bytes()).expect("a written trace reads back");
            assert_eq!(again, t, "the trace changed on a round trip");
        }
        Err(e) => assert_one_sentence("trace", &e),
    }
}
