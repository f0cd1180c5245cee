//! The fast reader of the common demands CSV (issue 15 item 4).
//!
//! It owns the form almost every demands file has: plain
//! `digits,digits,digits` rows, an optional first header naming
//! `src_slot,dst_slot,bits_total` in that order, `#` comment lines, blank
//! lines, CRLF line ends and a UTF-8 byte order mark. It reads the bytes in
//! one pass straight into demands (16 bytes a row, no per-row record, line
//! or `&str`), checks each row as it goes, and builds the [`Instance`]
//! without a second copy: rows that come sorted by pair with no repeat (as
//! `tickopt gen` and every tool writing from a sorted list emit them) skip
//! the sort and the merge; other rows are sorted (a counting sort by
//! source, then each source's run by destination) and merged in place.
//!
//! Large inputs are cut at line ends into one piece per rayon thread; each
//! piece is scanned on its own and the pieces are joined in file order, so
//! the result does not depend on the thread count.
//!
//! Everything else (quoted or spaced cells, a permuted header, the `bw`
//! column, any error at all) makes it give up and return `None`, and the
//! general reader in [`super::csv_input`] reads the file from the start.
//! So every message still comes from one place, with its line and field,
//! and the two readers cannot disagree on what they both accept (a property
//! test compares them on random files).

use rayon::prelude::*;

use super::csv_cells::{header_positions, split_cells};
use super::{Demand, Instance, Limits, Model, Ports};

/// Inputs below this size are scanned in one piece (a thread is not worth
/// its start-up there).
const MIN_PIECE: usize = 1 << 20;

/// The demands of one piece of the file, in file order.
struct Piece {
    demands: Vec<Demand>,
    /// Whether the pairs strictly increase within the piece.
    sorted: bool,
    /// Largest slot id named.
    max_slot: u32,
}

/// The instance of a demands CSV in the common form (see the module docs),
/// identical to what [`Instance::from_csv_bytes_multiport`]'s general
/// reader builds; `None` where the general reader must decide (other
/// forms, and every error).
pub(super) fn read(
    bytes: &[u8],
    model: Model,
    bw: u64,
    slots: Option<u32>,
    ports: Option<u32>,
    limits: &Limits,
) -> Option<Instance> {
    read_in_pieces(
        bytes,
        (model, bw, slots, ports),
        limits,
        rayon::current_num_threads(),
        MIN_PIECE,
    )
}

/// [`read`] cutting the input into at most `pieces` pieces of at least
/// `min_piece` bytes (tests cut small inputs).
fn read_in_pieces(
    bytes: &[u8],
    (model, bw, slots, ports): (Model, u64, Option<u32>, Option<u32>),
    limits: &Limits,
    pieces: usize,
    min_piece: usize,
) -> Option<Instance> {
    if bw == 0 {
        return None;
    }
    // Every slot id must stay below this; without `slots` the implied
    // count (largest id + 1) must stay within the limit.
    let bound = match slots {
        Some(s) if s > limits.max_slots => return None,
        Some(s) => s,
        None => limits.max_slots,
    };
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let cuts = cut_points(body, pieces, min_piece);
    let pieces: Vec<Piece> = if cuts.len() == 2 {
        vec![scan(body, true, bound, limits.max_demands)?]
    } else {
        cuts.windows(2)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|w| scan(&body[w[0]..w[1]], w[0] == 0, bound, limits.max_demands))
            .collect::<Option<Vec<Piece>>>()?
    };
    let total: usize = pieces.iter().map(|p| p.demands.len()).sum();
    if total == 0 || total as u64 > limits.max_demands {
        return None;
    }
    let max_slot = pieces.iter().map(|p| p.max_slot).max().unwrap_or(0);
    let mut sorted = pieces.iter().all(|p| p.sorted);
    let mut demands = Vec::new();
    for p in pieces {
        if let (Some(last), Some(first)) = (demands.last(), p.demands.first()) {
            sorted &= key(last) < key(first);
        }
        if demands.is_empty() {
            demands = p.demands;
        } else {
            demands.extend_from_slice(&p.demands);
        }
    }
    if !sorted {
        sort_and_merge(&mut demands, max_slot)?;
    }
    demands.shrink_to_fit();
    let slots = slots.unwrap_or(max_slot + 1);
    let ports = ports.map_or_else(Ports::default, Ports::Uniform);
    ports.check(slots, "--ports").ok()?;
    let ports = Instance::check_frame(slots, bw, ports, limits).ok()?;
    Instance::from_merged(model, slots, bw, demands, None, ports).ok()
}

