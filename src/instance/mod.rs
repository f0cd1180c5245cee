//! Transfer demands and the instance they form.
//!
//! This module owns the data model every other module reads: [`Model`],
//! [`Demand`], [`Instance`] and the link [`CostModel`] an instance may
//! carry (the `cost` module computes seconds with it), plus parsing
//! (demands CSV, instance JSON v0),
//! normalisation (duplicate `(src, dst)` pairs merged, demands sorted by
//! pair) and the limits that keep memory bounded. Parsing never panics: any
//! byte sequence yields either an [`Instance`] or an [`InputError`] that
//! names the file, the line and the field.

mod cost_model;
pub(crate) mod csv_cells;
mod csv_fast;
pub(crate) mod csv_input;
mod csv_meta;
pub mod dense;
mod error;
mod json_fast;
pub(crate) mod json_input;
mod json_keys;
mod json_output;
pub(crate) mod json_strict;
mod limits;
mod ports;

pub use cost_model::{CostError, CostModel};
pub use csv_input::{parse_demands_csv, DemandRow};
pub use csv_meta::{
    bw_comment, recorded_bw, recorded_value, RecordedMachine, RecordedValue, BW_COMMENT_KEY,
    GPUS_PER_NODE_KEY, NVLINK_SPEEDUP_KEY,
};
pub use error::InputError;
pub use json_input::{
    instance_to_json, parse_instance_json, parse_instance_json_warned, Overrides,
};
pub use json_keys::close_key;
pub use json_output::{instance_json_text, write_instance_json};
pub use limits::Limits;
pub use ports::Ports;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Slot identifier (a GPU, NIC, node or storage target).
pub type Slot = u32;

/// Resource model of a tick, with copyspace-guard's names and semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub enum Model {
    /// Each slot takes part in at most one transfer per tick (send or receive).
    #[serde(rename = "STRICT1")]
    Strict1,
    /// Each slot sends at most once and receives at most once per tick.
    #[serde(rename = "READ1_WRITE1")]
    Read1Write1,
}

impl Model {
    /// All models, in a fixed order.
    pub const ALL: [Model; 2] = [Model::Strict1, Model::Read1Write1];

    /// The copyspace-guard name of the model.
    pub fn as_str(self) -> &'static str {
        match self {
            Model::Strict1 => "STRICT1",
            Model::Read1Write1 => "READ1_WRITE1",
        }
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error of [`Model::from_str`]: the text is not a model name.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown model {0:?} (expected STRICT1 or READ1_WRITE1)")]
pub struct UnknownModel(pub String);

impl FromStr for Model {
    type Err = UnknownModel;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "STRICT1" => Ok(Model::Strict1),
            "READ1_WRITE1" => Ok(Model::Read1Write1),
            other => Err(UnknownModel(other.to_string())),
        }
    }
}

/// One merged demand: `bits` to move from `src` to `dst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Demand {
    #[serde(rename = "src_slot")]
    pub src: Slot,
    #[serde(rename = "dst_slot")]
    pub dst: Slot,
    #[serde(rename = "bits_total")]
    pub bits: u64,
}

/// A normalised scheduling instance.
///
/// Invariants (established by [`Instance::new`]): `bw > 0`, `slots > 0`,
/// every demand has `src != dst`, both slots `< slots`, `bits > 0`; demands
/// are sorted by `(src, dst)` with no duplicate pair; the total number of
/// chunks fits in `u64`. Demand indices (positions in [`Instance::demands`])
/// are how schedules refer to demands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    pub model: Model,
    pub slots: u32,
    /// Bits one transfer carries in one tick (`copy_bw_bits_per_tick`).
    pub bw: u64,
    demands: Vec<Demand>,
    chunks: Vec<u64>,
    total_chunks: u64,
    /// Sum of the demands' bits (kept: validators report it every plan).
    total_bits: u128,
    /// Demands from slot `s` are `demands[src_start[s]..src_start[s + 1]]`
    /// (keeps [`Instance::demand_index`] a short, cache-local search).
    src_start: Vec<usize>,
    pub id: Option<String>,
    pub notes: Option<String>,
    /// Ports per slot (DESIGN.md §11); all 1 in copyspace-guard v0.
    ports: Ports,
    /// Per-demand bandwidth, indexed like `demands`; `None` when every
    /// demand uses `bw` (copyspace-guard v0).
    demand_bw: Option<Vec<u64>>,
    /// The link cost model the instance JSON gives (`"cost"`), if any.
    pub cost: Option<CostModel>,
}

