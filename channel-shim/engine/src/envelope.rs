//! The binary header the shim puts before the payload of every message it
//! sends through the [`Transport`](crate::transport::Transport).
//!
//! # Layout (version 1)
//!
//! All integers are little-endian; the header is [`HEADER_LEN`] = 56 bytes
//! and is followed by exactly `payload_len` payload bytes.
//!
//! | offset | size | field         | meaning |
//! |-------:|-----:|---------------|---------|
//! | 0      | 1    | `magic`       | always `0x4D` (`'M'`) |
//! | 1      | 1    | `version`     | always `1` |
//! | 2      | 1    | `kind`        | [`Kind`]: 1 eager, 2 RTS, 3 CTS, 4 rendezvous data (one piece), 5 Ssend ack, 6 control (never on the wire: the analytic model's release of a collective, delivered by the rank's own transport), 7 piece ack, 8 cancel request, 9 cancel reply, 10 RMA put, 11 RMA get, 12 RMA accumulate, 13 RMA get-accumulate, 14 RMA compare-and-swap, 15 RMA ack, 16 RMA reply, 17 RMA post, 18 RMA complete, 19 RMA lock, 20 RMA lock granted, 21 RMA unlock |
//! | 3      | 1    | `flags`       | bit 0 [`FLAG_SYNC`]: synchronous send, the receiver acknowledges the match; bit 1 [`FLAG_COLL_ERROR`]: the sender's part of a collective already failed; bit 2 [`FLAG_INTERCOMM`]: sent on an intercommunicator; other bits zero |
//! | 4      | 1    | `call`        | [`CallCode`]: the MPI call that produced the message |
//! | 5      | 3    | reserved      | zero |
//! | 8      | 4    | `src`         | sending world rank (u32) |
//! | 12     | 4    | `dst`         | destination world rank (u32) |
//! | 16     | 4    | `tag`         | MPI tag (i32); a collective's messages carry the call's sequence number on its communicator (bits 8–30) and its call code (bits 0–7), see [`coll_tag`](crate::collectives::coll_tag) |
//! | 20     | 4    | `context`     | communicator context id (u32); even = point-to-point, odd = collectives of the same communicator |
//! | 24     | 4    | `seq`         | sequence number of the matchable message per (src, dst, context), from 0; CTS, data and acks repeat the number of the message they belong to |
//! | 28     | 4    | `sender_op`   | sender's operation id: set on RTS, CTS, data and acks, and on eager messages with `FLAG_SYNC`; on a cancel request and its reply, the sender's cancel operation; else 0 |
//! | 32     | 4    | `receiver_op` | receiver's operation id: set on CTS, data and piece acks; else 0 |
//! | 36     | 4    | reserved      | zero |
//! | 40     | 8    | `msg_len`     | length of the whole MPI message in bytes (u64): the payload for eager, the announced length for RTS, CTS and data, the bytes received so far for a piece ack, 0 for an Ssend ack and a cancel request, 1 (cancelled) or 0 (too late) for a cancel reply |
//! | 48     | 8    | `payload_len` | number of payload bytes after the header (u64): `msg_len` for eager, the piece's length for data (at most `msg_len`), else 0 |
//!
//! A rendezvous transfer is RTS (sender → receiver, no payload) → CTS
//! (receiver → sender once the receive matched, no payload) → data: the
//! payload in order, in pieces of at most the engine's chunk size (1 MiB),
//! each a message of its own. The sender keeps at most a window of pieces
//! (8) unacknowledged: the receiver acknowledges piece *i* (a piece ack,
//! no payload) only when the message has a piece *i* + window, which the
//! sender sends on that ack. A synchronous eager send is answered by an
//! Ssend ack.
//!
//! `MPI_Cancel` of a send sends a cancel request naming the message by
//! (`src`, `context`, `seq`) to its destination, which removes the message
//! (eager data or RTS) from its unexpected queue if no receive has matched
//! it yet and answers with a cancel reply saying whether it did.
//!
//! One-sided operations (`crate::rma`) travel on the window's context id
//! (its hidden communicator's): a request (put, get, accumulate,
//! get-accumulate, compare-and-swap; `sender_op` names the origin's
//! operation, `msg_len` the packed bytes it moves, and the payload starts
//! with the target description of `crate::rma::wire`) is answered by an
//! RMA ack (put, accumulate) or an RMA reply carrying the old contents,
//! both repeating `sender_op`; an ack or reply's `tag` is 0 or the MPI
//! error class the target met. `MPI_Win_post` sends an RMA post to each
//! origin, `MPI_Win_complete` an RMA complete to each target. `MPI_Win_lock`
//! sends an RMA lock (`tag` 1 exclusive, 0 shared) answered by an RMA lock
//! granted when the target's queue lets it in; `MPI_Win_unlock` sends an
//! RMA unlock once the origin's operations on the target were answered.
//!
//! [`Envelope::decode`] never panics: garbage yields an [`EnvelopeError`].

