//! The job secret: 128 random bits the gateway draws at start and passes
//! to ranks in the environment ([`crate::ENV_SECRET`]), carried by every
//! Hello. A connection without it cannot join or disturb the job — what
//! makes a TCP listener safe to open.

/// A job secret.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct JobSecret(pub u128);

impl JobSecret {
    /// Draws a secret from the kernel's random source (getrandom(2)
    /// through the getrandom crate: no file descriptor, and no
    /// /dev/urandom needed inside a chroot or a sandbox).
    pub fn generate() -> Result<JobSecret, String> {
        let mut b = [0u8; 16];
        getrandom::fill(&mut b)
            .map_err(|e| format!("cannot draw random bytes for the job secret: {e}"))?;
        Ok(JobSecret(u128::from_le_bytes(b)))
    }

    /// Parses the 32 hexadecimal digits [`JobSecret::to_hex`] writes.
    pub fn from_hex(text: &str) -> Option<JobSecret> {
        let t = text.trim();
        if t.len() != 32 || !t.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u128::from_str_radix(t, 16).ok().map(JobSecret)
    }

    /// 32 lowercase hexadecimal digits.
    pub fn to_hex(self) -> String {
        format!("{:032x}", self.0)
    }

    /// Compares without an early exit, so the time taken does not tell an
    /// attacker how many leading bits were right.
    pub fn matches(self, other: JobSecret) -> bool {
        let a = self.0.to_le_bytes();
        let b = other.0.to_le_bytes();
        a.iter()
            .zip(b.iter())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
    }
}

impl std::fmt::Debug for JobSecret {
    /// Never prints the secret itself (frames are printed in errors).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JobSecret(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_bad_text_is_refused() {
        let s = JobSecret(0x0123_4567_89ab_cdef_0011_2233_4455_6677);
        assert_eq!(s.to_hex(), "0123456789abcdef0011223344556677");
        assert_eq!(JobSecret::from_hex(&s.to_hex()), Some(s));
        assert_eq!(JobSecret::from_hex("0123"), None);
        assert_eq!(JobSecret::from_hex(&"g".repeat(32)), None);
        assert!(s.matches(s));
        assert!(!s.matches(JobSecret(s.0 ^ 1)));
        assert_eq!(format!("{s:?}"), "JobSecret(..)");
    }

    #[test]
    fn generated_secrets_differ() {
        let a = JobSecret::generate().unwrap();
        let b = JobSecret::generate().unwrap();
        assert_ne!(a.0, b.0);
    }
}
