//! What a demands CSV records about itself in `#` comment lines.
//!
//! A demands CSV has no place for the bandwidth its sizes were made for, so
//! `tickopt gen` writes it as a comment line `# copy_bw_bits_per_tick=N`
//! before the header (doc/formats.md). Readers use it when no `--bw` is
//! given, so a generated file solves as it was generated instead of asking
//! the user to repeat a number the file already holds. Only the comment
//! lines before the first header or data row are read: the scan stops
//! there, so a large CSV costs nothing extra.

use super::csv_cells::parse_uint;
use super::InputError;

/// The key of the bandwidth comment line (`# copy_bw_bits_per_tick=N`).
pub const BW_COMMENT_KEY: &str = "copy_bw_bits_per_tick";

/// The keys of the two-tier machine's comment lines (issue 52):
/// `# gpus_per_node=G` and `# nvlink_speedup=RHO`.
pub const GPUS_PER_NODE_KEY: &str = "gpus_per_node";
pub const NVLINK_SPEEDUP_KEY: &str = "nvlink_speedup";

/// The two-tier machine an instance file records (issue 52): an instance
/// JSON's keys `"gpus_per_node"` and `"nvlink_speedup"`, or a demands
/// CSV's leading comment lines `# gpus_per_node=G` and
/// `# nvlink_speedup=RHO`. The reader checks each value (an integer from 1
/// to `u32::MAX`) and returns the machine with the instance, so the relay
/// commands need not read the file again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordedMachine {
    pub gpus_per_node: Option<RecordedValue>,
    pub nvlink_speedup: Option<RecordedValue>,
}

/// One value of a [`RecordedMachine`] and where the file gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordedValue {
    pub value: u32,
    /// The 1-based line of a CSV's comment; `None` for a JSON key.
    pub line: Option<u64>,
}

impl RecordedMachine {
    /// The machine a demands CSV's leading comment lines record; a line
    /// naming a key with a value that is not an integer from 1 to
    /// `u32::MAX` is an error naming the line and the key.
    pub fn from_csv(bytes: &[u8]) -> Result<RecordedMachine, InputError> {
        let read = |key: &str| -> Result<Option<RecordedValue>, InputError> {
            match recorded_value(bytes, key)? {
                None => Ok(None),
                Some((v, line)) => {
                    let value = u32::try_from(v).map_err(|_| {
                        InputError::field(key, format!("{key}={v} does not fit u32")).at_line(line)
                    })?;
                    Ok(Some(RecordedValue {
                        value,
                        line: Some(line),
                    }))
                }
            }
        };
        Ok(RecordedMachine {
            gpus_per_node: read(GPUS_PER_NODE_KEY)?,
            nvlink_speedup: read(NVLINK_SPEEDUP_KEY)?,
        })
    }
}

/// The bandwidth a CSV's leading comment lines record, with its 1-based
/// line number; `None` when there is no such line. A line naming the key
/// with a value that is not an integer >= 1 is an error, not ignored.
pub fn recorded_bw(bytes: &[u8]) -> Result<Option<(u64, u64)>, InputError> {
    recorded_value(bytes, BW_COMMENT_KEY)
}

/// The value of `# key=N` in a CSV's leading comment lines, with its
/// 1-based line number, as [`recorded_bw`] reads the bandwidth (an
/// integer >= 1, else an error naming the line).
pub fn recorded_value(bytes: &[u8], key: &str) -> Result<Option<(u64, u64)>, InputError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = (i + 1) as u64;
        let text = String::from_utf8_lossy(raw);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let Some(comment) = text.strip_prefix('#') else {
            return Ok(None);
        };
        let Some(rest) = comment.trim().strip_prefix(key) else {
            continue;
        };
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let bw = parse_uint(value.trim(), key, line)?;
        if bw == 0 {
            let why = if key == BW_COMMENT_KEY {
                "is 0: a transfer must move at least 1 bit per tick"
            } else {
                "is 0: it must be at least 1"
            };
            return Err(InputError::field(key, why).at_line(line));
        }
        return Ok(Some((bw, line)));
    }
    Ok(None)
}

/// The comment line recording `bw` (without the newline).
pub fn bw_comment(bw: u64) -> String {
    format!("# {BW_COMMENT_KEY}={bw}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_machine_of_a_relay_instance() {
        let csv = b"# gpus_per_node=8\n# nvlink_speedup=4\nsrc_slot,dst_slot,bits_total\n0,1,5\n";
        assert_eq!(
            recorded_value(csv, GPUS_PER_NODE_KEY).unwrap(),
            Some((8, 1))
        );
        assert_eq!(
            recorded_value(csv, NVLINK_SPEEDUP_KEY).unwrap(),
            Some((4, 2))
        );
        assert_eq!(recorded_bw(csv).unwrap(), None);
        let zero = b"# nvlink_speedup=0\n0,1,5\n";
        let err = recorded_value(zero, NVLINK_SPEEDUP_KEY)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 1") && err.contains("nvlink_speedup"),
            "{err}"
        );
    }

    #[test]
    fn the_machine_of_a_csv_is_read_and_checked() {
        let csv = b"# gpus_per_node=8\n# nvlink_speedup=4\nsrc_slot,dst_slot,bits_total\n0,1,5\n";
        let m = RecordedMachine::from_csv(csv).unwrap();
        assert_eq!(
            m.gpus_per_node.map(|r| (r.value, r.line)),
            Some((8, Some(1)))
        );
        assert_eq!(
            m.nvlink_speedup.map(|r| (r.value, r.line)),
            Some((4, Some(2)))
        );
        let none = RecordedMachine::from_csv(b"# tickopt gen gpus_per_node=8\n0,1,5\n").unwrap();
        assert_eq!(none, RecordedMachine::default());
        for (bad, line) in [
            ("# gpus_per_node=0\n0,1,5\n", 1),
            ("\n# gpus_per_node=4294967296\n0,1,5\n", 2),
            ("# nvlink_speedup=x\n0,1,5\n", 1),
        ] {
            let e = RecordedMachine::from_csv(bad.as_bytes()).unwrap_err();
            assert_eq!(e.line, Some(line), "{bad}: {e}");
            let key = e.field.clone().unwrap_or_default();
            assert!(
                key == GPUS_PER_NODE_KEY || key == NVLINK_SPEEDUP_KEY,
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn reads_the_leading_comment_only() {
        let csv = b"# tickopt gen ring n=4\n# copy_bw_bits_per_tick=2048\nsrc_slot,dst_slot,bits_total\n0,1,5\n";
        assert_eq!(recorded_bw(csv).unwrap(), Some((2048, 2)));
        let late = b"src_slot,dst_slot,bits_total\n# copy_bw_bits_per_tick=2048\n0,1,5\n";
        assert_eq!(recorded_bw(late).unwrap(), None);
        assert_eq!(recorded_bw(b"0,1,5\n").unwrap(), None);
        assert_eq!(recorded_bw(bw_comment(7).as_bytes()).unwrap(), Some((7, 1)));
    }

    #[test]
    fn a_bad_value_is_an_error_with_its_line() {
        for bad in ["# copy_bw_bits_per_tick=0", "# copy_bw_bits_per_tick=x"] {
            let e = recorded_bw(format!("\n{bad}\n0,1,5\n").as_bytes()).unwrap_err();
            let s = e.to_string();
            assert!(s.contains("line 2") && s.contains(BW_COMMENT_KEY), "{s}");
            assert!(!s.contains(">= 0"), "{s}");
        }
    }
}
