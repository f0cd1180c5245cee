//! Demands CSV: `src_slot,dst_slot,bits_total`, copyspace-guard's rules.
//!
//! The header is optional (recognised when a row names all three columns, in
//! any order, extra columns allowed); `#` comment lines and blank lines are
//! skipped; cells are trimmed and may be double-quoted; values are
//! non-negative integers. Errors carry the 1-based line and the column.
//!
//! Multi-port extension (DESIGN.md §11): an optional fourth column `bw`
//! (the demand's own bits per tick; by position without a header, by the
//! name `bw` with one), and `--ports K` for every slot (see
//! [`Instance::from_csv_bytes_multiport`]).
//!
//! Files in the common form (plain rows) are read by the one-pass reader in
//! `csv_fast`; this module is the general reader behind it and owns every
//! error message.

use super::csv_cells::{header_positions, is_skippable, parse_uint, split_cells, COLUMNS};
use super::error::{line_of, require_utf8};
use super::{Demand, InputError, Instance, Limits, Model};

/// One data row of a demands CSV, before validation against the instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DemandRow {
    pub line: u64,
    pub src: u64,
    pub dst: u64,
    pub bits: u64,
    /// The demand's own bandwidth (optional fourth column `bw`).
    pub bw: Option<u64>,
}

/// Name of the optional per-demand bandwidth column.
const BW_COLUMN: &str = "bw";

/// The three values of a row that is exactly `digits,digits,digits` (no
/// spaces, quotes or signs, each value fitting `u64`); `None` otherwise.
fn plain_row(line: &[u8]) -> Option<[u64; 3]> {
    let mut out = [0u64; 3];
    let (mut k, mut cur, mut digits) = (0usize, 0u64, 0u32);
    for &b in line {
        match b {
            b'0'..=b'9' => {
                cur = cur.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
                digits += 1;
            }
            b',' if digits > 0 && k < 2 => {
                out[k] = cur;
                (k, cur, digits) = (k + 1, 0, 0);
            }
            _ => return None,
        }
    }
    (k == 2 && digits > 0).then(|| {
        out[2] = cur;
        out
    })
}

/// The column an unknown header cell probably means (`src` -> `src_slot`,
/// `bytes` -> `bits_total`); `None` for a known column or an unrelated name.
fn suggest_column(cell: &str) -> Option<&'static str> {
    const KNOWN: [&str; 4] = ["src_slot", "dst_slot", "bits_total", BW_COLUMN];
    if KNOWN.contains(&cell) || !cell.chars().any(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let lower = cell.to_ascii_lowercase();
    if ["byte", "size", "len"].iter().any(|w| lower.contains(w)) {
        return Some("bits_total");
    }
    super::close_key(cell, &KNOWN)
}

/// Refuses a row beyond `limits.max_demands` (`rows` already read).
fn row_limit(rows: usize, limits: &Limits, line: u64) -> Result<(), InputError> {
    if rows as u64 >= limits.max_demands {
        return Err(
            InputError::new(format!("more demand rows than {}", limits.demands_limit()))
                .at_line(line),
        );
    }
    Ok(())
}

/// The first row, when it has words but is no header: a misspelt column
/// name (`src`, `bytes`) says which was meant, a header that misses a
/// column says which. Other rows pass (they fail as numbers).
fn check_header_words(cells: &[&str], line: u64) -> Result<(), InputError> {
    if cells
        .iter()
        .any(|c| c.chars().any(|ch| ch.is_ascii_alphabetic()) && !c.starts_with('#'))
    {
        // A misspelt column name (`src`, `bytes`): say which was meant.
        let unknown: Vec<(&str, &str)> = cells
            .iter()
            .filter_map(|c| {
                let c = c.trim_start_matches('\u{feff}');
                suggest_column(c).map(|k| (c, k))
            })
            .collect();
        if !unknown.is_empty() {
            let says: Vec<String> = unknown
                .iter()
                .map(|(c, k)| {
                    let unit = if *k == "bits_total" && c.to_ascii_lowercase().contains("byte") {
                        "; sizes are in bits: bytes x 8"
                    } else {
                        ""
                    };
                    format!("unknown column {c} (did you mean {k}?{unit})")
                })
                .collect();
            let names: Vec<&str> = unknown.iter().map(|(c, _)| *c).collect();
            return Err(InputError::field(&names.join(","), says.join(", ")).at_line(line));
        }
        // A header that misses a column is a common mistake: say which.
        let missing: Vec<&str> = COLUMNS
            .iter()
            .copied()
            .filter(|name| {
                !cells
                    .iter()
                    .any(|c| c.trim_start_matches('\u{feff}') == *name)
            })
            .collect();
        if cells
            .iter()
            .any(|c| COLUMNS.contains(&c.trim_start_matches('\u{feff}')))
        {
            return Err(InputError::field(
                &missing.join(","),
                format!("header is missing column(s) {}", missing.join(", ")),
            )
            .at_line(line));
        }
    }
    Ok(())
}

