//! What the MPI engine needs from the world: a way to send a message to a
//! rank, to receive the next delivered message, and the clock.
//!
//! The shim implements it over its connection to the mpinetsim gateway;
//! tests implement it in memory.

use crate::envelope::CallCode;

/// A message delivered to this rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incoming {
    /// Sending world rank.
    pub src: u32,
    /// Virtual (scaled) time at which it arrived, ns.
    pub vtime_ns: u64,
    /// The bytes the sender passed to [`Transport::send`].
    pub bytes: Vec<u8>,
}

/// A collective call as a network model that times whole collectives
/// (the analytic model) needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CollectiveStart {
    /// The communicator's collective context id (the lower of the two
    /// groups' ids on an intercommunicator): with `leader`, names the
    /// communicator alike on every member.
    pub context: u32,
    /// The context this rank receives the call's messages (and the
    /// model's release) on.
    pub recv_context: u32,
    /// The call's tag on that context (unique per call).
    pub tag: i32,
    /// World rank naming the communicator (its rank 0; the lower of both
    /// groups' ranks 0 on an intercommunicator).
    pub leader: u32,
    /// The call (a nonblocking call reports itself; see [`CallCode::blocking`]).
    pub call: CallCode,
    /// Members taking part (both groups of an intercommunicator).
    pub members: u32,
    /// This rank is the operation's root.
    pub is_root: bool,
    /// Bytes the call's send arguments describe (count × type size; per
    /// member block for gather/scatter/allgather/alltoall, the mean block
    /// for their `v` and `w` forms).
    pub sent_bytes: u64,
    /// Bytes the call's receive arguments describe, likewise.
    pub received_bytes: u64,
}

/// The engine's connection to the other ranks.
pub trait Transport {
    /// This process's world rank.
    fn rank(&self) -> u32;
    /// Number of world ranks.
    fn size(&self) -> u32;
    /// This process's `MPI_COMM_WORLD` as (first world rank, count): every
    /// rank by default; a spawned process's world is the ranks started
    /// with it.
    fn world(&self) -> (u32, u32) {
        (0, self.size())
    }
    /// `MPI_UNIVERSE_SIZE` (by default the number of ranks).
    fn universe_size(&self) -> u32 {
        self.size()
    }
    /// `MPI_APPNUM`: the index of this process's command in the
    /// `MPI_Comm_spawn_multiple` that started it (0 by default).
    fn appnum(&self) -> i32 {
        0
    }
    /// The rank of the root of the `MPI_Comm_spawn` that started this
    /// process's world (None by default: not spawned).
    fn spawned_by(&self) -> Option<u32> {
        None
    }
    /// `MPI_Comm_spawn`'s root: asks for the processes `request`
    /// describes (opaque here); the first new rank and their number, or
    /// why none was started (by default spawning is not possible).
    fn spawn(&mut self, request: Vec<u8>) -> Result<(u32, u32), String> {
        let _ = request;
        Err("this transport cannot start processes".into())
    }
    /// Sends `bytes` to world rank `dst` (may be this rank). Messages between
    /// one ordered pair arrive in the order sent.
    fn send(&mut self, dst: u32, bytes: Vec<u8>);
    /// The next delivered message, if one is available now.
    fn try_recv(&mut self) -> Option<Incoming>;
    /// Blocks until a message is delivered.
    fn recv_blocking(&mut self) -> Incoming;
    /// Waits at most `timeout` for a delivered message (by default without
    /// limit, for transports that cannot wait with a timeout).
    fn recv_within(&mut self, timeout: std::time::Duration) -> Option<Incoming> {
        let _ = timeout;
        Some(self.recv_blocking())
    }
    /// The rank has waited [`REPORT_WAITING_AFTER`](crate::waiting::REPORT_WAITING_AFTER)
    /// with nothing arriving: tells whoever watches the job what it waits
    /// for (by default nobody).
    fn report_waiting(&mut self, waiting: &crate::waiting::Waiting) {
        let _ = waiting;
    }
    /// Scaled real time now, ns (what MPI_Wtime reports × 1e9).
    fn now_srt_ns(&self) -> u64;
    /// Messages with more payload bytes than this use rendezvous.
    fn eager_limit(&self) -> u64;
    /// A public collective call starts. A transport whose network model
    /// times whole collectives reports it and returns true: it will then
    /// deliver, at the modelled end, a [`Kind::Control`](crate::envelope::Kind::Control) message from this
    /// rank to itself on the call's context and tag, which the call awaits
    /// after its own messages. Others return false (the default).
    fn collective_begin(&mut self, _call: &CollectiveStart) -> bool {
        false
    }
    /// The next delivered one-sided message (see
    /// [`Kind::is_one_sided`](crate::envelope::Kind::is_one_sided)) that is
    /// due now, taken out of order past any other message, which stays for
    /// [`Transport::try_recv`]. What the engine sends until
    /// [`Transport::end_one_sided_service`] is stamped with that message's
    /// arrival time: it is answered as a NIC would answer it, whatever this
    /// process is doing. None by default (a transport without the service).
    fn try_recv_one_sided(&mut self) -> Option<Incoming> {
        None
    }
    /// The arrival time of the earliest delivered one-sided message not
    /// yet due, ns of scaled time (None: there is none).
    fn next_one_sided_srt_ns(&self) -> Option<u64> {
        None
    }
    /// Ends the stamping [`Transport::try_recv_one_sided`] began.
    fn end_one_sided_service(&mut self) {}
    /// The engine starts (`true`) or ends (`false`) handling the message
    /// it took last: what it sends meanwhile answers that message (a CTS,
    /// an acknowledgement, a reply), which a recorded trace notes so a
    /// replay sends it when the message arrives. No-op by default.
    fn handling_message(&mut self, _handling: bool) {}
    /// Handling the current message completed a request (see
    /// [`Transport::handling_message`]). No-op by default.
    fn completed_request(&mut self) {}
    /// A name for the message taken last, which the engine keeps with it
    /// while it waits unexpected (0 by default).
    fn taken_token(&self) -> u64 {
        0
    }
    /// A program's call took the message `token` names from world rank
    /// `src` out of the unexpected queue: the program depended on it.
    /// No-op by default.
    fn program_took(&mut self, _src: u32, _token: u64) {}
    /// The simulated host this rank runs on (ranks on one host form one
    /// `MPI_COMM_TYPE_SHARED` communicator); 0 when unknown.
    fn node(&self) -> u32 {
        0
    }
}