use std::fmt;

/// Length of the encoded header in bytes.
pub const HEADER_LEN: usize = 56;
/// First byte of every header.
pub const MAGIC: u8 = 0x4D;
/// The layout version this module writes and reads.
pub const VERSION: u8 = 1;
/// Flag: synchronous-mode send; the receiver sends an ack when it matches.
pub const FLAG_SYNC: u8 = 1;
/// Flag: a collective message sent after the sender's part of the
/// collective failed (MPICH's error bit in the tag); the receiving rank's
/// collective then fails with `MPI_ERR_OTHER` too.
pub const FLAG_COLL_ERROR: u8 = 2;
/// Flag: a message on an intercommunicator (its source and destination
/// are in different groups).
pub const FLAG_INTERCOMM: u8 = 4;
/// Every flag bit a header may carry.
const KNOWN_FLAGS: u8 = FLAG_SYNC | FLAG_COLL_ERROR | FLAG_INTERCOMM;

/// What a message is, in the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Kind {
    /// Eager message: header and the whole payload.
    Eager = 1,
    /// Rendezvous request to send (no payload).
    Rts = 2,
    /// Clear to send: the receive matched the RTS.
    Cts = 3,
    /// Rendezvous data after a CTS.
    Data = 4,
    /// Acknowledgement of a matched synchronous eager send.
    SyncAck = 5,
    /// The end of a collective the network model times as one operation
    /// (analytic model): delivered by the rank's own transport from the
    /// rank itself, on the call's context and tag; never on the wire.
    Control = 6,
    /// The receiver stored a piece of rendezvous data: the sender may send
    /// the piece one window further.
    PieceAck = 7,
    /// The sender cancels a message not yet matched (`MPI_Cancel`).
    CancelRequest = 8,
    /// Whether the receiver removed the message a cancel request named.
    CancelReply = 9,
    /// One-sided: write the payload's data into the target window
    /// (`MPI_Put`); answered by an [`RmaAck`](Kind::RmaAck).
    RmaPut = 10,
    /// One-sided: read from the target window (`MPI_Get`); answered by an
    /// [`RmaReply`](Kind::RmaReply) with the data.
    RmaGet = 11,
    /// One-sided: combine the payload's data into the target window
    /// (`MPI_Accumulate`); answered by an [`RmaAck`](Kind::RmaAck).
    RmaAccumulate = 12,
    /// One-sided: combine and return the old contents
    /// (`MPI_Get_accumulate`, `MPI_Fetch_and_op`); answered by an
    /// [`RmaReply`](Kind::RmaReply).
    RmaGetAccumulate = 13,
    /// One-sided: compare and swap one element (`MPI_Compare_and_swap`);
    /// answered by an [`RmaReply`](Kind::RmaReply) with the old value.
    RmaCompareSwap = 14,
    /// The target applied a put or accumulate.
    RmaAck = 15,
    /// The target's answer to a get, get-accumulate or compare-and-swap:
    /// the old contents.
    RmaReply = 16,
    /// `MPI_Win_post`: the target's window is exposed to the origin.
    RmaPost = 17,
    /// `MPI_Win_complete`: the origin's operations on the target are done.
    RmaComplete = 18,
    /// `MPI_Win_lock` (and `lock_all`): asks the target for a lock; `tag`
    /// is 1 for exclusive, 0 for shared.
    RmaLock = 19,
    /// The target granted a lock.
    RmaLockGranted = 20,
    /// `MPI_Win_unlock` (and `unlock_all`): releases a lock, after the
    /// origin's operations on the target were answered.
    RmaUnlock = 21,
}