/// A row the fast path did not take: the three columns at `pos` as
/// (src, dst, bits), and the `bw` cell at `bw_pos` if present and not
/// empty (> 0).
fn general_row(
    cells: &[&str],
    pos: [usize; 3],
    bw_pos: Option<usize>,
    line: u64,
) -> Result<([u64; 3], Option<u64>), InputError> {
    let mut vals = [0u64; 3];
    for k in 0..3 {
        let cell = cells.get(pos[k]).ok_or_else(|| {
            InputError::field(
                COLUMNS[k],
                format!("missing column (row has {} of 3 columns)", cells.len()),
            )
            .at_line(line)
        })?;
        vals[k] = parse_uint(cell, COLUMNS[k], line)?;
    }
    let bw = match bw_pos.and_then(|p| cells.get(p)) {
        Some(cell) if !cell.is_empty() => {
            let b = parse_uint(cell, BW_COLUMN, line)?;
            if b == 0 {
                return Err(
                    InputError::field(BW_COLUMN, "bandwidth per tick must be > 0").at_line(line),
                );
            }
            Some(b)
        }
        _ => None,
    };
    Ok((vals, bw))
}

/// Parses a demands CSV into rows (no slot or model checks yet).
pub fn parse_demands_csv(bytes: &[u8], limits: &Limits) -> Result<Vec<DemandRow>, InputError> {
    // A UTF-8 byte order mark (spreadsheet exports) is not part of the data.
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = require_utf8(body)?;
    let mut rows = Vec::with_capacity(body.len() / 16);
    let mut positions: Option<[usize; 3]> = None;
    // Position of the `bw` column: named in a header, else the fourth cell.
    let mut bw_pos: Option<usize> = Some(3);
    let mut seen_first = false;
    for (idx, raw_line) in text.lines().enumerate() {
        let line = idx as u64 + 1;
        // Fast path: a plain `digits,digits,digits` row (the common case)
        // is parsed in place; anything else takes the general path below,
        // which owns every error message.
        // (Only while the columns are the first three: a header may name
        // them in other places, and such rows go the general way.)
        let fast = positions.is_none_or(|p| p.iter().all(|&i| i < 3));
        if let Some(cells) = plain_row(raw_line.as_bytes()).filter(|_| fast) {
            seen_first = true;
            row_limit(rows.len(), limits, line)?;
            let pos = positions.unwrap_or([0, 1, 2]);
            rows.push(DemandRow {
                line,
                src: cells[pos[0]],
                dst: cells[pos[1]],
                bits: cells[pos[2]],
                bw: None,
            });
            continue;
        }
        let cells = split_cells(raw_line);
        if is_skippable(&cells) {
            continue;
        }
        if !seen_first {
            seen_first = true;
            if let Some(p) = header_positions(&cells) {
                positions = Some(p);
                bw_pos = cells
                    .iter()
                    .position(|c| c.trim_start_matches('\u{feff}') == BW_COLUMN);
                continue;
            }
            check_header_words(&cells, line)?;
        }
        let (vals, bw) = general_row(&cells, positions.unwrap_or([0, 1, 2]), bw_pos, line)?;
        row_limit(rows.len(), limits, line)?;
        rows.push(DemandRow {
            line,
            src: vals[0],
            dst: vals[1],
            bits: vals[2],
            bw,
        });
    }
    if rows.is_empty() {
        return Err(InputError::new(
            "no demands found in CSV (empty file or only comments/header)",
        )
        .at_line(line_of(bytes, bytes.len())));
    }
    Ok(rows)
}

impl Instance {
    /// Builds an instance from a demands CSV. `slots` defaults to the
    /// largest slot id + 1. Errors name the line of the offending row.
    pub fn from_csv_bytes(
        bytes: &[u8],
        model: Model,
        bw: u64,
        slots: Option<u32>,
        limits: &Limits,
    ) -> Result<Instance, InputError> {
        Instance::from_csv_bytes_multiport(bytes, model, bw, slots, None, limits)
    }

