//! Schedule writers: copyspace-guard JSON, CSV and compact JSON (version
//! 1 for a schedule of rounds only, byte for byte as it always was;
//! version 2 when it has classes, each class's rounds written once over
//! local slots with every member's slots; doc/formats.md).
//!
//! Every writer streams from the compact schedule (the expanded formats via
//! [`Expansion`]), so memory is bounded by rounds, not ticks. Before a byte
//! is written, a schedule must pass
//! [`validate_compact`] and its exact
//! output size ([`output_size`], computed per round in O(rounds x pairs),
//! never by expanding) must be within the caller's limit
//! ([`DEFAULT_MAX_OUTPUT_BYTES`] unless raised): a tiny instance can ask for
//! 10^18 ticks, and that must be a refusal, not a full disk. Files go
//! through [`output`] (temporary file and rename for regular
//! files, in place for FIFOs and devices), so a failure never leaves a
//! partial file.

use super::output::{self, OutputError, OutputFile};
use super::{Expansion, Schedule};
use crate::instance::Instance;
use crate::validate::validate_compact;
use std::io::{self, Write};
use std::path::Path;

pub use super::output::write_atomically;

/// Default limit on the size of one written schedule: 4 GiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 4 << 30;

/// Output format of a schedule file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Format {
    /// copyspace-guard schedule JSON v0: `{"version":0,"model":..,"ticks":[[chunk..]..]}`.
    #[serde(rename = "json")]
    Json,
    /// `tick,src_slot,dst_slot,len_bits` with a header row.
    #[serde(rename = "csv")]
    Csv,
    /// tickopt compact JSON: rounds with repeat counts (doc/formats.md).
    #[serde(rename = "compact")]
    Compact,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            "compact" => Ok(Format::Compact),
            _ => Err(format!(
                "unknown format {s:?} (expected json, csv or compact)"
            )),
        }
    }
}

/// Tag of the compact format, in its `format` field: version 1 (rounds
/// only), written for every schedule without classes.
pub const COMPACT_FORMAT_TAG: &str = "tickopt-compact-v1";
/// Tag of the compact format's version 2 (rounds and classes), written
/// for a schedule with classes.
pub const COMPACT_FORMAT_TAG_V2: &str = "tickopt-compact-v2";

/// Writes `schedule` in `format` to `out`.
pub fn write_schedule(
    inst: &Instance,
    schedule: &Schedule,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        Format::Json => write_json(inst, schedule, out),
        Format::Csv => write_csv(inst, schedule, out),
        Format::Compact => write_compact(inst, schedule, out),
    }
}

/// Bytes of one tick or one round, built with `itoa` (several times faster
/// than `write!` per number) and handed to the writer in one call.
struct Line {
    bytes: Vec<u8>,
    num: itoa::Buffer,
}

impl Line {
    fn new() -> Self {
        Line {
            bytes: Vec::with_capacity(1 << 16),
            num: itoa::Buffer::new(),
        }
    }

    fn text(&mut self, s: &str) -> &mut Self {
        self.bytes.extend_from_slice(s.as_bytes());
        self
    }

    fn num(&mut self, n: impl itoa::Integer) -> &mut Self {
        self.bytes.extend_from_slice(self.num.format(n).as_bytes());
        self
    }

    /// Writes the bytes out once they are many (`force`: always), then
    /// starts again.
    fn flush_to(&mut self, out: &mut dyn Write, force: bool) -> io::Result<()> {
        if force || self.bytes.len() >= 1 << 16 {
            out.write_all(&self.bytes)?;
            self.bytes.clear();
        }
        Ok(())
    }
}

fn write_json(inst: &Instance, schedule: &Schedule, out: &mut dyn Write) -> io::Result<()> {
    let mut line = Line::new();
    line.text(&json_header(inst));
    Expansion::new(inst, schedule).try_for_each(|t, tick| {
        if t > 0 {
            line.text(",");
        }
        line.text("\n[");
        for (i, c) in tick.iter().enumerate() {
            if i > 0 {
                line.text(",");
            }
            line.text(JSON_CHUNK[0])
                .num(c.src_slot)
                .text(JSON_CHUNK[1])
                .num(c.dst_slot)
                .text(JSON_CHUNK[2])
                .num(c.len_bits)
                .text(JSON_CHUNK[3]);
        }
        line.text("]").flush_to(out, false)
    })?;
    line.text(JSON_FOOTER).flush_to(out, true)
}

