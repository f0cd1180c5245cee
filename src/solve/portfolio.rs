//! The one-call entry point of solving: bounds, the solver (or STRICT1
//! portfolio) chosen for the model, and validation of the result before a
//! [`Solution`] leaves this module. Re-exported at the crate root.

use super::first_fit;
use super::heuristic::greedy::{greedy_schedule_on, Greedy};
use super::one_port::{koenig::Koenig, strict1_exact::Strict1Exact};
use super::{note_cut_short, Solution, SolveOptions, Solver, Status};
use crate::bounds::gamma::reduced_search_size;
use crate::bounds::{exact_bounds, exact_bounds_until, simple_bounds, Bounds};
use crate::colour::backbone_may_fit;
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model};
use crate::schedule::Schedule;
use crate::validate::validate_compact;
use std::time::{Duration, Instant};

/// Which solver to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SolverChoice {
    /// The exact solver where the model has one; else the best available.
    #[default]
    Auto,
    /// The greedy heuristic.
    Greedy,
    /// The exact method of the model (König for READ1_WRITE1).
    Exact,
    /// The pairwise-exchange baseline (round i: r sends to (r + i) mod n).
    Pairwise,
}

impl std::str::FromStr for SolverChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(SolverChoice::Auto),
            "greedy" => Ok(SolverChoice::Greedy),
            "exact" => Ok(SolverChoice::Exact),
            "pairwise" => Ok(SolverChoice::Pairwise),
            _ => Err(format!(
                "unknown solver {s:?} (expected auto, greedy, exact or pairwise)"
            )),
        }
    }
}

/// What to solve for, independent of any command line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveRequest {
    pub solver: SolverChoice,
    pub time_limit: Option<Duration>,
    /// Keep the rounds of equal components once per class
    /// ([`crate::rounds::Schedule::classes`]; DESIGN.md §13) instead of
    /// laying them over every member: what the compact writer stores as
    /// its version 2 and the validator checks in time linear in it.
    /// Off by default: consumers that need every transfer (lowering,
    /// executors, replanning) get ordinary rounds, as before (or call
    /// [`crate::rounds::Schedule::flat`]).
    pub keep_classes: bool,
}

/// Error of [`solve_instance`]: only an internal fault can cause one.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("internal error: solver {solver} produced an invalid schedule ({report}); please report this with the input")]
    InvalidSchedule { solver: String, report: String },
}

/// Time the odd-set search may take in a solve without `--time-limit`.
const DEFAULT_BOUND_TIME: Duration = Duration::from_secs(10);

/// Computes the bounds of `inst` for `request` (exact where the solve will
/// need them).
pub fn bounds_for(inst: &Instance, g: &DemandGraph) -> Bounds {
    exact_bounds(inst, g)
}

/// Size of the odd-set search (vertices of its largest block after chain
/// contraction, [`crate::bounds::gamma::reduced_search_size`]) from which
/// `tickopt bounds` tries the backbone colouring before the search
/// ([`bounds_settled_until`]).
const COLOUR_FIRST_SIZE: usize = 4096;

