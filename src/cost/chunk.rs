//! The best chunk size, with a proof (doc/design.md §12).
//!
//! At chunk size `c` a demand of `b` bits needs `ceil(b/c)` chunks, so every
//! tick lower bound used here (degree, capacity, the odd-set bound of a fixed
//! slot set; each a max or sum of such ceilings) is a non-increasing step
//! function `L(c)` that changes only where some `ceil(b/c)` does, i.e. at
//! `c = ceil(b/k)`. The time `L(c) (alpha + c/rate)` grows with `c` inside a
//! step, so its minimum over a range of chunk sizes lies at the left end of
//! a step. [`search_steps`] visits those left ends in increasing `c` (each
//! found by a binary search for the first `c` where `L` drops), and skips
//! exactly the steps that cannot win:
//!
//! - a step of value `t` costs at least `t alpha + F`, where `F` is the
//!   fluid limit (bits through the busiest slot over the rate), because
//!   `t c >= bits` of that slot; so only values `t <= (best - F) / alpha`
//!   are visited;
//! - every `c` costs at least `L(max) (alpha + c/rate)`, so the walk ends
//!   once that passes the best.
//!
//! No sampling: the minimum found is the minimum over every whole-byte `c`
//! in the range. A walk that would exceed its work budget stops with a
//! smaller, still proven bound (`complete: false`).
//!
//! STRICT1 adds odd sets by cutting planes ([`choose_chunk`]): at the
//! chosen `c` the exact odd-set search runs; if its set beats `L(c)`, the
//! set's own step function joins `L` and the search repeats. The final `L`
//! is max(Delta, ceil Gamma) at the chosen `c` and a valid bound at every
//! other `c`.

use super::model::CostModel;
use crate::bounds::{checked_sum, odd_set_ticks, Direction, Witness};
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model, Slot};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Why a chunk-size search cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChunkError {
    #[error("{what} of {bits} bits is not a whole number of bytes (chunk sizes are whole bytes)")]
    NotWholeBytes { what: &'static str, bits: u64 },
    #[error("the smallest chunk size ({min} bits) must be at least 8 bits and at most the largest ({max} bits)")]
    EmptyRange { min: u64, max: u64 },
    #[error("the instance has per-demand bandwidths: chunk sizes are not searched (give one bandwidth; doc/design.md §12)")]
    PerDemandBandwidth,
}

/// The chunk sizes a search covers: whole bytes from `min_bits` to
/// `max_bits`, both included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkRange {
    pub min_bits: u64,
    pub max_bits: u64,
}

impl ChunkRange {
    /// A range of whole-byte chunk sizes.
    pub fn new(min_bits: u64, max_bits: u64) -> Result<ChunkRange, ChunkError> {
        for (what, bits) in [
            ("the smallest chunk size", min_bits),
            ("the largest chunk size", max_bits),
        ] {
            if bits % 8 != 0 {
                return Err(ChunkError::NotWholeBytes { what, bits });
            }
        }
        if min_bits < 8 || min_bits > max_bits {
            return Err(ChunkError::EmptyRange {
                min: min_bits,
                max: max_bits,
            });
        }
        Ok(ChunkRange { min_bits, max_bits })
    }

    /// The default range: one byte to the largest demand (rounded up to a
    /// whole byte); beyond that no chunk count drops any more.
    pub fn default_for(inst: &Instance) -> ChunkRange {
        let largest = inst.demands().iter().map(|d| d.bits).max().unwrap_or(8);
        ChunkRange {
            min_bits: 8,
            max_bits: largest.div_ceil(8).max(1) * 8,
        }
    }

    /// `min`/`max` given or defaulted from the instance.
    pub fn given_or_default(
        inst: &Instance,
        min_bits: Option<u64>,
        max_bits: Option<u64>,
    ) -> Result<ChunkRange, ChunkError> {
        let d = ChunkRange::default_for(inst);
        let min = min_bits.unwrap_or(d.min_bits);
        ChunkRange::new(min, max_bits.unwrap_or(d.max_bits.max(min)))
    }
}

/// One step of the bound: at `chunk_bits`, no schedule has fewer than
/// `ticks` ticks (by `witness`, stated for the instance at that chunk
/// size), so none lasts less than `seconds`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepBound {
    pub chunk_bits: u64,
    pub ticks: u64,
    pub seconds: f64,
    pub witness: Witness,
}

/// The tick lower bound as a function of the chunk size: degree (per port),
/// capacity and the odd-set bounds of fixed slot sets.
pub struct TickBounds<'a> {
    inst: &'a Instance,
    /// Odd slot sets (STRICT1, one port) and the demands inside each.
    sets: Vec<(Vec<Slot>, Vec<usize>)>,
}

