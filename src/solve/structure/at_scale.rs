//! Structure at scale (DESIGN.md §13; issue 39): the solve's paths that use
//! the shape of the whole support before a heuristic sees the instance.
//!
//! - **Equal components** ([`super::classes`]). A union of components with
//!   repeats (data-parallel replicas, identical nodes) is solved one
//!   component per class, by the caller's own solver and in parallel, and
//!   each class's rounds are kept once with its members' demand maps
//!   ([`ClassRounds`], compact format v2), or, unless the caller asks to
//!   keep them, laid over all of its members and merged tick by tick
//!   ([`Schedule::flat`]). Components
//!   share no slot, so the union takes its longest class's ticks and the
//!   rounds follow the classes, not the GPUs. Its bounds are the classes'
//!   (the fractional chromatic index of a disjoint union is the largest of
//!   its parts'), lifted to the union's slots: every class at its bound
//!   makes the union optimal. On a one-sided support (below) the parts
//!   are solved under READ1_WRITE1, the same question there: König's
//!   exact rounds, whose number does not grow with the multiplicities.
//! - **Heavy one-sided supports** (no slot both sends and receives, as in
//!   resharding from one mesh to another). The demand graph is bipartite
//!   senders x receivers under both models, and a slot with one role takes
//!   part in at most one transfer a tick under either, so STRICT1 asks
//!   READ1_WRITE1's question and König answers it in Delta ticks (Gamma <=
//!   Delta on a bipartite graph: the degree bound is complete), in time
//!   that does not grow with the multiplicities. This comes before the
//!   binary split, a heuristic that used to take heavy one-sided STRICT1
//!   instances (the binary split's test looks at the model and the weight,
//!   not the support) and end a fraction above Delta. Lighter one-sided
//!   STRICT1 instances keep the greedy paths, which meet Delta there in
//!   fewer rounds than König's weighted matchings.
//!
//! Single-port instances only: multi-port slots have their own exact
//! engine ([`crate::solve::multiport::solver`]).
//!
//! Time: the parts share the whole solve's deadline. Each part is given
//! the time left when it starts (zero once the deadline has passed), not
//! a fresh limit of its own, so a limited solve of several classes ends
//! by the caller's `--time-limit` as a solve of one part does.

use super::classes::{classes, components, Class, Component};
use crate::bounds::{simple_bounds, Bounds, LowerBound, Witness};
use crate::graph::DemandGraph;
use crate::instance::{Demand, Instance, Limits, Model};
use crate::schedule::{ClassRounds, Schedule};
use crate::solve::{note_cut_short, time_left, Solution, CUT_SHORT};
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// A solver of one part (a class's representative component) within a
/// time limit (`None`: none): the caller's whole solve, so a part gets
/// every path an instance gets.
pub(crate) type PartSolver<'a> =
    &'a (dyn Fn(&Instance, Option<Duration>) -> Option<Solution> + Sync);

/// The union of equal components solved per class, else a heavy one-sided
/// support solved exactly (module docs); `None` when neither applies.
/// `deadline`: the end of the whole solve's time, shared by the parts.
/// `keep_classes`: the schedule keeps each class's rounds once with its
/// members' maps ([`ClassRounds`]) instead of laying them out.
pub(crate) fn solve_at_scale(
    inst: &Instance,
    g: &DemandGraph,
    deadline: Option<Instant>,
    keep_classes: bool,
    solve_part: PartSolver,
) -> Option<Solution> {
    if !inst.is_single_port() {
        return None;
    }
    solve_by_classes(inst, g, deadline, keep_classes, solve_part)
        .or_else(|| solve_one_sided(inst, g))
}

