//! FIFO resource pools: the links of a node and the buses of the network.
//!
//! A pool has `k` identical servers. A request arriving at `ready` for
//! `hold` nanoseconds takes the server that frees earliest and starts at
//! `max(ready, that server's free time)`; requests are granted in the order
//! they are made (first come, first served, no back-filling of gaps). A pool
//! with `k = 0` is unlimited: every request starts when ready.

use crate::time::Nanos;

/// `k` identical servers, each free from some virtual time on.
#[derive(Clone, Debug)]
pub struct ServerPool {
    free_at: Vec<Nanos>,
}

impl ServerPool {
    /// A pool of `servers` servers, all free at time zero (0 = unlimited).
    pub fn new(servers: u32) -> ServerPool {
        ServerPool {
            free_at: vec![Nanos::ZERO; servers as usize],
        }
    }

    /// True when the pool never makes a request wait.
    pub fn is_unlimited(&self) -> bool {
        self.free_at.is_empty()
    }

    /// The earliest time a request ready at `ready` could start, and which
    /// server it would use (None when unlimited).
    pub fn earliest(&self, ready: Nanos) -> (Nanos, Option<usize>) {
        match self
            .free_at
            .iter()
            .enumerate()
            .min_by_key(|&(i, t)| (*t, i))
        {
            Some((i, &t)) => (ready.max(t), Some(i)),
            None => (ready, None),
        }
    }

    /// Marks `server` (from [`ServerPool::earliest`]) busy until `until`.
    pub fn occupy(&mut self, server: Option<usize>, until: Nanos) {
        if let Some(i) = server {
            self.free_at[i] = until;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_servers_take_turns_in_request_order() {
        let mut p = ServerPool::new(2);
        // Three requests of 10 ns at t = 0: two start at 0, the third waits
        // for the first server to free at 10.
        let mut starts = Vec::new();
        for _ in 0..3 {
            let (s, i) = p.earliest(Nanos(0));
            p.occupy(i, Nanos(s.0 + 10));
            starts.push(s.0);
        }
        assert_eq!(starts, [0, 0, 10]);
    }

    #[test]
    fn unlimited_pool_never_waits() {
        let mut p = ServerPool::new(0);
        for _ in 0..5 {
            let (s, i) = p.earliest(Nanos(7));
            assert_eq!(s, Nanos(7));
            p.occupy(i, Nanos(1_000));
        }
        assert!(p.is_unlimited());
    }
}
