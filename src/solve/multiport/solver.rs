//! Solvers for multi-port slots and per-demand bandwidth (DESIGN.md §11).
//!
//! A tick is an f-matching (f = ports): slot `v` takes part in at most
//! `ports(v)` transfers (STRICT1), or sends and receives at most `ports(v)`
//! each (READ1_WRITE1). Everything here works on chunk counts, so a
//! per-demand bandwidth only changes the multiplicities.
//!
//! | case | method | result |
//! |---|---|---|
//! | READ1_WRITE1, any ports | port splitting + König; with the same ports on every slot and dense traffic, first fit grouped `ports` ticks at a time ([`super::first_fit_grouped`]); with the same even ports on large traffic first fit misses, König on two port halves side by side (module `port_halves`) | exact: `max ceil(d/ports)` ticks |
//! | STRICT1, the same ports on every slot, skewed dense traffic | first fit on the demands, grouped `ports` ticks at a time ([`super::first_fit_grouped`]), where it fits | exact: `max ceil(d/ports)` ticks |
//! | STRICT1, every port count even | Hakimi–Kariv (1986): Euler orientation, then the READ1_WRITE1 case with `ports/2` per side (first fit grouped on the orientation's pieces where it applies; port halves where `ports/2` is even) | exact: `max ceil(d/ports)` ticks |
//! | STRICT1, some port count odd, bipartite support | König on the sides ([`super::bipartite`]) | exact: `max ceil(d/ports)` ticks |
//! | STRICT1, some port count odd | split into one-port slots, then the one-port STRICT1 engine (greedy, LP/ILP); where that misses the bound, the f-colouring MIP of [`super::fcolour_ilp`] at the bound (up to 64 ticks), or column generation over f-matchings ([`super::fcolour_colgen`]) rounded with the MIP on the residual, under the deadline | the bound where the MIP finds it; else valid, and `optimal_exhaustive` at bound + 1 with a DRAT proof of the f-colouring CNF (small instances) |
//!
//! *Port splitting.* Slot `v` becomes `ports(v)` sender copies and
//! `ports(v)` receiver copies; its chunks, laid out demand after demand, go
//! to the copies in turn (chunk `k` to copy `k mod ports(v)`), so each copy
//! gets `floor` or `ceil` of `d(v)/ports(v)`. A demand's chunks, counted by
//! sender copy and by receiver copy, are matched by the north-west corner
//! rule (at most `ports(src) + ports(dst) - 1` pieces). The pieces form a
//! one-port instance whose maximum degree is `max ceil(d/ports)`, solved by
//! König; a tick of it uses each copy once, so each slot at most
//! `ports(v)` times. Everything is arithmetic on counts: time does not grow
//! with the multiplicity. The odd-port STRICT1 case splits with the same
//! function, counting a slot's chunks once for both ends instead of once
//! per direction, so each one-port copy takes part in `floor` or `ceil` of
//! `d(v)/ports(v)` transfers.
//!
//! *Euler orientation.* Each STRICT1 edge `{a,b}` of multiplicity `m` sends
//! `floor(m/2)` chunks each way; the edges of odd multiplicity form a simple
//! graph, oriented along Euler circuits (odd-degree vertices paired through
//! a dummy vertex, Hierholzer), so every slot has at most `ceil(d/2)` out
//! and in. With `ports/2` sender and receiver copies, `ceil(ceil(d/2) /
//! (ports/2)) = ceil(d/ports)`.
//!
//! Solvers do no I/O; [`solve_multiport`] is called by
//! [`crate::solve_instance`] for every instance that is not copyspace-guard
//! v0 (ports above 1, or a per-demand bandwidth).

use super::euler::euler_orient;
use super::fcolour_colgen::{colgen_f_colouring, PairRounds};
use super::fcolour_ilp::{f_colourable, FOutcome};
use super::first_fit_grouped;
use super::port_halves;
use super::port_split::{
    koenig_one_port, koenig_over_ports, split_over_ports, ArcCount, Counters, PoolMapper,
};
use crate::bounds::Bounds;
use crate::graph::{DemandGraph, UndirectedEdge};
use crate::instance::{Instance, Model};
use crate::schedule::Schedule;
use crate::solve::{Solution, SolveOptions, Solver};
use std::time::{Duration, Instant};