/// Equal components (module docs): `None` unless the support has two
/// components or more and at most half as many classes. Each part gets
/// the time left before `deadline` when it starts.
fn solve_by_classes(
    inst: &Instance,
    g: &DemandGraph,
    deadline: Option<Instant>,
    keep_classes: bool,
    solve_part: PartSolver,
) -> Option<Solution> {
    let t = Instant::now();
    if inst.has_demand_bw() {
        return None;
    }
    if super::classes::one_hub_reaches_all(inst) {
        return None;
    }
    let comps = components(inst);
    if comps.len() < 2 {
        return None;
    }
    let classes = classes(inst, &comps);
    // The saving is in the repeats: a union of mostly different components
    // (fewer than two per class on average) is solved whole.
    if classes.len() * 2 > comps.len() {
        return None;
    }
    // On a one-sided support STRICT1 asks READ1_WRITE1's question, whose
    // exact path (König) the parts then take.
    let one_sided = is_one_sided(g);
    let model = if one_sided {
        Model::Read1Write1
    } else {
        inst.model
    };
    let solved: Vec<Solution> = classes
        .par_iter()
        .map(|c| {
            let part = part_instance(inst, &comps[c.members[0]], model);
            solve_part(&part, time_left(deadline))
        })
        .collect::<Option<_>>()?;
    // A part's demand `j` is its representative's `j`-th, the class's
    // pattern demand `j`.
    let mut schedule = Schedule::new();
    schedule.classes = classes
        .iter()
        .zip(&solved)
        .map(|(class, sol)| ClassRounds {
            rounds: sol.schedule.rounds.clone(),
            members: class.maps.clone(),
        })
        .collect();
    if !keep_classes {
        schedule = schedule.flat().into_owned();
    }
    let mut bounds = union_bounds(inst, g, &comps, &classes, &solved);
    bounds.complete |= one_sided;
    let mut names: Vec<&str> = Vec::new();
    for sol in &solved {
        if !names.contains(&sol.stats.solver.as_str()) {
            names.push(&sol.stats.solver);
        }
    }
    let seconds = t.elapsed().as_secs_f64();
    let mut sol = Solution::from_schedule(schedule, &bounds, &names.join("+"), seconds);
    for part in &solved {
        if let Some(serde_json::Value::Array(phases)) = part.stats.details.get(CUT_SHORT) {
            for phase in phases.iter().filter_map(|p| p.as_str()) {
                note_cut_short(&mut sol.stats, phase);
            }
        }
    }
    sol.stats.details.insert(
        "classes".to_string(),
        serde_json::json!({
            "components": comps.len(),
            "classes": classes.len(),
            "largest_class": classes.iter().map(|c| c.members.len()).max(),
            "slots_solved": classes.iter().map(|c| comps[c.members[0]].slots.len()).sum::<usize>(),
        }),
    );
    Some(sol)
}

/// The component `comp` as an instance of its own under `model`, slots
/// renumbered `0..k` in ascending order. The renumbering keeps the
/// demands' order, so its demand `j` is `comp.demands[j]`.
fn part_instance(inst: &Instance, comp: &Component, model: Model) -> Instance {
    let local = |v: u32| {
        comp.slots
            .binary_search(&v)
            .expect("a demand's slots are in its component") as u32
    };
    let demands = comp.demands.iter().map(|&i| {
        let d = inst.demands()[i as usize];
        Demand {
            src: local(d.src),
            dst: local(d.dst),
            bits: d.bits,
        }
    });
    let limits = Limits {
        max_slots: comp.slots.len() as u32,
        max_demands: comp.demands.len() as u64,
    };
    Instance::new(model, comp.slots.len() as u32, inst.bw, demands, &limits)
        .expect("a component of a valid instance is valid")
}

/// The union's bounds: its own degree and capacity bounds, and the largest
/// odd set of any class (lifted to the union's slots). Complete when every
/// class's bounds are (always for READ1_WRITE1).
fn union_bounds(
    inst: &Instance,
    g: &DemandGraph,
    comps: &[Component],
    classes: &[Class],
    solved: &[Solution],
) -> Bounds {
    let mut bounds = simple_bounds(inst, g);
    bounds.complete =
        inst.model == Model::Read1Write1 || solved.iter().all(|sol| sol.bounds.complete);
    for (class, sol) in classes.iter().zip(solved) {
        let slots = &comps[class.members[0]].slots;
        let found = [Some(&sol.bounds.best), sol.bounds.odd_set.as_ref()];
        for odd in found
            .into_iter()
            .flatten()
            .filter_map(|b| lift_odd_set(b, slots))
        {
            if bounds.odd_set.as_ref().is_none_or(|o| odd.ticks > o.ticks) {
                bounds.odd_set = Some(odd);
            }
        }
    }
    if let Some(odd) = &bounds.odd_set {
        if odd.ticks > bounds.best.ticks {
            bounds.best = odd.clone();
        }
    }
    bounds
}