/// The bounds `tickopt bounds` prints, and what settled their completeness
/// when a colouring did. The odd-set search runs on blocks with their
/// chains contracted (a ring of 20,001 slots with 100 chords is about 200
/// vertices: 78 s before, milliseconds now). Where even that is large
/// (4096 vertices or more, `COLOUR_FIRST_SIZE`) on a STRICT1 instance
/// where the backbone colouring may apply
/// ([`crate::colour::backbone_may_apply`]: a few heavy pairs with
/// structure, e.g. a long ring with many chords), a backbone colouring
/// that meets the cheap bound L, validated, settles the bounds: a schedule
/// of L ticks and a valid bound L prove `max(Delta, ceil Gamma) = L`, the
/// argument the solve uses. Otherwise the exact search runs until
/// `deadline`. The choice depends on the input only, so the output does
/// too.
pub fn bounds_settled_until(
    inst: &Instance,
    g: &DemandGraph,
    deadline: Option<Instant>,
) -> (Bounds, Option<String>) {
    // solve_by_backbone tests backbone_may_apply (STRICT1, one port) first.
    // Cheapest first: the backbone's size limits (one pass), the search's
    // size (blocks and chains: 15 ms at 60,000 pairs), and only then the
    // structure colouring of the heavy pairs in backbone_may_apply (0.3 s
    // on the 20,001-slot ring).
    let large = || {
        if inst.slots < COLOUR_FIRST_SIZE as u32
            || inst.model != Model::Strict1
            || !inst.is_single_port()
        {
            return false;
        }
        let edges = g.edge_triples();
        backbone_may_fit(inst.slots as usize, &edges, g.max_degree().0)
            && reduced_search_size(inst.slots as usize, &edges) >= COLOUR_FIRST_SIZE
    };
    let coloured = large()
        .then(|| super::one_port::structured::solve_by_backbone(inst, g))
        .flatten()
        .filter(|sol| validate_compact(inst, &sol.schedule).passed());
    match coloured {
        Some(sol) => {
            let how = format!("a {}-tick schedule ({})", sol.ticks, sol.stats.solver);
            (sol.bounds, Some(how))
        }
        None => (exact_bounds_until(inst, g, deadline), None),
    }
}

/// The pairwise-exchange baseline on `inst` (`SolverChoice::Pairwise`, its
/// schedule validated) against `ticks`, tickopt's: the baseline's ticks and
/// baseline / `ticks`, how many times fewer ticks tickopt needs. `None` for
/// an instance with nothing to move (`ticks == 0`) or when the baseline's
/// engine fails (an internal error, never a report). Audit and bench both
/// report it.
pub fn pairwise_over(inst: &Instance, ticks: u64) -> Option<(u64, f64)> {
    if ticks == 0 {
        return None;
    }
    let request = SolveRequest {
        solver: SolverChoice::Pairwise,
        ..Default::default()
    };
    let base = solve_instance(inst, &request).ok()?;
    Some((base.ticks, base.ticks as f64 / ticks as f64))
}