/// READ1_WRITE1 with any ports: first fit grouped where every slot has the
/// same ports and traffic is dense ([`first_fit_grouped`]), else port
/// splitting and König. Optimal: the schedule has `max_v
/// ceil(d(v)/ports(v))` ticks (per direction). With the method's name.
pub fn read1_write1_ports(inst: &Instance) -> (Schedule, &'static str) {
    if let Some(q) = inst.ports().uniform() {
        if let Some(schedule) = demands_first_fit(inst, q) {
            return (schedule, "multiport-first-fit");
        }
    }
    let arcs: Vec<ArcCount> = inst
        .demands()
        .iter()
        .enumerate()
        .map(|(i, d)| ArcCount {
            src: d.src,
            dst: d.dst,
            count: inst.chunks(i),
            pool: i as u32,
        })
        .collect();
    // Each demand is its own pool: the rounds of pool ids are the schedule.
    if let Some(q) = inst
        .ports()
        .uniform()
        .filter(|&q| port_halves::applies(arcs.len(), q))
    {
        return (
            koenig_in_halves(inst.slots as usize, &arcs, q, None),
            "multiport-koenig-halves",
        );
    }
    let port = |v: usize| inst.port(v);
    let mut schedule = Schedule::new();
    for (repeat, ids) in koenig_over_ports(inst.slots as usize, &arcs, &port) {
        schedule.push(repeat, ids);
    }
    (schedule, "multiport-koenig")
}

/// STRICT1 with every port count even: Hakimi–Kariv, the READ1_WRITE1
/// case coloured by first fit grouped where every slot has the same ports
/// and traffic is dense ([`oriented_first_fit`]), else by König. Optimal:
/// the schedule has `max_v ceil(d(v)/ports(v))` ticks. With the method's
/// name.
pub fn strict1_even_ports(inst: &Instance, g: &DemandGraph) -> (Schedule, &'static str) {
    debug_assert!(inst.model == Model::Strict1 && inst.ports().all_even());
    let odd: Vec<(u32, u32)> = g
        .undirected()
        .iter()
        .filter(|e| e.mult % 2 == 1)
        .map(|e| (e.a, e.b))
        .collect();
    let orient = euler_orient(inst.slots as usize, &odd);
    if let Some(q) = inst.ports().uniform() {
        if let Some(schedule) = oriented_first_fit(inst, g, &orient, q / 2) {
            return (schedule, "multiport-hakimi-kariv-first-fit");
        }
    }
    let mut arcs = Vec::new();
    let mut k = 0;
    for (ei, e) in g.undirected().iter().enumerate() {
        let (ab, ba) = oriented_counts(e, &orient, &mut k);
        for (src, dst, count) in [(e.a, e.b, ab), (e.b, e.a, ba)] {
            if count > 0 {
                arcs.push(ArcCount {
                    src,
                    dst,
                    count,
                    pool: ei as u32,
                });
            }
        }
    }
    if let Some(q) = inst
        .ports()
        .uniform()
        .filter(|&q| port_halves::applies(arcs.len(), q / 2))
    {
        let schedule = koenig_in_halves(inst.slots as usize, &arcs, q / 2, Some(g.undirected()));
        return (schedule, "multiport-hakimi-kariv-halves");
    }
    let pools = g.undirected().iter().map(|e| &e.demands[..]);
    let half = |v: usize| inst.port(v) / 2;
    let rounds = koenig_over_ports(inst.slots as usize, &arcs, &half);
    (
        PoolMapper::new(pools).map(&rounds),
        "multiport-hakimi-kariv",
    )
}

