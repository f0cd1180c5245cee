//! STRICT1 by structure: when every connected component of the support is a
//! path, a cycle or a uniform complete graph, [`crate::colour::colour_by_structure`]
//! colours it exactly in time linear in the output, together with the
//! witness (max-degree slot or odd set) that proves the tick count optimal.
//! The solve then needs neither the greedy nor the odd-set search.
//!
//! [`solve_by_backbone`] is the same idea for graphs that are *mostly*
//! structured (heavy links forming paths, cycles or uniform cliques, plus a
//! few light pairs): the backbone colouring ([`crate::colour::colour_backbone`])
//! against the cheap bounds (degree, greedy-peeling odd set). When it meets
//! them the schedule is optimal and the exact odd-set search, whose flows
//! are slow on long heavy cycles, is not needed.

use super::orient::edge_rounds_to_schedule;
use crate::bounds::{capacity_bound, degree_bound, quick_bounds, Bounds, LowerBound};
use crate::colour::{backbone_may_apply, colour_backbone, colour_by_structure, ColourInput};
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model};
use crate::solve::{Solution, Status};
use std::time::Instant;

/// Solves `inst` by structure when it applies (STRICT1 only); the returned
/// solution is `optimal`. `None` when some component has another shape.
pub fn solve_by_structure(inst: &Instance, g: &DemandGraph) -> Option<Solution> {
    if inst.model != Model::Strict1 {
        return None;
    }
    let t0 = Instant::now();
    let edges = g.edge_triples();
    let s = colour_by_structure(inst.slots as usize, &edges)?;
    let degree = degree_bound(inst, g);
    let odd_set = s
        .odd_set
        .map(|(slots, inside)| LowerBound::odd_set(slots, inside));
    let best = match &odd_set {
        Some(o) if o.ticks > degree.ticks => o.clone(),
        _ => degree.clone(),
    };
    if best.ticks != s.ticks {
        return None;
    }
    // A schedule of L ticks with a valid bound L proves chi' = L, and
    // L <= max(Delta, ceil Gamma) <= chi': the bound is complete.
    let bounds = Bounds {
        model: inst.model,
        degree,
        capacity: capacity_bound(inst),
        odd_set,
        best,
        complete: true,
    };
    let schedule = edge_rounds_to_schedule(g.undirected(), &s.rounds);
    let mut sol =
        Solution::from_schedule(schedule, &bounds, "structure", t0.elapsed().as_secs_f64());
    if sol.status != Status::Optimal {
        return None;
    }
    sol.stats
        .details
        .insert("method".into(), "structure".into());
    Some(sol)
}

/// Solves `inst` by its backbone (module docs) when that meets the cheap
/// bounds (STRICT1 only); the returned solution is `optimal`, its bounds
/// complete (a schedule of `L` ticks and a valid bound `L` prove
/// `max(Delta, ceil Gamma) = L`). `None` otherwise.
pub fn solve_by_backbone(inst: &Instance, g: &DemandGraph) -> Option<Solution> {
    if inst.model != Model::Strict1 || !inst.is_single_port() {
        return None;
    }
    let t0 = Instant::now();
    let edges = g.edge_triples();
    if !backbone_may_apply(inst.slots as usize, &edges, g.max_degree().0) {
        return None;
    }
    let mut bounds = quick_bounds(inst, g);
    let colouring = colour_backbone(&ColourInput {
        n: inst.slots as usize,
        edges: &edges,
        lower_bound: bounds.best.ticks,
        delta: bounds.degree.ticks,
        time_limit: None,
    })?;
    if colouring.ticks != bounds.best.ticks {
        return None;
    }
    bounds.complete = true;
    let schedule = edge_rounds_to_schedule(g.undirected(), &colouring.rounds);
    let mut sol = Solution::from_schedule(
        schedule,
        &bounds,
        "strict1_exact:backbone_kempe",
        t0.elapsed().as_secs_f64(),
    );
    if sol.status != Status::Optimal {
        return None;
    }
    if let Ok(serde_json::Value::Object(m)) = serde_json::to_value(&colouring.stats) {
        sol.stats.details = m;
    }
    Some(sol)
}

#[cfg(test)]
mod tests {
    use crate::instance::{Demand, Instance, Limits, Model};
    use crate::solve::portfolio::{solve_instance, SolveRequest};
    use crate::solve::Status;

