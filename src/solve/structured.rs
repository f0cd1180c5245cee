//! STRICT1 by structure: when every connected component of the support is a
//! path, a cycle or a uniform complete graph, [`crate::colour::colour_by_structure`]
//! colours it exactly in time linear in the output, together with the
//! witness (max-degree slot or odd set) that proves the tick count optimal.
//! The solve then needs neither the greedy nor the odd-set search.

use super::orient::edge_rounds_to_schedule;
use super::{Solution, Status};
use crate::bounds::{capacity_bound, degree_bound, Bounds, LowerBound, Witness};
use crate::colour::colour_by_structure;
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model};
use std::time::Instant;

/// Solves `inst` by structure when it applies (STRICT1 only); the returned
/// solution is `optimal`. `None` when some component has another shape.
pub fn solve_by_structure(inst: &Instance, g: &DemandGraph) -> Option<Solution> {
    if inst.model != Model::Strict1 {
        return None;
    }
    let t0 = Instant::now();
    let edges: Vec<(u32, u32, u64)> = g.undirected.iter().map(|e| (e.a, e.b, e.mult)).collect();
    let s = colour_by_structure(inst.slots as usize, &edges)?;
    let degree = degree_bound(inst, g);
    let odd_set = s.odd_set.map(|(slots, inside)| {
        let bound = ((2 * inside as u128).div_ceil(slots.len() as u128 - 1)) as u64;
        LowerBound {
            ticks: bound,
            witness: Witness::OddSet {
                slots,
                chunks_inside: inside,
                bound,
            },
        }
    });
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
    let schedule = edge_rounds_to_schedule(&g.undirected, &s.rounds);
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

#[cfg(test)]
mod tests {
    use crate::instance::{Demand, Instance, Limits, Model};
    use crate::solve::Status;
    use crate::{solve_instance, SolveRequest};

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