/// The pair of a demand as one sortable key.
#[inline]
fn key(d: &Demand) -> u64 {
    (u64::from(d.src) << 32) | u64::from(d.dst)
}

/// Sorts by pair and adds up the bits of repeated pairs (`None` when a sum
/// overflows: the general reader says so). Addition commutes, so the
/// order among repeats does not matter and an unstable sort is exact.
///
/// With at least as many rows as slots, a counting sort by source (one
/// pass to count, one to place) leaves only each source's short run to
/// sort by destination, in cache; otherwise one sort on the packed key.
fn sort_and_merge(demands: &mut Vec<Demand>, max_slot: u32) -> Option<()> {
    let slots = max_slot as usize + 1;
    if demands.len() >= slots {
        let mut start = vec![0usize; slots + 1];
        for d in demands.iter() {
            start[d.src as usize + 1] += 1;
        }
        for s in 0..slots {
            start[s + 1] += start[s];
        }
        let mut fill = start.clone();
        let mut by_src = vec![
            Demand {
                src: 0,
                dst: 0,
                bits: 0
            };
            demands.len()
        ];
        for d in demands.iter() {
            by_src[fill[d.src as usize]] = *d;
            fill[d.src as usize] += 1;
        }
        for s in 0..slots {
            by_src[start[s]..start[s + 1]].sort_unstable_by_key(|d| d.dst);
        }
        *demands = by_src;
    } else {
        demands.sort_unstable_by_key(key);
    }
    let mut w = 0;
    for r in 1..demands.len() {
        if key(&demands[r]) == key(&demands[w]) {
            demands[w].bits = demands[w].bits.checked_add(demands[r].bits)?;
        } else {
            w += 1;
            demands[w] = demands[r];
        }
    }
    demands.truncate(w + 1);
    Some(())
}

/// Byte offsets `0 = c0 < c1 < ... = len` cutting `body` into at most
/// `pieces` pieces of about `min_piece` bytes or more, each after a `\n`.
fn cut_points(body: &[u8], pieces: usize, min_piece: usize) -> Vec<usize> {
    let pieces = pieces.min(body.len() / min_piece.max(1)).max(1);
    let mut cuts = vec![0];
    for k in 1..pieces {
        let at = (body.len() * k / pieces).max(*cuts.last().expect("starts with 0"));
        match body[at..].iter().position(|&b| b == b'\n') {
            Some(i) if at + i + 1 < body.len() => cuts.push(at + i + 1),
            _ => break,
        }
    }
    cuts.push(body.len());
    cuts
}

