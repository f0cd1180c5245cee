//! Traffic matrices in: `W` lines of `W` sizes, entry `[i][j]` the data
//! slot `i` sends to slot `j` (the diagonal zero), as published by traffic
//! studies and collective benchmarks.
//!
//! Cells are separated by commas, tabs or spaces; blank lines and lines
//! starting with `#` are skipped. A cell is a size in the one size syntax
//! ([`crate::units`]): a plain number is in the `plain` unit (bits unless
//! the caller says bytes), suffixes as everywhere (`4KiB`, `1M`). Zero
//! cells are no demand.

use super::InteropError;
use crate::instance::{Demand, InputError, Instance, Limits, Model};
use crate::units::{parse_bits, PlainUnit};

/// Reads a traffic matrix into demands (slot count = matrix width).
pub fn parse_matrix(text: &str, plain: PlainUnit) -> Result<(u32, Vec<Demand>), InputError> {
    let mut rows: Vec<(u64, Vec<u64>)> = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let lineno = k as u64 + 1;
        let line = line.trim().trim_start_matches('\u{feff}');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|c| !c.is_empty())
            .collect();
        let mut row = Vec::with_capacity(cells.len());
        for (col, cell) in cells.iter().enumerate() {
            let v = parse_bits(cell, plain).map_err(|e| {
                InputError::new(format!("row {}, column {col}: {e}", rows.len())).at_line(lineno)
            })?;
            row.push(v);
        }
        rows.push((lineno, row));
    }
    let w = rows.len();
    if w == 0 {
        return Err(InputError::new("empty matrix: no rows"));
    }
    let mut demands = Vec::new();
    for (i, (lineno, row)) in rows.iter().enumerate() {
        if row.len() != w {
            return Err(InputError::new(format!(
                "row {i} has {} entries, the matrix has {w} rows (it must be square)",
                row.len()
            ))
            .at_line(*lineno));
        }
        for (j, &bits) in row.iter().enumerate() {
            if i == j && bits != 0 {
                return Err(InputError::new(format!(
                    "row {i}, column {j}: a slot sends {bits} bits to itself; the diagonal must be 0"
                ))
                .at_line(*lineno));
            }
            if bits > 0 && i != j {
                demands.push(Demand {
                    src: i as u32,
                    dst: j as u32,
                    bits,
                });
            }
        }
    }
    let slots = u32::try_from(w).map_err(|_| InputError::new("matrix too wide"))?;
    Ok((slots, demands))
}

/// A traffic matrix as an instance.
pub fn matrix_instance(
    text: &str,
    plain: PlainUnit,
    model: Model,
    bw: u64,
) -> Result<Instance, InteropError> {
    let (slots, demands) = parse_matrix(text, plain)?;
    Ok(Instance::new(
        model,
        slots,
        bw,
        demands,
        &Limits::default(),
    )?)
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
}
