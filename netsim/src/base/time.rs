//! Virtual time: integer nanoseconds since the start of a simulation.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in (or span of) virtual time, in nanoseconds. Integer so that runs
/// are exactly reproducible and sums of hop delays are exact.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct Nanos(pub u64);

impl Nanos {
    /// Time zero, the start of every simulation.
    pub const ZERO: Nanos = Nanos(0);
    /// A time later than any event; used as "never".
    pub const MAX: Nanos = Nanos(u64::MAX);

    /// Builds a span from microseconds.
    pub const fn from_micros(us: u64) -> Nanos {
        Nanos(us * 1_000)
    }
    /// Builds a span from milliseconds.
    pub const fn from_millis(ms: u64) -> Nanos {
        Nanos(ms * 1_000_000)
    }
    /// Builds a span from whole seconds.
    pub const fn from_secs(s: u64) -> Nanos {
        Nanos(s * 1_000_000_000)
    }
    /// The value in seconds, for reports.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Saturating subtraction (a span can't be negative).
    pub fn saturating_sub(self, other: Nanos) -> Nanos {
        Nanos(self.0.saturating_sub(other.0))
    }
}

impl Add for Nanos {
    type Output = Nanos;
    fn add(self, rhs: Nanos) -> Nanos {
        Nanos(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for Nanos {
    fn add_assign(&mut self, rhs: Nanos) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}

impl Sub for Nanos {
    type Output = Nanos;
    fn sub(self, rhs: Nanos) -> Nanos {
        Nanos(self.0 - rhs.0)
    }
}

impl fmt::Display for Nanos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns >= 1_000_000_000 {
            write!(f, "{:.6} s", ns as f64 / 1e9)
        } else if ns >= 1_000_000 {
            write!(f, "{:.3} ms", ns as f64 / 1e6)
        } else if ns >= 1_000 {
            write!(f, "{:.3} us", ns as f64 / 1e3)
        } else {
            write!(f, "{ns} ns")
        }
    }
}

/// Time to serialise `bytes` onto a wire of `rate_bps` bits per second, rounded
/// up to the next nanosecond. A rate of 0 means "unlimited" (zero time).
pub fn serialization_time(bytes: u64, rate_bps: u64) -> Nanos {
    if rate_bps == 0 {
        return Nanos::ZERO;
    }
    let bits = bytes as u128 * 8 * 1_000_000_000u128;
    Nanos(bits.div_ceil(rate_bps as u128) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialisation_of_a_full_frame_at_one_gigabit() {
        // 1538 bytes * 8 bits / 1e9 bit/s = 12.304 us exactly.
        assert_eq!(serialization_time(1538, 1_000_000_000), Nanos(12_304));
        // Rounds up: 1 byte at 3 bit/s = 2.666.. s.
        assert_eq!(serialization_time(1, 3), Nanos(2_666_666_667));
        assert_eq!(serialization_time(100, 0), Nanos::ZERO);
    }
}
