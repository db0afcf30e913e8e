//! Human units in configuration files: "1Gbps", "500us", "64KiB".
//!
//! Each parser returns a plain integer in the unit its name says, or an error
//! sentence naming the accepted forms, so a config error can say what to write.

/// Parses a data rate such as "1Gbps", "100 Mbps", "2.5Gbit/s", "0" or
/// "unlimited" into bits per second (0 = unlimited).
pub fn parse_rate_bps(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("unlimited") || t == "0" {
        return Ok(0);
    }
    let (num, unit) = split_number(t)?;
    let unit_l = unit.to_ascii_lowercase();
    let mult: u64 = match unit_l.as_str() {
        "bps" | "bit/s" | "b/s" => 1,
        "kbps" | "kbit/s" => 1_000,
        "mbps" | "mbit/s" => 1_000_000,
        "gbps" | "gbit/s" => 1_000_000_000,
        "tbps" | "tbit/s" => 1_000_000_000_000,
        _ => {
            return Err(format!(
                "'{text}' is not a data rate; write a number with bps, Kbps, Mbps, Gbps or Tbps (e.g. \"1Gbps\"), or \"unlimited\""
            ))
        }
    };
    num.times(mult, text, "bits per second")
}

/// Parses a duration such as "1ms", "500us", "20 ns", "1.5s" or "0" into
/// nanoseconds.
pub fn parse_duration_ns(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t == "0" {
        return Ok(0);
    }
    let (num, unit) = split_number(t)?;
    let mult: u64 = match unit {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        _ => {
            return Err(format!(
                "'{text}' is not a duration; write a number with ns, us, ms or s (e.g. \"500us\")"
            ))
        }
    };
    num.times(mult, text, "nanoseconds")
}

/// Parses a byte size such as "64KiB", "1500", "1 MB", "4MiB" into bytes.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (num, unit) = split_number(t)?;
    let mult: u64 = match unit {
        "" | "B" => 1,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => {
            return Err(format!(
                "'{text}' is not a size; write a number with B, KB, MB, GB, KiB, MiB or GiB (e.g. \"64KiB\")"
            ))
        }
    };
    num.times(mult, text, "bytes")
}

/// Largest value any of these parsers returns: the quantities are `u64`
/// nanoseconds, bits per second and bytes.
pub const MAX_VALUE: u64 = u64::MAX;

/// A decimal number as written: `digits / 10^scale`, exactly.
struct Decimal {
    digits: u128,
    scale: u32,
}

impl Decimal {
    /// The number times `mult`, which must be a whole number no larger
    /// than [`MAX_VALUE`].
    fn times(&self, mult: u64, text: &str, unit: &str) -> Result<u64, String> {
        let out_of_range = || format!("'{text}' is out of range; at most {MAX_VALUE} {unit}");
        let scaled = self
            .digits
            .checked_mul(u128::from(mult))
            .ok_or_else(out_of_range)?;
        let div = 10u128.pow(self.scale);
        if scaled % div != 0 {
            return Err(format!("'{text}' is not a whole number of {unit}"));
        }
        u64::try_from(scaled / div).map_err(|_| out_of_range())
    }
}

/// Splits "12.5 MiB" into the number (exactly, as digits and a decimal
/// scale, never through a float) and the unit.
fn split_number(t: &str) -> Result<(Decimal, &str), String> {
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let (n, u) = t.split_at(end);
    let not_a_number = || format!("'{t}' does not start with a number");
    let n: String = n.chars().filter(|&c| c != '_').collect();
    let (int, frac) = n.split_once('.').unwrap_or((&n, ""));
    if int.is_empty() && frac.is_empty() || frac.contains('.') {
        return Err(not_a_number());
    }
    // Trailing decimal zeros carry nothing.
    let frac = frac.trim_end_matches('0');
    if frac.len() > 38 {
        return Err(format!("'{t}' has more decimals than any unit can use"));
    }
    // Leading zeros carry nothing; beyond 38 significant digits the value
    // exceeds every bound (u128 holds 38 digits).
    let all = format!("{int}{frac}");
    let significant = all.trim_start_matches('0');
    if significant.len() > 38 {
        return Err(format!("'{t}' is out of range; at most {MAX_VALUE}"));
    }
    let digits = if significant.is_empty() {
        0
    } else {
        significant.parse::<u128>().map_err(|_| not_a_number())?
    };
    let scale = frac.len() as u32;
    Ok((Decimal { digits, scale }, u.trim()))
}

