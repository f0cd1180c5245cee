//! Traffic matrices in: `W` lines of `W` sizes, entry `[i][j]` the data
//! slot `i` sends to slot `j` (the diagonal zero), as published by traffic
//! studies and collective benchmarks.
//!
//! Cells are separated by commas, tabs or spaces; blank lines and lines
//! starting with `#` are skipped. A cell is a size in the one size syntax
//! ([`crate::units`]): a plain number is in the `plain` unit (bits unless
//! the caller says bytes), suffixes as everywhere (`4KiB`, `1M`). Zero
//! cells are no demand.
//!
//! The file is read row by row ([`read_matrix`]): each row's cells become
//! demands at once, so memory is the demands (what the instance holds
//! anyway) plus one line, whatever the matrix's size; the width is known
//! from the first row, so a matrix wider than the slot limit is refused
//! before its second line is read.

use super::InteropError;
use crate::instance::{Demand, InputError, Instance, Limits, Model};
use crate::units::{parse_bits, PlainUnit};
use std::io::BufRead;

/// Reads a traffic matrix into demands (slot count = matrix width), one row
/// at a time, refusing a width above `limits.max_slots` (on the first row)
/// and more non-zero cells than `limits.max_demands` (on the row that
/// passes it). Errors name the line (and the row and column of a cell).
/// Time: linear in the input; memory: the demands plus one line.
pub fn read_matrix(
    mut input: impl BufRead,
    plain: PlainUnit,
    limits: &Limits,
) -> Result<(u32, Vec<Demand>), InputError> {
    // The bits of a plain "1": multiplies the plain numbers of the fast path.
    let unit = parse_bits("1", plain).expect("1 is a size");
    let mut rows = Rows {
        width: None,
        row: 0,
        demands: Vec::new(),
        limits,
        unit,
    };
    let mut line = Vec::new();
    let mut lineno = 0u64;
    loop {
        line.clear();
        let n = input
            .read_until(b'\n', &mut line)
            .map_err(|e| InputError::new(format!("cannot read: {e}")).at_line(lineno + 1))?;
        if n == 0 {
            break;
        }
        lineno += 1;
        let text = std::str::from_utf8(&line)
            .map_err(|_| InputError::new("not UTF-8 text").at_line(lineno))?;
        let text = text.trim().trim_start_matches('\u{feff}');
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        rows.push(text, plain).map_err(|e| e.at_line(lineno))?;
    }
    let Some(w) = rows.width else {
        return Err(InputError::new("empty matrix: no rows"));
    };
    if rows.row != w {
        return Err(InputError::new(format!(
            "the matrix has {} rows of {w} entries (it must be square)",
            rows.row
        )));
    }
    Ok((w, rows.demands))
}

/// The rows read so far.
struct Rows<'a> {
    /// Entries per row, fixed by the first row.
    width: Option<u32>,
    /// Index of the next row.
    row: u32,
    demands: Vec<Demand>,
    limits: &'a Limits,
    /// Bits of a plain 1.
    unit: u64,
}

impl Rows<'_> {
    /// Turns one non-blank, non-comment line into the row's demands.
    fn push(&mut self, line: &str, plain: PlainUnit) -> Result<(), InputError> {
        let cells = || {
            line.split(|c: char| c == ',' || c.is_whitespace())
                .filter(|c| !c.is_empty())
        };
        let i = self.row;
        let w = match self.width {
            Some(w) => w,
            None => {
                let n = cells().count();
                let w = u32::try_from(n)
                    .ok()
                    .filter(|&w| w <= self.limits.max_slots)
                    .ok_or_else(|| {
                        InputError::field(
                            "slots",
                            format!(
                                "a matrix {n} entries wide has {n} slots, above {}",
                                self.limits.slots_limit()
                            ),
                        )
                    })?;
                *self.width.insert(w)
            }
        };
        if i >= w {
            return Err(InputError::new(format!(
                "row {i}: the matrix has more rows than its {w} columns (it must be square)"
            )));
        }
        let n = cells().count();
        if n != w as usize {
            return Err(InputError::new(format!(
                "row {i} has {n} entries, row 0 has {w} (the matrix must be square)"
            )));
        }
        for (j, cell) in cells().enumerate() {
            let bits = self
                .cell(cell, plain)
                .map_err(|e| InputError::new(format!("row {i}, column {j}: {e}")))?;
            self.add(i, j as u32, bits)?;
        }
        self.row += 1;
        Ok(())
    }

    /// A cell's bits: plain digits read directly, anything else (units,
    /// signs, underscores, errors) by the one size parser.
    fn cell(&self, cell: &str, plain: PlainUnit) -> Result<u64, crate::units::SizeError> {
        if cell.len() <= 19 && cell.bytes().all(|b| b.is_ascii_digit()) {
            if let Some(bits) = cell
                .parse::<u64>()
                .ok()
                .and_then(|v| v.checked_mul(self.unit))
            {
                return Ok(bits);
            }
        }
        parse_bits(cell, plain)
    }

    /// Records cell `[i][j]`: a demand when non-zero, refused on the diagonal.
    fn add(&mut self, i: u32, j: u32, bits: u64) -> Result<(), InputError> {
        if bits == 0 {
            return Ok(());
        }
        if i == j {
            return Err(InputError::new(format!(
                "row {i}, column {j}: a slot sends {bits} bits to itself; the diagonal must be 0"
            )));
        }
        if self.demands.len() as u64 >= self.limits.max_demands {
            return Err(InputError::field(
                "demands",
                format!(
                    "row {i}, column {j}: more non-zero entries than {}",
                    self.limits.demands_limit()
                ),
            ));
        }
        self.demands.push(Demand {
            src: i,
            dst: j,
            bits,
        });
        Ok(())
    }
}