/// The non-negative integer at `pos` and the offset after its digits;
/// `None` without a digit or past `u64::MAX`.
///
/// Up to 16 digits go 8 at a time (SWAR: the digit test and the
/// conversion on one `u64`, three multiplications for 8 digits, as in
/// Lemire's "fast number parsing" write-ups); later digits, and the last
/// few bytes of the input, one at a time with checked arithmetic.
#[inline(always)]
pub(super) fn uint(body: &[u8], pos: usize) -> Option<(u64, usize)> {
    const POW10: [u64; 9] = [
        1,
        10,
        100,
        1_000,
        10_000,
        100_000,
        1_000_000,
        10_000_000,
        100_000_000,
    ];
    let mut v: u64 = 0;
    let mut p = pos;
    // 16 digits are below 10^16 < u64::MAX: no overflow before that.
    while p - pos <= 8 {
        let Some(chunk) = body.get(p..p + 8) else {
            break;
        };
        let (len, value) = swar_digits(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        v = v * POW10[len] + value;
        p += len;
        if len < 8 {
            return (p > pos).then_some((v, p));
        }
    }
    while let Some(&b) = body.get(p) {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
        p += 1;
    }
    (p > pos).then_some((v, p))
}

/// How many of the 8 bytes of `w` (first byte lowest) are ASCII digits
/// before the first that is not, and their value.
#[inline(always)]
fn swar_digits(w: u64) -> (usize, u64) {
    const LANES: u64 = 0x0101_0101_0101_0101;
    // A byte is a digit when its high nibble is 3 and adding 6 keeps it 3
    // (0x30..=0x39). A carry out of a byte comes only from a non-digit
    // (0xFA..=0xFF), and only spoils the bytes after it.
    let high = (w & (0xF0 * LANES)) ^ (0x30 * LANES);
    let high6 = (w.wrapping_add(0x06 * LANES) & (0xF0 * LANES)) ^ (0x30 * LANES);
    let len = ((high | high6).trailing_zeros() / 8) as usize;
    if len == 0 {
        return (0, 0);
    }
    // Digits to the top bytes, leading zeros below, then pairs, quads and
    // the eight combined.
    let mut x = (w.wrapping_sub(0x30 * LANES)) << (8 * (8 - len));
    x = (x.wrapping_mul(10 * 256 + 1) >> 8) & 0x00FF_00FF_00FF_00FF;
    x = (x.wrapping_mul(100 * 65536 + 1) >> 16) & 0x0000_FFFF_0000_FFFF;
    x = x.wrapping_mul(10_000 * (1 << 32) + 1) >> 32;
    (len, x)
}

/// Scans one piece that starts at a line start. Only the `first` piece may
/// hold the header. Slot ids must be below `bound`; at most `max_rows` rows.
fn scan(body: &[u8], first: bool, bound: u32, max_rows: u64) -> Option<Piece> {
    let n = body.len();
    // Room for the most rows the piece can hold (`0,1,1\n`, 6 bytes): pages
    // never written are never touched, so this costs address space only.
    let cap = (n / 6 + 1).min(usize::try_from(max_rows).unwrap_or(usize::MAX));
    let mut demands: Vec<Demand> = Vec::with_capacity(cap);
    let mut sorted = true;
    let mut prev: Option<u64> = None;
    let mut max_slot = 0u32;
    // The header may only be the first line that is neither blank nor a comment.
    let mut header_allowed = first;
    let bound = u64::from(bound);
    let mut pos = 0;
    while pos < n {
        let b = body[pos];
        if b.is_ascii_digit() {
            let (src, p) = uint(body, pos)?;
            if body.get(p) != Some(&b',') {
                return None;
            }
            let (dst, p) = uint(body, p + 1)?;
            if body.get(p) != Some(&b',') {
                return None;
            }
            let (bits, p) = uint(body, p + 1)?;
            pos = match body.get(p) {
                None => p,
                Some(b'\n') => p + 1,
                Some(b'\r') if body.get(p + 1) == Some(&b'\n') => p + 2,
                _ => return None,
            };
            if src >= bound || dst >= bound || src == dst || bits == 0 {
                return None;
            }
            if demands.len() as u64 >= max_rows {
                return None;
            }
            // Both below `bound`, a u32: the casts are exact.
            let d = Demand {
                src: src as u32,
                dst: dst as u32,
                bits,
            };
            let k = key(&d);
            if prev.is_some_and(|p| k <= p) {
                sorted = false;
            }
            prev = Some(k);
            max_slot = max_slot.max(d.src.max(d.dst));
            demands.push(d);
            header_allowed = false;
            continue;
        }
        let end = body[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(n, |i| pos + i);
        let mut line = &body[pos..end];
        if end < n {
            line = line.strip_suffix(b"\r").unwrap_or(line);
        }
        pos = (end + 1).min(n);
        if line.is_empty() {
            continue;
        }
        // A comment (or a header) must be valid UTF-8 like the whole file.
        let text = std::str::from_utf8(line).ok()?;
        if text.starts_with('#') {
            continue;
        }
        if !header_allowed {
            return None;
        }
        let cells = split_cells(text);
        if cells.len() != 3 || header_positions(&cells) != Some([0, 1, 2]) {
            return None;
        }
        header_allowed = false;
    }
    Some(Piece {
        demands,
        sorted,
        max_slot,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MODEL: (Model, u64, Option<u32>, Option<u32>) = (Model::Strict1, 4, None, None);

    fn general(
        text: &[u8],
        args: (Model, u64, Option<u32>, Option<u32>),
    ) -> Result<Instance, String> {
        let (model, bw, slots, ports) = args;
        Instance::from_csv_general(text, model, bw, slots, ports, &Limits::default())
            .map_err(|e| e.to_string())
    }

    /// The fast reader in 1, 2 and 3 pieces: all agree, and where it reads
    /// the file, the general reader reads the same instance.
    fn fast_agrees(
        text: &[u8],
        args: (Model, u64, Option<u32>, Option<u32>),
        limits: &Limits,
    ) -> Option<Instance> {
        let one = read_in_pieces(text, args, limits, 1, 1);
        for pieces in [2, 3] {
            assert_eq!(
                read_in_pieces(text, args, limits, pieces, 1),
                one,
                "{pieces} pieces"
            );
        }
        if let Some(inst) = &one {
            let (model, bw, slots, ports) = args;
            assert_eq!(
                Instance::from_csv_general(text, model, bw, slots, ports, limits).as_ref(),
                Ok(inst)
            );
        }
        one
    }

    #[test]
    fn reads_the_common_forms() {
        let l = Limits::default();
        for text in [
            "0,1,5\n1,2,7\n",
            "\u{feff}src_slot,dst_slot,bits_total\n0,1,5\n1,2,7",
            "# made by hand\r\n\r\nsrc_slot,dst_slot,bits_total\r\n0,1,5\r\n\n# mid\n1,2,7\r\n",
            "1,2,3\n1,2,4\n0,1,5\n1,2,0007\n",
        ] {
            assert!(
                fast_agrees(text.as_bytes(), MODEL, &l).is_some(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn leaves_other_forms_and_every_error_to_the_general_reader() {
        let l = Limits::default();
        for text in [
            // Other forms.
            " 0,1,5\n",
            "0, 1,5\n",
            "\"0\",1,5\n",
            "0,1,+5\n",
            "dst_slot,src_slot,bits_total\n1,0,5\n",
            "src_slot,dst_slot,bits_total,bw\n0,1,5,2\n",
            "0,1,5,2\n",
            "0,1,5\rx\n",
            // Errors.
            "",
            "# only a comment\n",
            "src_slot,dst_slot,bits_total\n",
            "0,1,5\nsrc_slot,dst_slot,bits_total\n",
            "0,0,5\n",
            "0,1,0\n",
            "0,1,18446744073709551616\n",
            "0,1,18446744073709551615\n0,1,1\n",
            "0,1048576,5\n",
            "0,1,x\n",
            "0,1\n",
        ] {
            assert_eq!(fast_agrees(text.as_bytes(), MODEL, &l), None, "{text:?}");
        }
        // Invalid UTF-8 in a comment.
        assert_eq!(fast_agrees(b"# \xff\n0,1,5\n", MODEL, &l), None);
        // Slots and ports from the command line, checked like the general reader.
        assert_eq!(
            fast_agrees(b"0,3,5\n", (Model::Strict1, 4, Some(3), None), &l),
            None
        );
        assert_eq!(
            fast_agrees(b"0,1,5\n", (Model::Strict1, 4, Some(2), Some(0)), &l),
            None
        );
        assert!(fast_agrees(b"0,1,5\n", (Model::Strict1, 4, Some(9), Some(2)), &l).is_some());
        // The row limit.
        let tight = Limits {
            max_demands: 2,
            ..Limits::default()
        };
        assert!(fast_agrees(b"0,1,5\n1,0,5\n", MODEL, &tight).is_some());
        assert_eq!(fast_agrees(b"0,1,5\n1,0,5\n0,1,5\n", MODEL, &tight), None);
    }

    /// One random demands file: rows (some repeated, some out of order),
    /// with optional BOM, header, comments, blank lines and CRLF; `odd`
    /// puts one row in a form only the general reader takes, or a bad one.
    fn file(
        rows: &[(u32, u32, u64)],
        sort: bool,
        bom: bool,
        header: bool,
        crlf: bool,
        comment_every: usize,
        odd: Option<(usize, u8)>,
    ) -> Vec<u8> {
        let mut rows = rows.to_vec();
        if sort {
            rows.sort_unstable();
        }
        let nl = if crlf { "\r\n" } else { "\n" };
        let mut out = String::new();
        if bom {
            out.push('\u{feff}');
        }
        out.push_str(&format!("# generated{nl}"));
        if header {
            out.push_str(&format!("src_slot,dst_slot,bits_total{nl}"));
        }
        for (i, &(s, d, b)) in rows.iter().enumerate() {
            if comment_every > 0 && i % comment_every == 0 {
                out.push_str(&format!("# row {i}{nl}{nl}"));
            }
            let row = match odd {
                Some((at, kind)) if at % rows.len().max(1) == i => match kind % 6 {
                    0 => format!(" {s} ,{d},{b}"),
                    1 => format!("\"{s}\",{d},{b}"),
                    2 => format!("{s},{s},{b}"),
                    3 => format!("{s},{d},0"),
                    4 => format!("{s},{d},{b}0000000000000000000000"),
                    _ => format!("{s},{d}"),
                },
                _ => format!("{s},{d},{b}"),
            };
            out.push_str(&row);
            out.push_str(nl);
        }
        out.into_bytes()
    }

    proptest! {
        /// The integer reader reads what `str::parse` reads, wherever the
        /// number ends (inside the 8-byte words or in the byte tail).
        #[test]
        fn uint_reads_what_parse_reads(
            lead in "[0-9]{0,4}",
            digits in "0{0,3}[0-9]{0,24}",
            end in "[,\r\n/:a ]?",
            tail in "[0-9,]{0,9}",
        ) {
            let text = format!("{lead}{digits}{end}{tail}");
            let at = lead.len();
            let len = digits.len() + if end.is_empty() { tail.bytes().take_while(u8::is_ascii_digit).count() } else { 0 };
            let expect = text[at..at + len].parse::<u64>().ok().map(|v| (v, at + len));
            prop_assert_eq!(uint(text.as_bytes(), at), expect, "{:?}", text);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// The fast reader reads every plain file, as the general reader
        /// does; on files with an odd or bad row it either agrees or gives
        /// up, and the public reader always answers like the general one.
        #[test]
        fn fast_and_general_readers_agree(
            rows in proptest::collection::vec((0u32..12, 0u32..12, 1u64..40), 1..60),
            huge in any::<bool>(),
            sort in any::<bool>(),
            bom in any::<bool>(),
            header in any::<bool>(),
            crlf in any::<bool>(),
            comment_every in 0usize..8,
            odd in proptest::option::of((any::<usize>(), any::<u8>())),
            model in prop_oneof![Just(Model::Strict1), Just(Model::Read1Write1)],
            bw in 1u64..9,
        ) {
            // Self-loops are errors: keep them for `odd` only.
            let mut rows: Vec<(u32, u32, u64)> = rows
                .into_iter()
                .map(|(s, d, b)| (s, if s == d { (d + 1) % 12 } else { d }, b))
                .collect();
            if huge {
                // Bits near u64::MAX: repeats overflow when merged.
                rows[0].2 = u64::MAX - 5;
            }
            let text = file(&rows, sort, bom, header, crlf, comment_every, odd);
            let args = (model, bw, None, None);
            let fast = fast_agrees(&text, args, &Limits::default());
            let slow = general(&text, args);
            if odd.is_none() && slow.is_ok() {
                prop_assert!(fast.is_some(), "plain file left to the general reader");
            }
            let public = Instance::from_csv_bytes_multiport(
                &text, model, bw, None, None, &Limits::default(),
            ).map_err(|e| e.to_string());
            prop_assert_eq!(public, slow);
        }
    }
}
