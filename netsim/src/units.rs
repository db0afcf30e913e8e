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
    let mult: f64 = match unit_l.as_str() {
        "bps" | "bit/s" | "b/s" => 1.0,
        "kbps" | "kbit/s" => 1e3,
        "mbps" | "mbit/s" => 1e6,
        "gbps" | "gbit/s" => 1e9,
        "tbps" | "tbit/s" => 1e12,
        _ => {
            return Err(format!(
                "'{text}' is not a data rate; write a number with bps, Kbps, Mbps, Gbps or Tbps (e.g. \"1Gbps\"), or \"unlimited\""
            ))
        }
    };
    to_integer(num * mult, text)
}

/// Parses a duration such as "1ms", "500us", "20 ns", "1.5s" or "0" into
/// nanoseconds.
pub fn parse_duration_ns(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t == "0" {
        return Ok(0);
    }
    let (num, unit) = split_number(t)?;
    let mult: f64 = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => {
            return Err(format!(
                "'{text}' is not a duration; write a number with ns, us, ms or s (e.g. \"500us\")"
            ))
        }
    };
    to_integer(num * mult, text)
}

/// Parses a byte size such as "64KiB", "1500", "1 MB", "4MiB" into bytes.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (num, unit) = split_number(t)?;
    let mult: f64 = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(format!(
                "'{text}' is not a size; write a number with B, KB, MB, GB, KiB, MiB or GiB (e.g. \"64KiB\")"
            ))
        }
    };
    to_integer(num * mult, text)
}

fn split_number(t: &str) -> Result<(f64, &str), String> {
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let (n, u) = t.split_at(end);
    let n: String = n.chars().filter(|&c| c != '_').collect();
    let num: f64 = n
        .parse()
        .map_err(|_| format!("'{t}' does not start with a number"))?;
    Ok((num, u.trim()))
}

fn to_integer(v: f64, text: &str) -> Result<u64, String> {
    if !v.is_finite() || v < 0.0 || v > u64::MAX as f64 {
        return Err(format!("'{text}' is out of range"));
    }
    let r = v.round();
    if (v - r).abs() > 1e-6 * v.max(1.0) {
        return Err(format!("'{text}' is not a whole number of the base unit"));
    }
    Ok(r as u64)
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
}
