//! Random Early Detection (Floyd and Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1993): a FIFO that
//! drops arriving frames with a probability that grows with the *average*
//! queue length, so a queue that is long for a while tells TCP senders to
//! slow down before it overflows, while short bursts pass.
//!
//! At each arrival the average `avg` (in packets) is updated:
//! - queue not empty: `avg ← (1 − w_q)·avg + w_q·q`, `q` the packets
//!   waiting (not counting the one on the wire);
//! - queue empty since `q_time`: `avg ← (1 − w_q)^m·avg` with
//!   `m = ⌊(now − q_time) / s⌋`, `s` the time the link takes to send one
//!   MTU-sized packet (the paper's "typical small packet"), as if `m`
//!   packets had arrived to an empty queue.
//!
//! Then, with `count` the frames accepted since the last early drop:
//! - `avg < min_th`: accept; `count ← −1`;
//! - `min_th ≤ avg < max_th`: `count ← count + 1`,
//!   `p_b = max_p·(avg − min_th)/(max_th − min_th)`,
//!   `p_a = p_b / (1 − count·p_b)` (1 once `count·p_b ≥ 1`); drop with
//!   probability `p_a` (then `count ← 0`);
//! - `avg ≥ max_th`: drop; `count ← 0`.
//!
//! With `red_ecn` (RFC 3168 §5, as Linux's RED with its `ecn` flag), an
//! ECN-capable frame RED chose to drop — early or from `max_th` on — is
//! kept and marked Congestion Experienced instead; the decision, the
//! random numbers and `count` are the same, so marks fall where drops
//! would have. Frames that are not ECN-capable are dropped as before.
//!
//! A frame RED accepts can still meet the hard limits (`queue_packets`,
//! `queue_bytes`) and be dropped there, as drop-tail does. The random
//! numbers come from a generator seeded per port from the network's seed,
//! so a run is reproducible.

use super::{Admission, DropTail, QueueDiscipline};
use crate::base::rng::SimRng;
use crate::base::time::Nanos;
use crate::topology::graph::RedParams;
use crate::wire::packet::PacketId;

/// A RED queue of one port.
#[derive(Debug)]
pub struct Red {
    fifo: DropTail,
    params: RedParams,
    /// Time to send one MTU-sized packet, ns (`s`); 0 on an unlimited link.
    packet_time_ns: u64,
    /// Average queue length, packets.
    avg: f64,
    /// Frames accepted since the last early drop (−1: avg below min_th).
    count: i64,
    /// When the queue last became empty (`q_time`), while it is empty.
    empty_since: Option<Nanos>,
    rng: SimRng,
}

impl Red {
    /// An empty RED queue with hard limits `limit_packets` and
    /// `limit_bytes`, sending one MTU-sized packet in `packet_time_ns`,
    /// drawing its random numbers from a generator seeded with `seed`.
    pub fn new(
        params: RedParams,
        limit_packets: u32,
        limit_bytes: u64,
        packet_time_ns: u64,
        seed: u64,
    ) -> Red {
        Red {
            fifo: DropTail::new(limit_packets, limit_bytes),
            params,
            packet_time_ns,
            avg: 0.0,
            count: -1,
            empty_since: Some(Nanos::ZERO),
            rng: SimRng::new(seed),
        }
    }

    /// The average queue length, packets.
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// Updates the average for an arrival at `now` (the paper's first step).
    fn update_average(&mut self, now: Nanos) {
        let w = self.params.weight;
        match self.empty_since.take() {
            None => self.avg = (1.0 - w) * self.avg + w * self.fifo.len() as f64,
            Some(since) => {
                let idle = now.0.saturating_sub(since.0);
                let m = idle
                    .checked_div(self.packet_time_ns)
                    .unwrap_or(if idle > 0 { u64::MAX } else { 0 });
                // (1 − w)^m underflows to 0 long before m reaches i32::MAX.
                self.avg *= (1.0 - w).powi(m.min(i32::MAX as u64) as i32);
            }
        }
    }

    /// The paper's decision for the current average: true to drop early.
    fn drops_early(&mut self) -> bool {
        let p = self.params;
        if self.avg < p.min_th {
            self.count = -1;
            return false;
        }
        if self.avg >= p.max_th {
            self.count = 0;
            return true;
        }
        self.count += 1;
        let pb = p.max_p * (self.avg - p.min_th) / (p.max_th - p.min_th);
        let denominator = 1.0 - self.count as f64 * pb;
        let pa = if denominator <= 0.0 {
            1.0
        } else {
            pb / denominator
        };
        if self.rng.next_f64() < pa {
            self.count = 0;
            true
        } else {
            false
        }
    }
}

impl QueueDiscipline for Red {
    fn enqueue(&mut self, pkt: PacketId, frame_bytes: u64, now: Nanos) -> Admission {
        self.enqueue_ecn(pkt, frame_bytes, false, now)
    }