/// The pieces of one chunk object in schedule JSON, around its three numbers.
const JSON_CHUNK: [&str; 4] = ["{\"src_slot\":", ",\"dst_slot\":", ",\"len_bits\":", "}"];
const JSON_FOOTER: &str = "\n]}\n";
const CSV_HEADER: &str = "tick,src_slot,dst_slot,len_bits\n";

fn json_header(inst: &Instance) -> String {
    format!(
        "{{\"version\":0,\"model\":\"{}\",\"ticks\":[",
        inst.model.as_str()
    )
}

fn write_csv(inst: &Instance, schedule: &Schedule, out: &mut dyn Write) -> io::Result<()> {
    let mut line = Line::new();
    line.text(CSV_HEADER);
    Expansion::new(inst, schedule).try_for_each(|t, tick| {
        for c in tick {
            line.num(t)
                .text(",")
                .num(c.src_slot)
                .text(",")
                .num(c.dst_slot)
                .text(",")
                .num(c.len_bits)
                .text("\n");
        }
        line.flush_to(out, false)
    })?;
    line.flush_to(out, true)
}

/// The compact format's header, up to the first round: version 1 for a
/// schedule without classes, else version 2.
fn compact_header(inst: &Instance, schedule: &Schedule) -> String {
    let tag = if schedule.classes.is_empty() {
        COMPACT_FORMAT_TAG
    } else {
        COMPACT_FORMAT_TAG_V2
    };
    format!(
        "{{\"version\":0,\"format\":\"{tag}\",\"model\":\"{}\",\"slots\":{},\"copy_bw_bits_per_tick\":{},\"ticks\":{},\"rounds\":[",
        inst.model.as_str(),
        inst.slots,
        inst.bw,
        schedule.ticks()
    )
}

/// The pieces of a compact round around its repeat count and pairs.
const COMPACT_ROUND: [&str; 2] = ["\n{\"repeat\":", ",\"pairs\":["];
const COMPACT_ROUND_END: &str = "]}";
const COMPACT_FOOTER: &str = "\n]}\n";
/// Version 2: the classes after the rounds, each its members' slots, then
/// its rounds over local slots.
const CLASSES_OPEN: &str = "\n],\"classes\":[";
const CLASS_OPEN: &str = "\n{\"members\":[";
const CLASS_ROUNDS: &str = "\n],\"rounds\":[";
const CLASS_CLOSE: &str = "\n]}";

fn write_compact(inst: &Instance, schedule: &Schedule, out: &mut dyn Write) -> io::Result<()> {
    let mut line = Line::new();
    line.text(&compact_header(inst, schedule));
    let ends: Vec<(u32, u32)> = inst.demands().iter().map(|d| (d.src, d.dst)).collect();
    write_compact_rounds(&mut line, &schedule.rounds, &ends, out)?;
    if !schedule.classes.is_empty() {
        line.text(CLASSES_OPEN);
        for (c, class) in schedule.classes.iter().enumerate() {
            if c > 0 {
                line.text(",");
            }
            let local = LocalClass::new(inst, class);
            line.text(CLASS_OPEN);
            for (m, slots) in local.members.iter().enumerate() {
                line.text(if m > 0 { ",\n[" } else { "\n[" });
                for (k, &v) in slots.iter().enumerate() {
                    if k > 0 {
                        line.text(",");
                    }
                    line.num(v);
                }
                line.text("]").flush_to(out, false)?;
            }
            line.text(CLASS_ROUNDS);
            write_compact_rounds(&mut line, &class.rounds, &local.pairs, out)?;
            line.text(CLASS_CLOSE);
        }
    }
    line.text(COMPACT_FOOTER).flush_to(out, true)
}

/// Pairs per batch of rounds [`write_compact_rounds`] formats on one
/// thread (about 1 MiB of text).
const BATCH_PAIRS: usize = 1 << 16;

