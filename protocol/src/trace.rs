//! The record/replay trace: what `mpinetsim run --record FILE` writes and
//! `mpinetsim replay FILE` reads (format in docs/trace-format.md).
//!
//! Each rank records, in program order, the computation between its MPI
//! calls (CPU time, before any CPU-speed scaling), every message its
//! library handed to the network (destination, length, the envelope) and
//! every message it took (sender and the message's arrival index from
//! that sender, which is the same on any network: messages between one
//! pair arrive in the order sent). A message the library sent while
//! handling another (a rendezvous CTS, an acknowledgement, a one-sided
//! reply) names that message as its cause: a replay sends it when the
//! cause arrives, not in the program's order; messages the one-sided
//! service took while the program computed are marked as such. Replaying the trace on another
//! network re-times exactly these messages in virtual time.

/// The first bytes of a trace file.
pub const TRACE_MAGIC: [u8; 8] = *b"MNTRACE\0";
/// The trace format's version (after the magic, u32 little-endian):
/// 2 adds the call records (event kind 5); version 1 files, which have
/// none, are still read.
pub const TRACE_VERSION: u32 = 2;
/// The folder the ranks write their event streams to (`rank-<r>.events`),
/// set by `mpinetsim run --record`.
pub const ENV_RECORD_DIR: &str = "MPINETSIM_RECORD_DIR";
/// Envelope bytes kept per message (the shim's envelope header), so a
/// replay's captures show what the message was.
pub const TRACE_HEADER_BYTES: usize = 56;

/// One event of a rank's stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// The program computed for `ns` of measured time (CPU time by
    /// default) between two MPI calls.
    Compute {
        /// Measured computation, ns.
        ns: u64,
    },
    /// The rank's library handed a message to the network.
    Send {
        /// The message it answers (sender, index), when the library sent
        /// it while handling that message (a CTS, an acknowledgement, a
        /// one-sided reply); None when the program's call sent it.
        cause: Option<(u32, u64)>,
        /// Destination rank.
        dst: u32,
        /// Message length, bytes.
        len: u32,
        /// Its first bytes (at most [`TRACE_HEADER_BYTES`]).
        header: Vec<u8>,
    },
    /// The rank's library took a delivered message.
    Consume {
        /// Taken by the one-sided service, not the program.
        service: bool,
        /// Handling it completed a request (a receive's data, a send's
        /// last acknowledgement, a step of a collective): what the
        /// program waited for. A message that only made the library
        /// answer (a rendezvous request to send, a piece acknowledgement
        /// mid-transfer) does not hold the program up.
        completes: bool,
        /// Sending rank.
        src: u32,
        /// Which message from `src` (0 = the first to arrive).
        index: u64,
    },
    /// The rank left the network (MPI_Finalize).
    End,
    /// An MPI call of the program, for a replay through the MPI engine.
    Call(crate::trace_calls::CallRecord),
}

const COMPUTE: u8 = 1;
const SEND: u8 = 2;
const CONSUME: u8 = 3;
const END: u8 = 4;
const CALL: u8 = 5;

impl TraceEvent {
    /// Appends the event's encoding to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            TraceEvent::Compute { ns } => {
                out.push(COMPUTE);
                out.extend_from_slice(&ns.to_le_bytes());
            }
            TraceEvent::Send {
                cause,
                dst,
                len,
                header,
            } => {
                let h = &header[..header.len().min(TRACE_HEADER_BYTES)];
                out.push(SEND);
                out.push(cause.is_some() as u8);
                if let Some((src, index)) = cause {
                    out.extend_from_slice(&src.to_le_bytes());
                    out.extend_from_slice(&index.to_le_bytes());
                }
                out.extend_from_slice(&dst.to_le_bytes());
                out.extend_from_slice(&len.to_le_bytes());
                out.push(h.len() as u8);
                out.extend_from_slice(h);
            }
            TraceEvent::Consume {
                service,
                completes,
                src,
                index,
            } => {
                out.push(CONSUME);
                out.push(*service as u8 | (*completes as u8) << 1);
                out.extend_from_slice(&src.to_le_bytes());
                out.extend_from_slice(&index.to_le_bytes());
            }
            TraceEvent::End => out.push(END),
            TraceEvent::Call(c) => {
                out.push(CALL);
                c.encode(out);
            }
        }
    }

    /// Decodes the event at the start of `buf`: the event and the bytes it
    /// used; an error names what is wrong.
    pub fn decode(buf: &[u8]) -> Result<(TraceEvent, usize), String> {
        let mut r = Reader { buf, at: 0 };
        let e = match r.u8()? {
            COMPUTE => TraceEvent::Compute { ns: r.u64()? },
            SEND => {
                let cause = match r.u8()? {
                    0 => None,
                    _ => Some((r.u32()?, r.u64()?)),
                };
                let dst = r.u32()?;
                let len = r.u32()?;
                let hlen = r.u8()? as usize;
                if hlen > TRACE_HEADER_BYTES {
                    return Err(format!(
                        "a message header of {hlen} bytes (at most {TRACE_HEADER_BYTES})"
                    ));
                }
                let header = r.bytes(hlen)?.to_vec();
                TraceEvent::Send {
                    cause,
                    dst,
                    len,
                    header,
                }
            }
            CONSUME => {
                let flags = r.u8()?;
                TraceEvent::Consume {
                    service: flags & 1 != 0,
                    completes: flags & 2 != 0,
                    src: r.u32()?,
                    index: r.u64()?,
                }
            }
            END => TraceEvent::End,
            CALL => TraceEvent::Call(crate::trace_calls::CallRecord::decode(&mut r)?),
            t => return Err(format!("an event of unknown kind {t}")),
        };
        Ok((e, r.at))
    }
}

