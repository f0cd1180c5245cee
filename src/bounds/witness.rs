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
    /// Multi-port degree (DESIGN.md §11): slot `slot` has `chunks` chunks
    /// (per `direction`) and `ports` ports, so `bound = ceil(chunks/ports)`.
    PortDegree {
        slot: Slot,
        chunks: u64,
        ports: u32,
        direction: Direction,
        bound: u64,
    },
    /// Odd-port set (STRICT1, DESIGN.md §11): the slots of `S` have
    /// `ports_total` ports, an odd number, so one tick holds at most
    /// `floor(ports_total/2)` of the `chunks_inside` chunks with both ends in
    /// `S`: `bound = ceil(chunks_inside / floor(ports_total/2))`.
    OddPortSet {
        slots: Vec<Slot>,
        chunks_inside: u64,
        ports_total: u64,
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
            Witness::PortDegree { .. } => "port_degree",
            Witness::OddPortSet { .. } => "odd_port_set",
        }
    }

    /// Re-derives the bound from the instance alone (no solver), checking
    /// every number the witness states. Returns the proven bound in ticks.
    pub fn recompute(&self, inst: &Instance) -> Result<u64, WitnessError> {
        // The one-port witnesses count one transfer per slot per tick: on a
        // slot with several ports they would prove too much.
        if !inst.is_single_port()
            && matches!(
                self,
                Witness::Degree { .. } | Witness::Capacity { .. } | Witness::OddSet { .. }
            )
        {
            return fail(format!(
                "a {} witness assumes one port per slot; this instance has several",
                self.kind()
            ));
        }
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
                let actual = slot_chunks(inst, *slot, *direction)?;
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
            } => recompute_capacity(inst, *slots, *chunks, *per_tick),
            Witness::OddSet {
                slots,
                chunks_inside,
                bound,
            } => recompute_odd_set(inst, slots, *chunks_inside, *bound),
            Witness::PortDegree {
                slot,
                chunks,
                ports,
                direction,
                bound,
            } => recompute_port_degree(inst, *slot, *chunks, *ports, *direction, *bound),
            Witness::OddPortSet {
                slots,
                chunks_inside,
                ports_total,
                bound,
            } => recompute_odd_port_set(inst, slots, *chunks_inside, *ports_total, *bound),
        }
    }
}

fn fail<T>(m: String) -> Result<T, WitnessError> {
    Err(WitnessError(m))
}

/// STRICT1's capacity bound: all chunks over floor(slots/2) per tick.
fn recompute_capacity(
    inst: &Instance,
    slots: u32,
    chunks: u64,
    per_tick: u64,
) -> Result<u64, WitnessError> {
    if inst.model != Model::Strict1 {
        return fail("capacity witness applies to STRICT1 only".into());
    }
    if slots != inst.slots || per_tick != (inst.slots / 2) as u64 || chunks != inst.total_chunks() {
        return fail("capacity witness numbers do not match the instance".into());
    }
    if per_tick == 0 {
        return fail("capacity witness with zero per-tick capacity".into());
    }
    Ok(chunks.div_ceil(per_tick))
}

/// The slots of a witness's set as a membership table: each in range and
/// listed once.
fn slot_set(inst: &Instance, slots: &[Slot]) -> Result<Vec<bool>, WitnessError> {
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
    Ok(inside)
}

/// STRICT1's odd-set bound: ceil(2 E(S) / (|S| - 1)) for an odd set S of
/// at least 3 slots.
fn recompute_odd_set(
    inst: &Instance,
    slots: &[Slot],
    chunks_inside: u64,
    bound: u64,
) -> Result<u64, WitnessError> {
    if inst.model != Model::Strict1 {
        return fail("odd-set witness applies to STRICT1 only".into());
    }
    let k = slots.len();
    if k < 3 || k % 2 == 0 {
        return fail(format!("odd set must have an odd size >= 3, has {k}"));
    }
    let inside = slot_set(inst, slots)?;
    let e = set_chunks_inside(inst, &inside, chunks_inside)?;
    // Its own formula, not the producers' [`odd_set_ticks`]: the re-check
    // shares no bound arithmetic with what it checks.
    let proven = ((2 * e as u128).div_ceil((k - 1) as u128)) as u64;
    if proven != bound {
        return fail(format!(
            "ceil(2*{e}/{}) = {proven}, witness says {bound}",
            k - 1
        ));
    }
    Ok(proven)
}

