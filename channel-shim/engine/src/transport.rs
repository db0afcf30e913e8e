//! What the MPI engine needs from the world: a way to send a message to a
//! rank, to receive the next delivered message, and the clock.
//!
//! The shim implements it over its connection to the mpinetsim gateway;
//! tests implement it in memory.

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

/// The engine's connection to the other ranks.
pub trait Transport {
    /// This process's world rank.
    fn rank(&self) -> u32;
    /// Number of world ranks.
    fn size(&self) -> u32;
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
}