impl Kind {
    /// The kind encoded as `b`, if any.
    pub fn from_u8(b: u8) -> Option<Kind> {
        Some(match b {
            1 => Kind::Eager,
            2 => Kind::Rts,
            3 => Kind::Cts,
            4 => Kind::Data,
            5 => Kind::SyncAck,
            6 => Kind::Control,
            7 => Kind::PieceAck,
            8 => Kind::CancelRequest,
            9 => Kind::CancelReply,
            10 => Kind::RmaPut,
            11 => Kind::RmaGet,
            12 => Kind::RmaAccumulate,
            13 => Kind::RmaGetAccumulate,
            14 => Kind::RmaCompareSwap,
            15 => Kind::RmaAck,
            16 => Kind::RmaReply,
            17 => Kind::RmaPost,
            18 => Kind::RmaComplete,
            19 => Kind::RmaLock,
            20 => Kind::RmaLockGranted,
            21 => Kind::RmaUnlock,
            _ => return None,
        })
    }

    /// Whether the kind is a one-sided message (an RMA request, answer or
    /// synchronisation), which a rank serves even while it computes.
    pub fn is_one_sided(self) -> bool {
        (Kind::RmaPut as u8..=Kind::RmaUnlock as u8).contains(&(self as u8))
    }
}

/// Whether encoded message `bytes` is a one-sided one (see
/// [`Kind::is_one_sided`]), read from its header without decoding it all.
pub fn is_one_sided_message(bytes: &[u8]) -> bool {
    bytes
        .get(2)
        .and_then(|&k| Kind::from_u8(k))
        .is_some_and(Kind::is_one_sided)
}