/// The multi-port degree bound: ceil(chunks at the slot / its ports).
fn recompute_port_degree(
    inst: &Instance,
    slot: Slot,
    chunks: u64,
    ports: u32,
    direction: Direction,
    bound: u64,
) -> Result<u64, WitnessError> {
    if slot >= inst.slots {
        return fail(format!("slot {slot} out of range"));
    }
    let p = inst.port(slot as usize);
    if p != ports {
        return fail(format!("slot {slot} has {p} ports, witness says {ports}"));
    }
    let actual = slot_chunks(inst, slot, direction)?;
    if actual != chunks {
        return fail(format!(
            "slot {slot} has {actual} chunks, witness says {chunks}"
        ));
    }
    let proven = actual.div_ceil(p as u64);
    if proven != bound {
        return fail(format!(
            "ceil({actual}/{p}) = {proven}, witness says {bound}"
        ));
    }
    Ok(proven)
}

/// The multi-port odd-set bound (STRICT1): ceil(E(S) / floor(ports(S)/2))
/// for a set S whose ports add up to an odd number of at least 3.
fn recompute_odd_port_set(
    inst: &Instance,
    slots: &[Slot],
    chunks_inside: u64,
    ports_total: u64,
    bound: u64,
) -> Result<u64, WitnessError> {
    if inst.model != Model::Strict1 {
        return fail("odd-port-set witness applies to STRICT1 only".into());
    }
    let inside = slot_set(inst, slots)?;
    let p = checked_sum(slots.iter().map(|&s| u64::from(inst.port(s as usize))))
        .ok_or_else(overflow)?;
    if p != ports_total {
        return fail(format!("set has {p} ports, witness says {ports_total}"));
    }
    if p % 2 == 0 || p < 3 {
        return fail(format!(
            "the ports of the set must be odd and >= 3, are {p}"
        ));
    }
    let e = set_chunks_inside(inst, &inside, chunks_inside)?;
    let per_tick = p / 2;
    let proven = e.div_ceil(per_tick);
    if proven != bound {
        return fail(format!(
            "ceil({e}/{per_tick}) = {proven}, witness says {bound}"
        ));
    }
    Ok(proven)
}

/// The chunks with both ends in the set `inside` (a membership table),
/// counted from the demands with checked arithmetic and compared with the
/// witness's `chunks_inside`: the one re-check behind the odd-set and
/// odd-port-set witnesses. A count past `u64` is a refusal, never a wrapped
/// or saturated number (DESIGN.md §10).
fn set_chunks_inside(
    inst: &Instance,
    inside: &[bool],
    chunks_inside: u64,
) -> Result<u64, WitnessError> {
    let chunks = inst
        .demands()
        .iter()
        .enumerate()
        .filter(|(_, d)| inside[d.src as usize] && inside[d.dst as usize])
        .map(|(i, _)| inst.chunks(i));
    check_chunks_inside(chunks, chunks_inside)
}

/// [`set_chunks_inside`]'s count and comparison, given the chunk counts of
/// the demands inside the set.
fn check_chunks_inside(
    chunks: impl IntoIterator<Item = u64>,
    chunks_inside: u64,
) -> Result<u64, WitnessError> {
    let Some(e) = checked_sum(chunks) else {
        return fail(format!(
            "the chunks inside the set overflow u64 (witness says {chunks_inside}): no exact count to check"
        ));
    };
    if e != chunks_inside {
        return fail(format!(
            "set has {e} chunks inside, witness says {chunks_inside}"
        ));
    }
    Ok(e)
}

