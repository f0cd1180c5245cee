//! The validator, with copyspace-guard's semantics and error kinds.
//!
//! Per chunk: slots in range and distinct (`STRUCT`), `0 < len_bits <= bw`
//! (`BANDWIDTH`), the model's per-tick exclusivity (`STRICT1` or
//! `READ1_WRITE1`). At the end: pairs not in the demands (`EXTRAS`) and bits
//! per pair equal to the demand (`COVERAGE`). A chunk with an error does not
//! count towards coverage or exclusivity, as in copyspace-guard.
//!
//! Multi-port slots (DESIGN.md §11): the per-tick rule allows slot `v` up to
//! `ports(v)` transfers (STRICT1) or `ports(v)` sends and `ports(v)`
//! receives (READ1_WRITE1), and `BANDWIDTH` checks a chunk against its
//! demand's own bandwidth. With one port everywhere the messages are
//! copyspace-guard's.
//!
//! [`TickValidator`] consumes ticks one at a time (memory: O(slots +
//! demands)), so expanded schedules of any length stream through it;
//! [`validate_compact`] checks a compact schedule round by round without
//! expanding it, which is what the solvers' outputs go through (the
//! rounds that are plainly valid, one port or several, are recognised on
//! all threads first by [`clean`]; every other round is checked in order).
//! A schedule with classes (compact format v2) is checked by `classes`
//! without laying them out: the members' slot maps, then each class's
//! rounds once, as its first member's ticks.
//!
//! Every count (ticks, chunks per demand, bits) is checked: a sum that
//! would overflow is a `STRUCT` error, never a saturated number that
//! happens to compare equal (DESIGN.md §10). Runs of empty ticks (gaps in a
//! CSV schedule) cost O(1) ([`TickValidator::push_empty_ticks`]).

use crate::instance::{Instance, Model};
use crate::rounds::{Expansion, Round, Schedule};
use clean::clean_rounds;
use serde::Serialize;
use std::collections::BTreeMap;

mod classes;
mod clean;
mod edit;

pub use edit::{validate_edited, Frame};
#[cfg(test)]
mod tests;

/// Error classes, named as copyspace-guard names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum ErrorKind {
    #[serde(rename = "STRUCT")]
    Struct,
    #[serde(rename = "BANDWIDTH")]
    Bandwidth,
    #[serde(rename = "STRICT1")]
    Strict1,
    #[serde(rename = "READ1_WRITE1")]
    Read1Write1,
    #[serde(rename = "EXTRAS")]
    Extras,
    #[serde(rename = "COVERAGE")]
    Coverage,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Struct => "STRUCT",
            ErrorKind::Bandwidth => "BANDWIDTH",
            ErrorKind::Strict1 => "STRICT1",
            ErrorKind::Read1Write1 => "READ1_WRITE1",
            ErrorKind::Extras => "EXTRAS",
            ErrorKind::Coverage => "COVERAGE",
        }
    }
}

/// One validation error, with as much context as applies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ValidationError {
    pub kind: ErrorKind,
    pub msg: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tick: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub src_slot: Option<i128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dst_slot: Option<i128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demand_bits: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduled_bits: Option<u128>,
}

impl ValidationError {
    fn new(kind: ErrorKind, msg: impl Into<String>) -> Self {
        ValidationError {
            kind,
            msg: msg.into(),
            tick: None,
            chunk: None,
            src_slot: None,
            dst_slot: None,
            demand_bits: None,
            scheduled_bits: None,
        }
    }
    /// An error of `kind` with a message only (compact files that cannot
    /// be read as a schedule of the instance).
    pub fn of_kind(kind: ErrorKind, msg: impl Into<String>) -> Self {
        ValidationError::new(kind, msg)
    }
    fn at(mut self, tick: u64, chunk: usize) -> Self {
        self.tick = Some(tick);
        self.chunk = Some(chunk);
        self
    }
    fn pair(mut self, src: i128, dst: i128) -> Self {
        self.src_slot = Some(src);
        self.dst_slot = Some(dst);
        self
    }
}