impl<'a> TickBounds<'a> {
    /// Degree and capacity bounds only.
    pub fn new(inst: &'a Instance) -> TickBounds<'a> {
        TickBounds {
            inst,
            sets: Vec::new(),
        }
    }

    /// Adds the bound of the odd slot set `slots` (STRICT1, one port; other
    /// sets are ignored: they bound nothing there).
    pub fn add_odd_set(&mut self, mut slots: Vec<Slot>) {
        slots.sort_unstable();
        slots.dedup();
        let n = self.inst.slots;
        if self.inst.model != Model::Strict1
            || !self.inst.is_single_port()
            || slots.len() < 3
            || slots.len() % 2 == 0
            || slots.iter().any(|&s| s >= n)
            || self.sets.iter().any(|(s, _)| *s == slots)
        {
            return;
        }
        let inside: Vec<usize> = (0..self.inst.demands().len())
            .filter(|&i| {
                let d = self.inst.demands()[i];
                slots.binary_search(&d.src).is_ok() && slots.binary_search(&d.dst).is_ok()
            })
            .collect();
        self.sets.push((slots, inside));
    }

    /// The odd sets in use.
    pub fn odd_sets(&self) -> Vec<Vec<Slot>> {
        self.sets.iter().map(|(s, _)| s.clone()).collect()
    }

    /// The bound at chunk size `c` bits (c >= 1), with its witness for the
    /// instance at that chunk size (the first of equal bounds: degree,
    /// capacity, odd sets in order).
    pub fn at(&self, c: u64) -> (u64, Witness) {
        let inst = self.inst;
        let n = inst.slots as usize;
        let ds = inst.demands();
        if ds.is_empty() {
            return (0, Witness::Empty);
        }
        // Counts that pass `u64` at `c` bound nothing here (`None`): no
        // witness states a saturated count (DESIGN.md §10), as for the
        // odd sets below.
        let add = |a: Option<u64>, k: u64| a.and_then(|a| a.checked_add(k));
        let (mut out, mut inn) = (vec![Some(0u64); n], vec![Some(0u64); n]);
        let mut total = Some(0u64);
        for d in ds {
            let k = d.bits.div_ceil(c);
            out[d.src as usize] = add(out[d.src as usize], k);
            inn[d.dst as usize] = add(inn[d.dst as usize], k);
            total = add(total, k);
        }
        let mut best: (u64, Witness) = (0, Witness::Empty);
        for v in 0..n {
            let side = match inst.model {
                Model::Strict1 => out[v]
                    .zip(inn[v])
                    .and_then(|(o, i)| o.checked_add(i))
                    .map(|c| (c, Direction::Both)),
                Model::Read1Write1 => match (out[v], inn[v]) {
                    (Some(o), Some(i)) if o >= i => Some((o, Direction::Out)),
                    (_, Some(i)) => Some((i, Direction::In)),
                    (Some(o), None) => Some((o, Direction::Out)),
                    (None, None) => None,
                },
            };
            let Some((chunks, direction)) = side else {
                continue;
            };
            let ports = inst.port(v);
            let bound = chunks.div_ceil(ports as u64);
            if bound > best.0 {
                let slot = v as Slot;
                best = (
                    bound,
                    match inst.is_single_port() {
                        true => Witness::Degree {
                            slot,
                            chunks,
                            direction,
                        },
                        false => Witness::PortDegree {
                            slot,
                            chunks,
                            ports,
                            direction,
                            bound,
                        },
                    },
                );
            }
        }
        let per_tick = (inst.slots / 2) as u64;
        if let (Model::Strict1, true, true, Some(total)) =
            (inst.model, inst.is_single_port(), per_tick > 0, total)
        {
            let bound = total.div_ceil(per_tick);
            if bound > best.0 {
                best = (
                    bound,
                    Witness::Capacity {
                        slots: inst.slots,
                        chunks: total,
                        per_tick,
                    },
                );
            }
        }
        for (slots, inside) in &self.sets {
            // A set whose chunks at `c` pass `u64` bounds nothing here (no
            // witness states a saturated count, DESIGN.md §10).
            let Some(e) = checked_sum(inside.iter().map(|&i| ds[i].bits.div_ceil(c))) else {
                continue;
            };
            let bound = odd_set_ticks(slots.len(), e);
            if bound > best.0 {
                best = (
                    bound,
                    Witness::OddSet {
                        slots: slots.clone(),
                        chunks_inside: e,
                        bound,
                    },
                );
            }
        }
        best
    }

    /// The fluid limit in seconds: the bits through the busiest slot (per
    /// port; STRICT1: sent plus received, READ1_WRITE1: the larger of the
    /// two) over the link rate. `L(c) c` is at least those bits at every
    /// `c`, so no chunk size beats it.
    pub fn fluid_seconds(&self, cost: &CostModel) -> f64 {
        fluid_limit_seconds(self.inst, cost)
    }
}

/// The fluid limit of [`TickBounds::fluid_seconds`].
pub fn fluid_limit_seconds(inst: &Instance, cost: &CostModel) -> f64 {
    let n = inst.slots as usize;
    let (mut out, mut inn) = (vec![0u128; n], vec![0u128; n]);
    for d in inst.demands() {
        out[d.src as usize] += d.bits as u128;
        inn[d.dst as usize] += d.bits as u128;
    }
    (0..n)
        .map(|v| {
            let bits = match inst.model {
                Model::Strict1 => out[v] + inn[v],
                Model::Read1Write1 => out[v].max(inn[v]),
            };
            cost.transfer_seconds(bits) / inst.port(v) as f64
        })
        .fold(0.0, f64::max)
}

/// The outcome of a walk over the steps of `L`.
#[derive(Clone, Debug, PartialEq)]
pub struct StepSearch {
    /// The step with the least `L(c) (alpha + c/rate)` (smallest such `c`).
    pub best: StepBound,
    /// Proven: no `c` in the range has `L(c) (alpha + c/rate)` below it
    /// (equal to `best.seconds` when `complete`).
    pub lower_bound_seconds: f64,
    pub complete: bool,
    /// Evaluations of `L`.
    pub evaluations: u64,
}

/// Relative slack of the prunes: a step is skipped only when its lower
/// estimate beats the best by more than rounding can explain.
const SLACK: f64 = 1e-9;

/// Minimises `L(c) (alpha + c/rate)` over the whole-byte `c` in `range`
/// (see the module docs); at most `max_evaluations` evaluations of `L`.
pub fn search_steps(
    bounds: &TickBounds,
    cost: &CostModel,
    range: ChunkRange,
    max_evaluations: u64,
) -> StepSearch {
    let (lo, hi) = (range.min_bits / 8, range.max_bits / 8);
    let evals = std::cell::Cell::new(0u64);
    let eval = |cb: u64| {
        evals.set(evals.get() + 1);
        bounds.at(cb * 8)
    };
    let f = |t: u64, cb: u64| cost.seconds(t, cb * 8);
    let (lmin, wmin) = eval(hi);
    let fluid = bounds.fluid_seconds(cost);
    let alpha = cost.alpha_seconds();
    // Seeds: the largest chunk and doublings of the smallest give a good
    // first value to prune against (each is a real value of the objective).
    let mut prune = f(lmin, hi);
    let mut cb = lo;
    while cb < hi {
        let (t, _) = eval(cb);
        prune = prune.min(f(t, cb));
        cb = cb.saturating_mul(2);
    }
    let mut best = StepBound {
        chunk_bits: hi * 8,
        ticks: lmin,
        seconds: f(lmin, hi),
        witness: wmin,
    };
    let mut cb = lo;
    let mut complete = true;
    let mut unexplored = f64::INFINITY;
    loop {
        let (t, w) = if cb == hi {
            (best.ticks, best.witness.clone())
        } else {
            eval(cb)
        };
        let v = f(t, cb);
        if v < best.seconds || (v == best.seconds && cb * 8 < best.chunk_bits) {
            best = StepBound {
                chunk_bits: cb * 8,
                ticks: t,
                seconds: v,
                witness: w,
            };
        }
        prune = prune.min(v);
        if t <= lmin || cb >= hi {
            break;
        }
        let limit = prune * (1.0 + SLACK);
        // Steps of value t' cost at least t' alpha + F.
        let mut target = t - 1;
        if alpha > 0.0 {
            let cap = ((limit - fluid) / alpha).floor();
            if cap < lmin as f64 {
                break;
            }
            if cap < target as f64 {
                target = cap as u64;
            }
        }
        // Every later c costs at least L(max) (alpha + c/rate).
        if f(lmin, cb + 1) > limit {
            break;
        }
        if evals.get() >= max_evaluations {
            complete = false;
            unexplored = f(lmin, cb + 1).max(lmin as f64 * alpha + fluid);
            break;
        }
        // The first c in (cb, hi] with L(c) <= target (L(hi) = lmin <= target).
        let (mut a, mut b) = (cb + 1, hi);
        while a < b {
            let mid = a + (b - a) / 2;
            if eval(mid).0 <= target {
                b = mid;
            } else {
                a = mid + 1;
            }
        }
        cb = a;
    }
    StepSearch {
        lower_bound_seconds: best.seconds.min(unexplored),
        best,
        complete,
        evaluations: evals.get(),
    }
}

/// How [`choose_chunk`] runs.
#[derive(Clone, Debug)]
pub struct ChunkOptions {
    /// When the odd-set searches (STRICT1) must end; a search cut short
    /// keeps the sets found (valid bounds) and is reported.
    pub deadline: Option<Instant>,
    /// Work budget of the step walk, in demand visits (an evaluation of
    /// `L` visits every demand once).
    pub max_work: u64,
    /// Odd-set rounds at most (STRICT1).
    pub max_odd_rounds: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            deadline: None,
            max_work: 4_000_000_000,
            max_odd_rounds: 8,
        }
    }
}