/// The sum of `counts` (chunks inside a slot set, or its ports), `None`
/// when it passes `u64`. Every place that computes or re-checks an odd-set
/// or odd-port-set witness's `chunks_inside` adds with this, so an overflow
/// refuses the set instead of stating a wrapped or saturated count
/// (DESIGN.md §10).
pub fn checked_sum(counts: impl IntoIterator<Item = u64>) -> Option<u64> {
    counts.into_iter().try_fold(0u64, u64::checked_add)
}

/// The odd-set bound `ceil(2 E(S) / (|S| - 1))` of a set of `set_len >= 3`
/// slots with `inside = E(S)` chunks. Fits in `u64`: it is at most `E(S)`.
pub fn odd_set_ticks(set_len: usize, inside: u64) -> u64 {
    debug_assert!(set_len >= 3);
    ((2 * u128::from(inside)).div_ceil(set_len as u128 - 1)) as u64
}

impl LowerBound {
    /// The bound of the odd slot set `slots` (`|S| >= 3`, odd) with
    /// `inside` chunks, and its witness.
    pub fn odd_set(slots: Vec<Slot>, inside: u64) -> LowerBound {
        let bound = odd_set_ticks(slots.len(), inside);
        LowerBound {
            ticks: bound,
            witness: Witness::OddSet {
                slots,
                chunks_inside: inside,
                bound,
            },
        }
    }
}

/// The chunks at `slot` in `direction` (both ends for STRICT1, sends or
/// receives for READ1_WRITE1), counted from the demands with checked
/// arithmetic: the one count behind the degree and port-degree witnesses.
fn slot_chunks(inst: &Instance, slot: u32, direction: Direction) -> Result<u64, WitnessError> {
    let (mut out, mut inn) = (0u64, 0u64);
    for (i, d) in inst.demands().iter().enumerate() {
        if d.src == slot {
            out = out.checked_add(inst.chunks(i)).ok_or_else(overflow)?;
        }
        if d.dst == slot {
            inn = inn.checked_add(inst.chunks(i)).ok_or_else(overflow)?;
        }
    }
    match (inst.model, direction) {
        (Model::Strict1, Direction::Both) => out.checked_add(inn).ok_or_else(overflow),
        (Model::Read1Write1, Direction::Out) => Ok(out),
        (Model::Read1Write1, Direction::In) => Ok(inn),
        (m, d) => Err(WitnessError(format!(
            "direction {d:?} does not apply to {m}"
        ))),
    }
}

/// The refusal of a count that does not fit in `u64`.
fn overflow() -> WitnessError {
    WitnessError("a count overflows u64".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inside_count_past_u64_is_refused_not_wrapped() {
        // Two demands of u64::MAX and 1 chunks inside the set: the sum
        // wraps to 0 and saturates to u64::MAX; neither may be accepted.
        for claimed in [0, u64::MAX] {
            let e = check_chunks_inside([u64::MAX, 1], claimed).unwrap_err();
            assert!(
                e.to_string()
                    .contains("the chunks inside the set overflow u64"),
                "{e}"
            );
        }
        assert_eq!(
            check_chunks_inside([u64::MAX - 1, 1], u64::MAX),
            Ok(u64::MAX)
        );
        let e = check_chunks_inside([2, 3], 4).unwrap_err();
        assert_eq!(
            e.to_string(),
            "witness rejected: set has 5 chunks inside, witness says 4"
        );
    }

    #[test]
    fn checked_sum_and_the_odd_set_bound() {
        assert_eq!(checked_sum([]), Some(0));
        assert_eq!(checked_sum([u64::MAX, 0]), Some(u64::MAX));
        assert_eq!(checked_sum([u64::MAX, 1]), None);
        // ceil(2E/(|S|-1)): K5 with multiplicity 2 has E = 20 over 5 slots.
        assert_eq!(odd_set_ticks(5, 20), 10);
        assert_eq!(odd_set_ticks(3, 3), 3);
        assert_eq!(odd_set_ticks(3, u64::MAX), u64::MAX);
        let b = LowerBound::odd_set(vec![0, 1, 2], 5);
        assert_eq!(b.ticks, 5);
        assert_eq!(
            b.witness,
            Witness::OddSet {
                slots: vec![0, 1, 2],
                chunks_inside: 5,
                bound: 5
            }
        );
    }
}