/// A rate as people write it: `10 Gbps`, `100 Mbps`, `1500 bps` (the
/// largest unit that divides it exactly).
pub fn format_rate(bps: u64) -> String {
    for (div, unit) in [
        (1_000_000_000, "Gbps"),
        (1_000_000, "Mbps"),
        (1_000, "kbps"),
    ] {
        if bps >= div && bps.is_multiple_of(div) {
            return format!("{} {unit}", bps / div);
        }
    }
    format!("{bps} bps")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate_bps("1Gbps").unwrap(), 1_000_000_000);
        assert_eq!(parse_rate_bps("100 Mbps").unwrap(), 100_000_000);
        assert_eq!(parse_rate_bps("2.5Gbit/s").unwrap(), 2_500_000_000);
        assert_eq!(parse_rate_bps("unlimited").unwrap(), 0);
        assert!(parse_rate_bps("1 GHz").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("1ms").unwrap(), 1_000_000);
        assert_eq!(parse_duration_ns("500us").unwrap(), 500_000);
        assert_eq!(parse_duration_ns("1.5s").unwrap(), 1_500_000_000);
        assert_eq!(parse_duration_ns("0").unwrap(), 0);
        assert!(parse_duration_ns("1 fortnight").is_err());
        assert!(parse_duration_ns("0.5ns").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("64KiB").unwrap(), 65_536);
        assert_eq!(parse_bytes("1500").unwrap(), 1500);
        assert_eq!(parse_bytes("1 MB").unwrap(), 1_000_000);
        assert!(parse_bytes("12 bananas").is_err());
    }

    #[test]
    fn numbers_are_exact_integers_up_to_u64_max() {
        // 2^53 + 1 is not a float; 2^64 - 1 is the largest value, 2^64 is
        // out of range (a float rounded 2^64 - 1 up and accepted 2^64).
        assert_eq!(
            parse_bytes("9007199254740993").unwrap(),
            9_007_199_254_740_993
        );
        assert_eq!(parse_bytes("18446744073709551615").unwrap(), u64::MAX);
        let e = parse_bytes("18446744073709551616").unwrap_err();
        assert!(
            e.contains("out of range; at most 18446744073709551615 bytes"),
            "{e}"
        );
        assert!(parse_bytes("16777216TiB").is_err());
        assert!(parse_bytes("17179869184GiB").is_err(), "2^64 bytes");
        assert_eq!(
            parse_bytes("17179869183GiB").unwrap(),
            u64::MAX - (1 << 30) + 1
        );
        assert_eq!(parse_bytes("0.5KiB").unwrap(), 512);
        assert!(parse_bytes("1.000000000000000000000000000000000000000000001KiB").is_err());
        assert_eq!(
            parse_bytes("00000000000000000000000000000000000000000000064").unwrap(),
            64
        );
        assert!(parse_bytes("1.5").is_err());
        assert!(parse_bytes(".").is_err() && parse_bytes("1.2.3KB").is_err());
        assert_eq!(parse_rate_bps("2.5Gbps").unwrap(), 2_500_000_000);
        assert!(parse_rate_bps("18446744073.709551616Gbps").is_err());
        assert_eq!(
            parse_rate_bps("18446744073.709551615Gbps").unwrap(),
            u64::MAX
        );
        assert_eq!(parse_duration_ns("0.000001ms").unwrap(), 1);
        assert!(parse_duration_ns("0.0000001ms").is_err());
        assert_eq!(
            parse_duration_ns("18446744073.709551615s").unwrap(),
            u64::MAX
        );
        assert!(parse_duration_ns("18446744074s").is_err());
    }
}