macro_rules! call_codes {
    ($($(#[$m:meta])* $name:ident = $v:expr,)*) => {
        /// The MPI call that produced a message (8 bits on the wire).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        #[allow(non_camel_case_types)]
        pub enum CallCode { $($(#[$m])* $name = $v,)* }
        impl CallCode {
            /// The code encoded as `b`, if any.
            pub fn from_u8(b: u8) -> Option<CallCode> {
                match b { $($v => Some(CallCode::$name),)* _ => None }
            }
            /// The MPI function name, e.g. `"MPI_Send"`.
            pub fn name(self) -> &'static str {
                match self { $(CallCode::$name => concat!("MPI_", stringify!($name)),)* }
            }
        }
    };
}

call_codes! {
    /// Not known / internal.
    Other = 0,
    /// MPI_Send.
    Send = 1,
    /// MPI_Isend.
    Isend = 2,
    /// MPI_Ssend.
    Ssend = 3,
    /// MPI_Issend.
    Issend = 4,
    /// MPI_Bsend.
    Bsend = 5,
    /// MPI_Ibsend.
    Ibsend = 6,
    /// MPI_Rsend.
    Rsend = 7,
    /// MPI_Irsend.
    Irsend = 8,
    /// MPI_Send_init (and the other persistent sends).
    Send_init = 9,
    /// MPI_Sendrecv.
    Sendrecv = 10,
    /// MPI_Sendrecv_replace.
    Sendrecv_replace = 11,
    /// MPI_Recv (on CTS messages).
    Recv = 12,
    /// MPI_Irecv (on CTS messages).
    Irecv = 13,
    /// MPI_Recv_init (on CTS messages).
    Recv_init = 14,
    /// MPI_Ssend_init.
    Ssend_init = 15,
    /// MPI_Bsend_init.
    Bsend_init = 16,
    /// MPI_Rsend_init.
    Rsend_init = 17,
    /// MPI_Cancel (cancel requests and replies).
    Cancel = 18,
    /// MPI_Isendrecv.
    Isendrecv = 19,
    /// MPI_Isendrecv_replace.
    Isendrecv_replace = 20,
    /// MPI_Put.
    Put = 21,
    /// MPI_Get.
    Get = 22,
    /// MPI_Accumulate.
    Accumulate = 23,
    /// MPI_Get_accumulate.
    Get_accumulate = 24,
    /// MPI_Fetch_and_op.
    Fetch_and_op = 25,
    /// MPI_Compare_and_swap.
    Compare_and_swap = 26,
    /// MPI_Win_fence (its barrier).
    Win_fence = 27,
    /// MPI_Win_post.
    Win_post = 28,
    /// MPI_Win_complete.
    Win_complete = 29,
    /// MPI_Win_create and MPI_Win_allocate (the window's communicator).
    Win_create = 30,
    /// MPI_Win_free (its barrier).
    Win_free = 31,
    /// MPI_Barrier.
    Barrier = 32,
    /// MPI_Bcast.
    Bcast = 33,
    /// MPI_Reduce.
    Reduce = 34,
    /// MPI_Allreduce.
    Allreduce = 35,
    /// MPI_Gather.
    Gather = 36,
    /// MPI_Gatherv.
    Gatherv = 37,
    /// MPI_Scatter.
    Scatter = 38,
    /// MPI_Scatterv.
    Scatterv = 39,
    /// MPI_Allgather.
    Allgather = 40,
    /// MPI_Allgatherv.
    Allgatherv = 41,
    /// MPI_Alltoall.
    Alltoall = 42,
    /// MPI_Alltoallv.
    Alltoallv = 43,
    /// MPI_Alltoallw.
    Alltoallw = 44,
    /// MPI_Reduce_scatter.
    Reduce_scatter = 45,
    /// MPI_Reduce_scatter_block.
    Reduce_scatter_block = 46,
    /// MPI_Scan.
    Scan = 47,
    /// MPI_Exscan.
    Exscan = 48,
    /// MPI_Comm_dup (context-id agreement).
    Comm_dup = 64,
    /// MPI_Comm_split (context-id agreement and colours).
    Comm_split = 65,
    /// MPI_Comm_create (context-id agreement).
    Comm_create = 66,
    /// MPI_Cart_create (context-id agreement).
    Cart_create = 67,
    /// MPI_Graph_create (context-id agreement).
    Graph_create = 68,
    /// MPI_Dist_graph_create (context-id agreement, edges to their ends).
    Dist_graph_create = 69,
    /// MPI_Dist_graph_create_adjacent (context-id agreement).
    Dist_graph_create_adjacent = 70,
    /// MPI_Comm_idup (context-id agreement).
    Comm_idup = 71,
    /// MPI_Comm_split_type (colours by node).
    Comm_split_type = 72,
    /// MPI_Comm_create_group (context-id agreement over the group).
    Comm_create_group = 73,
    /// MPI_Intercomm_create (context ids and groups between the leaders).
    Intercomm_create = 74,
    /// MPI_Intercomm_merge (context-id agreement, order of the groups).
    Intercomm_merge = 75,
    /// MPI_Neighbor_allgather.
    Neighbor_allgather = 96,
    /// MPI_Neighbor_allgatherv.
    Neighbor_allgatherv = 97,
    /// MPI_Neighbor_alltoall.
    Neighbor_alltoall = 98,
    /// MPI_Neighbor_alltoallv.
    Neighbor_alltoallv = 99,
    /// MPI_Neighbor_alltoallw.
    Neighbor_alltoallw = 100,
    /// MPI_Ineighbor_allgather.
    Ineighbor_allgather = 101,
    /// MPI_Ineighbor_allgatherv.
    Ineighbor_allgatherv = 102,
    /// MPI_Ineighbor_alltoall.
    Ineighbor_alltoall = 103,
    /// MPI_Ineighbor_alltoallv.
    Ineighbor_alltoallv = 104,
    /// MPI_Ineighbor_alltoallw.
    Ineighbor_alltoallw = 105,
    /// MPI_Ibarrier.
    Ibarrier = 128,
    /// MPI_Ibcast.
    Ibcast = 129,
    /// MPI_Ireduce.
    Ireduce = 130,
    /// MPI_Iallreduce.
    Iallreduce = 131,
    /// MPI_Igather.
    Igather = 132,
    /// MPI_Igatherv.
    Igatherv = 133,
    /// MPI_Iscatter.
    Iscatter = 134,
    /// MPI_Iscatterv.
    Iscatterv = 135,
    /// MPI_Iallgather.
    Iallgather = 136,
    /// MPI_Iallgatherv.
    Iallgatherv = 137,
    /// MPI_Ialltoall.
    Ialltoall = 138,
    /// MPI_Ialltoallv.
    Ialltoallv = 139,
    /// MPI_Ialltoallw.
    Ialltoallw = 140,
    /// MPI_Ireduce_scatter.
    Ireduce_scatter = 141,
    /// MPI_Ireduce_scatter_block.
    Ireduce_scatter_block = 142,
    /// MPI_Iscan.
    Iscan = 143,
    /// MPI_Iexscan.
    Iexscan = 144,
    /// MPI_Win_lock.
    Win_lock = 160,
    /// MPI_Win_unlock.
    Win_unlock = 161,
    /// MPI_Win_lock_all.
    Win_lock_all = 162,
    /// MPI_Win_unlock_all.
    Win_unlock_all = 163,
    /// MPI_Pready and its range and list forms: a piece of a partition of
    /// a partitioned send (on the collective context, timed as
    /// point-to-point).
    Pready = 164,
    /// MPI_Comm_connect: a root's request to the root accepting on a
    /// port (on a context of its own, see `ports`).
    Comm_connect = 165,
    /// MPIX_Comm_revoke (named `MPI_Comm_revoke`, as the MPI Forum's
    /// fault-tolerance proposal does): the notice a revoking process sends
    /// every other member (a control message, see `revoke`).
    Comm_revoke = 166,
}

/// Each nonblocking collective's call code and its blocking call's.
const NONBLOCKING: [(CallCode, CallCode); 22] = {
    use CallCode::*;
    [
        (Ibarrier, Barrier),
        (Ibcast, Bcast),
        (Ireduce, Reduce),
        (Iallreduce, Allreduce),
        (Igather, Gather),
        (Igatherv, Gatherv),
        (Iscatter, Scatter),
        (Iscatterv, Scatterv),
        (Iallgather, Allgather),
        (Iallgatherv, Allgatherv),
        (Ialltoall, Alltoall),
        (Ialltoallv, Alltoallv),
        (Ialltoallw, Alltoallw),
        (Ireduce_scatter, Reduce_scatter),
        (Ireduce_scatter_block, Reduce_scatter_block),
        (Iscan, Scan),
        (Iexscan, Exscan),
        (Ineighbor_allgather, Neighbor_allgather),
        (Ineighbor_allgatherv, Neighbor_allgatherv),
        (Ineighbor_alltoall, Neighbor_alltoall),
        (Ineighbor_alltoallv, Neighbor_alltoallv),
        (Ineighbor_alltoallw, Neighbor_alltoallw),
    ]
};

impl CallCode {
    /// The blocking call of a nonblocking collective (itself otherwise):
    /// both run the same algorithm and the network model times them alike.
    pub fn blocking(self) -> CallCode {
        NONBLOCKING
            .iter()
            .find(|(i, _)| *i == self)
            .map_or(self, |(_, b)| *b)
    }

    /// The nonblocking call of a blocking collective (itself otherwise).
    pub fn nonblocking(self) -> CallCode {
        NONBLOCKING
            .iter()
            .find(|(_, b)| *b == self)
            .map_or(self, |(i, _)| *i)
    }

    /// Whether the code is a neighbourhood collective's (blocking or
    /// not): its messages are the collective (one per edge of the
    /// topology), so the analytic network model times them as
    /// point-to-point messages.
    pub fn is_neighborhood(self) -> bool {
        (96..=127).contains(&(self as u8))
    }
}

/// A decoded header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    /// What the message is.
    pub kind: Kind,
    /// Flag bits ([`FLAG_SYNC`], [`FLAG_COLL_ERROR`]).
    pub flags: u8,
    /// The MPI call that produced it.
    pub call: CallCode,
    /// Sending world rank.
    pub src: u32,
    /// Destination world rank.
    pub dst: u32,
    /// MPI tag.
    pub tag: i32,
    /// Communicator context id.
    pub context: u32,
    /// Sequence number per (src, dst, context).
    pub seq: u32,
    /// Sender's operation id (rendezvous / sync).
    pub sender_op: u32,
    /// Receiver's operation id (rendezvous).
    pub receiver_op: u32,
    /// Length of the whole MPI message.
    pub msg_len: u64,
    /// Payload bytes following the header.
    pub payload_len: u64,
}

/// Why bytes are not a valid message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvelopeError {
    /// Fewer than [`HEADER_LEN`] bytes.
    Short(usize),
    /// First byte is not [`MAGIC`].
    Magic(u8),
    /// Unknown layout version.
    Version(u8),
    /// Unknown kind byte.
    Kind(u8),
    /// Unknown call code.
    Call(u8),
    /// Unknown flag bits or non-zero reserved bytes.
    Reserved,
    /// `payload_len` disagrees with the bytes present, or with `msg_len`.
    Length {
        /// What the header says.
        declared: u64,
        /// What is there.
        actual: u64,
    },
}

impl fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvelopeError::Short(n) => write!(f, "message of {n} bytes is shorter than the header"),
            EnvelopeError::Magic(b) => write!(f, "bad magic byte {b:#04x}"),
            EnvelopeError::Version(v) => write!(f, "unknown envelope version {v}"),
            EnvelopeError::Kind(k) => write!(f, "unknown message kind {k}"),
            EnvelopeError::Call(c) => write!(f, "unknown call code {c}"),
            EnvelopeError::Reserved => write!(f, "reserved bits set"),
            EnvelopeError::Length { declared, actual } => {
                write!(f, "payload length {declared} but {actual} bytes present")
            }
        }
    }
}