/// `PASS` or `FAIL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    #[serde(rename = "PASS")]
    Pass,
    #[serde(rename = "FAIL")]
    Fail,
}

/// What the validator found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub status: Verdict,
    pub model: Model,
    pub ticks_total: u64,
    pub bits_total: u128,
    /// The first [`MAX_REPORTED_ERRORS`] errors.
    pub errors: Vec<ValidationError>,
    pub total_errors: u64,
    /// Distinct error kinds seen, sorted.
    pub error_kinds: Vec<ErrorKind>,
    /// Tick of the first error that has one.
    pub first_error_tick: Option<u64>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.status == Verdict::Pass
    }

    /// A one-line description: `PASS (T ticks)` or the first error.
    pub fn one_line(&self) -> String {
        match self.errors.first() {
            None => format!("PASS: {} ticks, {} bits", self.ticks_total, self.bits_total),
            Some(e) => {
                let kinds: Vec<&str> = self.error_kinds.iter().map(|k| k.as_str()).collect();
                let at = self
                    .first_error_tick
                    .map(|t| format!(", first at tick {t}"))
                    .unwrap_or_default();
                format!(
                    "FAIL: {} error(s) [{}]{at}: {}: {}",
                    self.total_errors,
                    kinds.join(","),
                    e.kind.as_str(),
                    e.msg
                )
            }
        }
    }
}

/// How many errors a report lists in full (all are counted).
pub const MAX_REPORTED_ERRORS: usize = 100;

/// One chunk as read from a file: integers of any size, or malformed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawChunk {
    Chunk {
        src: i128,
        dst: i128,
        len: i128,
    },
    /// Not an object with integer `src_slot`, `dst_slot`, `len_bits`.
    Malformed,
}

/// Streaming validator: feed ticks with [`TickValidator::push_tick`], then
/// [`TickValidator::finish`].
pub struct TickValidator<'a> {
    inst: &'a Instance,
    /// Bits counted per demand (allocated on the first count: a compact
    /// schedule whose demands each sent exactly their chunk counts never
    /// needs it, see `covered_by_counts`).
    scheduled: Vec<u128>,
    /// Every demand was found to send exactly its chunk count: its bits
    /// are its demand's, and `finish` compares none.
    covered_by_counts: bool,
    extras: BTreeMap<(i128, i128), u128>,
    used_src: Vec<u64>,
    used_dst: Vec<u64>,
    /// Transfers counted in `used_src`'s / `used_dst`'s tick (multi-port).
    count_src: Vec<u32>,
    count_dst: Vec<u32>,
    ticks: u64,
    bits: u128,
    errors: Vec<ValidationError>,
    total_errors: u64,
    kinds: std::collections::BTreeSet<ErrorKind>,
    first_error_tick: Option<u64>,
    /// An overflow was reported (once); counting has stopped.
    overflowed: bool,
}

impl<'a> TickValidator<'a> {
    pub fn new(inst: &'a Instance) -> Self {
        let n = inst.slots as usize;
        TickValidator {
            inst,
            scheduled: Vec::new(),
            covered_by_counts: false,
            extras: BTreeMap::new(),
            used_src: vec![0; n],
            used_dst: vec![0; n],
            count_src: vec![0; n],
            count_dst: vec![0; n],
            ticks: 0,
            bits: 0,
            errors: Vec::new(),
            total_errors: 0,
            kinds: Default::default(),
            first_error_tick: None,
            overflowed: false,
        }
    }

    /// Reports that a count overflowed (once per report).
    fn overflow(&mut self, what: &str) {
        if !self.overflowed {
            self.overflowed = true;
            self.add(ValidationError::new(
                ErrorKind::Struct,
                format!("{what} overflows: the schedule counts past what can be checked exactly"),
            ));
        }
    }

    /// Adds `n` to the tick count; `None` (and an error) on overflow.
    fn count_ticks(&mut self, n: u64) -> Option<u64> {
        match self.ticks.checked_add(n) {
            Some(t) => {
                self.ticks = t;
                Some(t)
            }
            None => {
                self.overflow(&format!("tick count {} + {n}", self.ticks));
                None
            }
        }
    }

