//! The job's clock, shared by the gateway and every rank: scaled real time
//! (SRT) as a piecewise-linear function of CLOCK_MONOTONIC. A fixed time
//! factor is one piece; an adaptive factor appends a piece at an agreed SRT
//! instant, and because every process computes the new piece's wall-clock
//! anchor from the same previous piece, all of them switch at the same
//! instant and scaled time stays continuous — even a process that learns of
//! the change a little late applies it from the right moment.

/// Largest time factor. The job's clock maps scaled time to
/// CLOCK_MONOTONIC nanoseconds in 64 bits (584 years), so at factor F it
/// reaches 584 years / F of emulated time: 5.1 hours at this bound, where
/// one emulated millisecond already takes 17 minutes of wall time. Beyond
/// it deadlines overflow (a factor of 1e19 "finished" a job in zero
/// emulated time) or lie centuries away (1e13 to 1e16 hung).
pub const MAX_TIME_FACTOR: f64 = 1e6;

/// One piece: from `wall_ns` (SRT `srt_ns`) on, SRT advances 1/`factor` ns
/// per wall ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Piece {
    /// CLOCK_MONOTONIC where the piece starts, ns.
    pub wall_ns: u64,
    /// SRT where the piece starts, ns.
    pub srt_ns: u64,
    /// Wall ns per SRT ns (≥ 1).
    pub factor: f64,
}

/// Scaled real time of the job.
#[derive(Debug, Clone, PartialEq)]
pub struct ScaledClock {
    pieces: Vec<Piece>,
}

impl ScaledClock {
    /// SRT 0 at `epoch_ns`, advancing at `factor`.
    pub fn new(epoch_ns: u64, factor: f64) -> ScaledClock {
        ScaledClock {
            pieces: vec![Piece {
                wall_ns: epoch_ns,
                srt_ns: 0,
                factor,
            }],
        }
    }

    /// From SRT `at_srt_ns` on, the factor is `factor`. Changes must come
    /// in SRT order; one at or before the last change's instant is ignored
    /// (returns false).
    pub fn change(&mut self, at_srt_ns: u64, factor: f64) -> bool {
        let last = *self.pieces.last().expect("a clock has a piece");
        let valid_factor = (1.0..=MAX_TIME_FACTOR).contains(&factor);
        if at_srt_ns <= last.srt_ns && self.pieces.len() > 1 || !valid_factor {
            return false;
        }
        let at = at_srt_ns.max(last.srt_ns);
        let wall = last
            .wall_ns
            .saturating_add(((at - last.srt_ns) as f64 * last.factor).round() as u64);
        self.pieces.push(Piece {
            wall_ns: wall,
            srt_ns: at,
            factor,
        });
        true
    }

    /// SRT at monotonic time `wall_ns` (0 before the epoch).
    pub fn srt(&self, wall_ns: u64) -> u64 {
        let p = self
            .pieces
            .iter()
            .rev()
            .find(|p| p.wall_ns <= wall_ns)
            .unwrap_or(&self.pieces[0]);
        p.srt_ns + (wall_ns.saturating_sub(p.wall_ns) as f64 / p.factor) as u64
    }

    /// Monotonic time at which SRT reaches `srt_ns`.
    pub fn wall(&self, srt_ns: u64) -> u64 {
        let p = self
            .pieces
            .iter()
            .rev()
            .find(|p| p.srt_ns <= srt_ns)
            .unwrap_or(&self.pieces[0]);
        // Saturates: a deadline beyond the clock's range is never reached.
        p.wall_ns
            .saturating_add(((srt_ns - p.srt_ns.min(srt_ns)) as f64 * p.factor).round() as u64)
    }

    /// The factor in force at SRT `srt_ns`.
    pub fn factor_at(&self, srt_ns: u64) -> f64 {
        self.pieces
            .iter()
            .rev()
            .find(|p| p.srt_ns <= srt_ns)
            .unwrap_or(&self.pieces[0])
            .factor
    }

    /// The newest factor.
    pub fn latest_factor(&self) -> f64 {
        self.pieces.last().expect("a clock has a piece").factor
    }

    /// CLOCK_MONOTONIC of SRT zero.
    pub fn epoch_ns(&self) -> u64 {
        self.pieces[0].wall_ns
    }

    /// Every piece, oldest first.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_beyond_the_clock_saturate_instead_of_wrapping() {
        let c = ScaledClock::new(1_000, MAX_TIME_FACTOR);
        // Five hours of emulated time fit at the largest factor.
        let five_hours = 5 * 3600 * 1_000_000_000u64;
        assert_eq!(c.wall(five_hours), 1_000 + five_hours * 1_000_000);
        let huge = ScaledClock::new(1_000, 1e19);
        assert_eq!(
            huge.wall(1_000_000),
            u64::MAX,
            "was 1e25 ns wrapped to the past"
        );
        let mut c = ScaledClock::new(0, 4.0);
        assert!(!c.change(10, MAX_TIME_FACTOR * 2.0));
    }

    #[test]
    fn one_piece_is_the_fixed_factor() {
        let c = ScaledClock::new(1_000, 4.0);
        assert_eq!(c.wall(250), 2_000);
        assert_eq!(c.srt(2_000), 250);
        assert_eq!(c.srt(500), 0);
    }

    #[test]
    fn a_change_keeps_scaled_time_continuous() {
        let mut c = ScaledClock::new(0, 4.0);
        // At SRT 1 ms (wall 4 ms) the factor becomes 16.
        assert!(c.change(1_000_000, 16.0));
        assert_eq!(c.wall(1_000_000), 4_000_000);
        assert_eq!(c.srt(4_000_000), 1_000_000);
        // Just before and after the switch SRT moves by 1/4 and 1/16 per ns.
        assert_eq!(c.srt(3_999_996), 999_999);
        assert_eq!(c.srt(4_000_016), 1_000_001);
        assert_eq!(c.wall(2_000_000), 4_000_000 + 16_000_000);
        assert_eq!(c.factor_at(999_999), 4.0);
        assert_eq!(c.factor_at(1_000_000), 16.0);
        // Two processes applying the same changes agree exactly.
        let mut d = ScaledClock::new(0, 4.0);
        d.change(1_000_000, 16.0);
        assert_eq!(c, d);
        // Out-of-order and invalid changes are ignored.
        assert!(!c.change(500_000, 2.0));
        assert!(!c.change(3_000_000, 0.5));
        assert!(c.change(3_000_000, 2.0));
        assert_eq!(c.srt(c.wall(3_500_000)), 3_500_000);
    }
}