impl std::error::Error for EnvelopeError {}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

impl Envelope {
    /// Encodes the header followed by `payload` (whose length must be
    /// `self.payload_len`; it is overwritten with the real length).
    pub fn encode(&self, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        self.encode_header(payload.len() as u64, &mut out);
        out.extend_from_slice(payload);
        out
    }

    /// Appends the header announcing `payload_len` payload bytes (which
    /// the caller appends next).
    pub fn encode_header(&self, payload_len: u64, out: &mut Vec<u8>) {
        out.extend_from_slice(&[MAGIC, VERSION, self.kind as u8, self.flags, self.call as u8]);
        out.extend_from_slice(&[0, 0, 0]);
        out.extend_from_slice(&self.src.to_le_bytes());
        out.extend_from_slice(&self.dst.to_le_bytes());
        out.extend_from_slice(&self.tag.to_le_bytes());
        out.extend_from_slice(&self.context.to_le_bytes());
        out.extend_from_slice(&self.seq.to_le_bytes());
        out.extend_from_slice(&self.sender_op.to_le_bytes());
        out.extend_from_slice(&self.receiver_op.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&self.msg_len.to_le_bytes());
        out.extend_from_slice(&payload_len.to_le_bytes());
    }

    /// Decodes a whole message into its header and its payload slice.
    pub fn decode(bytes: &[u8]) -> Result<(Envelope, &[u8]), EnvelopeError> {
        if bytes.len() < HEADER_LEN {
            return Err(EnvelopeError::Short(bytes.len()));
        }
        if bytes[0] != MAGIC {
            return Err(EnvelopeError::Magic(bytes[0]));
        }
        if bytes[1] != VERSION {
            return Err(EnvelopeError::Version(bytes[1]));
        }
        let kind = Kind::from_u8(bytes[2]).ok_or(EnvelopeError::Kind(bytes[2]))?;
        let flags = bytes[3];
        let call = CallCode::from_u8(bytes[4]).ok_or(EnvelopeError::Call(bytes[4]))?;
        if flags & !KNOWN_FLAGS != 0 || bytes[5..8] != [0, 0, 0] || u32_at(bytes, 36) != 0 {
            return Err(EnvelopeError::Reserved);
        }
        let payload_len = u64_at(bytes, 48);
        let actual = (bytes.len() - HEADER_LEN) as u64;
        if payload_len != actual {
            return Err(EnvelopeError::Length {
                declared: payload_len,
                actual,
            });
        }
        let msg_len = u64_at(bytes, 40);
        let fits = match kind {
            Kind::Eager => msg_len == payload_len,
            Kind::Data => payload_len <= msg_len,
            _ => true,
        };
        if !fits {
            return Err(EnvelopeError::Length {
                declared: msg_len,
                actual,
            });
        }
        let env = Envelope {
            kind,
            flags,
            call,
            src: u32_at(bytes, 8),
            dst: u32_at(bytes, 12),
            tag: u32_at(bytes, 16) as i32,
            context: u32_at(bytes, 20),
            seq: u32_at(bytes, 24),
            sender_op: u32_at(bytes, 28),
            receiver_op: u32_at(bytes, 32),
            msg_len,
            payload_len,
        };
        Ok((env, &bytes[HEADER_LEN..]))
    }