/// Rounds of a compact file, `ends[i]` the pair written for index `i`.
/// Large schedules are formatted in batches of rounds on the rayon threads,
/// a few batches per thread at a time, and written in order, each wave
/// written while the next is formatted (at 2,048 x 4, 480 MB of text, the
/// writing had the other cores idle): the bytes do not depend on the
/// thread count (each round's text depends on the round and whether it is
/// the first).
fn write_compact_rounds(
    line: &mut Line,
    rounds: &[super::Round],
    ends: &[(u32, u32)],
    out: &mut dyn Write,
) -> io::Result<()> {
    use rayon::prelude::*;
    let batches = round_batches(rounds);
    if batches.len() <= 1 {
        return format_rounds(line, rounds, 0, ends, Some(out));
    }
    line.flush_to(out, true)?;
    let wave = 4 * rayon::current_num_threads();
    let format = |group: &[std::ops::Range<usize>]| -> Vec<Vec<u8>> {
        group
            .par_iter()
            .map(|range| {
                let mut text = Line::new();
                format_rounds(&mut text, &rounds[range.clone()], range.start, ends, None)
                    .expect("formatting into memory does not fail");
                text.bytes
            })
            .collect()
    };
    let write = |out: &mut dyn Write, texts: Vec<Vec<u8>>| -> io::Result<()> {
        texts.iter().try_for_each(|text| out.write_all(text))
    };
    let mut groups = batches.chunks(wave);
    let mut texts = groups.next().map(format).unwrap_or_default();
    for group in groups {
        // The writer need not be `Send`: it stays on this thread.
        let mut next = Vec::new();
        rayon::in_place_scope(|s| {
            s.spawn(|_| next = format(group));
            write(&mut *out, std::mem::take(&mut texts))
        })?;
        texts = next;
    }
    write(out, texts)
}

/// `rounds` cut into consecutive ranges of about [`BATCH_PAIRS`] pairs.
fn round_batches(rounds: &[super::Round]) -> Vec<std::ops::Range<usize>> {
    let mut batches = Vec::new();
    let (mut start, mut pairs) = (0, 0);
    for (i, r) in rounds.iter().enumerate() {
        pairs += r.demands.len() + 1;
        if pairs >= BATCH_PAIRS {
            batches.push(start..i + 1);
            (start, pairs) = (i + 1, 0);
        }
    }
    if start < rounds.len() {
        batches.push(start..rounds.len());
    }
    batches
}

/// Formats `rounds`, the first of them round number `first` of the file,
/// into `line`, flushing to `out` as it fills (`None`: all kept in `line`).
fn format_rounds(
    line: &mut Line,
    rounds: &[super::Round],
    first: usize,
    ends: &[(u32, u32)],
    mut out: Option<&mut dyn Write>,
) -> io::Result<()> {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (ri, r) in rounds.iter().enumerate() {
        if first + ri > 0 {
            line.text(",");
        }
        line.text(COMPACT_ROUND[0])
            .num(r.repeat)
            .text(COMPACT_ROUND[1]);
        // The demands first, in a loop of loads only: their cache misses
        // overlap (interleaved with the formatting, they did not).
        pairs.clear();
        pairs.extend(r.demands.iter().map(|&di| ends[di as usize]));
        for (k, &(src, dst)) in pairs.iter().enumerate() {
            if k > 0 {
                line.text(",");
            }
            line.text("[").num(src).text(",").num(dst).text("]");
        }
        line.text(COMPACT_ROUND_END);
        if let Some(out) = out.as_deref_mut() {
            line.flush_to(out, false)?;
        }
    }
    Ok(())
}

/// A class as version 2 writes it: member 0's slots numbered `0..k` in
/// ascending order, the pattern's demands as pairs of those local slots,
/// and each member as the list of its slots in that order (member 0's own
/// slots first). Built from a validated schedule (every map a one-to-one
/// slot map), in O(members x pattern).
struct LocalClass {
    pairs: Vec<(u32, u32)>,
    members: Vec<Vec<u32>>,
}