    /// Bits counted for demand `i` so far.
    fn scheduled_bits(&self, i: usize) -> u128 {
        self.scheduled.get(i).copied().unwrap_or(0)
    }

    /// Counts `len` bits for demand `i` (or an extra pair), checked.
    fn count_bits(&mut self, target: Result<usize, (i128, i128)>, len: u128) {
        let slot = match target {
            Ok(i) => {
                if self.scheduled.is_empty() {
                    self.scheduled = vec![0; self.inst.demands().len()];
                }
                &mut self.scheduled[i]
            }
            Err(pair) => self.extras.entry(pair).or_insert(0),
        };
        match (slot.checked_add(len), self.bits.checked_add(len)) {
            (Some(a), Some(b)) => {
                *slot = a;
                self.bits = b;
            }
            _ => self.overflow("bit count"),
        }
    }

    /// Validates `n` empty ticks at once (O(1)): what a gap between tick
    /// numbers in a CSV schedule means.
    pub fn push_empty_ticks(&mut self, n: u64) {
        if !self.overflowed {
            self.count_ticks(n);
        }
    }

    fn add(&mut self, e: ValidationError) {
        self.total_errors += 1;
        self.kinds.insert(e.kind);
        if self.first_error_tick.is_none() {
            self.first_error_tick = e.tick;
        }
        if self.errors.len() < MAX_REPORTED_ERRORS {
            self.errors.push(e);
        }
    }

    /// A whole-document structural error (bad version, model mismatch...).
    pub fn structural_error(&mut self, msg: impl Into<String>) {
        self.add(ValidationError::new(ErrorKind::Struct, msg));
    }

    /// Validates the next tick.
    pub fn push_tick(&mut self, chunks: &[RawChunk]) {
        if self.overflowed {
            return;
        }
        let t = self.ticks;
        // Tick t is stamped t + 1 in the "slot used" arrays.
        let Some(stamp) = self.count_ticks(1) else {
            return;
        };
        let slots = self.inst.slots as i128;
        let bw = self.inst.bw as i128;
        for (ci, ch) in chunks.iter().enumerate() {
            let RawChunk::Chunk {
                src: s,
                dst: d,
                len,
            } = *ch
            else {
                self.add(
                    ValidationError::new(
                        ErrorKind::Struct,
                        "chunk must contain integer src_slot,dst_slot,len_bits",
                    )
                    .at(t, ci),
                );
                continue;
            };
            let mut valid = true;
            let in_range = s >= 0 && d >= 0 && s < slots && d < slots;
            if !in_range {
                self.add(
                    ValidationError::new(ErrorKind::Struct, "slot out of bounds")
                        .at(t, ci)
                        .pair(s, d),
                );
                valid = false;
            }
            if s == d {
                self.add(
                    ValidationError::new(ErrorKind::Struct, "src_slot == dst_slot")
                        .at(t, ci)
                        .pair(s, d),
                );
                valid = false;
            }
            // A demand's chunks are held to its own bandwidth.
            let demand = if in_range {
                self.inst.demand_index(s as u32, d as u32)
            } else {
                None
            };
            let bw = match demand {
                Some(i) => self.inst.demand_bw(i) as i128,
                None => bw,
            };
            if len <= 0 || len > bw {
                self.add(
                    ValidationError::new(
                        ErrorKind::Bandwidth,
                        format!("len_bits {len} out of allowed range 1..={bw}"),
                    )
                    .at(t, ci)
                    .pair(s, d),
                );
                valid = false;
            }
            if in_range {
                let (su, du) = (s as usize, d as usize);
                if !self.check_model_rule(t, ci, (s, d), stamp) {
                    valid = false;
                }
                if valid {
                    self.take_ports(stamp, su, du);
                }
            }
            if valid {
                // (Valid implies in range: `demand` was looked up.)
                self.count_bits(demand.ok_or((s, d)), len as u128);
            }
        }
    }