/// Reads a traffic matrix held in memory (see [`read_matrix`]), under the
/// default limits.
pub fn parse_matrix(text: &str, plain: PlainUnit) -> Result<(u32, Vec<Demand>), InputError> {
    read_matrix(text.as_bytes(), plain, &Limits::default())
}

/// A traffic matrix, read row by row, as an instance under `limits`.
pub fn matrix_instance(
    input: impl BufRead,
    plain: PlainUnit,
    model: Model,
    bw: u64,
    limits: &Limits,
) -> Result<Instance, InteropError> {
    let (slots, mut demands) = read_matrix(input, plain, limits)?;
    // The demands are copied once more into the instance: give back the
    // unused part of the doubled vector first.
    demands.shrink_to_fit();
    Ok(Instance::new(model, slots, bw, demands, limits)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_matrices_become_demands_and_bad_ones_are_refused_by_line() {
        let (n, d) = parse_matrix("# bytes\n0, 2KiB, 0\n8 0 1\n0,0,0\n", PlainUnit::Bytes).unwrap();
        assert_eq!(n, 3);
        assert_eq!(
            d,
            vec![
                Demand {
                    src: 0,
                    dst: 1,
                    bits: 2048 * 8
                },
                Demand {
                    src: 1,
                    dst: 0,
                    bits: 64
                },
                Demand {
                    src: 1,
                    dst: 2,
                    bits: 8
                },
            ]
        );
        let e = parse_matrix("0 1\n1 0 3\n", PlainUnit::Bits)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("square"), "{e}");
        let e = parse_matrix("5 1\n1 0\n", PlainUnit::Bits)
            .unwrap_err()
            .to_string();
        assert!(e.contains("diagonal"), "{e}");
        let e = parse_matrix("0 x\n1 0\n", PlainUnit::Bits)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1") && e.contains("column 1"), "{e}");
    }

    #[test]
    fn crlf_lines_a_byte_order_mark_and_tabs_read_as_plain_lines() {
        let (n, d) = parse_matrix("\u{feff}0\t3\r\n\r\n# c\r\n4,0\r\n", PlainUnit::Bits).unwrap();
        assert_eq!(n, 2);
        assert_eq!(d.iter().map(|d| d.bits).collect::<Vec<_>>(), vec![3, 4]);
    }

    proptest::proptest! {
        /// Plain digits take a shortcut past the size parser; it must read
        /// what the parser reads, overflow included.
        #[test]
        fn the_digit_shortcut_reads_what_the_size_parser_reads(
            cell in "[0-9]{1,21}|[0-9_+]{1,4}[KMG]?i?B?",
            bytes in proptest::bool::ANY,
        ) {
            let plain = if bytes { PlainUnit::Bytes } else { PlainUnit::Bits };
            let limits = Limits::default();
            let rows = Rows {
                width: None,
                row: 0,
                demands: Vec::new(),
                limits: &limits,
                unit: parse_bits("1", plain).unwrap(),
            };
            let (fast, slow) = (rows.cell(&cell, plain), parse_bits(&cell, plain));
            proptest::prop_assert_eq!(fast.map_err(|e| e.to_string()), slow.map_err(|e| e.to_string()));
        }
    }
}
