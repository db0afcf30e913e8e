//! FIFO resource pools: the links of a node and the buses of the network.
//!
//! A pool has `k` identical servers. A request arriving at `ready` for
//! `hold` nanoseconds takes the server that frees earliest and starts at
//! `max(ready, that server's free time)`; requests are granted in the order
//! they are made (first come, first served, no back-filling of gaps). A pool
//! with `k = 0` is unlimited: every request starts when ready.

use crate::base::time::Nanos;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// `k` identical servers, each free from some virtual time on. Only the
/// servers ever used are stored (a min-heap of their free times), so a
/// pool of millions of servers costs nothing until they are needed and a
/// request takes O(log used) time.
#[derive(Clone, Debug)]
pub struct ServerPool {
    /// `k`; 0 = unlimited.
    servers: u32,
    /// Free times of the servers used so far.
    free_at: BinaryHeap<Reverse<Nanos>>,
}

/// Which server a request gets (from [`ServerPool::earliest`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Server {
    /// One never used: free since time zero.
    Fresh,
    /// The used server that frees earliest.
    Earliest,
}

impl ServerPool {
    /// A pool of `servers` servers, all free at time zero (0 = unlimited).
    pub fn new(servers: u32) -> ServerPool {
        ServerPool {
            servers,
            free_at: BinaryHeap::new(),
        }
    }

    /// True when the pool never makes a request wait.
    pub fn is_unlimited(&self) -> bool {
        self.servers == 0
    }

    /// The earliest time a request ready at `ready` could start, and which
    /// server it would use (None when unlimited): the server that frees
    /// earliest, a never-used one (free since zero) while any is left.
    pub fn earliest(&self, ready: Nanos) -> (Nanos, Option<Server>) {
        if self.is_unlimited() {
            return (ready, None);
        }
        let used = self.free_at.peek().map(|r| r.0);
        let fresh_left = self.free_at.len() < self.servers as usize;
        match used {
            Some(t) if !fresh_left || t == Nanos::ZERO => (ready.max(t), Some(Server::Earliest)),
            _ => (ready, Some(Server::Fresh)),
        }
    }

    /// Marks `server` (from [`ServerPool::earliest`]) busy until `until`.
    pub fn occupy(&mut self, server: Option<Server>, until: Nanos) {
        match server {
            None => {}
            Some(Server::Fresh) => self.free_at.push(Reverse(until)),
            Some(Server::Earliest) => {
                self.free_at.pop();
                self.free_at.push(Reverse(until));
            }
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
    fn a_huge_pool_stores_only_the_servers_used() {
        let mut p = ServerPool::new(u32::MAX);
        for k in 0..1000u64 {
            let (s, i) = p.earliest(Nanos(k));
            assert_eq!(s, Nanos(k), "never waits while unused servers are left");
            p.occupy(i, Nanos(k + 1_000_000));
        }
        assert_eq!(p.free_at.len(), 1000);
        // Three servers, requests of 10 ns arriving at 0, 0, 0, 5, 25:
        // the fourth waits for the first to free, the fifth finds one free.
        let mut p = ServerPool::new(3);
        let starts: Vec<u64> = [0, 0, 0, 5, 25]
            .iter()
            .map(|&r| {
                let (s, i) = p.earliest(Nanos(r));
                p.occupy(i, Nanos(s.0 + 10));
                s.0
            })
            .collect();
        assert_eq!(starts, [0, 0, 0, 10, 25]);
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