/// A whole trace: every rank's events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// The events of rank r at index r.
    pub ranks: Vec<Vec<TraceEvent>>,
}

impl Trace {
    /// Decodes one rank's stream (as a rank writes it).
    pub fn decode_stream(mut buf: &[u8]) -> Result<Vec<TraceEvent>, String> {
        let mut events = Vec::new();
        while !buf.is_empty() {
            let (e, used) = TraceEvent::decode(buf)?;
            events.push(e);
            buf = &buf[used..];
        }
        Ok(events)
    }

    /// The file: magic, version, rank count, then each rank's number,
    /// stream length and stream.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&TRACE_MAGIC);
        out.extend_from_slice(&TRACE_VERSION.to_le_bytes());
        out.extend_from_slice(&(self.ranks.len() as u32).to_le_bytes());
        for (rank, events) in self.ranks.iter().enumerate() {
            let mut stream = Vec::new();
            for e in events {
                e.encode(&mut stream);
            }
            out.extend_from_slice(&(rank as u32).to_le_bytes());
            out.extend_from_slice(&(stream.len() as u64).to_le_bytes());
            out.extend_from_slice(&stream);
        }
        out
    }

    /// Reads a trace file's bytes; the error says what is wrong.
    pub fn from_bytes(buf: &[u8]) -> Result<Trace, String> {
        if buf.len() < 16 || buf[..8] != TRACE_MAGIC {
            return Err("it is not an mpinetsim trace (no MNTRACE header)".into());
        }
        let mut r = Reader { buf, at: 8 };
        let version = r.u32()?;
        if version != TRACE_VERSION && version != 1 {
            return Err(format!(
                "it is a version {version} trace; this mpinetsim reads version {TRACE_VERSION}"
            ));
        }
        let n = r.u32()?;
        let mut ranks = Vec::new();
        for expected in 0..n {
            let rank = r.u32()?;
            if rank != expected {
                return Err(format!(
                    "rank {rank}'s stream stands where rank {expected}'s should"
                ));
            }
            let len = usize::try_from(r.u64()?).map_err(|_| "a stream too long".to_string())?;
            let events = Trace::decode_stream(r.bytes(len)?)
                .map_err(|e| format!("rank {rank}'s stream holds {e}"))?;
            ranks.push(events);
        }
        if r.at != buf.len() {
            return Err(format!(
                "{} bytes follow the last rank's stream",
                buf.len() - r.at
            ));
        }
        Ok(Trace { ranks })
    }
}

/// Reads little-endian fields, failing with "a truncated ..." at the end.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// The next byte, not consumed.
    pub(crate) fn peek(&self) -> Option<u8> {
        self.buf.get(self.at).copied()
    }
    /// Bytes not yet read.
    pub(crate) fn left(&self) -> usize {
        self.buf.len() - self.at
    }
    pub(crate) fn i32(&mut self) -> Result<i32, String> {
        Ok(i32::from_le_bytes(self.bytes(4)?.try_into().unwrap()))
    }
    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.buf.len());
        let end = end.ok_or_else(|| "a truncated event".to_string())?;
        let s = &self.buf[self.at..end];
        self.at = end;
        Ok(s)
    }
    pub(crate) fn u8(&mut self) -> Result<u8, String> {
        Ok(self.bytes(1)?[0])
    }
    pub(crate) fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.bytes(4)?.try_into().unwrap()))
    }
    pub(crate) fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.bytes(8)?.try_into().unwrap()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_round_trips_and_garbage_is_refused() {
        let t = Trace {
            ranks: vec![
                vec![
                    TraceEvent::Compute { ns: 1234 },
                    TraceEvent::Send {
                        cause: Some((1, 3)),
                        dst: 1,
                        len: 88,
                        header: vec![0x4d; 56],
                    },
                    TraceEvent::Consume {
                        service: true,
                        completes: true,
                        src: 1,
                        index: 7,
                    },
                    TraceEvent::End,
                ],
                vec![TraceEvent::End],
            ],
        };
        let bytes = t.to_bytes();
        assert_eq!(Trace::from_bytes(&bytes), Ok(t));
        assert!(Trace::from_bytes(b"not a trace at all").is_err());
        assert!(Trace::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut bad = bytes.clone();
        bad[8] = 9;
        assert!(Trace::from_bytes(&bad).unwrap_err().contains("version 9"));
    }
}
