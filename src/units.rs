//! Sizes written the way people write them: `1024`, `64K`, `1Mi`, `4KiB`.
//!
//! One parser for every size tickopt takes (chunk sizes, bandwidths,
//! output budgets), so `--bw 1MiB` means the same everywhere. A plain
//! integer is in the caller's unit ([`PlainUnit`]: bits for bandwidths,
//! copyspace-guard compatible; bytes for byte budgets). Suffixes fix the
//! unit themselves, case-sensitive as in the SI and IEC standards:
//!
//! | suffix | multiplies by |
//! |---|---|
//! | `K`, `M`, `G`, `T` | 1000^k bits |
//! | `Ki`, `Mi`, `Gi`, `Ti` | 1024^k bits |
//! | `B` | 8 bits (one byte) |
//! | `KB`, `MB`, `GB`, `TB` | 1000^k bytes |
//! | `KiB`, `MiB`, `GiB`, `TiB` | 1024^k bytes |
//!
//! A lower-case `k` is accepted for `K` (as in `64kB`), and `b` / `bit` /
//! `bits` name bits explicitly (`64Kb` = 64,000 bits). Everything is exact
//! integer arithmetic: a result that does not fit in u64 is an error, never
//! a saturated value.

use std::fmt;

/// The unit of a plain integer (one without a suffix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlainUnit {
    Bits,
    Bytes,
}

/// Why a size could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error(
        "{0:?} is not a size (a whole number with an optional unit: 8192, 64K, 1Mi, 4KiB, 1MB)"
    )]
    NotANumber(String),
    #[error("{0:?} is negative: sizes are whole numbers >= 1")]
    Negative(String),
    #[error("unknown unit {unit:?} in {text:?} (bits: K M G T, Ki Mi Gi Ti; bytes: B, KB MB GB TB, KiB MiB GiB TiB)")]
    UnknownUnit { text: String, unit: String },
    #[error("{0:?} does not fit in 64 bits")]
    TooLarge(String),
    #[error("{text:?} is {bits} bits, not a whole number of bytes")]
    NotWholeBytes { text: String, bits: u64 },
}

/// Parses a size and returns it in **bits**. Underscores between digits
/// are allowed (`1_000_000`); surrounding white space is ignored.
pub fn parse_bits(text: &str, plain: PlainUnit) -> Result<u64, SizeError> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(SizeError::Negative(text.to_string()));
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '_'))
        .unwrap_or(t.len());
    let (digits, unit) = (&t[..split], t[split..].trim_start());
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() {
        return Err(SizeError::NotANumber(text.to_string()));
    }
    let n: u64 = digits
        .parse()
        .map_err(|_| SizeError::TooLarge(text.to_string()))?;
    let factor = unit_factor(unit, plain).ok_or_else(|| {
        if unit.starts_with(|c: char| c.is_ascii_alphabetic()) {
            SizeError::UnknownUnit {
                text: text.to_string(),
                unit: unit.to_string(),
            }
        } else {
            SizeError::NotANumber(text.to_string())
        }
    })?;
    n.checked_mul(factor)
        .ok_or_else(|| SizeError::TooLarge(text.to_string()))
}

/// Parses a size that must be a whole number of bytes; returns **bytes**.
pub fn parse_bytes(text: &str, plain: PlainUnit) -> Result<u64, SizeError> {
    let bits = parse_bits(text, plain)?;
    if bits % 8 != 0 {
        return Err(SizeError::NotWholeBytes {
            text: text.to_string(),
            bits,
        });
    }
    Ok(bits / 8)
}

/// Bits per unit of `unit` (empty: the plain unit).
fn unit_factor(unit: &str, plain: PlainUnit) -> Option<u64> {
    let plain_bits = match plain {
        PlainUnit::Bits => 1,
        PlainUnit::Bytes => 8,
    };
    if unit.is_empty() {
        return Some(plain_bits);
    }
    let (scale, rest) = match unit.as_bytes()[0] {
        b'K' | b'k' => (1u64, &unit[1..]),
        b'M' => (2, &unit[1..]),
        b'G' => (3, &unit[1..]),
        b'T' => (4, &unit[1..]),
        _ => (0, unit),
    };
    let (base, rest) = match rest.strip_prefix('i') {
        Some(r) if scale > 0 => (1024u64, r),
        _ => (1000u64, rest),
    };
    let per = match rest {
        "" if scale > 0 => 1,
        "b" | "bit" | "bits" => 1,
        "B" => 8,
        _ => return None,
    };
    base.checked_pow(scale as u32)?.checked_mul(per)
}