/// König on `arcs` with `p` ports on every slot side, in two halves of
/// `p/2` ports coloured on two threads and laid side by side (module
/// `port_halves`): `max ceil(d/p)` ticks. Arcs are drawn from pools
/// (module `port_split`'s [`PoolMapper`]), STRICT1's edges' demands where
/// `pools` gives the edges (an arc's pool its edge), else an arc's pool is
/// its demand.
fn koenig_in_halves(
    slots: usize,
    arcs: &[ArcCount],
    p: u32,
    pools: Option<&[UndirectedEdge]>,
) -> Schedule {
    let ([first, second], _) = port_halves::split(slots, arcs, p);
    let half = |_: usize| p / 2;
    let colour = |arcs: &[ArcCount]| koenig_over_ports(slots, arcs, &half);
    let Some(edges) = pools else {
        let (a, b) = rayon::join(|| colour(&first), || colour(&second));
        return port_halves::side_by_side([&a, &b]);
    };
    // The first half draws its chunks of each pool (an edge's demands)
    // first.
    let mut drawn = vec![0u64; first.iter().map(|a| a.pool as usize + 1).max().unwrap_or(0)];
    for a in &first {
        drawn[a.pool as usize] += a.count;
    }
    let rounds = |s: Schedule| -> Vec<(u64, Vec<u32>)> {
        s.rounds
            .into_iter()
            .map(|r| (r.repeat, r.demands))
            .collect()
    };
    // With one port a half, the one-port schedule is mapped as it is (its
    // ids read through their pools), not copied as rounds of pools first.
    let mapped = |second: bool, arcs: &[ArcCount]| {
        let pools = edges.iter().map(|e| &e.demands[..]);
        let map = PoolMapper::half(pools, &drawn, second);
        if p / 2 == 1 {
            let (schedule, pool_of) = koenig_one_port(slots, arcs);
            rounds(map.map_ids(&schedule, &pool_of))
        } else {
            rounds(map.map(&colour(arcs)))
        }
    };
    let (a, b) = rayon::join(|| mapped(false, &first), || mapped(true, &second));
    drop(drawn);
    port_halves::side_by_side([&a, &b])
}

/// The chunks edge `e` sends `a -> b` and `b -> a` under the Euler
/// orientation: `floor(m/2)` each way, and an odd edge's odd chunk as
/// `orient[*odd_seen]` says (edges taken in order; `odd_seen` counts the
/// odd ones so far and moves on).
fn oriented_counts(e: &UndirectedEdge, orient: &[bool], odd_seen: &mut usize) -> (u64, u64) {
    let (mut ab, mut ba) = (e.mult / 2, e.mult / 2);
    if e.mult % 2 == 1 {
        if orient[*odd_seen] {
            ab += 1;
        } else {
            ba += 1;
        }
        *odd_seen += 1;
    }
    (ab, ba)
}

/// The demands of `inst` (`q` ports on every slot) coloured first fit and
/// grouped `q` ticks at a time ([`first_fit_grouped`]), under the
/// instance's model: READ1_WRITE1 always fits where it applies; STRICT1
/// may not (the one-port STRICT1 colouring needs more than `Delta` ticks on
/// odd cycles), and then `None`.
fn demands_first_fit(inst: &Instance, q: u32) -> Option<Schedule> {
    let (slots, demands) = (inst.slots as usize, inst.demands().len());
    if !first_fit_grouped::applies(slots, demands, inst.total_chunks()) {
        return None;
    }
    // The degrees grouped_ticks counts, before the arcs are built for it.
    let strict = inst.model == Model::Strict1;
    let receive = if strict { 0 } else { slots };
    let mut degree = vec![0u64; slots + receive];
    for (d, &c) in inst.demands().iter().zip(inst.chunk_counts()) {
        degree[d.src as usize] += c;
        degree[receive + d.dst as usize] += c;
    }
    if !first_fit_grouped::tried(slots, demands, inst.total_chunks(), &degree) {
        return None;
    }
    drop(degree);
    let ends: Vec<(u32, u32)> = inst.demands().iter().map(|d| (d.src, d.dst)).collect();
    let ticks = first_fit_grouped::grouped_ticks(
        inst.slots as usize,
        inst.model == Model::Strict1,
        &ends,
        inst.chunk_counts(),
        u64::from(q),
    )?;
    Some(schedule_of_ticks(ticks))
}