/// A part's odd-set bound on the union's slots (`slots[v]` is the part's
/// slot `v`). A part's capacity bound over an odd number of slots is the
/// odd-set bound of all of them; other bounds are no odd set (the degree
/// bound is the union's own).
fn lift_odd_set(bound: &LowerBound, slots: &[u32]) -> Option<LowerBound> {
    let (set, chunks_inside) = match &bound.witness {
        Witness::OddSet {
            slots: set,
            chunks_inside,
            ..
        } => (
            set.iter().map(|&v| slots[v as usize]).collect(),
            *chunks_inside,
        ),
        Witness::Capacity {
            slots: k, chunks, ..
        } if k % 2 == 1 && *k >= 3 => (slots.to_vec(), *chunks),
        _ => return None,
    };
    Some(LowerBound {
        ticks: bound.ticks,
        witness: Witness::OddSet {
            slots: set,
            chunks_inside,
            bound: bound.ticks,
        },
    })
}

/// Heavy one-sided STRICT1 traffic (module docs): König's Delta ticks
/// where the binary split ([`super::bit_split::applies`]) would take the
/// instance; `None` otherwise (lighter one-sided instances meet Delta on
/// the greedy paths, and READ1_WRITE1 is König's anyway).
fn solve_one_sided(inst: &Instance, g: &DemandGraph) -> Option<Solution> {
    let t = Instant::now();
    if !super::bit_split::applies(inst) || !is_one_sided(g) {
        return None;
    }
    let (schedule, name) = crate::solve::one_port::koenig::delta_schedule(inst);
    // Bipartite: ceil Gamma <= Delta, and the capacity bound too.
    let seconds = t.elapsed().as_secs_f64();
    Some(Solution::at_degree_bound(inst, g, schedule, name, seconds))
}

/// Whether no slot both sends and receives.
fn is_one_sided(g: &DemandGraph) -> bool {
    g.out_degree
        .iter()
        .zip(&g.in_degree)
        .all(|(&out, &inn)| out == 0 || inn == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::portfolio::{solve_instance, SolveRequest};
    use std::sync::Mutex;

    /// Four equal components (one class): triangles with a chord's worth
    /// of extra traffic on one side, STRICT1.
    fn four_triangles() -> Instance {
        let demands = (0..4u32).flat_map(|c| {
            let b = 3 * c;
            [(b, b + 1, 3), (b + 1, b + 2, 2), (b + 2, b, 1)].map(|(src, dst, bits)| Demand {
                src,
                dst,
                bits,
            })
        });
        Instance::new(Model::Strict1, 12, 1, demands, &Limits::default()).unwrap()
    }

    /// Solves `inst` by classes with `deadline`, returning the solution and
    /// the time limit each part was given.
    fn by_classes(inst: &Instance, deadline: Option<Instant>) -> (Solution, Vec<Option<Duration>>) {
        let limits = Mutex::new(Vec::new());
        let part = |p: &Instance, time_limit: Option<Duration>| {
            limits.lock().unwrap().push(time_limit);
            let request = SolveRequest {
                time_limit,
                ..Default::default()
            };
            solve_instance(p, &request).ok()
        };
        let g = DemandGraph::new(inst);
        let sol = solve_by_classes(inst, &g, deadline, false, &part).expect("one class of four");
        (sol, limits.into_inner().unwrap())
    }

    #[test]
    fn parts_share_the_solve_deadline() {
        let inst = four_triangles();
        // No limit: the parts get none.
        let (free, limits) = by_classes(&inst, None);
        assert_eq!(limits, vec![None]);
        // A deadline that has passed: the parts get no time, not a fresh
        // limit of their own.
        let (late, limits) = by_classes(&inst, Some(Instant::now()));
        assert_eq!(limits, vec![Some(Duration::ZERO)]);
        // A distant deadline: what is left of it, never more.
        let hour = Duration::from_secs(3600);
        let (early, limits) = by_classes(&inst, Some(Instant::now() + hour));
        assert!(
            matches!(limits[..], [Some(l)] if l <= hour && l > hour / 2),
            "{limits:?}"
        );
        // A limit that is not reached changes nothing.
        assert_eq!(early.schedule, free.schedule);
        assert_eq!(free.ticks, 6);
        assert_eq!(late.ticks, free.ticks);
    }
}
