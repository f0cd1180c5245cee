//! Planning step after step (issue 37 item 2; DESIGN.md §13 "Keep what the
//! last step built"): a [`Planner`] plans instances of a fixed slot count
//! one after another and plans each from the previous one.
//!
//! The first plan comes from [`solve_instance`]; its schedule is kept as a
//! [`TickTable`]. The next instance is planned by editing the table: the
//! chunks that went away are taken out (ticks already changed first,
//! then the latest), the length is
//! set to the new maximum degree Delta (chunks past it are taken out too),
//! and the missing chunks are put in, each in a tick free at both ends or
//! one freed by an alternating path. READ1_WRITE1 always ends at exactly
//! Delta ticks (König: the bipartite path never closes); STRICT1 ends there
//! unless a chunk finds no tick, and then the plan is made from scratch.
//! Work follows the chunks that changed, plus one pass over the pairs and
//! the emitted schedule.
//!
//! Guarantees are those of [`solve_instance`]: every schedule is validated
//! by [`crate::validate::validate_compact`] before it is returned, and an
//! edited plan is returned only at Delta ticks, `optimal` by the degree
//! witness. Deterministic: the same sequence of instances gives the same
//! schedules.

use super::portfolio::{finish_validated, solve_instance, EngineError, SolveRequest, SolverChoice};
use super::tick_table::{TickTable, MAX_TABLE_SLOTS};
use super::Solution;
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model};
use crate::rounds::Schedule;
use crate::validate::{validate_edited, Frame};
use std::time::Instant;

/// Largest `ticks x slots` the kept table may have (two `u16` per cell:
/// 512 MiB).
const MAX_TABLE_CELLS: u64 = 1 << 27;

/// Plans a sequence of instances, each from the previous plan (module
/// docs).
#[derive(Clone, Default)]
pub struct Planner {
    request: SolveRequest,
    kept: Option<Kept>,
}

/// The previous plan: its instance's frame (ends and chunk counts, kept
/// by the validator), its schedule (validated), its tick table and its
/// instance's pair index.
#[derive(Clone)]
struct Kept {
    frame: Frame,
    schedule: Schedule,
    table: TickTable,
    index: Vec<u32>,
}

/// How a plan was made ([`Planner::last_plan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanKind {
    /// From scratch ([`solve_instance`]).
    Scratch,
    /// By editing the previous plan.
    Edited,
}

impl Planner {
    /// A planner for `request` (only `auto` plans are edited; other solvers
    /// plan from scratch every time).
    pub fn new(request: SolveRequest) -> Planner {
        Planner {
            request,
            kept: None,
        }
    }

    /// Plans `inst`, from the previous plan when it can (module docs).
    pub fn plan(&mut self, inst: &Instance) -> Result<(Solution, PlanKind), EngineError> {
        let t0 = Instant::now();
        if let Some(sol) = self.edit(inst, t0)? {
            return Ok((sol, PlanKind::Edited));
        }
        let sol = solve_instance(inst, &self.request)?;
        self.kept = self.keep(inst, &sol);
        Ok((sol, PlanKind::Scratch))
    }

    /// What to keep of a plan from scratch, when it can be edited.
    fn keep(&self, inst: &Instance, sol: &Solution) -> Option<Kept> {
        let small = sol.ticks.saturating_mul(inst.slots as u64) <= MAX_TABLE_CELLS;
        if !small || !keepable(inst, &self.request) {
            return None;
        }
        let index = pair_index(inst)?;
        let frame = Frame::of(inst)?;
        let ends: Vec<(u32, u32)> = inst.demands().iter().map(|d| (d.src, d.dst)).collect();
        let mut table = TickTable::from_schedule(
            inst.slots as usize,
            inst.model == Model::Strict1,
            &sol.schedule,
            &ends,
        );
        table.take_dirty();
        Some(Kept {
            frame,
            schedule: sol.schedule.clone(),
            table,
            index,
        })
    }

    /// Forgets the previous plan: the next one is made from scratch.
    pub fn reset(&mut self) {
        self.kept = None;
    }