    /// [`Instance::from_csv_bytes`] with `ports` for every slot (`None`: 1)
    /// and the optional `bw` column read per demand.
    pub fn from_csv_bytes_multiport(
        bytes: &[u8],
        model: Model,
        bw: u64,
        slots: Option<u32>,
        ports: Option<u32>,
        limits: &Limits,
    ) -> Result<Instance, InputError> {
        if bw == 0 {
            return Err(InputError::field("--bw", "bandwidth per tick must be > 0"));
        }
        // The common form in one pass; anything else (and every error) is
        // the general reader's below.
        if let Some(inst) = super::csv_fast::read(bytes, model, bw, slots, ports, limits) {
            return Ok(inst);
        }
        Instance::from_csv_general(bytes, model, bw, slots, ports, limits)
    }

    /// The general reader behind [`Instance::from_csv_bytes_multiport`]:
    /// every form the module docs allow, and every error message.
    pub(super) fn from_csv_general(
        bytes: &[u8],
        model: Model,
        bw: u64,
        slots: Option<u32>,
        ports: Option<u32>,
        limits: &Limits,
    ) -> Result<Instance, InputError> {
        if bw == 0 {
            return Err(InputError::field("--bw", "bandwidth per tick must be > 0"));
        }
        let rows = parse_demands_csv(bytes, limits)?;
        let max_slot = rows.iter().map(|r| r.src.max(r.dst)).max().unwrap_or(0);
        let slots: u64 = match slots {
            Some(s) => s as u64,
            None => max_slot + 1,
        };
        if slots > limits.max_slots as u64 {
            let line = rows
                .iter()
                .find(|r| r.src.max(r.dst) == max_slot)
                .map(|r| r.line)
                .unwrap_or(1);
            return Err(InputError::field(
                "src_slot/dst_slot",
                format!(
                    "slot id {max_slot} implies {slots} slots, above {}",
                    limits.slots_limit()
                ),
            )
            .at_line(line));
        }
        for r in &rows {
            if r.src >= slots || r.dst >= slots {
                let field = if r.src >= slots {
                    "src_slot"
                } else {
                    "dst_slot"
                };
                return Err(InputError::field(
                    field,
                    format!(
                        "slot out of bounds: {}->{} with slots={slots}",
                        r.src, r.dst
                    ),
                )
                .at_line(r.line));
            }
            if r.src == r.dst {
                return Err(InputError::field(
                    "dst_slot",
                    format!("src_slot equals dst_slot: {}", r.src),
                )
                .at_line(r.line));
            }
            if r.bits == 0 {
                return Err(
                    InputError::field("bits_total", "bits_total must be > 0").at_line(r.line)
                );
            }
        }
        let demands = rows.iter().map(|r| {
            (
                Demand {
                    src: r.src as u32,
                    dst: r.dst as u32,
                    bits: r.bits,
                },
                r.bw,
            )
        });
        let ports = match ports {
            Some(k) => super::Ports::Uniform(k),
            None => super::Ports::default(),
        };
        ports.check(slots as u32, "--ports")?;
        Instance::new_multiport(model, slots as u32, bw, demands, ports, limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Result<Vec<(u64, u64, u64, u64)>, String> {
        parse_demands_csv(text.as_bytes(), &Limits::default())
            .map(|r| {
                r.into_iter()
                    .map(|r| (r.line, r.src, r.dst, r.bits))
                    .collect()
            })
            .map_err(|e| e.to_string())
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let plain = rows("0,1,5\n1,2,7\n").unwrap();
        assert_eq!(rows("\u{feff}0,1,5\n1,2,7\n").unwrap(), plain);
        assert_eq!(
            rows("\u{feff}src_slot,dst_slot,bits_total\n0,1,5\n1,2,7\n").unwrap(),
            vec![(2, 0, 1, 5), (3, 1, 2, 7)]
        );
    }

    #[test]
    fn fast_and_general_rows_agree() {
        // Plain rows take the fast path; spaced, quoted, signed ones the general one.
        let a = rows("# c\n0,1,5\r\n\n 0 , 1 , 5\n\"0\",1,+5\n").unwrap();
        assert_eq!(a, vec![(2, 0, 1, 5), (4, 0, 1, 5), (5, 0, 1, 5)]);
        // A permuted header applies to plain rows too.
        let b = rows("bits_total,dst_slot,src_slot\n9,2,3\n").unwrap();
        assert_eq!(b, vec![(2, 3, 2, 9)]);
    }

    #[test]
    fn errors_still_name_line_and_field() {
        let e = rows("0,1,5\n0,1,99999999999999999999\n").unwrap_err();
        assert!(
            e.contains("line 2") && e.contains("bits_total") && e.contains("overflows"),
            "{e}"
        );
        let e = rows("0,1,5\n0,x,5\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("dst_slot"), "{e}");
        let e = rows("0,1,5\n0,1\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("missing column"), "{e}");
        let e = rows("0,1,5\n0,1,-3\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("negative"), "{e}");
    }
}