/// Solves `inst`: bounds, solver, and a validation of the result. The
/// returned schedule has passed [`validate_compact`].
pub fn solve_instance(inst: &Instance, request: &SolveRequest) -> Result<Solution, EngineError> {
    let t0 = Instant::now();
    let g = DemandGraph::new(inst);
    if request.solver == SolverChoice::Pairwise {
        return finish(inst, pairwise_solution(inst, &g), t0, 0.0);
    }
    if request.solver != SolverChoice::Greedy && !inst.is_multiport() {
        if let Some(sol) = by_structure_or_first_fit(inst, &g) {
            return finish(inst, sol, t0, 0.0);
        }
    }
    // Structure at scale (issue 39, module at_scale): a union of equal
    // components solved once per class, a heavy one-sided (bipartite)
    // STRICT1 support exactly by König; before the binary split, a
    // heuristic.
    if request.solver == SolverChoice::Auto {
        if let Some(sol) = at_scale(inst, &g, request, t0) {
            return finish(inst, sol, t0, 0.0);
        }
    }
    // Heavy arbitrary traffic (issue 29): beyond 2^27 chunks the greedy's
    // rounds no longer fit a time limit; the binary split's cost follows
    // the pairs. Its schedule, with the degree bound (complete only when
    // the schedule meets it: then it is optimal).
    if request.solver == SolverChoice::Auto && super::structure::bit_split::applies(inst) {
        let deadline = request.time_limit.map(|limit| t0 + limit);
        return finish(inst, bit_split_solution(inst, &g, deadline), t0, 0.0);
    }
    // Planning inside the step (issue 37, DESIGN §13): skewed dense
    // traffic. READ1_WRITE1 through merged slots (exact: Delta ticks);
    // STRICT1 on a dense matrix by the tightest-first greedy, kept when
    // it meets Delta (then optimal by the degree witness), else the
    // general path below runs.
    if request.solver != SolverChoice::Greedy {
        if let Some(sol) = fast_dense(inst, &g) {
            return finish(inst, sol, t0, 0.0);
        }
    }
    // Cheap proof first (DESIGN §9; issue 15, MoE at 1024 slots): for
    // one-port STRICT1 the load greedy runs before the odd-set search. A
    // schedule of Delta ticks is optimal by the degree witness, and then
    // max(Delta, ceil Gamma) = Delta (ceil Gamma <= chi' <= Delta), so the
    // bound is complete without the search.
    let early_greedy = (inst.model == Model::Strict1
        && !inst.is_multiport()
        && (request.solver == SolverChoice::Greedy
            || (request.solver == SolverChoice::Auto && !compact_greedy_first(inst))))
    .then(|| {
        let t = Instant::now();
        let deadline = request.time_limit.map(|limit| t0 + limit);
        (greedy_schedule_on(inst, Some(&g), deadline), t)
    });
    let early_greedy = match early_greedy {
        Some(((schedule, false), t)) if schedule.ticks() == g.max_degree().0 => {
            let seconds = t.elapsed().as_secs_f64();
            let sol = Solution::at_degree_bound(inst, &g, schedule, Greedy.name(), seconds);
            return finish(inst, sol, t0, 0.0);
        }
        other => other,
    };
    // The greedy has no limit of its own: it gets the solve's deadline
    // (issue 15 item 3), and the exact engine is skipped once it has passed.
    let opts = SolveOptions {
        time_limit: request.time_limit,
        deadline: request.time_limit.map(|limit| t0 + limit),
    };
    // Cheap proof first for multi-port slots too: the port-degree bound,
    // and the schedule without the exact engines (Hakimi-Kariv and König
    // are exact; odd ports: the split and the greedy). A schedule at the
    // port degree is optimal and the bound complete, so the odd-port-set
    // search (a Gomory-Hu tree: seconds on dense supports) is not needed.
    let cheap_multiport = if inst.is_multiport() {
        let mut cheap = simple_bounds(inst, &g);
        let sol =
            super::multiport::solver::solve_multiport(inst, &g, &cheap, &opts, true, &one_port);
        if sol.ticks == cheap.best.ticks {
            cheap.complete = true;
            return finish(inst, sol.under_bounds(&cheap), t0, 0.0);
        }
        Some(sol)
    } else {
        None
    };
    // The odd-set search gets the time limit (default 10 s) too; cut short,
    // it leaves a valid but incomplete bound and the status says so.
    let deadline = t0 + request.time_limit.unwrap_or(DEFAULT_BOUND_TIME);
    let tb = Instant::now();
    let bounds = exact_bounds_until(inst, &g, Some(deadline));
    let bounds_seconds = tb.elapsed().as_secs_f64();
    let sol = match (inst.model, request.solver) {
        // Beyond copyspace-guard v0 (ports > 1 or per-demand bandwidth).
        // The greedy-only solve is the cheap pass above: only its status
        // changes under the exact bounds.
        _ if request.solver == SolverChoice::Greedy && cheap_multiport.is_some() => cheap_multiport
            .expect("checked in the guard")
            .under_bounds(&bounds),
        _ if inst.is_multiport() => {
            super::multiport::solver::solve_multiport(inst, &g, &bounds, &opts, false, &one_port)
        }
        (Model::Read1Write1, SolverChoice::Auto | SolverChoice::Exact) => {
            Koenig.solve(inst, &bounds, &opts)
        }
        (_, SolverChoice::Greedy) => match early_greedy {
            Some((load, t)) => Greedy.solve_from(inst, &bounds, &opts, load, t),
            None => Greedy.solve(inst, &bounds, &opts),
        },
        (Model::Strict1, SolverChoice::Exact) => Strict1Exact.solve(inst, &bounds, &opts),
        (Model::Strict1, SolverChoice::Auto) => strict1_auto(inst, &bounds, &opts, early_greedy),
        (_, SolverChoice::Pairwise) => unreachable!("the pairwise baseline returns above"),
    };
    let mut sol = sol;
    if !bounds.complete {
        // Only the odd-set search's deadline leaves the bounds incomplete.
        note_cut_short(&mut sol.stats, "bounds");
    }
    finish(inst, sol, t0, bounds_seconds)
}