impl LocalClass {
    fn new(inst: &Instance, class: &super::ClassRounds) -> LocalClass {
        // (Indices are valid in a validated schedule; elsewhere, as in
        // `output_size` of any schedule, a bad one is left out, never a
        // panic.)
        let ends = |i: u32| inst.demands().get(i as usize).map(|d| (d.src, d.dst));
        let rep: &[u32] = class.members.first().map_or(&[], Vec::as_slice);
        let mut slots: Vec<u32> = rep
            .iter()
            .filter_map(|&i| ends(i))
            .flat_map(|(a, b)| [a, b])
            .collect();
        slots.sort_unstable();
        slots.dedup();
        let local = |v: u32| slots.binary_search(&v).unwrap_or(0) as u32;
        let pairs: Vec<(u32, u32)> = rep
            .iter()
            .map(|&i| ends(i).map_or((0, 0), |(a, b)| (local(a), local(b))))
            .collect();
        let members = class
            .members
            .iter()
            .map(|map| {
                let mut own = vec![0u32; slots.len()];
                for (&(a, b), &i) in pairs.iter().zip(map) {
                    if let (Some((src, dst)), true) = (ends(i), (a.max(b) as usize) < own.len()) {
                        own[a as usize] = src;
                        own[b as usize] = dst;
                    }
                }
                own
            })
            .collect();
        LocalClass { pairs, members }
    }
}

/// Exact size of [`write_compact`]'s output, by counting digits.
fn compact_size(inst: &Instance, schedule: &Schedule) -> u128 {
    let ends: Vec<(u32, u32)> = inst.demands().iter().map(|d| (d.src, d.dst)).collect();
    let mut total = (compact_header(inst, schedule).len() + COMPACT_FOOTER.len()) as u128;
    total += compact_rounds_size(&schedule.rounds, &ends);
    if !schedule.classes.is_empty() {
        total += CLASSES_OPEN.len() as u128 + schedule.classes.len() as u128 - 1;
        for class in &schedule.classes {
            let local = LocalClass::new(inst, class);
            total += (CLASS_OPEN.len() + CLASS_ROUNDS.len() + CLASS_CLOSE.len()) as u128;
            for (m, slots) in local.members.iter().enumerate() {
                // ",\n[" (or "\n[" first), the slots joined by ",", "]".
                total += u128::from(m > 0) + 3 + slots.len().saturating_sub(1) as u128;
                total += slots.iter().map(|&v| digits(v as u64)).sum::<u128>();
            }
            total += compact_rounds_size(&class.rounds, &local.pairs);
        }
    }
    total
}

/// Bytes [`write_compact_rounds`] writes for `rounds`.
fn compact_rounds_size(rounds: &[super::Round], ends: &[(u32, u32)]) -> u128 {
    // Bytes of "[src,dst]" per index, one byte each: the look-ups per pair
    // stay in the cache (the demands themselves are 16 bytes each).
    let pair_bytes: Vec<u8> = ends
        .iter()
        .map(|&(a, b)| (3 + digits(a as u64) + digits(b as u64)) as u8)
        .collect();
    let fixed_round: u128 =
        (COMPACT_ROUND.iter().map(|p| p.len()).sum::<usize>() + COMPACT_ROUND_END.len()) as u128;
    let mut total = 0u128;
    for (ri, r) in rounds.iter().enumerate() {
        // "," between rounds; "[src,dst]" per pair and "," between pairs.
        total += u128::from(ri > 0) + fixed_round + digits(r.repeat);
        total += r.demands.len().saturating_sub(1) as u128;
        // (A schedule is validated before it is sized: indices are valid.)
        let pairs: u64 = r
            .demands
            .iter()
            .filter_map(|&di| pair_bytes.get(di as usize))
            .map(|&b| b as u64)
            .sum();
        total += pairs as u128;
    }
    total
}

/// Number of decimal digits of `n`.
fn digits(n: u64) -> u128 {
    n.checked_ilog10().map_or(1, |d| d as u128 + 1)
}

/// Sum of the decimal digit counts of `from..to` (O(20), not O(to - from)).
fn digits_in_range(from: u64, to: u64) -> u128 {
    let mut sum = 0u128;
    let mut lo: u128 = 0;
    for d in 1..=20u32 {
        let hi: u128 = 10u128.pow(d);
        let (a, b) = ((from as u128).max(lo), (to as u128).min(hi));
        if a < b {
            sum += (b - a) * d as u128;
        }
        lo = hi;
    }
    sum
}