    /// The model's per-tick rule for chunk `ci` (slots `s -> d`, in range)
    /// of tick `t`, stamped `stamp`: the slots' ports not yet all taken
    /// this tick (STRICT1: sends and receives share them). Adds the errors;
    /// returns whether the rule holds.
    fn check_model_rule(&mut self, t: u64, ci: usize, (s, d): (i128, i128), stamp: u64) -> bool {
        let (su, du) = (s as usize, d as usize);
        let (ps, pd) = (self.inst.port(su), self.inst.port(du));
        let mut valid = true;
        match self.inst.model {
            Model::Read1Write1 => {
                if used_now(&self.used_src, &self.count_src, su, stamp) >= ps {
                    let msg = match ps {
                        1 => "source slot sends more than once in one tick".to_string(),
                        p => format!("source slot sends more than its {p} ports allow in one tick"),
                    };
                    self.add(
                        ValidationError::new(ErrorKind::Read1Write1, msg)
                            .at(t, ci)
                            .pair(s, d),
                    );
                    valid = false;
                }
                if used_now(&self.used_dst, &self.count_dst, du, stamp) >= pd {
                    let msg = match pd {
                        1 => "destination slot receives more than once in one tick".to_string(),
                        p => format!(
                            "destination slot receives more than its {p} ports allow in one tick"
                        ),
                    };
                    self.add(
                        ValidationError::new(ErrorKind::Read1Write1, msg)
                            .at(t, ci)
                            .pair(s, d),
                    );
                    valid = false;
                }
            }
            Model::Strict1 => {
                // One array serves as "slot used in this tick".
                let full_s = used_now(&self.used_src, &self.count_src, su, stamp) >= ps;
                let full_d = used_now(&self.used_src, &self.count_src, du, stamp) >= pd;
                if full_s || full_d {
                    let msg = if ps == 1 && pd == 1 {
                        "slot participates more than once in one tick".to_string()
                    } else {
                        let (v, p) = if full_s { (s, ps) } else { (d, pd) };
                        format!("slot {v} takes part in more than its {p} ports allow in one tick")
                    };
                    self.add(
                        ValidationError::new(ErrorKind::Strict1, msg)
                            .at(t, ci)
                            .pair(s, d),
                    );
                    valid = false;
                }
            }
        }
        valid
    }

    /// Takes a port at both ends of a valid chunk `su -> du` in the tick
    /// stamped `stamp`.
    fn take_ports(&mut self, stamp: u64, su: usize, du: usize) {
        match self.inst.model {
            Model::Read1Write1 => {
                take_now(&mut self.used_src, &mut self.count_src, su, stamp);
                take_now(&mut self.used_dst, &mut self.count_dst, du, stamp);
            }
            Model::Strict1 => {
                take_now(&mut self.used_src, &mut self.count_src, su, stamp);
                take_now(&mut self.used_src, &mut self.count_src, du, stamp);
            }
        }
    }

    /// Final checks (EXTRAS, COVERAGE) and the report.
    pub fn finish(mut self) -> Report {
        let extras = std::mem::take(&mut self.extras);
        for ((s, d), bits) in extras {
            let mut e =
                ValidationError::new(ErrorKind::Extras, "scheduled pair not present in demands")
                    .pair(s, d);
            e.scheduled_bits = Some(bits);
            self.add(e);
        }
        let demands = if self.covered_by_counts {
            &[][..]
        } else {
            self.inst.demands()
        };
        for (i, dm) in demands.iter().enumerate() {
            let sbits = self.scheduled_bits(i);
            if sbits != dm.bits as u128 {
                let sub = if sbits < dm.bits as u128 {
                    "under"
                } else {
                    "over"
                };
                let mut e = ValidationError::new(
                    ErrorKind::Coverage,
                    format!("demand coverage mismatch ({sub})"),
                )
                .pair(dm.src as i128, dm.dst as i128);
                e.demand_bits = Some(dm.bits as u128);
                e.scheduled_bits = Some(sbits);
                self.add(e);
            }
        }
        Report {
            status: if self.total_errors == 0 {
                Verdict::Pass
            } else {
                Verdict::Fail
            },
            model: self.inst.model,
            ticks_total: self.ticks,
            bits_total: self.bits,
            errors: self.errors,
            total_errors: self.total_errors,
            error_kinds: self.kinds.into_iter().collect(),
            first_error_tick: self.first_error_tick,
        }
    }
}

