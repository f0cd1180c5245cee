//! Lower bounds on the number of ticks, each with a checkable witness.
//!
//! - degree: a slot's chunk degree (STRICT1: sends + receives; READ1_WRITE1:
//!   the larger of sends and receives). Complete for READ1_WRITE1 (König).
//! - capacity (STRICT1): `ceil(chunks / floor(slots / 2))`: at most
//!   `floor(slots/2)` transfers fit in one tick.
//! - odd set (STRICT1): `ceil(2 E(S) / (|S| - 1))` for an odd slot set `S`;
//!   computed exactly by [`gamma`].
//!
//! - multi-port slots (DESIGN.md §11): [`ports`] owns the port degree and
//!   odd-port-set bounds; every entry point below hands a multi-port
//!   instance to it.
//!
//! A [`Witness`] is plain data: [`Witness::recompute`] re-derives its bound
//! from the instance alone, which is what `tickopt verify` relies on.

pub mod gamma;
pub mod ports;
mod witness;

pub use witness::{checked_sum, odd_set_ticks, Direction, LowerBound, Witness, WitnessError};

use crate::graph::DemandGraph;
use crate::instance::{Instance, Model};
use serde::Serialize;
use std::time::Instant;

/// All bounds computed for an instance, and the best of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bounds {
    pub model: Model,
    pub degree: LowerBound,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<LowerBound>,
    /// The exact odd-set bound ceil(Gamma), when computed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub odd_set: Option<LowerBound>,
    /// The largest bound above, with its witness.
    pub best: LowerBound,
    /// Whether `best` is the best bound the fractional relaxation gives
    /// (max(Delta, ceil(Gamma)); always true for READ1_WRITE1).
    pub complete: bool,
}

/// Degree bound with the lowest max-degree slot as witness.
pub fn degree_bound(inst: &Instance, g: &DemandGraph) -> LowerBound {
    let (delta, slot) = g.max_degree();
    if delta == 0 {
        return LowerBound {
            ticks: 0,
            witness: Witness::Empty,
        };
    }
    let direction = match inst.model {
        Model::Strict1 => witness::Direction::Both,
        Model::Read1Write1 if g.out_degree[slot as usize] >= g.in_degree[slot as usize] => {
            witness::Direction::Out
        }
        Model::Read1Write1 => witness::Direction::In,
    };
    LowerBound {
        ticks: delta,
        witness: Witness::Degree {
            slot,
            chunks: delta,
            direction,
        },
    }
}

/// STRICT1 capacity bound `ceil(chunks / floor(slots/2))`.
pub fn capacity_bound(inst: &Instance) -> Option<LowerBound> {
    let per_tick = (inst.slots / 2) as u64;
    if inst.model != Model::Strict1 || per_tick == 0 || inst.total_chunks() == 0 {
        return None;
    }
    let ticks = inst.total_chunks().div_ceil(per_tick);
    Some(LowerBound {
        ticks,
        witness: Witness::Capacity {
            slots: inst.slots,
            chunks: inst.total_chunks(),
            per_tick,
        },
    })
}

/// The cheap bounds (degree, capacity); `complete` only for READ1_WRITE1.
pub fn simple_bounds(inst: &Instance, g: &DemandGraph) -> Bounds {
    if !inst.is_single_port() {
        let degree = ports::port_degree_bound(inst, g);
        return Bounds {
            model: inst.model,
            best: degree.clone(),
            degree,
            capacity: None,
            odd_set: None,
            complete: inst.model == Model::Read1Write1,
        };
    }
    let degree = degree_bound(inst, g);
    let capacity = capacity_bound(inst);
    let mut best = degree.clone();
    if let Some(c) = &capacity {
        if c.ticks > best.ticks {
            best = c.clone();
        }
    }
    Bounds {
        model: inst.model,
        degree,
        capacity,
        odd_set: None,
        best,
        complete: inst.model == Model::Read1Write1,
    }
}

/// The exact odd-set bound ceil(Gamma) with its witness, when it beats the
/// degree bound (`None` when Gamma <= Delta: then the degree bound is
/// already max(Delta, ceil Gamma)). STRICT1 only. With a `deadline`, a
/// search cut short returns the best odd set found (a valid bound) and
/// `false` for completeness.
pub fn odd_set_bound(
    inst: &Instance,
    g: &DemandGraph,
    deadline: Option<Instant>,
) -> (Option<LowerBound>, bool) {
    if inst.model != Model::Strict1 {
        return (None, true);
    }
    let edges = g.edge_triples();
    let delta = g.max_degree().0;
    let search = gamma::max_odd_density_until(inst.slots as usize, &edges, delta, deadline);
    let bound = search.best.map(odd_set_lower_bound);
    // Floating point never enters, but the witness is re-checked anyway.
    if let Some(lb) = &bound {
        debug_assert_eq!(lb.witness.recompute(inst).ok(), Some(lb.ticks));
    }
    (bound, search.complete)
}

/// The cheap bounds plus, for STRICT1, the greedy peeling's odd set
/// ([`gamma::quick_odd_density`]): valid, computed without flows, and
/// `complete: false` (the exact search may find a denser set).
pub fn quick_bounds(inst: &Instance, g: &DemandGraph) -> Bounds {
    let mut b = simple_bounds(inst, g);
    if inst.model != Model::Strict1 || !inst.is_single_port() {
        return b;
    }
    let edges = g.edge_triples();
    let delta = g.max_degree().0;
    b.odd_set =
        gamma::quick_odd_density(inst.slots as usize, &edges, delta).map(odd_set_lower_bound);
    if let Some(o) = &b.odd_set {
        if o.ticks > b.best.ticks {
            b.best = o.clone();
        }
    }
    b.complete = false;
    b
}

/// The lower bound and witness of an odd set found by [`gamma`].
fn odd_set_lower_bound(found: gamma::OddSetDensity) -> LowerBound {
    LowerBound::odd_set(found.slots, found.inside)
}

/// All bounds, with the exact odd-set bound for STRICT1: `best` is then
/// max(Delta, ceil Gamma) and `complete` is true.
pub fn exact_bounds(inst: &Instance, g: &DemandGraph) -> Bounds {
    exact_bounds_until(inst, g, None)
}

/// [`exact_bounds`] with a deadline for the odd-set search. If it runs
/// out, `best` is the best bound found (still valid, with its witness) and
/// `complete` is false, so no status that needs max(Delta, ceil Gamma) is
/// claimed.
pub fn exact_bounds_until(inst: &Instance, g: &DemandGraph, deadline: Option<Instant>) -> Bounds {
    if !inst.is_single_port() {
        return ports::port_bounds(inst, g, deadline);
    }
    let mut b = simple_bounds(inst, g);
    if inst.model == Model::Strict1 {
        let (odd, complete) = odd_set_bound(inst, g, deadline);
        b.odd_set = odd;
        // The capacity bound never beats max(Delta, ceil Gamma); the odd set may.
        b.best = match &b.odd_set {
            Some(o) if o.ticks > b.degree.ticks => o.clone(),
            _ => b.degree.clone(),
        };
        if let Some(c) = &b.capacity {
            if c.ticks > b.best.ticks {
                debug_assert!(!complete, "capacity bound above max(Delta, ceil Gamma)");
                b.best = c.clone();
            }
        }
        b.complete = complete;
    }
    b
}
