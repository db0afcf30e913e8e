//! Time series ("vectors", as OMNeT++ calls them): every `interval` of
//! virtual time, each link direction's queue and utilisation and each TCP
//! connection's congestion window and RTT estimate. Sampled by the
//! simulator as virtual time passes each sampling instant — no events are
//! added, so sampling never changes a run — and handed to the caller to
//! store (the gateway writes CSV).
//!
//! A sample at instant *s* shows the state after every event before *s*.
//! Link utilisation over (s − interval, s] is the serialisation time of the
//! frames that *started* in it ÷ interval (a frame counts wholly in the
//! interval it starts in, so one sample can exceed 1 slightly). To keep
//! files small a series writes a row only while it is non-zero, plus the
//! first zero after activity.

use crate::base::time::Nanos;

/// One link direction at one instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkSample {
    /// Virtual time, ns.
    pub t_ns: u64,
    /// The sending port (index into the network's ports).
    pub port: u32,
    /// Frames waiting (excluding the one on the wire).
    pub queue_packets: u32,
    /// Bytes waiting.
    pub queue_bytes: u64,
    /// Busy fraction of the last interval.
    pub utilisation: f64,
}

/// One TCP connection at one instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TcpSample {
    /// Virtual time, ns.
    pub t_ns: u64,
    /// Sending rank.
    pub src_rank: u32,
    /// Receiving rank.
    pub dst_rank: u32,
    /// Congestion window, bytes.
    pub cwnd_bytes: u64,
    /// Smoothed RTT estimate, ns (none before the first measurement).
    pub srtt_ns: Option<u64>,
    /// Bytes sent and not yet acknowledged.
    pub unacked_bytes: u64,
}

/// Samples taken since the caller last drained them.
#[derive(Debug, Default)]
pub struct Samples {
    /// Link directions.
    pub links: Vec<LinkSample>,
    /// TCP connections.
    pub tcp: Vec<TcpSample>,
}

/// Sampling state kept by the simulator.
#[derive(Debug)]
pub struct VectorRecorder {
    /// Sampling period.
    pub interval: Nanos,
    /// Next sampling instant.
    pub next: Nanos,
    /// Per port: busy time at the previous sample.
    pub last_busy_ns: Vec<u64>,
    /// Per port: whether its previous row was non-zero.
    pub link_active: Vec<bool>,
    /// Per connection: the previous row's (cwnd, unacked), to skip repeats.
    pub tcp_last: Vec<Option<(u64, u64)>>,
    /// Rows not yet drained.
    pub samples: Samples,
}

impl VectorRecorder {
    /// A recorder for `ports` ports sampling every `interval` from time 0.
    pub fn new(interval: Nanos, ports: usize) -> VectorRecorder {
        assert!(interval.0 > 0, "a sampling interval is positive");
        VectorRecorder {
            interval,
            next: interval,
            last_busy_ns: vec![0; ports],
            link_active: vec![false; ports],
            tcp_last: Vec::new(),
            samples: Samples::default(),
        }
    }

    /// Records one port's state at `t`, if it is worth a row.
    pub fn link(
        &mut self,
        t: Nanos,
        port: u32,
        queue_packets: u32,
        queue_bytes: u64,
        busy_ns: u64,
    ) {
        let p = port as usize;
        let busy = busy_ns - self.last_busy_ns[p];
        self.last_busy_ns[p] = busy_ns;
        let active = queue_packets > 0 || busy > 0;
        if active || self.link_active[p] {
            self.samples.links.push(LinkSample {
                t_ns: t.0,
                port,
                queue_packets,
                queue_bytes,
                utilisation: busy as f64 / self.interval.0 as f64,
            });
        }
        self.link_active[p] = active;
    }

    /// Records connection number `c`'s state at `t` when it changed.
    pub fn tcp(&mut self, c: usize, sample: TcpSample) {
        if self.tcp_last.len() <= c {
            self.tcp_last.resize(c + 1, None);
        }
        let key = (sample.cwnd_bytes, sample.unacked_bytes);
        if self.tcp_last[c] != Some(key) || sample.unacked_bytes > 0 {
            self.samples.tcp.push(sample);
        }
        self.tcp_last[c] = Some(key);
    }
}