/// The chosen chunk size and the proof that none in the range does better
/// under the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkChoice {
    pub range: ChunkRange,
    pub search: StepSearch,
    /// The odd sets whose bounds joined `L` (STRICT1).
    pub odd_sets: Vec<Vec<Slot>>,
    /// Whether every odd-set search ran to its end (the chosen step is then
    /// at max(Delta, ceil Gamma)).
    pub odd_sets_complete: bool,
}

/// Chooses the chunk size in `range` that minimises (tick lower bound) x
/// (tick time), exactly (module docs). One-bandwidth instances only.
pub fn choose_chunk(
    inst: &Instance,
    cost: &CostModel,
    range: ChunkRange,
    opts: &ChunkOptions,
) -> Result<ChunkChoice, ChunkError> {
    if inst.has_demand_bw() {
        return Err(ChunkError::PerDemandBandwidth);
    }
    let max_evals = (opts.max_work / inst.demands().len().max(1) as u64).max(64);
    let mut bounds = TickBounds::new(inst);
    let mut odd_complete = true;
    let odd_sets_apply = inst.model == Model::Strict1 && inst.is_single_port();
    let mut rounds = 0;
    loop {
        let search = search_steps(&bounds, cost, range, max_evals);
        if !odd_sets_apply || rounds >= opts.max_odd_rounds {
            if odd_sets_apply {
                odd_complete = false;
            }
            return Ok(ChunkChoice {
                range,
                search,
                odd_sets: bounds.odd_sets(),
                odd_sets_complete: odd_complete,
            });
        }
        rounds += 1;
        let at = inst
            .with_bw(search.best.chunk_bits)
            .expect("a one-bandwidth instance takes any chunk size >= 8 bits");
        let g = DemandGraph::new(&at);
        let (found, complete) = crate::bounds::odd_set_bound(&at, &g, opts.deadline);
        odd_complete &= complete;
        match found {
            Some(lb) if lb.ticks > search.best.ticks => match lb.witness {
                Witness::OddSet { slots, .. } => bounds.add_odd_set(slots),
                _ => unreachable!("odd_set_bound returns odd-set witnesses"),
            },
            _ => {
                return Ok(ChunkChoice {
                    range,
                    search,
                    odd_sets: bounds.odd_sets(),
                    odd_sets_complete: odd_complete,
                })
            }
        }
    }
}

