//! Witnesses: the data that proves a lower bound, and their re-check.

use crate::instance::{Instance, Model, Slot};
use serde::{Deserialize, Serialize};

/// Which chunks a degree witness counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Sends plus receives (STRICT1).
    Both,
    /// Sends (READ1_WRITE1).
    Out,
    /// Receives (READ1_WRITE1).
    In,
}

/// Why no schedule can be shorter than a bound.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Witness {
    /// No demands: zero ticks.
    Empty,
    /// Slot `slot` has `chunks` chunks that must go in distinct ticks.
    Degree {
        slot: Slot,
        chunks: u64,
        direction: Direction,
    },
    /// `chunks` chunks, at most `per_tick = floor(slots/2)` per tick (STRICT1).
    Capacity {
        slots: u32,
        chunks: u64,
        per_tick: u64,
    },
    /// Odd slot set: a tick holds at most `(|S|-1)/2` of the `chunks_inside`
    /// chunks with both ends in `S`, so `bound = ceil(2E(S)/(|S|-1))` (STRICT1).
    OddSet {
        slots: Vec<Slot>,
        chunks_inside: u64,
        bound: u64,
    },
}

/// A bound in ticks and the witness that proves it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LowerBound {
    pub ticks: u64,
    pub witness: Witness,
}

/// Why a witness does not prove what it claims.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("witness rejected: {0}")]
pub struct WitnessError(pub String);

impl Witness {
    pub fn kind(&self) -> &'static str {
        match self {
            Witness::Empty => "empty",
            Witness::Degree { .. } => "degree",
            Witness::Capacity { .. } => "capacity",
            Witness::OddSet { .. } => "odd_set",
        }
    }

    /// Re-derives the bound from the instance alone (no solver), checking
    /// every number the witness states. Returns the proven bound in ticks.
    pub fn recompute(&self, inst: &Instance) -> Result<u64, WitnessError> {
        let fail = |m: String| Err(WitnessError(m));
        match self {
            Witness::Empty => {
                if inst.total_chunks() == 0 {
                    Ok(0)
                } else {
                    fail("empty witness for an instance with demands".into())
                }
            }
            Witness::Degree {
                slot,
                chunks,
                direction,
            } => {
                if *slot >= inst.slots {
                    return fail(format!("slot {slot} out of range"));
                }
                let (mut out, mut inn) = (0u64, 0u64);
                for (i, d) in inst.demands().iter().enumerate() {
                    if d.src == *slot {
                        out += inst.chunks(i);
                    }
                    if d.dst == *slot {
                        inn += inst.chunks(i);
                    }
                }
                let actual = match (inst.model, direction) {
                    (Model::Strict1, Direction::Both) => out + inn,
                    (Model::Read1Write1, Direction::Out) => out,
                    (Model::Read1Write1, Direction::In) => inn,
                    (m, d) => return fail(format!("direction {d:?} does not apply to {m}")),
                };
                if actual != *chunks {
                    return fail(format!(
                        "slot {slot} has {actual} chunks, witness says {chunks}"
                    ));
                }
                Ok(actual)
            }
            Witness::Capacity {
                slots,
                chunks,
                per_tick,
            } => {
                if inst.model != Model::Strict1 {
                    return fail("capacity witness applies to STRICT1 only".into());
                }
                if *slots != inst.slots
                    || *per_tick != (inst.slots / 2) as u64
                    || *chunks != inst.total_chunks()
                {
                    return fail("capacity witness numbers do not match the instance".into());
                }
                if *per_tick == 0 {
                    return fail("capacity witness with zero per-tick capacity".into());
                }
                Ok(chunks.div_ceil(*per_tick))
            }
            Witness::OddSet {
                slots,
                chunks_inside,
                bound,
            } => {
                if inst.model != Model::Strict1 {
                    return fail("odd-set witness applies to STRICT1 only".into());
                }
                let k = slots.len();
                if k < 3 || k % 2 == 0 {
                    return fail(format!("odd set must have an odd size >= 3, has {k}"));
                }
                let mut inside = vec![false; inst.slots as usize];
                for &s in slots {
                    if s >= inst.slots {
                        return fail(format!("slot {s} out of range"));
                    }
                    if inside[s as usize] {
                        return fail(format!("slot {s} listed twice"));
                    }
                    inside[s as usize] = true;
                }
                let e: u64 = inst
                    .demands()
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| inside[d.src as usize] && inside[d.dst as usize])
                    .map(|(i, _)| inst.chunks(i))
                    .sum();
                if e != *chunks_inside {
                    return fail(format!(
                        "set has {e} chunks inside, witness says {chunks_inside}"
                    ));
                }
                let proven = ((2 * e as u128).div_ceil((k - 1) as u128)) as u64;
                if proven != *bound {
                    return fail(format!(
                        "ceil(2*{e}/{}) = {proven}, witness says {bound}",
                        k - 1
                    ));
                }
                Ok(proven)
            }
        }
    }
}