/// [`super::structure::at_scale::solve_at_scale`] with each part solved by this very
/// function, within the time left of the solve that started at `t0`: the
/// parts share its deadline instead of each starting a fresh limit.
fn at_scale(
    inst: &Instance,
    g: &DemandGraph,
    request: &SolveRequest,
    t0: Instant,
) -> Option<Solution> {
    let part = |p: &Instance, time_limit| {
        let solver = request.solver;
        let part_request = SolveRequest {
            solver,
            time_limit,
            keep_classes: false,
        };
        solve_instance(p, &part_request).ok()
    };
    let deadline = request.time_limit.map(|limit| t0 + limit);
    super::structure::at_scale::solve_at_scale(inst, g, deadline, request.keep_classes, &part)
}

/// The one-port engine of the multi-port solver's odd-port split
/// ([`super::multiport::solver::OnePort`]): this solve, greedy only or `auto`.
fn one_port(inst: &Instance, greedy_only: bool, time_limit: Option<Duration>) -> Solution {
    let solver = if greedy_only {
        SolverChoice::Greedy
    } else {
        SolverChoice::Auto
    };
    let request = SolveRequest {
        solver,
        time_limit,
        keep_classes: false,
    };
    solve_instance(inst, &request).expect("the one-port engine validates its own schedules")
}

/// The pairwise-exchange baseline, under the cheap bounds (complete for
/// READ1_WRITE1); each STRICT1 round in its fewest ticks by this engine.
fn pairwise_solution(inst: &Instance, g: &DemandGraph) -> Solution {
    let t = Instant::now();
    let exact = |part: &Instance| match solve_instance(part, &SolveRequest::default()) {
        Ok(sol) => sol.schedule,
        // Unreachable (the engine's schedules are valid); the round's
        // greedy then, validated with the rest.
        Err(_) => super::heuristic::greedy::greedy_schedule_on(part, None, None).0,
    };
    let schedule = super::heuristic::pairwise::pairwise_schedule(inst, &exact);
    let bounds = simple_bounds(inst, g);
    Solution::from_schedule(schedule, &bounds, "pairwise", t.elapsed().as_secs_f64())
}

/// The binary split's schedule (heavy traffic), with the degree bound
/// (complete only when the schedule meets it: then it is optimal).
fn bit_split_solution(inst: &Instance, g: &DemandGraph, deadline: Option<Instant>) -> Solution {
    let t = Instant::now();
    let (schedule, cut, layers) = super::structure::bit_split::bit_split_schedule(inst, deadline);
    let mut bounds = simple_bounds(inst, g);
    if schedule.ticks() == bounds.best.ticks {
        bounds.complete = true;
    }
    let seconds = t.elapsed().as_secs_f64();
    let mut sol = Solution::from_schedule(schedule, &bounds, "bit_split", seconds);
    if cut {
        note_cut_short(&mut sol.stats, "greedy");
    }
    // The odd-set search is not run here (a Gomory-Hu tree over
    // millions of pairs costs more than the colouring); say so.
    sol.stats.details.insert(
        "bit_split".to_string(),
        serde_json::json!({
            "layers": layers,
            "bound": "degree and capacity only: the odd-set search is skipped on heavy traffic",
        }),
    );
    sol
}

/// The one-port exact paths that need no bounds search: the structure
/// colouring (issue 15: components that are paths, cycles or uniform
/// complete graphs, exact with their witness), first fit in Delta ticks
/// (issue 37, DESIGN §13: dense traffic, optimal by the degree witness)
/// and the backbone. Skewed (not regular) dense traffic tries first fit
/// before the structure, whose STRICT1 edges cost more than first fit at
/// 64 ranks and which takes uniform complete components only (regular).
fn by_structure_or_first_fit(inst: &Instance, g: &DemandGraph) -> Option<Solution> {
    let skewed = first_fit::applies(inst) && !g.is_regular();
    if skewed {
        if let Some(sol) = first_fit_solution(inst, g) {
            return Some(sol);
        }
    }
    if let Some(sol) = super::one_port::structured::solve_by_structure(inst, g) {
        return Some(sol);
    }
    if !skewed {
        if let Some(sol) = first_fit_solution(inst, g) {
            return Some(sol);
        }
    }
    super::one_port::structured::solve_by_backbone(inst, g)
}