    fn enqueue_ecn(
        &mut self,
        pkt: PacketId,
        frame_bytes: u64,
        ecn_capable: bool,
        now: Nanos,
    ) -> Admission {
        self.update_average(now);
        let early = self.drops_early();
        if early && !(self.params.ecn && ecn_capable) {
            if self.fifo.is_empty() {
                self.empty_since = Some(now);
            }
            return Admission::DroppedEarly;
        }
        let accepted = self.fifo.enqueue(pkt, frame_bytes, now);
        if self.fifo.is_empty() {
            self.empty_since = Some(now);
        }
        match accepted {
            Admission::Queued if early => Admission::Marked,
            a => a,
        }
    }

    fn dequeue(&mut self, now: Nanos) -> Option<PacketId> {
        let p = self.fifo.dequeue(now)?;
        if self.fifo.is_empty() {
            self.empty_since = Some(now);
        }
        Some(p)
    }

    counts_of_fifo!();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red(min_th: f64, max_th: f64, max_p: f64, weight: f64) -> Red {
        let p = RedParams {
            min_th,
            max_th,
            max_p,
            weight,
            ecn: false,
        };
        // 1000-packet hard limit, 12 µs per packet (1500 B at 1 Gbps).
        Red::new(p, 1000, u64::MAX, 12_000, 7)
    }

    #[test]
    fn the_average_is_the_papers_ewma_and_decays_over_idle_time() {
        // w = 1/4 keeps every value a short binary fraction: exact.
        let mut q = red(100.0, 200.0, 0.02, 0.25);
        let t = Nanos(1_000);
        // Empty since 0, 1000 ns < one packet time: m = 0, avg stays 0.
        assert_eq!(q.enqueue(1, 1500, t), Admission::Queued);
        assert_eq!(q.average(), 0.0);
        // Queue of 1, 2, 3 at the next arrivals.
        assert_eq!(q.enqueue(2, 1500, t), Admission::Queued);
        assert_eq!(q.average(), 0.25);
        assert_eq!(q.enqueue(3, 1500, t), Admission::Queued);
        assert_eq!(q.average(), 0.75 * 0.25 + 0.25 * 2.0); // 0.6875
        assert_eq!(q.enqueue(4, 1500, t), Admission::Queued);
        assert_eq!(q.average(), 1.265625); // 0.75 × 0.6875 + 0.75
        for _ in 0..4 {
            q.dequeue(Nanos(50_000)).unwrap();
        }
        // Empty from 50 µs; an arrival 3.5 packet times later: m = 3.
        assert_eq!(
            q.enqueue(5, 1500, Nanos(50_000 + 42_000)),
            Admission::Queued
        );
        assert_eq!(q.average(), 1.265625 * 0.421875); // × 0.75³
    }

    #[test]
    fn below_min_th_nothing_is_dropped() {
        // A queue held at 4 packets: avg_n = 4·(1 − (1 − w)^(n−1)) < 5.
        let w = 0.002;
        let mut q = red(5.0, 15.0, 0.02, w);
        let now = Nanos(0);
        for p in 0..4 {
            assert_eq!(q.enqueue(p, 1500, now), Admission::Queued);
        }
        for p in 4..100_004 {
            assert_eq!(
                q.enqueue(p, 1500, now),
                Admission::Queued,
                "arrival {p} dropped"
            );
            q.dequeue(now).unwrap();
        }
        // 100,000 arrivals saw 4 packets, after 3 that saw 1, 2, 3.
        let mut expected = 0.0f64;
        for len in [1.0, 2.0, 3.0] {
            expected = (1.0 - w) * expected + w * len;
        }
        let n = 100_000;
        let closed = 4.0 + (expected - 4.0) * (1.0 - w).powi(n);
        assert!((q.average() - closed).abs() < 1e-9, "{}", q.average());
        assert!(q.average() < 5.0 && q.average() > 3.99);
    }

    #[test]
    fn from_max_th_on_every_arrival_is_dropped() {
        // w = 1: the average is the queue length itself.
        let mut q = red(2.0, 3.0, 0.5, 1.0);
        let now = Nanos(0);
        // Arrivals see 0, 1 (below min_th) and 2 (p_b = 0): accepted.
        for p in 0..3 {
            assert_eq!(q.enqueue(p, 1500, now), Admission::Queued);
        }
        // From 3 on: avg = 3 = max_th, dropped, however many come.
        for p in 3..1003 {
            assert_eq!(q.enqueue(p, 1500, now), Admission::DroppedEarly);
        }
        assert_eq!(q.len(), 3);
        // The hard limit was never reached: the drops were RED's.
        assert_eq!(q.room(), 997);
    }