/// The proven bound over `range` with the given odd sets (what `verify`
/// recomputes from a summary's `odd_sets`).
pub fn bound_over_range(
    inst: &Instance,
    cost: &CostModel,
    range: ChunkRange,
    odd_sets: &[Vec<Slot>],
    max_work: u64,
) -> Result<StepSearch, ChunkError> {
    if inst.has_demand_bw() {
        return Err(ChunkError::PerDemandBandwidth);
    }
    let mut bounds = TickBounds::new(inst);
    for s in odd_sets {
        bounds.add_odd_set(s.clone());
    }
    let max_evals = (max_work / inst.demands().len().max(1) as u64).max(64);
    Ok(search_steps(&bounds, cost, range, max_evals))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits};

    /// At a chunk size where a slot's chunks pass `u64`, no witness states
    /// a saturated count: slot 0's sends bound nothing, its receivers do.
    #[test]
    fn counts_past_u64_state_no_witness() {
        let big = u64::MAX;
        let demands = [(0, 1), (0, 2)].map(|(src, dst)| Demand {
            src,
            dst,
            bits: big,
        });
        for model in [Model::Read1Write1, Model::Strict1] {
            let inst = Instance::new(model, 3, 1 << 32, demands, &Limits::default()).unwrap();
            let (ticks, witness) = TickBounds::new(&inst).at(1);
            assert_eq!(ticks, big, "{model}");
            match witness {
                Witness::Degree { slot, chunks, .. } => {
                    assert_ne!(slot, 0, "{model}");
                    assert_eq!(chunks, big, "{model}");
                }
                other => panic!("{model}: {other:?}"),
            }
        }
    }
}