/// First fit (module `first_fit`) where it applies and meets Delta, with
/// the degree bound, complete (Delta is then the optimum).
fn first_fit_solution(inst: &Instance, g: &DemandGraph) -> Option<Solution> {
    if !first_fit::applies(inst) {
        return None;
    }
    let t = Instant::now();
    let schedule = first_fit::first_fit_schedule(inst, g)?;
    let seconds = t.elapsed().as_secs_f64();
    Some(Solution::at_degree_bound(
        inst,
        g,
        schedule,
        "first_fit",
        seconds,
    ))
}

/// The dense fast paths where first fit did not fit (module `merged` for
/// READ1_WRITE1, module `dense_greedy` for STRICT1) when they apply and
/// give Delta ticks, with the degree bound, complete (Delta is then the
/// optimum).
fn fast_dense(inst: &Instance, g: &DemandGraph) -> Option<Solution> {
    let t = Instant::now();
    let delta = g.max_degree().0;
    let (schedule, name) = match inst.model {
        Model::Read1Write1 => (
            super::structure::merged::merged_delta_schedule(inst, g)?,
            "koenig_merged",
        ),
        Model::Strict1 if super::heuristic::dense_greedy::applies(inst) => (
            super::heuristic::dense_greedy::dense_strict1_schedule(inst, delta),
            "dense_greedy",
        ),
        Model::Strict1 => return None,
    };
    if schedule.ticks() != delta {
        return None;
    }
    let seconds = t.elapsed().as_secs_f64();
    Some(Solution::at_degree_bound(inst, g, schedule, name, seconds))
}

/// Validates `sol` and stamps its times.
fn finish(
    inst: &Instance,
    sol: Solution,
    t0: Instant,
    bounds_seconds: f64,
) -> Result<Solution, EngineError> {
    finish_validated(inst, sol, t0, bounds_seconds, |s| validate_compact(inst, s))
}

/// [`finish`] with the validator given: `validate` must judge exactly as
/// [`validate_compact`] does (e.g. [`crate::validate::validate_edited`]).
pub(in crate::solve) fn finish_validated(
    inst: &Instance,
    mut sol: Solution,
    t0: Instant,
    bounds_seconds: f64,
    validate: impl FnOnce(&Schedule) -> crate::validate::Report,
) -> Result<Solution, EngineError> {
    let tv = Instant::now();
    let report = validate(&sol.schedule);
    let validate_seconds = tv.elapsed().as_secs_f64();
    if !report.passed() {
        return Err(EngineError::InvalidSchedule {
            solver: sol.stats.solver,
            report: report.one_line(),
        });
    }
    // Any solver's schedule one tick above the bound may still be proven
    // optimal: a proof the checker accepts upgrades it (idempotent).
    sol.attach_proof(inst);
    sol.stats.seconds = t0.elapsed().as_secs_f64();
    sol.stats.bounds_seconds = bounds_seconds;
    sol.stats.validate_seconds = validate_seconds;
    Ok(sol)
}

/// Chunks per demand above which STRICT1 `auto` tries the compact greedy
/// before the load greedy (the load greedy's repeat floor is `load / 128`).
const HIGH_MULTIPLICITY: u64 = 128;
/// Largest demand count for which that compact greedy goes first.
const COMPACT_FIRST_MAX_PAIRS: usize = 65_536;

/// At high multiplicity the load greedy's rounds grow with the loads
/// (about 128 ln(load) per pair) and each costs O(E + n log n); the
/// compact greedy's rounds follow the support. STRICT1 `auto` tries that
/// first there, on supports small enough for its O(pairs) rounds of
/// O(pairs log pairs), and does not run the load greedy early.
fn compact_greedy_first(inst: &Instance) -> bool {
    let max_chunks = inst.chunk_counts().iter().copied().max().unwrap_or(0);
    max_chunks > HIGH_MULTIPLICITY && inst.demands().len() <= COMPACT_FIRST_MAX_PAIRS
}