    /// True for synchronous-mode sends.
    pub fn is_sync(&self) -> bool {
        self.flags & FLAG_SYNC != 0
    }

    /// True for collective messages sent after the sender's part failed.
    pub fn is_coll_error(&self) -> bool {
        self.flags & FLAG_COLL_ERROR != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Envelope {
        Envelope {
            kind: Kind::Rts,
            flags: FLAG_SYNC,
            call: CallCode::Issend,
            src: 3,
            dst: 7,
            tag: -5,
            context: 4,
            seq: 99,
            sender_op: 12,
            receiver_op: 0,
            msg_len: 1 << 20,
            payload_len: 0,
        }
    }

    #[test]
    fn round_trip() {
        let e = sample();
        let b = e.encode(&[]);
        assert_eq!(b.len(), HEADER_LEN);
        let (d, p) = Envelope::decode(&b).unwrap();
        assert_eq!(d, e);
        assert!(p.is_empty());
        let mut e2 = sample();
        e2.kind = Kind::Eager;
        e2.msg_len = 3;
        e2.payload_len = 3;
        let b = e2.encode(&[1, 2, 3]);
        let (d, p) = Envelope::decode(&b).unwrap();
        assert_eq!(d, e2);
        assert_eq!(p, &[1, 2, 3]);
        // A piece of rendezvous data: its payload is part of the message.
        let mut piece = sample();
        piece.kind = Kind::Data;
        piece.payload_len = 2;
        let bytes = piece.encode(&[4, 5]);
        let (d, p) = Envelope::decode(&bytes).unwrap();
        assert_eq!((d, p), (piece.clone(), &[4u8, 5][..]));
        piece.msg_len = 1;
        assert!(Envelope::decode(&piece.encode(&[4, 5])).is_err());
        let mut ack = sample();
        ack.kind = Kind::PieceAck;
        ack.msg_len = 2 << 20;
        assert_eq!(Envelope::decode(&ack.encode(&[])).unwrap().0, ack);
    }

    #[test]
    fn layout_offsets() {
        let b = sample().encode(&[]);
        assert_eq!(b[0], 0x4D);
        assert_eq!(b[2], 2);
        assert_eq!(b[4], CallCode::Issend as u8);
        assert_eq!(&b[8..12], &3u32.to_le_bytes());
        assert_eq!(&b[16..20], &(-5i32).to_le_bytes());
        assert_eq!(&b[40..48], &(1u64 << 20).to_le_bytes());
    }

    #[test]
    fn the_collective_error_flag_round_trips_and_unknown_flags_are_rejected() {
        let mut e = sample();
        e.flags = FLAG_SYNC | FLAG_COLL_ERROR;
        let (d, _) = Envelope::decode(&e.encode(&[])).unwrap();
        assert!(d.is_sync() && d.is_coll_error());
        assert!(!sample().is_coll_error());
        let mut b = sample().encode(&[]);
        b[3] = 8;
        assert_eq!(Envelope::decode(&b), Err(EnvelopeError::Reserved));
    }

    #[test]
    fn garbage_is_an_error() {
        assert_eq!(Envelope::decode(&[]), Err(EnvelopeError::Short(0)));
        let good = sample().encode(&[]);
        for i in 0..HEADER_LEN {
            for v in [0u8, 0xff, 0x7f] {
                let mut b = good.clone();
                b[i] = v;
                let _ = Envelope::decode(&b); // must not panic
            }
        }
        let mut b = good.clone();
        b.push(1);
        assert!(matches!(
            Envelope::decode(&b),
            Err(EnvelopeError::Length { .. })
        ));
        // Pseudo-random garbage.
        let mut x: u64 = 0x1234_5678;
        for len in 0..200 {
            let v: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let _ = Envelope::decode(&v);
        }
    }

    #[test]
    fn call_codes_round_trip() {
        for b in 0..=255u8 {
            if let Some(c) = CallCode::from_u8(b) {
                assert_eq!(c as u8, b);
                assert!(c.name().starts_with("MPI_"));
            }
        }
        assert_eq!(CallCode::Allreduce.name(), "MPI_Allreduce");
    }
}