/// One round per grouped tick of [`first_fit_grouped::grouped_ticks`]
/// (equal neighbours merged by `Schedule::push`).
fn schedule_of_ticks(ticks: Vec<Vec<u32>>) -> Schedule {
    let mut schedule = Schedule::new();
    for demands in ticks {
        schedule.push(1, demands);
    }
    schedule
}

/// Hakimi–Kariv by first fit ([`first_fit_grouped`]) with `half` ports per
/// side: each demand's chunks go on its edge's two arcs as `orient` (the
/// Euler orientation of the odd edges) splits the edge, the demand `a->b`
/// on `a->b` first and `b->a` on `b->a` first, as pieces numbered in
/// demand order, so each grouped tick's pieces, sorted, map to sorted
/// demands. `None` where the grouped first fit does not apply.
fn oriented_first_fit(
    inst: &Instance,
    g: &DemandGraph,
    orient: &[bool],
    half: u32,
) -> Option<Schedule> {
    let demands = inst.demands();
    let slots = inst.slots as usize;
    // The pieces and the degrees grouped_ticks counts (sends, then
    // receives), before the pieces are built for it.
    let (mut pieces, mut degree) = (0usize, vec![0u64; 2 * slots]);
    oriented_split(inst, g, orient, |d, own, reverse| {
        let d = &demands[d];
        for ((src, dst), chunks) in [((d.src, d.dst), own), ((d.dst, d.src), reverse)] {
            if chunks > 0 {
                pieces += 1;
                degree[src as usize] += chunks;
                degree[slots + dst as usize] += chunks;
            }
        }
    });
    if !first_fit_grouped::tried(slots, pieces, inst.total_chunks(), &degree) {
        return None;
    }
    drop(degree);
    // Chunks of each demand on its own direction and on the reverse one.
    let mut split = vec![(0u64, 0u64); demands.len()];
    oriented_split(inst, g, orient, |d, own, reverse| split[d] = (own, reverse));
    let mut ends = Vec::with_capacity(demands.len());
    let mut counts = Vec::with_capacity(demands.len());
    let mut demand_of = Vec::with_capacity(demands.len());
    for (i, (d, &(own, reverse))) in demands.iter().zip(&split).enumerate() {
        for (arc, chunks) in [((d.src, d.dst), own), ((d.dst, d.src), reverse)] {
            if chunks > 0 {
                ends.push(arc);
                counts.push(chunks);
                demand_of.push(i as u32);
            }
        }
    }
    drop(split);
    let mut ticks = first_fit_grouped::grouped_ticks(
        inst.slots as usize,
        false,
        &ends,
        &counts,
        u64::from(half),
    )?;
    for tick in &mut ticks {
        for id in tick.iter_mut() {
            *id = demand_of[*id as usize];
        }
    }
    Some(schedule_of_ticks(ticks))
}

/// Each demand's chunks on its own direction and on the reverse one under
/// `orient` (the Euler orientation of the odd edges), as `f(demand, own,
/// reverse)`: an edge's demand `a->b` fills `a->b` first, `b->a` fills
/// `b->a` first, in the edge's order (as [`oriented_first_fit`] places
/// them).
fn oriented_split(
    inst: &Instance,
    g: &DemandGraph,
    orient: &[bool],
    mut f: impl FnMut(usize, u64, u64),
) {
    let demands = inst.demands();
    let mut k = 0;
    for e in g.undirected() {
        let (mut ab, mut ba) = oriented_counts(e, orient, &mut k);
        for &(d, chunks) in &e.demands {
            // Room on the demand's own arc: `ab` for `a->b`, `ba` for `b->a`.
            let own = if demands[d as usize].src == e.a {
                &mut ab
            } else {
                &mut ba
            };
            let on_own = chunks.min(*own);
            *own -= on_own;
            f(d as usize, on_own, chunks - on_own);
        }
    }
}