/// `ceil(bits / bw)`, by a shift when `bw` is a power of two (the usual
/// case: no division per demand).
pub(crate) fn chunks_of(bits: u64, bw: u64) -> u64 {
    if bw.is_power_of_two() {
        (bits >> bw.trailing_zeros()) + u64::from(bits & (bw - 1) != 0)
    } else {
        bits.div_ceil(bw)
    }
}

impl Instance {
    /// Builds an instance from raw demands: merges duplicate pairs, sorts,
    /// and checks every invariant listed on [`Instance`] and the `limits`.
    /// Errors name the offending demand by its position in `raw`.
    pub fn new(
        model: Model,
        slots: u32,
        bw: u64,
        raw: impl IntoIterator<Item = Demand>,
        limits: &Limits,
    ) -> Result<Instance, InputError> {
        Instance::new_multiport(
            model,
            slots,
            bw,
            raw.into_iter().map(|d| (d, None)),
            Ports::default(),
            limits,
        )
    }

    /// [`Instance::new`] with ports per slot and, per demand, an optional
    /// bandwidth overriding `bw` (DESIGN.md §11). Duplicate pairs merge only
    /// when their bandwidths agree (a pair's chunks share one length rule).
    pub fn new_multiport(
        model: Model,
        slots: u32,
        bw: u64,
        raw: impl IntoIterator<Item = (Demand, Option<u64>)>,
        ports: Ports,
        limits: &Limits,
    ) -> Result<Instance, InputError> {
        let ports = Instance::check_frame(slots, bw, ports, limits)?;
        // Demands already sorted by pair with no repeat (generators, and
        // files written from an `Instance`) go straight into `merged` and
        // `bws`; from the first pair out of order on, all of them go to
        // `unsorted`, to be sorted and merged at the end.
        let raw = raw.into_iter();
        let room = raw.size_hint().0.min(limits.max_demands as usize);
        let mut merged: Vec<Demand> = Vec::with_capacity(room);
        let mut bws: Vec<u64> = Vec::with_capacity(room);
        let mut unsorted: Option<Vec<(Demand, u64)>> = None;
        for (i, (d, dbw)) in raw.enumerate() {
            if dbw == Some(0) {
                return Err(InputError::field(
                    &format!("demands[{i}].copy_bw_bits_per_tick"),
                    format!("bandwidth per tick must be > 0 for {}->{}", d.src, d.dst),
                ));
            }
            if d.src >= slots || d.dst >= slots {
                return Err(InputError::field(
                    &format!("demands[{i}]"),
                    format!(
                        "slot out of bounds: {}->{} with slots={slots}",
                        d.src, d.dst
                    ),
                ));
            }
            if d.src == d.dst {
                return Err(InputError::field(
                    &format!("demands[{i}]"),
                    format!("src_slot equals dst_slot: {}", d.src),
                ));
            }
            if d.bits == 0 {
                return Err(InputError::field(
                    &format!("demands[{i}].bits_total"),
                    format!("bits_total must be > 0 for {}->{}", d.src, d.dst),
                ));
            }
            if i as u64 >= limits.max_demands {
                return Err(InputError::field(
                    "demands",
                    format!("more demands than {}", limits.demands_limit()),
                ));
            }
            let dbw = dbw.unwrap_or(bw);
            match &mut unsorted {
                None if merged
                    .last()
                    .is_none_or(|last| (last.src, last.dst) < (d.src, d.dst)) =>
                {
                    merged.push(d);
                    bws.push(dbw);
                }
                None => {
                    let mut all: Vec<(Demand, u64)> = Vec::with_capacity(room.max(i + 1));
                    all.extend(merged.drain(..).zip(bws.drain(..)));
                    all.push((d, dbw));
                    unsorted = Some(all);
                }
                Some(all) => all.push((d, dbw)),
            }
        }
        let Some(mut demands) = unsorted else {
            // Strictly increasing pairs: nothing to merge.
            let demand_bw = bws.iter().any(|&b| b != bw).then_some(bws);
            return Instance::from_merged(model, slots, bw, merged, demand_bw, ports);
        };
        demands.sort_unstable_by_key(|(d, b)| (d.src, d.dst, *b));
        for (d, dbw) in demands {
            match merged.last_mut() {
                Some(last) if last.src == d.src && last.dst == d.dst => {
                    let last_bw = *bws.last().expect("one bandwidth per merged demand");
                    if last_bw != dbw {
                        return Err(InputError::field(
                            "copy_bw_bits_per_tick",
                            format!(
                                "demands {}->{} repeat the pair with different bandwidths ({last_bw} and {dbw})",
                                d.src, d.dst
                            ),
                        ));
                    }
                    last.bits = last.bits.checked_add(d.bits).ok_or_else(|| {
                        InputError::field(
                            "bits_total",
                            format!("merged bits_total of {}->{} overflows u64", d.src, d.dst),
                        )
                    })?;
                }
                _ => {
                    merged.push(d);
                    bws.push(dbw);
                }
            }
        }
        let demand_bw = bws.iter().any(|&b| b != bw).then_some(bws);
        Instance::from_merged(model, slots, bw, merged, demand_bw, ports)
    }