/// Validates a compact schedule without expanding it: each round must be a
/// valid tick (checked once, since its ticks are alike but for the chunk
/// lengths, which the chunking rule keeps within `bw`), and each demand must
/// be sent exactly its chunk count. Same verdict as expanding then
/// validating (a property test checks this).
pub fn validate_compact(inst: &Instance, schedule: &Schedule) -> Report {
    validate_compact_with(inst, schedule, true)
}

/// [`validate_compact`], with or without the fast path (`fast: false`
/// checks every round on the general path: the reference the tests hold
/// the fast path to, report for report).
fn validate_compact_with(inst: &Instance, schedule: &Schedule, fast: bool) -> Report {
    if !schedule.classes.is_empty() {
        return classes::validate_with_classes(inst, schedule, fast);
    }
    let mut v = TickValidator::new(inst);
    let (clean, mut sent) = if fast {
        clean_rounds(inst, &schedule.rounds)
    } else {
        (
            vec![false; schedule.rounds.len()],
            vec![0; inst.demands().len()],
        )
    };
    let name = |ri: usize| format!("round {ri}");
    let ticks = check_rounds(&mut v, &schedule.rounds, &clean, &mut sent, &name, false);
    count_coverage(&mut v, &sent);
    // On overflow: the ticks of the rounds before the one that overflowed.
    v.ticks = ticks;
    v.finish()
}

/// Checks `rounds` as ticks from tick 0 on: each round a valid tick
/// (once: its ticks are alike but for the chunk lengths, which the
/// chunking rule keeps within the bandwidth), its chunks added to `sent`.
/// Rounds marked `clean` ([`clean_rounds`]) are taken as checked and
/// counted. `name` words a round in messages (also those of the per-tick
/// rule when `name_ticks`: a class's rounds, whose chunks are member 0's).
/// Returns the ticks of the rounds before one whose count overflowed (then
/// checking stops).
fn check_rounds(
    v: &mut TickValidator,
    rounds: &[Round],
    clean: &[bool],
    sent: &mut [u64],
    name: &dyn Fn(usize) -> String,
    name_ticks: bool,
) -> u64 {
    let mut tick0: u64 = 0;
    let demands = v.inst.demands();
    // Buffers of the general path, reused round to round.
    let mut raw: Vec<RawChunk> = Vec::new();
    let mut ok_idx: Vec<usize> = Vec::new();
    let mut scheduled_before: Vec<u128> = Vec::new();
    for (ri, round) in rounds.iter().enumerate() {
        // Ticks of all rounds so far, checked (a clean round sends a demand
        // at most `ports` times per tick, and its counts stay within the
        // ticks times the ports, which `clean_rounds` checked; other
        // rounds' counts are checked below).
        let Some(next_tick0) = tick0.checked_add(round.repeat) else {
            v.overflow(&format!(
                "{}: tick count {tick0} + repeat {}",
                name(ri),
                round.repeat
            ));
            break;
        };
        if round.repeat == 0 {
            v.add(ValidationError::new(
                ErrorKind::Struct,
                format!("{} has repeat 0", name(ri)),
            ));
            continue;
        }
        // Fast path: a clean round's coverage is already counted.
        if clean[ri] {
            tick0 = next_tick0;
            continue;
        }
        raw.clear();
        ok_idx.clear();
        for &di in &round.demands {
            match demands.get(di as usize) {
                Some(d) => {
                    raw.push(RawChunk::Chunk {
                        src: d.src as i128,
                        dst: d.dst as i128,
                        len: 1,
                    });
                    ok_idx.push(di as usize);
                }
                None => v.add(ValidationError::new(
                    ErrorKind::Struct,
                    format!("{}: demand index {di} out of range", name(ri)),
                )),
            }
        }
        // Check exclusivity once on the round's first tick, with unit lengths
        // (then undo the unit bits it counted: coverage is done below).
        let errors_before = v.total_errors;
        let bits_before = v.bits;
        scheduled_before.clear();
        scheduled_before.extend(ok_idx.iter().map(|&i| v.scheduled_bits(i)));
        v.ticks = tick0;
        let listed_before = v.errors.len();
        v.push_tick(&raw);
        if name_ticks {
            for e in &mut v.errors[listed_before..] {
                e.msg = format!("{}: {}", name(ri), e.msg);
            }
        }
        v.bits = bits_before;
        for (&i, &before) in ok_idx.iter().zip(&scheduled_before) {
            if let Some(bits) = v.scheduled.get_mut(i) {
                *bits = before;
            }
        }
        if v.total_errors == errors_before {
            // Chunks sent[i] .. sent[i]+repeat of demand i; with more than
            // one port a demand can be in a round twice, so the sum may
            // pass the tick count: checked.
            let mut overflow = None;
            for &i in &ok_idx {
                match sent[i].checked_add(round.repeat) {
                    Some(to) => sent[i] = to,
                    None => overflow = Some(i),
                }
            }
            if let Some(i) = overflow {
                v.overflow(&format!("{}: chunks sent of demand {i}", name(ri)));
                break;
            }
        }
        tick0 = next_tick0;
    }
    tick0
}