    /// The edited plan of `inst`, or `None` (and nothing kept) when there is
    /// no previous plan of the same shape or the edit cannot reach Delta.
    fn edit(&mut self, inst: &Instance, t0: Instant) -> Result<Option<Solution>, EngineError> {
        let Some(mut kept) = self.kept.take() else {
            return Ok(None);
        };
        if kept.frame.slots_and_model() != (inst.slots, inst.model)
            || !keepable(inst, &self.request)
        {
            return Ok(None);
        }
        // The same pairs keep their demand indices (and the pair index);
        // other pairs of the same slots and model are settled pair by pair.
        let same = kept.frame.same_ends(inst);
        let index = if same {
            std::mem::take(&mut kept.index)
        } else {
            let Some(index) = pair_index(inst) else {
                return Ok(None);
            };
            index
        };
        let g = DemandGraph::new(inst);
        let delta = g.max_degree().0;
        if delta * inst.slots as u64 > MAX_TABLE_CELLS {
            return Ok(None);
        }
        let n = inst.slots as usize;
        let table = &mut kept.table;
        // Chunks that went away come out now, the missing ones are listed
        // and go in after the length is set: by demand against the kept
        // frame's counts when the demands are the same pairs (the table
        // holds exactly those chunks), else one pass over all pairs.
        let counts = inst.chunk_counts();
        let mut missing = Vec::new();
        let mut settle = |table: &mut TickTable, (u, v): (usize, usize), want: usize| {
            let have = table.chunks(u, v);
            for _ in want..have {
                table.remove(u, v);
            }
            if want > have {
                missing.push((u * n + v, want - have));
            }
        };
        if same {
            let before = kept.frame.counts();
            for (i, d) in inst.demands().iter().enumerate() {
                if counts[i] != before[i] {
                    let pair = (d.src as usize, d.dst as usize);
                    settle(table, pair, counts[i] as usize);
                }
            }
        } else {
            for (u, row) in index.chunks(n).enumerate() {
                for (v, &i) in row.iter().enumerate() {
                    let want = match i {
                        NO_DEMAND => 0,
                        i => counts[i as usize] as usize,
                    };
                    settle(table, (u, v), want);
                }
            }
        }
        let evicted = table.resize(delta as usize);
        let missing = missing
            .into_iter()
            .flat_map(|(cell, count)| std::iter::repeat_n((cell / n, cell % n), count))
            .chain(evicted);
        for (u, v) in missing {
            if !table.insert(u, v) {
                return Ok(None);
            }
        }
        // Round t of the kept schedule is tick t when it came from an edit
        // (not merged); then only the changed ticks are emitted again, and
        // when the demands are the same pairs too, the validator checks
        // only the rounds that changed.
        let dirty = table.take_dirty();
        let per_tick = kept.schedule.rounds.iter().all(|r| r.repeat == 1);
        let patched = per_tick && same;
        let schedule = if patched {
            table.patch(kept.schedule.clone(), &index)
        } else {
            table.schedule(&index)
        };
        let seconds = t0.elapsed().as_secs_f64();
        let sol = Solution::at_degree_bound(inst, &g, schedule, "replan", seconds);
        let sol = finish_validated(inst, sol, t0, 0.0, |s| {
            validate_edited(inst, s, &kept.schedule, &mut kept.frame)
        })?;
        // Keep what was returned (in place where only ticks changed).
        if patched {
            let rounds = &mut kept.schedule.rounds;
            rounds.truncate(sol.schedule.rounds.len());
            for &t in &dirty {
                let t = t as usize;
                match rounds.get_mut(t) {
                    Some(r) => r.demands.clone_from(&sol.schedule.rounds[t].demands),
                    None => rounds.push(sol.schedule.rounds[t].clone()),
                }
            }
        } else {
            kept.schedule = sol.schedule.clone();
        }
        kept.index = index;
        self.kept = Some(kept);
        Ok(Some(sol))
    }
}

/// Whether a plan of `inst` can be kept and edited: `auto`, one port and
/// one bandwidth, at most [`MAX_TABLE_SLOTS`] slots and
/// [`MAX_TABLE_CELLS`] chunks (and, checked by the caller with
/// [`pair_index`], at most one demand per ordered pair).
fn keepable(inst: &Instance, request: &SolveRequest) -> bool {
    request.solver == SolverChoice::Auto
        && !inst.is_multiport()
        && (2..=MAX_TABLE_SLOTS).contains(&inst.slots)
        && inst.total_chunks() <= MAX_TABLE_CELLS
}

const NO_DEMAND: u32 = u32::MAX;