/// Digits of the `len_bits` of chunks `from..to` of demand `i`, with
/// [`Expansion`]'s lengths (`bw`, the last chunk the remainder, chunks past
/// the count `bw`).
fn len_digits(inst: &Instance, i: usize, from: u64, to: u64) -> u128 {
    let c = inst.chunks(i);
    let mut sum = (to - from) as u128 * digits(inst.bw);
    if from < c && c - 1 < to {
        sum = sum - digits(inst.bw) + digits(inst.chunk_len(i, c - 1));
    }
    sum
}

/// Exact size in bytes of `schedule` written in `format`, computed round by
/// round without expanding (for a schedule of 10^18 ticks as fast as for
/// one). u128 holds any schedule whose tick count fits in u64.
pub fn output_size(inst: &Instance, schedule: &Schedule, format: Format) -> u128 {
    if format == Format::Compact {
        return compact_size(inst, schedule);
    }
    // The expanded formats spell out every member's transfers.
    let schedule = &*schedule.flat();
    let demands = inst.demands();
    let mut sent = vec![0u64; demands.len()];
    let mut tick0: u128 = 0;
    let mut total: u128 = match format {
        Format::Json => (json_header(inst).len() + JSON_FOOTER.len()) as u128,
        _ => CSV_HEADER.len() as u128,
    };
    let chunk_fixed: u128 = JSON_CHUNK.iter().map(|p| p.len() as u128).sum();
    for round in &schedule.rounds {
        let r = round.repeat as u128;
        if r == 0 {
            continue;
        }
        let (from_t, to_t) = (tick0, tick0 + r);
        let mut in_round: u128 = 0;
        // Bytes of the round that do not depend on the tick number.
        let mut per_tick: u128 = 0;
        let mut lens: u128 = 0;
        for &di in &round.demands {
            let i = di as usize;
            let Some(d) = demands.get(i) else { continue };
            in_round += 1;
            per_tick += digits(d.src as u64) + digits(d.dst as u64);
            let from = sent[i];
            let to = from.saturating_add(round.repeat);
            lens += len_digits(inst, i, from, to);
            sent[i] = to;
        }
        total += lens;
        total += match format {
            Format::Json => {
                // Per tick: "," (not before the first), "\n[", chunks joined by ",", "]".
                let commas = if from_t == 0 { r - 1 } else { r };
                let per = 3 + in_round * chunk_fixed + in_round.saturating_sub(1) + per_tick;
                commas + r * per
            }
            _ => {
                // Per chunk: "tick," "src," "dst," "len\n".
                let ticks = if to_t <= u64::MAX as u128 {
                    digits_in_range(from_t as u64, to_t as u64)
                } else {
                    // Past u64 (never valid): tick numbers of 20 digits.
                    r * 20
                };
                in_round * ticks + r * (per_tick + 4 * in_round)
            }
        };
        tick0 = to_t;
    }
    total
}

/// Error of the schedule file writers.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("refusing to write an invalid schedule (internal error, please report): {0}")]
    Invalid(String),
    #[error(
        "the {format} schedule would be {bytes} bytes ({}), above the output limit of {limit} bytes ({})",
        human_bytes(*.bytes),
        human_bytes(*.limit as u128)
    )]
    TooLarge {
        format: &'static str,
        bytes: u128,
        limit: u64,
    },
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("cannot write {path}: {source}")]
    Io { path: String, source: io::Error },
}

/// `1.5 GiB`-style rendering of a byte count.
pub fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Compact => "compact",
        }
    }
}

/// Checks that `schedule` is valid and its `format` output at most
/// `max_bytes`; returns the exact size.
pub fn check_schedule_output(
    inst: &Instance,
    schedule: &Schedule,
    format: Format,
    max_bytes: u64,
) -> Result<u128, WriteError> {
    let report = validate_compact(inst, schedule);
    if !report.passed() {
        return Err(WriteError::Invalid(report.one_line()));
    }
    check_output_size(inst, schedule, format, max_bytes)
}