/// STRICT1 with some odd port count: each slot becomes `ports(v)` one-port
/// slots sharing its chunks evenly (the port split with one counter per
/// slot, [`Counters::Shared`]), and the one-port STRICT1 engine solves the
/// result. Valid, not always
/// optimal: the split is one choice among many.
fn strict1_split(
    inst: &Instance,
    g: &DemandGraph,
    opts: &SolveOptions,
    greedy_only: bool,
    one_port: OnePort,
) -> (Schedule, String, Vec<String>) {
    let arcs: Vec<ArcCount> = g
        .undirected()
        .iter()
        .enumerate()
        .map(|(ei, e)| ArcCount {
            src: e.a,
            dst: e.b,
            count: e.mult,
            pool: ei as u32,
        })
        .collect();
    let port = |v: usize| inst.port(v);
    let split = split_over_ports(inst.slots as usize, &arcs, &port, Counters::Shared);
    let pools = g.undirected().iter().map(|e| &e.demands[..]);
    if split.pieces.is_empty() {
        return (Schedule::new(), "multiport-split".into(), Vec::new());
    }
    let copy_inst = split.instance(Model::Strict1);
    // The one-port engine gets what is left of this solve's time, not a
    // fresh limit of its own.
    let time_limit = crate::solve::time_left(opts.deadline).or(opts.time_limit);
    let sol = one_port(&copy_inst, greedy_only, time_limit);
    let rounds = split.pool_rounds(&copy_inst, &sol.schedule);
    let cut = sol
        .stats
        .details
        .get(crate::solve::CUT_SHORT)
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    (
        PoolMapper::new(pools).map(&rounds),
        format!("multiport-split+{}", sol.stats.solver),
        cut,
    )
}