/// Counts every demand's bits from its chunks sent: every counted round
/// sent the next chunks of its demands, so demand `i`'s bits are those of
/// its chunks `0 .. sent[i]` (the bits of consecutive ranges add up): one
/// checked count per demand.
fn count_coverage(v: &mut TickValidator, sent: &[u64]) {
    // The usual case: each demand sent exactly its chunk count, which
    // carry its bits exactly; only the total is added.
    if sent == v.inst.chunk_counts() && v.scheduled.iter().all(|&b| b == 0) {
        match v.bits.checked_add(v.inst.total_bits()) {
            Some(bits) => v.bits = bits,
            None => v.overflow("bit count"),
        }
        v.covered_by_counts = true;
        return;
    }
    for (i, &to) in sent.iter().enumerate() {
        if to > 0 {
            let bits = chunk_bits_between(v.inst, i, 0, to);
            v.count_bits(Ok(i), bits);
        }
    }
}

/// Bits carried by chunks `from..to` of demand `i`, where chunks beyond the
/// demand's count carry its bandwidth (over-coverage stays visible).
fn chunk_bits_between(inst: &Instance, i: usize, from: u64, to: u64) -> u128 {
    let c = inst.chunks(i);
    let bw = inst.demand_bw(i) as u128;
    let full_to = to.min(c.saturating_sub(1));
    let mut bits: u128 = 0;
    if from < full_to {
        bits += (full_to - from) as u128 * bw;
    }
    // The last chunk (index c-1), if inside the range.
    if from < c && c - 1 < to {
        bits += inst.chunk_len(i, c - 1) as u128;
    }
    if to > c {
        bits += (to - c.max(from)) as u128 * bw;
    }
    bits
}

/// Expands a compact schedule tick by tick and validates every tick (the
/// slow path; used by tests to cross-check [`validate_compact`]).
pub fn validate_expanded(inst: &Instance, schedule: &Schedule) -> Report {
    let mut v = TickValidator::new(inst);
    let mut raw = Vec::new();
    let _ = Expansion::new(inst, schedule).try_for_each(|_, tick| -> Result<(), ()> {
        raw.clear();
        raw.extend(tick.iter().map(|c| RawChunk::Chunk {
            src: c.src_slot as i128,
            dst: c.dst_slot as i128,
            len: c.len_bits as i128,
        }));
        v.push_tick(&raw);
        Ok(())
    });
    v.finish()
}

/// Transfers slot `v` already has in the tick stamped `stamp`, per side:
/// `stamps[v]` says which tick `counts[v]` counts.
fn used_now(stamps: &[u64], counts: &[u32], v: usize, stamp: u64) -> u32 {
    if stamps[v] == stamp {
        counts[v]
    } else {
        0
    }
}

/// Counts one more transfer of slot `v` in the tick stamped `stamp`.
fn take_now(stamps: &mut [u64], counts: &mut [u32], v: usize, stamp: u64) {
    if stamps[v] != stamp {
        stamps[v] = stamp;
        counts[v] = 0;
    }
    counts[v] += 1;
}