    /// The checks of [`Instance::new_multiport`] that do not look at the
    /// demands; returns the normalised ports.
    pub(crate) fn check_frame(
        slots: u32,
        bw: u64,
        ports: Ports,
        limits: &Limits,
    ) -> Result<Ports, InputError> {
        if bw == 0 {
            return Err(InputError::field(
                "copy_bw_bits_per_tick",
                "bandwidth per tick must be > 0",
            ));
        }
        if slots == 0 {
            return Err(InputError::field("slots", "slots must be > 0"));
        }
        if slots > limits.max_slots {
            return Err(InputError::field(
                "slots",
                format!("{slots} slots exceed {}", limits.slots_limit()),
            ));
        }
        ports.check(slots, "ports")?;
        if ports.total(slots) > (u32::MAX / 2) as u64 {
            return Err(InputError::field(
                "ports",
                format!(
                    "{} ports in all is above the limit of 2^31-1",
                    ports.total(slots)
                ),
            ));
        }
        Ok(ports.normalised())
    }

    /// The instance of demands already validated, sorted by `(src, dst)`
    /// and merged (no repeated pair), with their bandwidths (`None`: all
    /// `bw`): chunk counts, their checked total, and the per-slot index.
    pub(crate) fn from_merged(
        model: Model,
        slots: u32,
        bw: u64,
        merged: Vec<Demand>,
        demand_bw: Option<Vec<u64>>,
        ports: Ports,
    ) -> Result<Instance, InputError> {
        let chunks: Vec<u64> = match &demand_bw {
            Some(bws) => merged
                .iter()
                .zip(bws)
                .map(|(d, &b)| d.bits.div_ceil(b))
                .collect(),
            // A power-of-two `bw` (the usual case) divides by a shift.
            None if bw.is_power_of_two() => merged.iter().map(|d| chunks_of(d.bits, bw)).collect(),
            None => merged.iter().map(|d| d.bits.div_ceil(bw)).collect(),
        };
        let mut total: u64 = 0;
        for &c in &chunks {
            total = total.checked_add(c).ok_or_else(|| {
                InputError::field("demands", "total number of chunks overflows u64")
            })?;
        }
        // Degrees must fit in u64 too (each is at most total chunks), so no further check.
        let mut src_start = vec![0usize; slots as usize + 1];
        for d in &merged {
            src_start[d.src as usize + 1] += 1;
        }
        for s in 0..slots as usize {
            src_start[s + 1] += src_start[s];
        }
        Ok(Instance {
            src_start,
            model,
            slots,
            bw,
            total_bits: merged.iter().map(|d| d.bits as u128).sum(),
            demands: merged,
            chunks,
            total_chunks: total,
            id: None,
            notes: None,
            ports,
            demand_bw,
            cost: None,
        })
    }

    /// The merged demands, sorted by `(src, dst)`.
    pub fn demands(&self) -> &[Demand] {
        &self.demands
    }

    /// Chunk-ticks demand `i` needs: `ceil(bits / bw)`.
    pub fn chunks(&self, i: usize) -> u64 {
        self.chunks[i]
    }

    /// Chunk counts of all demands, indexed like [`Instance::demands`].
    pub fn chunk_counts(&self) -> &[u64] {
        &self.chunks
    }

    /// Sum of chunks over all demands.
    pub fn total_chunks(&self) -> u64 {
        self.total_chunks
    }

    /// Total bits over all demands (u128: the sum of u64s may exceed u64).
    pub fn total_bits(&self) -> u128 {
        self.total_bits
    }

    /// Bits carried by chunk `k` (0-based) of demand `i`: the demand's
    /// bandwidth, except the last chunk, which carries the remainder.
    pub fn chunk_len(&self, i: usize, k: u64) -> u64 {
        let d = &self.demands[i];
        let bw = self.demand_bw(i);
        if k + 1 == self.chunks[i] {
            d.bits - (self.chunks[i] - 1) * bw
        } else {
            bw
        }
    }