    #[test]
    fn between_the_thresholds_drops_are_spread_as_the_paper_says() {
        // w = 1 and a queue held at 4: avg = 4, p_b = 0.1·(4 − 2)/(6 − 2)
        // = 1/20. After a drop count is 0 and the k-th arrival sees
        // count = k, so it survives the first k−1 with probability
        // Π_{c<k} (1 − p_b/(1 − c·p_b)) = (1 − k·p_b)/(1 − p_b), and is
        // dropped with p_b/(1 − p_b): the gap between drops is uniform on
        // 1..=19 (p_a reaches 1 at count 19), mean 10.
        let mut q = red(2.0, 6.0, 0.1, 1.0);
        let now = Nanos(0);
        // Fill to 4 (an arrival that sees 2 or 3 may already be dropped).
        let mut p = 0;
        while q.len() < 4 {
            q.enqueue(p, 1500, now);
            p += 1;
        }
        // Count from a drop.
        while q.enqueue(p, 1500, now).is_queued() {
            q.dequeue(now).unwrap();
            p += 1;
        }
        let (mut gaps, mut since) = (Vec::new(), 0u32);
        for p in p + 1..p + 200_001 {
            since += 1;
            if q.enqueue(p, 1500, now).is_queued() {
                q.dequeue(now).unwrap();
            } else {
                gaps.push(since);
                since = 0;
            }
        }
        let mean = gaps.iter().map(|&g| f64::from(g)).sum::<f64>() / gaps.len() as f64;
        assert!((mean - 10.0).abs() < 0.1, "mean gap {mean}");
        assert_eq!(gaps.iter().max(), Some(&19));
        assert_eq!(gaps.iter().min(), Some(&1));
        // Every gap length is about equally likely (uniform, 1/19 each;
        // about 20,000 gaps, so a share's standard deviation is 0.0015).
        for len in 1..=19 {
            let share = gaps.iter().filter(|&&g| g == len).count() as f64 / gaps.len() as f64;
            assert!((share - 1.0 / 19.0).abs() < 0.008, "gap {len}: {share}");
        }
    }

    #[test]
    fn the_same_seed_drops_the_same_frames() {
        let run = |seed| {
            let p = RedParams {
                min_th: 2.0,
                max_th: 6.0,
                max_p: 0.1,
                weight: 1.0,
                ecn: false,
            };
            let mut q = Red::new(p, 1000, u64::MAX, 12_000, seed);
            (0..2000)
                .filter(|&i| {
                    let kept = q.enqueue(i, 1500, Nanos(0)).is_queued();
                    if kept && q.len() > 4 {
                        q.dequeue(Nanos(0));
                    }
                    !kept
                })
                .collect::<Vec<PacketId>>()
        };
        assert_eq!(run(1), run(1));
        assert_ne!(run(1), run(2));
    }

    #[test]
    fn the_hard_limit_still_applies() {
        // Thresholds above the limit: RED never drops, the FIFO does.
        let p = RedParams {
            min_th: 50.0,
            max_th: 100.0,
            max_p: 0.02,
            weight: 0.002,
            ecn: false,
        };
        let mut q = Red::new(p, 2, 3000, 12_000, 1);
        assert_eq!(q.enqueue(1, 1500, Nanos(0)), Admission::Queued);
        assert_eq!(q.enqueue(2, 1500, Nanos(0)), Admission::Queued);
        assert_eq!(q.enqueue(3, 64, Nanos(0)), Admission::DroppedFull);
        assert_eq!((q.len(), q.peak_packets(), q.peak_bytes()), (2, 2, 3000));
    }

    #[test]
    fn with_red_ecn_capable_frames_are_marked_where_others_are_dropped() {
        // The same seed and arrivals: marks fall exactly where drops did.
        let run = |ecn: bool, capable: bool| {
            let p = RedParams {
                min_th: 2.0,
                max_th: 6.0,
                max_p: 0.1,
                weight: 1.0,
                ecn,
            };
            let mut q = Red::new(p, 1000, u64::MAX, 12_000, 3);
            (0..2000)
                .map(|i| {
                    let a = q.enqueue_ecn(i, 1500, capable, Nanos(0));
                    if a.is_queued() && q.len() > 4 {
                        q.dequeue(Nanos(0));
                    }
                    a
                })
                .collect::<Vec<Admission>>()
        };
        let drops = run(false, true);
        let marks = run(true, true);
        let early = |v: &[Admission], a: Admission| -> Vec<usize> {
            (0..v.len()).filter(|&i| v[i] == a).collect()
        };
        assert!(early(&drops, Admission::DroppedEarly).len() > 100);
        assert_eq!(
            early(&drops, Admission::DroppedEarly),
            early(&marks, Admission::Marked)
        );
        assert!(early(&marks, Admission::DroppedEarly).is_empty());
        assert_eq!(run(true, false), drops, "not ECN-capable: dropped");
    }
}