/// Largest MIP (edges x ticks integer variables) [`strict1_exact_ports`]
/// builds.
const EXACT_MAX_VARIABLES: u64 = 40_000;
/// Largest tick count for the MIP on the whole instance; above it, column
/// generation and the MIP on the residual (on rails 7 x 3 at multiplicity
/// 50, 210 ticks, the whole MIP did not finish in 10 s).
const DIRECT_MAX_TICKS: u64 = 64;
/// Time the MIP may take in a solve without a time limit.
const EXACT_DEFAULT_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// STRICT1 with odd ports, exactly: an f-colouring with the bound's ticks
/// by the MIP of [`super::fcolour_ilp`] on the whole instance (up to
/// [`DIRECT_MAX_TICKS`] ticks), or else by column generation over
/// f-matchings from the `split` schedule's rounds, rounded, with the MIP on
/// the residual ([`super::fcolour_colgen`]), before the deadline. The solution is re-checked (every edge's chunks sent, no slot
/// over its ports in any tick) before it becomes a schedule. `Err(true)`
/// when the deadline stopped the search, `Err(false)` for any other miss
/// (too large, infeasible, a HiGHS failure).
fn strict1_exact_ports(
    inst: &Instance,
    g: &DemandGraph,
    bounds: &Bounds,
    opts: &SolveOptions,
    split: &Schedule,
) -> Result<(Schedule, &'static str), bool> {
    let target = bounds.best.ticks;
    let ports: Vec<u32> = (0..inst.slots as usize).map(|v| inst.port(v)).collect();
    let edges = g.edge_triples();
    let deadline = opts
        .deadline
        .unwrap_or_else(|| Instant::now() + opts.time_limit.unwrap_or(EXACT_DEFAULT_TIME));
    // The odd-port witness set, and all slots when their ports add up odd.
    let mut odd_sets: Vec<Vec<u32>> = Vec::new();
    if let Some(crate::bounds::Witness::OddPortSet { slots, .. }) =
        bounds.odd_set.as_ref().map(|b| &b.witness)
    {
        odd_sets.push(slots.clone());
    }
    let all: Vec<u32> = (0..inst.slots).collect();
    if ports.iter().map(|&p| p as u64).sum::<u64>() % 2 == 1 && !odd_sets.contains(&all) {
        odd_sets.push(all);
    }
    // Small enough: the MIP on the whole instance; else column generation
    // from the split's rounds, rounded, and the MIP on the residual.
    let direct = target <= DIRECT_MAX_TICKS
        && (edges.len() as u128) * (target as u128) <= EXACT_MAX_VARIABLES as u128;
    let rounds: PairRounds = if direct {
        match f_colourable(
            &ports,
            &edges,
            &odd_sets,
            target,
            deadline,
            EXACT_MAX_VARIABLES,
        ) {
            FOutcome::Feasible(ticks) => ticks.into_iter().map(|t| (1, t)).collect(),
            FOutcome::TimedOut => return Err(true),
            FOutcome::Infeasible | FOutcome::Unknown(_) => return Err(false),
        }
    } else {
        let mut edge_of = vec![0u32; inst.demands().len()];
        for (e, u) in g.undirected().iter().enumerate() {
            for &(d, _) in &u.demands {
                edge_of[d as usize] = e as u32;
            }
        }
        let mut start: std::collections::BTreeMap<Vec<(u32, u64)>, u64> = Default::default();
        for r in &split.rounds {
            let mut col: Vec<(u32, u64)> = Vec::new();
            let mut es: Vec<u32> = r.demands.iter().map(|&d| edge_of[d as usize]).collect();
            es.sort_unstable();
            for e in es {
                match col.last_mut() {
                    Some((x, k)) if *x == e => *k += 1,
                    _ => col.push((e, 1)),
                }
            }
            *start.entry(col).or_default() += r.repeat;
        }
        colgen_f_colouring(
            &ports,
            &edges,
            &odd_sets,
            start.into_keys().collect(),
            target,
            deadline,
            EXACT_MAX_VARIABLES,
        )?
    };
    // Re-check the answer in integers (HiGHS works in floating point).
    let mut sent = vec![0u128; edges.len()];
    let mut total = 0u128;
    for (repeat, tick) in &rounds {
        let mut load = vec![0u64; ports.len()];
        for &(e, k) in tick {
            let (a, b, _) = edges[e as usize];
            sent[e as usize] += k as u128 * *repeat as u128;
            load[a as usize] += k;
            load[b as usize] += k;
        }
        if (0..ports.len()).any(|v| load[v] > ports[v] as u64) {
            return Err(false);
        }
        total += *repeat as u128;
    }
    if total > target as u128 || sent.iter().zip(&edges).any(|(&s, e)| s != e.2 as u128) {
        return Err(false);
    }
    // Equal ticks next to each other become one round.
    let mut rounds: Vec<(Vec<u32>, u64)> = rounds
        .iter()
        .filter(|(_, t)| !t.is_empty())
        .map(|(repeat, t)| {
            let pools = t
                .iter()
                .flat_map(|&(e, k)| std::iter::repeat_n(e, k as usize))
                .collect();
            (pools, *repeat)
        })
        .collect();
    rounds.sort();
    let mut compact: Vec<(u64, Vec<u32>)> = Vec::new();
    for (r, repeat) in rounds {
        match compact.last_mut() {
            Some((k, last)) if *last == r => *k += repeat,
            _ => compact.push((repeat, r)),
        }
    }
    let pools = g.undirected().iter().map(|e| &e.demands[..]);
    let name = match direct {
        true => "multiport-fcolour-ilp",
        false => "multiport-fcolour-colgen",
    };
    Ok((PoolMapper::new(pools).map(&compact), name))
}

/// The one-port engine the odd-port split hands its instance to: `(the
/// instance, greedy only, time limit)` -> a validated solution. The caller
/// (the portfolio, which dispatches multi-port instances here) passes its
/// own one-port solve, so this module does not import the layer that calls
/// it.
pub type OnePort<'e> = &'e (dyn Fn(&Instance, bool, Option<Duration>) -> Solution + Sync);

