//! The cells of a demands CSV line, shared by the general reader
//! ([`super::csv_input`]) and the fast one ([`super::csv_fast`]): splitting
//! and trimming, blank and comment lines, the header's column positions,
//! and integer cells with their messages. Neither reader imports the
//! other; both import these.

use super::InputError;

pub(super) const COLUMNS: [&str; 3] = ["src_slot", "dst_slot", "bits_total"];

/// Splits one CSV line into trimmed cells, removing surrounding quotes.
pub(crate) fn split_cells(line: &str) -> Vec<&str> {
    line.split(',')
        .map(|c| {
            let c = c.trim();
            c.strip_prefix('"')
                .and_then(|c| c.strip_suffix('"'))
                .map(str::trim)
                .unwrap_or(c)
        })
        .collect()
}

/// Whether a line is blank or a `#` comment.
pub(crate) fn is_skippable(cells: &[&str]) -> bool {
    match cells.iter().find(|c| !c.is_empty()) {
        None => true,
        Some(c) => c.starts_with('#'),
    }
}

/// The least value a field takes: sizes and bandwidths are >= 1 (0 is
/// refused), slot ids >= 0. Messages say the real bound, not `>= 0` for a
/// field where 0 is an error too.
pub(crate) fn least_value(field: &str) -> u8 {
    let f = field.rsplit('.').next().unwrap_or(field);
    match f {
        "bits_total" | "copy_bw_bits_per_tick" | "bw" | "slots" | "ports" => 1,
        _ => 0,
    }
}

/// Parses a non-negative integer cell, with messages for the usual mistakes.
pub(crate) fn parse_uint(cell: &str, field: &str, line: u64) -> Result<u64, InputError> {
    let err = |msg: String| InputError::field(field, msg).at_line(line);
    if cell.is_empty() {
        return Err(err("missing value".into()));
    }
    let digits = cell.strip_prefix('+').unwrap_or(cell);
    if let Some(rest) = digits.strip_prefix('-') {
        if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err(format!(
                "{cell:?} is negative; expected an integer >= {}",
                least_value(field)
            )));
        }
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err(format!("{cell:?} is not an integer")));
    }
    digits
        .parse::<u64>()
        .map_err(|_| err(format!("{cell:?} overflows a 64-bit unsigned integer")))
}

/// Column positions of the three fields: from a header, or 0,1,2.
pub(super) fn header_positions(cells: &[&str]) -> Option<[usize; 3]> {
    let mut pos = [usize::MAX; 3];
    for (i, c) in cells.iter().enumerate() {
        let c = c.trim_start_matches('\u{feff}');
        if let Some(k) = COLUMNS.iter().position(|name| *name == c) {
            pos[k] = i;
        }
    }
    pos.iter().all(|&p| p != usize::MAX).then_some(pos)
}