/// Demand index of each ordered pair `u * n + v` ([`NO_DEMAND`] where none);
/// `None` when a pair has two demands.
fn pair_index(inst: &Instance) -> Option<Vec<u32>> {
    let n = inst.slots as usize;
    let mut index = vec![NO_DEMAND; n * n];
    for (i, d) in inst.demands().iter().enumerate() {
        let cell = &mut index[d.src as usize * n + d.dst as usize];
        if *cell != NO_DEMAND {
            return None;
        }
        *cell = i as u32;
    }
    Some(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::skew::Skew;
    use crate::instance::{Demand, Limits};
    use crate::solve::Status;

    fn instance(model: Model, n: u32, demands: Vec<Demand>) -> Instance {
        Instance::new(model, n, 64, demands, &Limits::default()).unwrap()
    }

    /// `demands` with every `step`-th entry's bits scaled by `num / 8`
    /// (zero removes it) and, for `grow`, a new demand between idle ends.
    fn perturbed(demands: &[Demand], step: usize, num: u64, seed: u64) -> Vec<Demand> {
        demands
            .iter()
            .enumerate()
            .filter_map(|(i, d)| {
                let bits = if (i as u64 + seed) % step as u64 == 0 {
                    d.bits * num / 8
                } else {
                    d.bits
                };
                (bits > 0).then_some(Demand { bits, ..*d })
            })
            .collect()
    }

    #[test]
    fn edited_plans_are_valid_and_at_delta_under_both_models() {
        for model in [Model::Read1Write1, Model::Strict1] {
            for n in [8u32, 24, 64] {
                let skew = Skew {
                    mean_bits: 64.0 * 4.0,
                    sigma: 1.2,
                    hot: (n / 16).max(1),
                    hot_factor: 4,
                };
                let mut planner = Planner::new(SolveRequest::default());
                let first = skew.all_to_all(n, 7).unwrap();
                let (sol, kind) = planner.plan(&instance(model, n, first.clone())).unwrap();
                assert_eq!(kind, PlanKind::Scratch);
                let mut demands = first;
                let mut edited = 0;
                for (seed, num) in [(1, 9), (2, 7), (3, 12), (4, 0), (5, 5), (6, 16)] {
                    demands = perturbed(&demands, 10, num, seed);
                    let inst = instance(model, n, demands.clone());
                    let (sol, kind) = planner.plan(&inst).unwrap();
                    let delta = DemandGraph::new(&inst).max_degree().0;
                    if kind == PlanKind::Edited {
                        edited += 1;
                        assert_eq!(sol.ticks, delta, "{model} n={n} seed={seed}");
                        assert_eq!(sol.status, Status::Optimal);
                        assert_eq!(sol.stats.solver, "replan");
                    }
                    // Valid either way (finish validated it); compare with
                    // a plan from scratch: never worse.
                    let scratch = solve_instance(&inst, &SolveRequest::default()).unwrap();
                    assert!(sol.ticks <= scratch.ticks, "{model} n={n} seed={seed}");
                    assert!(crate::validate::validate_compact(&inst, &sol.schedule).passed());
                }
                if model == Model::Read1Write1 {
                    assert_eq!(edited, 6, "READ1_WRITE1 edits always reach Delta");
                }
                drop(sol);
            }
        }
    }

    #[test]
    fn a_different_shape_or_solver_plans_from_scratch() {
        let d = |src, dst, bits| Demand { src, dst, bits };
        let mut planner = Planner::new(SolveRequest::default());
        let a = instance(Model::Read1Write1, 3, vec![d(0, 1, 128), d(1, 2, 64)]);
        assert_eq!(planner.plan(&a).unwrap().1, PlanKind::Scratch);
        let b = instance(Model::Read1Write1, 3, vec![d(0, 1, 64), d(2, 1, 192)]);
        let (sol, kind) = planner.plan(&b).unwrap();
        assert_eq!((kind, sol.ticks), (PlanKind::Edited, 4));
        let c = instance(Model::Read1Write1, 4, vec![d(0, 1, 64)]);
        assert_eq!(planner.plan(&c).unwrap().1, PlanKind::Scratch);
        let s = instance(Model::Strict1, 4, vec![d(0, 1, 64)]);
        assert_eq!(planner.plan(&s).unwrap().1, PlanKind::Scratch);
        planner.reset();
        assert_eq!(planner.plan(&s).unwrap().1, PlanKind::Scratch);
        let mut greedy = Planner::new(SolveRequest {
            solver: SolverChoice::Greedy,
            ..Default::default()
        });
        greedy.plan(&s).unwrap();
        assert_eq!(greedy.plan(&s).unwrap().1, PlanKind::Scratch);
    }
}