/// The multi-port solver: picks the method of the module table.
#[derive(Clone, Copy)]
pub struct Multiport<'e> {
    /// Use the greedy (not the LP/ILP engine) where the one-port engine runs.
    pub greedy_only: bool,
    /// The one-port engine of the odd-port split.
    pub one_port: OnePort<'e>,
}

impl Solver for Multiport<'_> {
    fn name(&self) -> &'static str {
        "multiport"
    }

    fn solve(&self, inst: &Instance, bounds: &Bounds, opts: &SolveOptions) -> Solution {
        self.solve_on(inst, &DemandGraph::new(inst), bounds, opts)
    }
}

impl Multiport<'_> {
    /// [`Solver::solve`] given the instance's graph `g`.
    pub fn solve_on(
        &self,
        inst: &Instance,
        g: &DemandGraph,
        bounds: &Bounds,
        opts: &SolveOptions,
    ) -> Solution {
        let t0 = Instant::now();
        // Phases the time limit cut short (`CUT_SHORT` in the details).
        let mut cut: Vec<String> = Vec::new();
        // Skewed dense STRICT1 traffic with the same ports everywhere:
        // first fit on the demands themselves, any port count, where it
        // fits (no orientation or split; on a two-tier MoE it mostly does).
        let direct = (inst.model == Model::Strict1 && !g.is_regular())
            .then(|| inst.ports().uniform())
            .flatten()
            .and_then(|q| demands_first_fit(inst, q));
        // Odd ports on a bipartite support: exact by König (module
        // `bipartite`), no split or MIP needed.
        let bipartite =
            (inst.model == Model::Strict1 && direct.is_none() && !inst.ports().all_even())
                .then(|| super::bipartite::strict1_bipartite(inst, g))
                .flatten();
        let (schedule, name) = match inst.model {
            Model::Strict1 if direct.is_some() => (
                direct.expect("checked just above"),
                "multiport-first-fit".to_string(),
            ),
            Model::Read1Write1 => {
                let (schedule, name) = read1_write1_ports(inst);
                (schedule, name.to_string())
            }
            Model::Strict1 if inst.ports().all_even() => {
                let (schedule, name) = strict1_even_ports(inst, g);
                (schedule, name.to_string())
            }
            Model::Strict1 if bipartite.is_some() => (
                bipartite.expect("checked just above"),
                "multiport-bipartite-koenig".to_string(),
            ),
            Model::Strict1 => {
                let (split, name, split_cut) =
                    strict1_split(inst, g, opts, self.greedy_only, self.one_port);
                cut.extend(split_cut);
                let target = bounds.best.ticks;
                let exact = (split.ticks() > target && !self.greedy_only)
                    .then(|| strict1_exact_ports(inst, g, bounds, opts, &split));
                match exact {
                    Some(Ok((exact, method))) if exact.ticks() < split.ticks() => {
                        (exact, method.to_string())
                    }
                    Some(Err(true)) => {
                        cut.push("exact".to_string());
                        (split, name)
                    }
                    _ => (split, name),
                }
            }
        };
        // Statuses come from the multi-port bounds; a proof of the bound's
        // infeasibility (the f-colouring CNF) is looked for when the
        // schedule is one tick above it, by `Solution::attach_proof`.
        let mut sol = Solution::from_schedule(schedule, bounds, &name, t0.elapsed().as_secs_f64());
        for phase in cut {
            crate::solve::note_cut_short(&mut sol.stats, &phase);
        }
        sol
    }
}

/// Solves a multi-port instance whose graph is `g` (see the module docs),
/// with `one_port` for the odd-port split.
pub fn solve_multiport(
    inst: &Instance,
    g: &DemandGraph,
    bounds: &Bounds,
    opts: &SolveOptions,
    greedy_only: bool,
    one_port: OnePort,
) -> Solution {
    Multiport {
        greedy_only,
        one_port,
    }
    .solve_on(inst, g, bounds, opts)
}
