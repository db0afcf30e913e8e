//! Admission: a connection's Hello is checked (the job's secret, then
//! protocol version, job id, job size, rank) and either refused — that
//! connection alone, with one log line — or answered with the Welcome, the
//! factor switches made so far and the deliveries that waited for it.

use super::{ConnId, ConnState, GatewayCore, JobOutcome};
use crate::clock::WallClock;
use mpinetsim_protocol::{Frame, JobSecret, VERSION};

/// What a Hello says about who connects.
pub(super) struct Hello {
    pub version: u16,
    pub rank: u32,
    pub size: u32,
    pub pid: u32,
    pub job: u64,
    pub secret: JobSecret,
}

impl<C: WallClock> GatewayCore<C> {
    /// Admits connection `idx` as the rank its Hello names, or refuses it.
    pub(super) fn on_hello(&mut self, idx: ConnId, h: Hello) -> Result<(), JobOutcome> {
        if !h.secret.matches(self.settings.secret) {
            let why = if h.version != VERSION {
                format!("it speaks protocol version {}, not {VERSION}", h.version)
            } else {
                "wrong job secret".into()
            };
            return self.refuse(idx, why, "it sent a Hello without the job's secret".into());
        }
        // The secret is right but the Hello cannot join this job: refuse
        // this connection alone (a rank of another job with the same
        // secret file, a stray copy of a rank); the ranks that joined go on.
        if let Some(why) = self.unfit_hello(&h) {
            return self.refuse(idx, why.clone(), why);
        }
        let rank = h.rank;
        self.rank_conn[rank as usize] = Some(idx);
        let srt = self.time.srt(self.clock.now_ns());
        let welcome = self.welcome(rank);
        let c = self.conns[idx]
            .as_mut()
            .expect("the connection that sent Hello");
        c.rank = Some(rank);
        c.pid = h.pid;
        c.state = ConnState::Active;
        c.hello_srt_ns = srt;
        c.queue(&welcome);
        // A rank that connects after factor switches learns them all.
        for p in &self.time.clock.pieces()[1..] {
            c.queue(&Frame::Factor {
                at_srt_ns: p.srt_ns,
                factor: p.factor,
            });
        }
        while let Some(f) = self.undelivered[rank as usize].pop_front() {
            c.queue_kept_delivery(&f);
        }
        Ok(())
    }

    /// The Welcome for `rank`: the job's clock and settings.
    fn welcome(&self, rank: u32) -> Frame {
        Frame::Welcome {
            version: VERSION,
            factor: self.settings.factor,
            epoch_ns: self.time.clock.epoch_ns(),
            eager_limit: self.settings.eager_limit,
            adaptive: self.settings.adaptive.is_some(),
            analytic: self.sim.times_collectives(),
            node: self.rank_nodes.get(rank as usize).copied().unwrap_or(0),
            compute_clock: self.settings.compute_clock,
            cpu_speed: self.rank_cpu(rank).speed,
            cpu_threshold_ns: self.rank_cpu(rank).threshold_ns,
            poll_ns: self.rank_cpu(rank).poll_ns,
        }
    }

    /// The CPU of `rank`'s host.
    fn rank_cpu(&self, rank: u32) -> mpinetsim_protocol::HostCpu {
        (self.settings.rank_cpus)
            .get(rank as usize)
            .copied()
            .unwrap_or(mpinetsim_protocol::HostCpu::NATIVE)
    }

    /// Why a Hello carrying the job's secret cannot join this job, as a
    /// clause about the connection ("its Hello ..."); None when it can.
    fn unfit_hello(&self, h: &Hello) -> Option<String> {
        let n = self.settings.ranks;
        let all = self.rank_conn.len() as u32;
        let mine = self.settings.job_id;
        let Hello {
            version,
            rank,
            size,
            job,
            ..
        } = *h;
        if version != VERSION {
            return Some(format!(
                "its Hello speaks protocol version {version} but this gateway speaks {VERSION}; start the ranks with the shim built with this mpinetsim"
            ));
        }
        if job != mine {
            return Some(format!(
                "its Hello names job {job}, not this gateway's job {mine}; set MPINETSIM_JOB to the value the gateway printed"
            ));
        }
        if size != n {
            return Some(format!(
                "its Hello (rank {rank}) says the job has {size} ranks but this gateway runs {n}; start {n} ranks, or the gateway with -n {size}"
            ));
        }
        if rank >= all {
            return Some(format!(
                "its Hello names rank {rank}, but a job of {all} ranks has ranks 0 to {}",
                all - 1
            ));
        }
        if let Some(other) = self.rank_conn[rank as usize] {
            let pid = self.conns[other].as_ref().map_or(0, |c| c.pid);
            return Some(format!(
                "its Hello names rank {rank}, which is already connected (pid {pid}); give every rank its own number"
            ));
        }
        None
    }
}