    /// Bits demand `i` moves per tick: its own `copy_bw_bits_per_tick`, or
    /// the instance's `bw`.
    pub fn demand_bw(&self, i: usize) -> u64 {
        match &self.demand_bw {
            Some(b) => b[i],
            None => self.bw,
        }
    }

    /// Whether some demand has a bandwidth other than the instance's `bw`.
    pub fn has_demand_bw(&self) -> bool {
        self.demand_bw.is_some()
    }

    /// Ports per slot (DESIGN.md §11).
    pub fn ports(&self) -> &Ports {
        &self.ports
    }

    /// Ports of slot `v`.
    pub fn port(&self, v: usize) -> u32 {
        self.ports.get(v)
    }

    /// Whether every slot has one port: the copyspace-guard model, which
    /// every one-port solver and bound assumes.
    pub fn is_single_port(&self) -> bool {
        self.ports.all_one()
    }

    /// Whether the instance needs anything beyond copyspace-guard v0 (some
    /// slot with several ports, or a per-demand bandwidth).
    pub fn is_multiport(&self) -> bool {
        !self.is_single_port() || self.has_demand_bw()
    }

    /// The same instance with other ports (checked like the input).
    pub fn with_ports(&self, ports: Ports) -> Result<Instance, InputError> {
        ports.check(self.slots, "ports")?;
        Ok(Instance {
            ports: ports.normalised(),
            ..self.clone()
        })
    }

    /// Index of the demand `src -> dst`, if there is one.
    pub fn demand_index(&self, src: Slot, dst: Slot) -> Option<usize> {
        let s = src as usize;
        let (lo, hi) = (*self.src_start.get(s)?, *self.src_start.get(s + 1)?);
        // Dense rows (all-to-all) hold `dst` at `dst` or `dst - 1`: probe
        // there first (one cache line), then search.
        let guess = lo + (dst as usize).min((hi - lo).saturating_sub(1));
        for p in [guess, guess.saturating_sub(1)] {
            if (lo..hi).contains(&p) && self.demands[p].dst == dst {
                return Some(p);
            }
        }
        self.demands[lo..hi]
            .binary_search_by_key(&dst, |d| d.dst)
            .ok()
            .map(|i| lo + i)
    }

    /// The same demands at another chunk size `bw` (doc/design.md §12):
    /// chunk counts recomputed, everything else kept. An instance with
    /// per-demand bandwidths is refused (which size would each take?).
    pub fn with_bw(&self, bw: u64) -> Result<Instance, InputError> {
        if self.has_demand_bw() {
            return Err(InputError::field(
                "copy_bw_bits_per_tick",
                "per-demand bandwidths: the chunk size cannot be changed for all demands at once",
            ));
        }
        if bw == 0 {
            return Err(InputError::field(
                "copy_bw_bits_per_tick",
                "bandwidth per tick must be > 0",
            ));
        }
        let mut inst = Instance::from_merged(
            self.model,
            self.slots,
            bw,
            self.demands.clone(),
            None,
            self.ports.clone(),
        )?;
        inst.id = self.id.clone();
        inst.notes = self.notes.clone();
        inst.cost = self.cost;
        Ok(inst)
    }

    /// The same demands under another model.
    pub fn with_model(&self, model: Model) -> Instance {
        Instance {
            model,
            ..self.clone()
        }
    }
}

/// Whether `bytes` hold an instance JSON rather than a demands CSV: the
/// first byte that is not blank (or a UTF-8 byte-order mark) is `{`.
pub fn is_instance_json(bytes: &[u8]) -> bool {
    let first = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace() && **b != 0xEF && **b != 0xBB && **b != 0xBF);
    first == Some(&b'{')
}

/// Reads an instance from bytes that are either an instance JSON (first
/// non-blank byte `{`) or a demands CSV. A CSV takes its bandwidth from
/// `overrides.bw`, else from its `# copy_bw_bits_per_tick=N` comment line
/// ([`recorded_bw`]); its model defaults to STRICT1. `name` is the file name errors carry.
pub fn read_instance_bytes(
    bytes: &[u8],
    name: &str,
    overrides: &Overrides,
    limits: &Limits,
) -> Result<Instance, InputError> {
    read_instance_bytes_warned(bytes, name, overrides, limits, &mut Vec::new())
}

