//! What crosses a socket: the framed protocol between the shim and the
//! gateway (read by both from a peer that may be anyone who can connect),
//! and the MPI envelope a rank receives inside Deliver frames.

use crate::assert_one_sentence;
use mpinetsim_protocol::{Frame, MAX_FRAME_BODY};
use shim_engine::envelope::Envelope;

/// Frames as a gateway or a shim reads them from a stream: decodes frame
/// after frame from the bytes. Every frame decoded must re-encode to bytes
/// that decode to a frame encoding to the same bytes (the encoding is
/// canonical after one round), must use at most the bytes present, and an
/// error must describe itself.
pub fn protocol_frames(data: &[u8]) {
    let mut rest = data;
    loop {
        match Frame::decode(rest) {
            Ok(Some((frame, used))) => {
                assert!(
                    used > 4 && used <= rest.len(),
                    "used {used} of {}",
                    rest.len()
                );
                assert!(used - 4 <= MAX_FRAME_BODY);
                let once = frame.to_bytes();
                let (again, used_again) = Frame::decode(&once)
                    .unwrap_or_else(|e| panic!("{frame:?} re-encoded does not decode: {e}"))
                    .unwrap_or_else(|| panic!("{frame:?} re-encoded is incomplete"));
                assert_eq!(used_again, once.len());
                assert_eq!(again.to_bytes(), once, "{frame:?} changed in a round trip");
                assert!(!frame.name().is_empty());
                rest = &rest[used..];
            }
            Ok(None) => break,
            Err(e) => {
                assert_one_sentence("frame", &e.to_string());
                break;
            }
        }
    }
}

/// A message as a rank's engine receives it: decoding either fails with a
/// described error, or gives a header and payload that encode back to
/// exactly the bytes received (the layout has no slack a forged message
/// could hide in).
pub fn envelope(data: &[u8]) {
    match Envelope::decode(data) {
        Ok((env, payload)) => {
            assert_eq!(env.payload_len, payload.len() as u64);
            assert_eq!(env.encode(payload), data, "{env:?} does not re-encode");
        }
        Err(e) => assert_one_sentence("envelope", &e.to_string()),
    }
}