    fn instance(n: u32, demands: impl IntoIterator<Item = (u32, u32, u64)>) -> Instance {
        let raw = demands
            .into_iter()
            .map(|(src, dst, bits)| Demand { src, dst, bits });
        Instance::new(Model::Strict1, n, 1, raw, &Limits::default()).expect("valid")
    }

    /// Uniform all-to-all, `m` chunks per ordered pair: proven optimal at
    /// `2m(n-1)` (even n) or `2mn` (odd n) through the solve entry point.
    #[test]
    fn uniform_alltoall_sweep_is_optimal_at_the_closed_form() {
        let sizes = (2..=40).chain([63, 64, 127, 128, 255, 256, 511, 512, 999, 1000]);
        for n in sizes {
            let m = if n % 3 == 0 { 7 } else { 1 };
            let inst = instance(
                n,
                (0..n).flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b, m))),
            );
            let sol = solve_instance(&inst, &SolveRequest::default()).expect("valid schedule");
            let n = n as u64;
            let want = if n % 2 == 0 {
                2 * m * (n - 1)
            } else {
                2 * m * n
            };
            assert_eq!(sol.ticks, want, "n={n}");
            assert_eq!(sol.status, Status::Optimal, "n={n}");
            assert!(sol.bounds.complete);
            let checked = sol.lower_bound.witness.recompute(&inst).expect("witness");
            assert_eq!(checked, want);
        }
    }

    /// Odd rings (one direction, and both directions) at multiplicities up
    /// to 1e6: `ceil(2nm / (n-1))` ticks, proven by the whole ring.
    #[test]
    fn odd_rings_are_optimal_at_ceil_gamma() {
        for (n, m) in [
            (3u32, 1u64),
            (1001, 3),
            (2001, 1000),
            (10_001, 1_000_000),
            (9, 5),
        ] {
            for both in [false, true] {
                let ring = (0..n).map(|i| (i, (i + 1) % n, m));
                let back = (0..n).filter(|_| both).map(|i| ((i + 1) % n, i, m));
                let inst = instance(n, ring.chain(back));
                let sol = solve_instance(&inst, &SolveRequest::default()).expect("valid schedule");
                let e = if both { 2 * m } else { m };
                let want = (2 * n as u64 * e).div_ceil(n as u64 - 1);
                assert_eq!(sol.ticks, want, "n={n} m={m} both={both}");
                assert_eq!(sol.status, Status::Optimal);
                assert_eq!(sol.lower_bound.witness.recompute(&inst).ok(), Some(want));
                assert!(sol.schedule.len() <= 4 * n as usize + 1);
            }
        }
    }
}

#[cfg(test)]
mod backbone_tests {
    use crate::instance::{Demand, Instance, Limits, Model};
    use crate::solve::portfolio::{solve_instance, SolveRequest};
    use crate::solve::Status;

    /// A ring of `n` slots with `m` chunks per link and `c` vertex-disjoint
    /// one-chunk chords (slot `i` to `i + n/2`, `i < c`): the heavy ring is
    /// the backbone, and the solve must end at `max(Delta, ceil Gamma)`
    /// with the odd set of all slots when `n` is odd (the exact search
    /// alone is slow on such rings; the greedy misses the bound).
    #[test]
    fn rings_with_light_chords_reach_their_bound() {
        for (n, m, c) in [
            (201u32, 100u64, 10u32),
            (200, 50, 7),
            (1001, 1000, 40),
            (99, 9, 20),
        ] {
            let ring = (0..n).map(|i| (i, (i + 1) % n, m));
            let chords = (0..c).map(|i| (i, i + n / 2, 1));
            let raw = ring
                .chain(chords)
                .map(|(src, dst, bits)| Demand { src, dst, bits });
            let inst = Instance::new(Model::Strict1, n, 1, raw, &Limits::default()).unwrap();
            let sol = solve_instance(&inst, &SolveRequest::default()).expect("valid");
            let delta = 2 * m + u64::from(c > 0);
            let total = n as u64 * m + c as u64;
            let want = if n % 2 == 1 {
                delta.max((2 * total).div_ceil(n as u64 - 1))
            } else {
                delta
            };
            assert_eq!(
                sol.status,
                Status::Optimal,
                "n {n} m {m} c {c}: {}",
                sol.ticks
            );
            assert_eq!(sol.ticks, want, "n {n} m {m} c {c}");
        }
    }
}