/// A size in bits, shown in the largest exact unit (`65536` -> `64Kib`
/// would be ambiguous, so bytes are preferred: `8KiB`).
pub struct ShowBits(pub u64);

impl fmt::Display for ShowBits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bits = self.0;
        if bits == 0 || bits % 8 != 0 {
            return write!(f, "{bits} bits");
        }
        let bytes = bits / 8;
        for (name, div) in [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
            if bytes % div == 0 {
                return write!(f, "{} {name}", bytes / div);
            }
        }
        write!(f, "{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_integers_take_the_callers_unit() {
        assert_eq!(parse_bits("1024", PlainUnit::Bits), Ok(1024));
        assert_eq!(parse_bits("1024", PlainUnit::Bytes), Ok(8192));
        assert_eq!(parse_bits(" 1_000 ", PlainUnit::Bits), Ok(1000));
    }

    #[test]
    fn every_suffix_of_the_table() {
        let cases: [(&str, u64); 17] = [
            ("1K", 1000),
            ("1k", 1000),
            ("1M", 1_000_000),
            ("1G", 1_000_000_000),
            ("1T", 1_000_000_000_000),
            ("1Ki", 1024),
            ("1Mi", 1 << 20),
            ("1Gi", 1 << 30),
            ("1Ti", 1 << 40),
            ("1B", 8),
            ("1KB", 8000),
            ("1kB", 8000),
            ("1MB", 8_000_000),
            ("1GB", 8_000_000_000),
            ("1KiB", 8192),
            ("1MiB", 8 << 20),
            ("1GiB", 8 << 30),
        ];
        for (text, bits) in cases {
            assert_eq!(parse_bits(text, PlainUnit::Bits), Ok(bits), "{text}");
            // The suffix decides, whatever the plain unit.
            assert_eq!(parse_bits(text, PlainUnit::Bytes), Ok(bits), "{text}");
        }
        assert_eq!(parse_bits("64Kb", PlainUnit::Bytes), Ok(64_000));
        assert_eq!(parse_bits("3 bits", PlainUnit::Bytes), Ok(3));
    }

    #[test]
    fn bad_sizes_say_why() {
        assert_eq!(
            parse_bits("-1", PlainUnit::Bits),
            Err(SizeError::Negative("-1".into()))
        );
        assert!(matches!(
            parse_bits("1X", PlainUnit::Bits),
            Err(SizeError::UnknownUnit { .. })
        ));
        assert!(matches!(
            parse_bits("1Xi", PlainUnit::Bits),
            Err(SizeError::UnknownUnit { .. })
        ));
        assert!(matches!(
            parse_bits("KiB", PlainUnit::Bits),
            Err(SizeError::NotANumber(_))
        ));
        assert!(matches!(
            parse_bits("1.5M", PlainUnit::Bits),
            Err(SizeError::NotANumber(_))
        ));
        assert!(matches!(
            parse_bits("3GiB", PlainUnit::Bits),
            Ok(25_769_803_776)
        ));
        assert!(matches!(
            parse_bits("99999999999TiB", PlainUnit::Bits),
            Err(SizeError::TooLarge(_))
        ));
        assert!(matches!(
            parse_bits("99999999999999999999999", PlainUnit::Bits),
            Err(SizeError::TooLarge(_))
        ));
    }

    #[test]
    fn bytes_must_be_whole() {
        assert_eq!(parse_bytes("4KiB", PlainUnit::Bytes), Ok(4096));
        assert_eq!(parse_bytes("16", PlainUnit::Bits), Ok(2));
        assert!(matches!(
            parse_bytes("12", PlainUnit::Bits),
            Err(SizeError::NotWholeBytes { bits: 12, .. })
        ));
    }

    #[test]
    fn shown_in_the_largest_exact_unit() {
        assert_eq!(ShowBits(65536 * 8).to_string(), "64 KiB");
        assert_eq!(ShowBits(8 << 20).to_string(), "1 MiB");
        assert_eq!(ShowBits(24).to_string(), "3 B");
        assert_eq!(ShowBits(1000).to_string(), "125 B");
        assert_eq!(ShowBits(1001).to_string(), "1001 bits");
    }
}
