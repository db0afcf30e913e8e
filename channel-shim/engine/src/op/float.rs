//! Conversions between `f64` and the two wide float formats Rust has no
//! type for: x87 80-bit extended (`long double`, 16 bytes of storage) and
//! IEEE binary128 (`REAL*16`). Reductions on them compute in `f64`.

/// 2^e without intermediate overflow/underflow for |e| up to ~2000 per half.
fn scale(x: f64, e: i32) -> f64 {
    let h = e / 2;
    x * 2f64.powi(h) * 2f64.powi(e - h)
}

/// A finite non-zero f64 as (negative, unbiased exponent of bit 63, 64-bit
/// mantissa with bit 63 set).
fn normalize(x: f64) -> (bool, i32, u64) {
    let bits = x.to_bits();
    let neg = bits >> 63 != 0;
    let e = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if e == 0 {
        let lz = frac.leading_zeros() as i32;
        (neg, -1074 + 63 - lz, frac << lz)
    } else {
        (neg, e - 1023, (1u64 << 63) | (frac << 11))
    }
}

/// Reads an x87 extended value.
pub fn f80_to_f64(b: &[u8]) -> f64 {
    let mut m = [0u8; 8];
    m.copy_from_slice(&b[..8]);
    let m = u64::from_le_bytes(m);
    let se = u16::from_le_bytes([b[8], b[9]]);
    let sign = if se >> 15 != 0 { -1.0 } else { 1.0 };
    let e = (se & 0x7fff) as i32;
    if e == 0x7fff {
        return if m << 1 == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    if m == 0 {
        return sign * 0.0;
    }
    sign * scale(m as f64, e.max(1) - 16383 - 63)
}

/// Writes an x87 extended value (bytes 10..16 are zeroed).
pub fn f64_to_f80(x: f64, out: &mut [u8]) {
    let (m, se): (u64, u16) = if x.is_nan() {
        (0xC000_0000_0000_0000, 0x7fff)
    } else if x.is_infinite() {
        (1 << 63, 0x7fff | if x < 0.0 { 0x8000 } else { 0 })
    } else if x == 0.0 {
        (0, if x.is_sign_negative() { 0x8000 } else { 0 })
    } else {
        let (neg, e, m) = normalize(x);
        (m, (e + 16383) as u16 | if neg { 0x8000 } else { 0 })
    };
    out[..8].copy_from_slice(&m.to_le_bytes());
    out[8..10].copy_from_slice(&se.to_le_bytes());
    out[10..16].fill(0);
}

/// Reads an IEEE binary128 value.
pub fn f128_to_f64(b: &[u8]) -> f64 {
    let mut lo = [0u8; 8];
    let mut hi = [0u8; 8];
    lo.copy_from_slice(&b[..8]);
    hi.copy_from_slice(&b[8..16]);
    let (lo, hi) = (u64::from_le_bytes(lo), u64::from_le_bytes(hi));
    let sign = if hi >> 63 != 0 { -1.0 } else { 1.0 };
    let e = ((hi >> 48) & 0x7fff) as i32;
    let frac_hi = hi & ((1u64 << 48) - 1);
    if e == 0x7fff {
        return if frac_hi == 0 && lo == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    if e == 0 {
        return sign * 0.0; // binary128 subnormals are far below f64's range
    }
    let top = (1u64 << 63) | (frac_hi << 15) | (lo >> 49);
    sign * scale(top as f64, e - 16383 - 63)
}

/// Writes an IEEE binary128 value.
pub fn f64_to_f128(x: f64, out: &mut [u8]) {
    let (lo, hi): (u64, u64) = if x.is_nan() {
        (0, 0x7fff_8000_0000_0000)
    } else if x.is_infinite() {
        (0, 0x7fff_0000_0000_0000 | if x < 0.0 { 1 << 63 } else { 0 })
    } else if x == 0.0 {
        (0, if x.is_sign_negative() { 1 << 63 } else { 0 })
    } else {
        let (neg, e, m) = normalize(x);
        let frac = m << 1; // 63 fraction bits at the top
        let hi = ((neg as u64) << 63) | (((e + 16383) as u64) << 48) | (frac >> 16);
        (frac << 48, hi)
    };
    out[..8].copy_from_slice(&lo.to_le_bytes());
    out[8..16].copy_from_slice(&hi.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let mut b = [0u8; 16];
        for x in [
            0.0,
            -0.0,
            1.0,
            -2.5,
            1e300,
            -1e-300,
            5e-324,
            3.0e-310,
            f64::MAX,
            f64::INFINITY,
            0.1,
        ] {
            f64_to_f80(x, &mut b);
            assert_eq!(f80_to_f64(&b).to_bits(), x.to_bits(), "f80 {x}");
            f64_to_f128(x, &mut b);
            assert_eq!(f128_to_f64(&b).to_bits(), x.to_bits(), "f128 {x}");
        }
        f64_to_f80(f64::NAN, &mut b);
        assert!(f80_to_f64(&b).is_nan());
    }

    #[test]
    fn known_encodings() {
        // 1.0L on x86: mantissa 0x8000000000000000, exponent 0x3fff.
        let mut b = [0u8; 16];
        f64_to_f80(1.0, &mut b);
        assert_eq!(&b[..10], &[0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f]);
        // 1.0 as binary128: 0x3fff followed by zeros.
        f64_to_f128(1.0, &mut b);
        assert_eq!(&b[14..16], &[0xff, 0x3f]);
        assert!(b[..14].iter().all(|&x| x == 0));
    }
}