/// The size half of [`check_schedule_output`], for a schedule already
/// validated against `inst` (a [`crate::solve::Solution`] from
/// `solve_instance`, whose last step validates it): the exact size of its
/// `format` output, or the refusal when it is above `max_bytes`.
pub fn check_output_size(
    inst: &Instance,
    schedule: &Schedule,
    format: Format,
    max_bytes: u64,
) -> Result<u128, WriteError> {
    let bytes = output_size(inst, schedule, format);
    if bytes > max_bytes as u128 {
        return Err(WriteError::TooLarge {
            format: format.name(),
            bytes,
            limit: max_bytes,
        });
    }
    Ok(bytes)
}

/// Validates `schedule`, checks its size against `max_bytes`, then writes
/// it into a prepared output (which the caller commits). Nothing is
/// written when a check fails.
pub fn write_schedule_to(
    inst: &Instance,
    schedule: &Schedule,
    format: Format,
    out: &mut OutputFile,
    max_bytes: u64,
) -> Result<(), WriteError> {
    check_schedule_output(inst, schedule, format, max_bytes)?;
    out.write(|w| write_schedule(inst, schedule, format, w))
        .map_err(|source| WriteError::Io {
            path: out.shown().to_string(),
            source,
        })
}

/// Validates, then writes `schedule` to `path` (`-`: stdout) with the
/// default size limit; see [`write_schedule_file_limited`].
pub fn write_schedule_file(
    inst: &Instance,
    schedule: &Schedule,
    format: Format,
    path: &Path,
) -> Result<(), WriteError> {
    write_schedule_file_limited(inst, schedule, format, path, DEFAULT_MAX_OUTPUT_BYTES)
}

/// Validates `schedule`, checks its output size against `max_bytes`, then
/// writes it to `path` through [`output`] (atomically for regular files).
/// `-` writes to stdout.
pub fn write_schedule_file_limited(
    inst: &Instance,
    schedule: &Schedule,
    format: Format,
    path: &Path,
    max_bytes: u64,
) -> Result<(), WriteError> {
    check_schedule_output(inst, schedule, format, max_bytes)?;
    let mut out = output::prepare(path)?;
    let io = |source| WriteError::Io {
        path: path.display().to_string(),
        source,
    };
    out.write(|w| write_schedule(inst, schedule, format, w))
        .map_err(io)?;
    out.commit().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits, Model};

    /// A schedule of many rounds (several batches of [`BATCH_PAIRS`]) on a
    /// ring, written compact with one thread and with four, and by the
    /// one-batch path round by round: the same bytes, and valid JSON whose
    /// rounds are the schedule's.
    #[test]
    fn compact_batches_do_not_change_the_bytes() {
        let n = 512u32;
        let demands = (0..n).map(|v| Demand {
            src: v,
            dst: (v + 1) % n,
            bits: 1000,
        });
        let inst = Instance::new(Model::Read1Write1, n, 1, demands, &Limits::default()).unwrap();
        let mut schedule = Schedule::new();
        for r in 0..1000u64 {
            let ids: Vec<u32> = (0..n).filter(|&i| (i as u64 + r) % 3 != 0).collect();
            schedule.push(1 + r % 2, ids);
        }
        assert!(round_batches(&schedule.rounds).len() > 2);
        let write = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut bytes = Vec::new();
            pool.install(|| write_schedule(&inst, &schedule, Format::Compact, &mut bytes))
                .unwrap();
            bytes
        };
        let (one, four) = (write(1), write(4));
        assert_eq!(one, four);
        let mut serial = Line::new();
        serial.text(&compact_header(&inst, &schedule));
        let ends: Vec<(u32, u32)> = inst.demands().iter().map(|d| (d.src, d.dst)).collect();
        format_rounds(&mut serial, &schedule.rounds, 0, &ends, None).unwrap();
        serial.text(COMPACT_FOOTER);
        assert_eq!(serial.bytes, one);
        let v: serde_json::Value = serde_json::from_slice(&one).unwrap();
        let rounds = v["rounds"].as_array().unwrap();
        assert_eq!(rounds.len(), schedule.rounds.len());
        assert_eq!(rounds[999]["repeat"], 2);
        assert_eq!(
            rounds[999]["pairs"].as_array().unwrap().len(),
            schedule.rounds[999].demands.len()
        );
    }
}