/// STRICT1 `auto`: the greedy first (milliseconds); when it already meets
/// the bound it is proven optimal and nothing else runs. Otherwise the
/// exact engine runs and the better schedule wins (fewer ticks; on a tie the
/// stronger status; then the exact engine's). Deterministic unless the
/// deadline passes: then the exact engine is skipped (noted as cut short),
/// or runs with the time left as its limit.
///
/// `early`: the load greedy's result when the caller already ran it (never
/// where [`compact_greedy_first`] holds).
fn strict1_auto(
    inst: &Instance,
    bounds: &Bounds,
    opts: &SolveOptions,
    early: Option<((Schedule, bool), Instant)>,
) -> Solution {
    if early.is_none() && compact_greedy_first(inst) {
        let quick = super::one_port::strict1_exact::compact_greedy(inst, bounds);
        if quick.status == Status::Optimal {
            return quick;
        }
    }
    let mut greedy = match early {
        Some((load, t)) => Greedy.solve_from(inst, bounds, opts, load, t),
        None => Greedy.solve(inst, bounds, opts),
    };
    if greedy.status == Status::Optimal {
        return greedy;
    }
    let mut opts = opts.clone();
    if let Some(deadline) = opts.deadline {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            note_cut_short(&mut greedy.stats, "exact");
            return greedy;
        }
        opts.time_limit = Some(opts.time_limit.map_or(left, |l| l.min(left)));
    }
    let exact = Strict1Exact.solve(inst, bounds, &opts);
    if (greedy.ticks, greedy.status) < (exact.ticks, exact.status) {
        greedy
    } else {
        exact
    }
}

#[cfg(test)]
mod tests {
    use super::bounds_settled_until;
    use crate::bounds::exact_bounds;
    use crate::graph::DemandGraph;
    use crate::instance::{Demand, Instance, Limits, Model};

    /// A ring of `n` slots, `m` chunks per pair, with `chords` one-chunk
    /// chords from slot `7c` to `7c + n/2`.
    fn ring_with_chords(n: u32, m: u64, chords: u32) -> Instance {
        let ring = (0..n).map(|v| Demand {
            src: v,
            dst: (v + 1) % n,
            bits: m,
        });
        let across = (0..chords).map(|c| Demand {
            src: c * 7,
            dst: c * 7 + n / 2,
            bits: 1,
        });
        Instance::new(
            Model::Strict1,
            n,
            1,
            ring.chain(across).collect::<Vec<_>>(),
            &Limits::default(),
        )
        .expect("valid")
    }

    /// The odd-set search on blocks with chains contracted settles a long
    /// ring with a few chords by itself (the case of issue 39: 20,001 slots,
    /// 100 chords); where its contracted graph is still large (here 2,100
    /// chords: about 8,400 vertices), the backbone colouring settles the
    /// bounds first, at the value the exact search computes.
    #[test]
    fn a_colouring_settles_the_bounds_of_a_large_ring_with_chords() {
        let ring = ring_with_chords(20_001, 1000, 100);
        let g = DemandGraph::new(&ring);
        let (b, how) = bounds_settled_until(&ring, &g, None);
        assert_eq!(how, None);
        assert!(b.complete);
        assert_eq!(b.best.ticks, 2001);
        assert_eq!(b, exact_bounds(&ring, &g));

        let inst = ring_with_chords(30_001, 10, 2100);
        let g = DemandGraph::new(&inst);
        let (settled, how) = bounds_settled_until(&inst, &g, None);
        assert!(how
            .expect("settled by a colouring")
            .contains("21-tick schedule"));
        assert!(settled.complete);
        let searched = exact_bounds(&inst, &g);
        assert!(searched.complete);
        assert_eq!(settled.best.ticks, searched.best.ticks);

        let small = ring_with_chords(1001, 1000, 10);
        let g = DemandGraph::new(&small);
        let (b, how) = bounds_settled_until(&small, &g, None);
        assert_eq!(how, None);
        assert_eq!(b, exact_bounds(&small, &g));
    }
}