/// [`read_instance_bytes`], pushing to `warnings` what the caller should
/// show the user (an instance JSON's unknown keys).
pub fn read_instance_bytes_warned(
    bytes: &[u8],
    name: &str,
    overrides: &Overrides,
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<Instance, InputError> {
    read_instance_recorded(bytes, name, overrides, limits, warnings).map(|r| r.instance)
}

/// An instance as its file gives it, with the two-tier machine the file
/// records (doc/formats.md; what a relay plan runs on when no flag says
/// otherwise).
#[derive(Clone, Debug)]
pub struct ReadInstance {
    pub instance: Instance,
    pub machine: RecordedMachine,
}

/// [`read_instance_bytes_warned`], returning the machine the file records
/// with the instance: an instance JSON's keys `"gpus_per_node"` and
/// `"nvlink_speedup"`, read in the same pass as the rest of the document,
/// or a demands CSV's leading comment lines. A recorded value that is not
/// an integer from 1 to `u32::MAX` is an error naming the key (and a CSV's
/// line).
pub fn read_instance_recorded(
    bytes: &[u8],
    name: &str,
    overrides: &Overrides,
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<ReadInstance, InputError> {
    let result = if is_instance_json(bytes) {
        json_input::parse_instance_json_with(bytes, overrides, limits, warnings, true)
    } else {
        let bw = match overrides.bw {
            Some(bw) => Ok(Some(bw)),
            None => recorded_bw(bytes).map(|r| r.map(|(bw, _)| bw)),
        };
        match bw {
            Err(e) => Err(e),
            Ok(None) if bytes.iter().all(|b| b.is_ascii_whitespace()) => Err(InputError::new(
                "empty file: expected a demands CSV or an instance JSON",
            )
            .at_line(1)),
            Ok(None) => Err(InputError::field(
                "--bw",
                format!("a demands CSV needs --bw BITS (bits per transfer per tick) or a `# {BW_COMMENT_KEY}=N` comment line before its header"),
            )),
            Ok(Some(bw)) => Instance::from_csv_bytes_multiport(
                bytes,
                overrides.model.unwrap_or(Model::Strict1),
                bw,
                overrides.slots,
                overrides.ports,
                limits,
            )
            .and_then(|inst| Ok((inst, RecordedMachine::from_csv(bytes)?))),
        }
    };
    result
        .map(|(instance, machine)| ReadInstance { instance, machine })
        .map_err(|e| e.in_file(name))
}

/// Reads an instance file (see [`read_instance_bytes`]).
pub fn read_instance_file(
    path: &std::path::Path,
    overrides: &Overrides,
    limits: &Limits,
) -> Result<Instance, InputError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| InputError::new(format!("cannot read: {e}")).in_file(&name))?;
    read_instance_bytes(&bytes, &name, overrides, limits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        /// Demands in any order (sorted runs, repeats, out-of-order pairs)
        /// merge into what a map from pair to (bits, bandwidth) holds, or
        /// are refused when a pair repeats with two bandwidths.
        #[test]
        fn new_multiport_sorts_and_merges_like_a_map(
            raw in proptest::collection::vec((0u32..5, 0u32..5, 1u64..50, proptest::option::of(1u64..3)), 0..40),
        ) {
            let raw: Vec<(Demand, Option<u64>)> = raw
                .into_iter()
                .filter(|(s, d, _, _)| s != d)
                .map(|(src, dst, bits, bw)| (Demand { src, dst, bits }, bw))
                .collect();
            let bw = 1;
            let mut map: BTreeMap<(u32, u32), (u64, u64)> = BTreeMap::new();
            let mut clash = false;
            for (d, b) in &raw {
                let e = map.entry((d.src, d.dst)).or_insert((0, b.unwrap_or(bw)));
                clash |= e.1 != b.unwrap_or(bw);
                e.0 += d.bits;
            }
            let got = Instance::new_multiport(Model::Strict1, 5, bw, raw, Ports::default(), &Limits::default());
            match got {
                Err(e) => prop_assert!(clash && e.message.contains("different bandwidths"), "{e}"),
                Ok(inst) => {
                    prop_assert!(!clash);
                    let want: Vec<(Demand, u64)> = map
                        .iter()
                        .map(|(&(src, dst), &(bits, b))| (Demand { src, dst, bits }, b))
                        .collect();
                    let have: Vec<(Demand, u64)> = inst
                        .demands()
                        .iter()
                        .enumerate()
                        .map(|(i, d)| (*d, inst.demand_bw(i)))
                        .collect();
                    prop_assert_eq!(have, want);
                }
            }
        }
    }
}
