//! The STRICT1 colouring pipeline: cheap phases first, each stopping as soon
//! as the lower bound is met.
//!
//! 0. structural colouring (paths, cycles, uniform complete components; exact,
//!    see `structure`): when it applies, nothing else runs;
//! 1. compact greedy (always; the fallback);
//! 1. (b) backbone: when the pairs of high multiplicity form paths, cycles
//!    or uniform complete components, they are coloured by structure with at
//!    most `LB` colours and the Kempe search places the remaining chunks
//!    from there (a ring of heavy links with a few light chords reaches its
//!    bound this way; colouring it from scratch does not);
//! 2. Kempe search on chunks with `LB` colours, when multiplicities are low;
//! 3. column generation + rounding + residual repair (multiplicity-independent);
//! 4. Kempe on chunks as a fallback for high multiplicities that still fit;
//! 5. exact assignment ILP with `LB` colours when `chunks * LB` is small: a feasible
//!    answer is used, an infeasible one is the `optimal_exhaustive` proof.
//!
//! The result is re-checked; if a phase produced an invalid schedule (a bug),
//! the greedy schedule is returned instead. Heuristic phases use move budgets,
//! not clocks, so equal inputs give equal outputs (HiGHS time limits aside).

use super::assign_ilp::{t_colourable, IlpOutcome};
use super::check::check_rounds;
use super::colgen::fractional_colouring;
use super::greedy::greedy_rounds;
use super::kempe::{colour_chunks, colour_chunks_from};
use super::residual::round_and_repair;
use super::rounds::{classes_to_rounds, degrees, expand_chunks, merge_rounds, ticks};
use super::structure::{colour_by_structure, StructureColouring};
use super::types::{ColourInput, ColourStats, Colouring, ExhaustiveProof};
use std::time::{Duration, Instant};

/// Largest multiplicity for which the chunk-level Kempe search runs first.
const LOW_MULT: u64 = 8;
/// Largest chunk count for the chunk-level Kempe search.
const KEMPE_CHUNK_LIMIT: u64 = 400_000;
/// Largest `n * colours` palette table for the Kempe search.
const KEMPE_SLOT_LIMIT: u64 = 50_000_000;
/// Largest chunk count for the backbone phase (its Kempe search holds
/// every chunk).
const BACKBONE_CHUNK_LIMIT: u64 = 32_000_000;
/// Kempe move budget per chunk.
const MOVES_PER_CHUNK: u64 = 100;
/// Largest edge count for column generation.
const LP_EDGE_LIMIT: usize = 200_000;
/// Cap on pricing rounds.
const LP_MAX_ROUNDS: u64 = 20_000;
/// Largest exact ILP (binary variables).
const EXACT_VARS: u64 = 50_000;
/// Largest `chunks * LB` for the exact search (its difficulty grows with both).
const EXACT_CHUNK_COLOURS: u64 = 200_000;
/// Default MIP time limit.
const DEFAULT_TIME: Duration = Duration::from_secs(10);

struct Best<'a> {
    n: usize,
    edges: &'a [(u32, u32, u64)],
    rounds: Vec<(u64, Vec<u32>)>,
    ticks: u64,
    method: &'static str,
}

impl Best<'_> {
    /// Keeps `rounds` if it is valid and strictly better (earlier phases win ties).
    fn offer(&mut self, rounds: Vec<(u64, Vec<u32>)>, method: &'static str) {
        let t = ticks(&rounds);
        if t < self.ticks && check_rounds(self.n, self.edges, &rounds).is_ok() {
            self.rounds = rounds;
            self.ticks = t;
            self.method = method;
        }
    }
}

/// The vertex count (at least one past every edge end), the multiplicities
/// and the target `max(lower_bound, Delta)` of `input`.
fn prepare(input: &ColourInput) -> (usize, Vec<u64>, u64) {
    let edges = input.edges;
    let n = edges
        .iter()
        .map(|e| e.0.max(e.1) as usize + 1)
        .max()
        .unwrap_or(0)
        .max(input.n);
    let mult: Vec<u64> = edges.iter().map(|e| e.2).collect();
    let delta = degrees(n, edges, &mult).into_iter().max().unwrap_or(0);
    (n, mult, input.lower_bound.max(delta))
}

/// Colours the STRICT1 chunk multigraph with `lower_bound` ticks when it can,
/// never panics, and always returns a valid compact schedule.
pub fn colour_strict1(input: &ColourInput) -> Colouring {
    let t0 = Instant::now();
    let edges = input.edges;
    let (n, mult, lb) = prepare(input);
    let time_limit = input.time_limit.unwrap_or(DEFAULT_TIME);
    let mut stats = ColourStats {
        lower_bound: lb,
        exact: "not_run".into(),
        ..Default::default()
    };

    if let Some(s) = colour_by_structure(n, edges) {
        if s.ticks <= lb && check_rounds(n, edges, &s.rounds).is_ok() {
            stats.method = "structure".into();
            stats.total_s = t0.elapsed().as_secs_f64();
            return Colouring {
                ticks: s.ticks,
                rounds: s.rounds,
                exhaustive: None,
                stats,
            };
        }
    }

    let greedy = greedy_rounds(n, edges);
    stats.greedy_ticks = ticks(&greedy);
    stats.greedy_s = t0.elapsed().as_secs_f64();
    let mut best = Best {
        n,
        edges,
        ticks: ticks(&greedy),
        rounds: greedy.clone(),
        method: "greedy",
    };

    let g = mult.iter().fold(0u64, |a, &b| gcd(a, b));
    if best.ticks > lb && g > 1 {
        gcd_phase(n, edges, g, lb, input.time_limit, &mut best, &mut stats);
    }

    let chunks: u64 = mult.iter().sum();
    let max_m = mult.iter().copied().max().unwrap_or(0);
    if best.ticks > lb && backbone_fits(n, &mult, lb) {
        backbone_phase(n, edges, &mult, lb, &mut best, &mut stats);
    }
    let kempe_fits =
        chunks <= KEMPE_CHUNK_LIMIT && (n as u64).saturating_mul(lb + 1) <= KEMPE_SLOT_LIMIT;
    let mut kempe_done = false;
    if best.ticks > lb && kempe_fits && max_m <= LOW_MULT {
        kempe_phase(n, edges, &mult, lb, &mut best, &mut stats);
        kempe_done = true;
    }
    if best.ticks > lb && edges.len() <= LP_EDGE_LIMIT {
        lp_phase(n, edges, &greedy, lb, time_limit, &mut best, &mut stats);
    }
    if best.ticks > lb && kempe_fits && !kempe_done {
        kempe_phase(n, edges, &mult, lb, &mut best, &mut stats);
    }
    let mut exhaustive = None;
    if best.ticks > lb && chunks.saturating_mul(lb) <= EXACT_CHUNK_COLOURS {
        exhaustive = exact_phase(n, edges, &mult, lb, time_limit, &mut best, &mut stats);
    }

    if check_rounds(n, edges, &best.rounds).is_err() {
        // A bug in a phase: never emit it. The greedy schedule is valid by construction.
        best = Best {
            n,
            edges,
            ticks: ticks(&greedy),
            rounds: greedy,
            method: "greedy",
        };
        exhaustive = None;
    }
    if best.ticks != lb + 1 {
        exhaustive = None;
    }
    stats.method = best.method.into();
    stats.total_s = t0.elapsed().as_secs_f64();
    Colouring {
        ticks: best.ticks,
        rounds: best.rounds,
        exhaustive,
        stats,
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// All multiplicities share the factor `g`: colour the graph with `m_e / g` and
/// repeat every round `g` times. Delta and Gamma scale by `g`, so this is optimal
/// whenever the reduced colouring meets `ceil(LB / g)` and `g` divides `LB`.
fn gcd_phase(
    n: usize,
    edges: &[(u32, u32, u64)],
    g: u64,
    lb: u64,
    time_limit: Option<Duration>,
    best: &mut Best,
    stats: &mut ColourStats,
) {
    let reduced: Vec<(u32, u32, u64)> = edges.iter().map(|&(a, b, m)| (a, b, m / g)).collect();
    let mult: Vec<u64> = reduced.iter().map(|e| e.2).collect();
    let delta = degrees(n, &reduced, &mult).into_iter().max().unwrap_or(0);
    let sub = colour_strict1(&ColourInput {
        n,
        edges: &reduced,
        lower_bound: lb.div_ceil(g),
        delta,
        time_limit,
    });
    stats.gcd = g;
    stats.kempe_moves += sub.stats.kempe_moves;
    let scaled = sub.rounds.into_iter().map(|(r, m)| (r * g, m)).collect();
    best.offer(scaled, "gcd_scaled");
}

/// Compact rounds `(repeat, edge ids)`.
type Rounds = Vec<(u64, Vec<u32>)>;

/// Phase 1b (module docs): heavy pairs (more than [`LOW_MULT`] chunks)
/// coloured by structure, then every light chunk placed by the Kempe search
/// with `lb` colours, which may recolour heavy chunks too.
fn backbone_phase(
    n: usize,
    edges: &[(u32, u32, u64)],
    mult: &[u64],
    lb: u64,
    best: &mut Best,
    stats: &mut ColourStats,
) {
    let t = Instant::now();
    if let Some((rounds, moves)) = backbone_rounds(n, edges, mult, lb) {
        stats.kempe_moves += moves;
        best.offer(rounds, "backbone_kempe");
    }
    stats.kempe_s += t.elapsed().as_secs_f64();
}

/// Whether the backbone phase is worth running: heavy pairs present and the
/// chunk-level search within its memory limits.
fn backbone_fits(n: usize, mult: &[u64], lb: u64) -> bool {
    let chunks: u64 = mult.iter().sum();
    mult.iter().any(|&m| m > LOW_MULT)
        && chunks <= BACKBONE_CHUNK_LIMIT
        && (n as u64).saturating_mul(lb + 1) <= KEMPE_SLOT_LIMIT
}

/// The first, cheapest half of [`backbone_may_apply`] (one pass, no
/// colouring): some pair heavy, and the size limits hold for the bound
/// `delta`. False means the backbone cannot apply.
pub fn backbone_may_fit(n: usize, edges: &[(u32, u32, u64)], delta: u64) -> bool {
    let mult: Vec<u64> = edges.iter().map(|e| e.2).collect();
    backbone_fits(n, &mult, delta)
}

/// Whether [`colour_backbone`] can apply to `edges` (multiplicities in
/// the third field) on `n` slots of maximum degree `delta`: the size limits
/// hold for the smallest bound it may be given (`delta`), and the heavy
/// pairs, some but not all, are coloured by structure. A cheap test (one
/// pass, and the structure colouring of the heavy pairs) that lets a caller
/// skip computing the bound where the backbone cannot apply (a dense graph
/// of mixed multiplicities: the heavy pairs are not paths, cycles or
/// uniform cliques).
pub fn backbone_may_apply(n: usize, edges: &[(u32, u32, u64)], delta: u64) -> bool {
    let mult: Vec<u64> = edges.iter().map(|e| e.2).collect();
    if !backbone_fits(n, &mult, delta) {
        return false;
    }
    heavy_backbone(n, edges, &mult).is_some()
}

/// The heavy pairs (multiplicity above [`LOW_MULT`]; indices into `edges`)
/// and their structure colouring, when some but not all pairs are heavy and
/// the heavy ones are paths, cycles or uniform cliques.
fn heavy_backbone(
    n: usize,
    edges: &[(u32, u32, u64)],
    mult: &[u64],
) -> Option<(Vec<usize>, StructureColouring)> {
    let heavy: Vec<usize> = (0..edges.len()).filter(|&e| mult[e] > LOW_MULT).collect();
    if heavy.is_empty() || heavy.len() == edges.len() {
        return None;
    }
    let heavy_edges: Vec<(u32, u32, u64)> = heavy.iter().map(|&e| edges[e]).collect();
    let backbone = colour_by_structure(n, &heavy_edges)?;
    Some((heavy, backbone))
}

/// The backbone colouring's rounds (possibly above `lb`) and the Kempe
/// moves spent; `None` when the heavy pairs are not coloured by structure
/// within `lb` colours.
fn backbone_rounds(
    n: usize,
    edges: &[(u32, u32, u64)],
    mult: &[u64],
    lb: u64,
) -> Option<(Rounds, u64)> {
    let (heavy, backbone) = heavy_backbone(n, edges, mult)?;
    if backbone.ticks > lb {
        return None;
    }
    let (chunks, owner) = expand_chunks(edges, mult);
    // Chunks of edge e are next[e].. in `chunks` (expand_chunks keeps edge order).
    let mut next = vec![0usize; edges.len()];
    let mut at = 0usize;
    for (e, &m) in mult.iter().enumerate() {
        next[e] = at;
        at += m as usize;
    }
    let mut initial = vec![u32::MAX; chunks.len()];
    let mut colour = 0u32;
    for (repeat, round) in &backbone.rounds {
        for _ in 0..*repeat {
            for &h in round {
                let e = heavy[h as usize];
                initial[next[e]] = colour;
                next[e] += 1;
            }
            colour += 1;
        }
    }
    let light: u64 = mult.iter().filter(|&&m| m <= LOW_MULT).sum();
    let moves = MOVES_PER_CHUNK * light + 10_000;
    let k = colour_chunks_from(
        n,
        &chunks,
        lb as u32,
        &initial,
        moves,
        0x2545_f491_4f6c_dd1d,
    );
    Some((classes_to_rounds(&k.colour, &owner), k.moves))
}

/// Phase 1b on its own, for callers that have only a cheap lower bound: the
/// backbone colouring when it meets `input.lower_bound` (then no other phase
/// could do better), re-checked; `None` otherwise.
pub fn colour_backbone(input: &ColourInput) -> Option<Colouring> {
    let t0 = Instant::now();
    let edges = input.edges;
    let (n, mult, lb) = prepare(input);
    if !backbone_fits(n, &mult, lb) {
        return None;
    }
    let (rounds, moves) = backbone_rounds(n, edges, &mult, lb)?;
    if ticks(&rounds) > lb || check_rounds(n, edges, &rounds).is_err() {
        return None;
    }
    let total_s = t0.elapsed().as_secs_f64();
    Some(Colouring {
        ticks: ticks(&rounds),
        rounds,
        exhaustive: None,
        stats: ColourStats {
            lower_bound: lb,
            exact: "not_run".into(),
            method: "backbone_kempe".into(),
            kempe_moves: moves,
            kempe_s: total_s,
            total_s,
            ..Default::default()
        },
    })
}

fn kempe_phase(
    n: usize,
    edges: &[(u32, u32, u64)],
    mult: &[u64],
    lb: u64,
    best: &mut Best,
    stats: &mut ColourStats,
) {
    let t = Instant::now();
    let (chunks, owner) = expand_chunks(edges, mult);
    let moves = MOVES_PER_CHUNK * chunks.len() as u64 + 10_000;
    let mut k = colour_chunks(n, &chunks, lb as u32, moves, 0x2545_f491_4f6c_dd1d);
    stats.kempe_moves += k.moves;
    if k.colours as u64 > lb + 1 {
        let k2 = colour_chunks(n, &chunks, lb as u32 + 1, moves, 0x2545_f491_4f6c_dd1d);
        stats.kempe_moves += k2.moves;
        if k2.colours < k.colours {
            k = k2;
        }
    }
    stats.kempe_ticks = Some(k.colours as u64);
    best.offer(classes_to_rounds(&k.colour, &owner), "kempe");
    stats.kempe_s += t.elapsed().as_secs_f64();
}

fn lp_phase(
    n: usize,
    edges: &[(u32, u32, u64)],
    greedy: &[(u64, Vec<u32>)],
    lb: u64,
    time_limit: Duration,
    best: &mut Best,
    stats: &mut ColourStats,
) {
    let t = Instant::now();
    // The LP gets `time_limit`, the repair `time_limit / 2`, one residual ILP a fifth.
    let (lp_time, ilp_time) = (time_limit, time_limit / 5);
    let mut start: Vec<Vec<u32>> = merge_rounds(greedy.iter().cloned())
        .into_iter()
        .map(|r| r.1)
        .collect();
    start.extend(sketch_columns(n, edges));
    let lp = fractional_colouring(n, edges, &start, lb as f64, LP_MAX_ROUNDS, lp_time);
    stats.lp_s = t.elapsed().as_secs_f64();
    let Some(lp) = lp else { return };
    stats.lp_value = Some(lp.value);
    stats.lp_optimal = lp.optimal;
    stats.lp_columns = lp.columns.len() as u64;
    stats.pricing_rounds = lp.pricing_rounds;
    stats.lp_iterations = lp.iterations;
    let t = Instant::now();
    let deadline = t + time_limit / 2;
    if let Some(r) = round_and_repair(
        n,
        edges,
        &lp.columns,
        &lp.y,
        lb,
        ilp_time,
        deadline,
        MOVES_PER_CHUNK,
        stats,
    ) {
        stats.lp_round_ticks = Some(ticks(&r));
        best.offer(r, "lp_round");
    }
    stats.round_s = t.elapsed().as_secs_f64();
}

/// Start columns from a sketch: the colour classes of a Kempe colouring of the
/// multigraph with multiplicities scaled down to at most 4 (proportions kept).
/// They are near-optimal matchings for the LP and cost O(4 |E|) chunks, whatever
/// the multiplicities.
fn sketch_columns(n: usize, edges: &[(u32, u32, u64)]) -> Vec<Vec<u32>> {
    let max_m = edges.iter().map(|e| e.2).max().unwrap_or(1);
    let s = max_m.div_ceil(4).max(1);
    let small: Vec<u64> = edges.iter().map(|e| e.2.div_ceil(s)).collect();
    let (chunks, owner) = expand_chunks(edges, &small);
    if chunks.len() as u64 > KEMPE_CHUNK_LIMIT {
        return Vec::new();
    }
    let d = degrees(n, edges, &small).into_iter().max().unwrap_or(0);
    if (n as u64).saturating_mul(d + 1) > KEMPE_SLOT_LIMIT {
        return Vec::new();
    }
    let k = colour_chunks(n, &chunks, d as u32, 20 * chunks.len() as u64, 0x5bd1_e995);
    classes_to_rounds(&k.colour, &owner)
        .into_iter()
        .map(|r| r.1)
        .collect()
}

fn exact_phase(
    n: usize,
    edges: &[(u32, u32, u64)],
    mult: &[u64],
    lb: u64,
    time_limit: Duration,
    best: &mut Best,
    stats: &mut ColourStats,
) -> Option<ExhaustiveProof> {
    let t = Instant::now();
    let (out, info) = t_colourable(n, edges, mult, lb, time_limit, EXACT_VARS);
    stats.exact_s = t.elapsed().as_secs_f64();
    match out {
        IlpOutcome::Feasible(r) => {
            stats.exact = "feasible".into();
            best.offer(merge_rounds(r), "exact_ilp");
            None
        }
        IlpOutcome::Infeasible => {
            stats.exact = "infeasible".into();
            if best.ticks > lb + 1 && info.variables + edges.len() as u64 <= EXACT_VARS {
                if let (IlpOutcome::Feasible(r), _) =
                    t_colourable(n, edges, mult, lb + 1, time_limit, EXACT_VARS)
                {
                    best.offer(merge_rounds(r), "exact_ilp");
                }
            }
            let fixed = info.fixed_vertex.map_or(String::new(), |v| {
                format!(", chunks at slot {v} fixed to colours 0..deg")
            });
            Some(ExhaustiveProof {
                method: format!(
                    "HiGHS MIP: {lb}-edge-colouring assignment model infeasible{fixed}"
                ),
                variables: info.variables,
                constraints: info.constraints,
                nodes: info.nodes,
                seconds: info.seconds,
            })
        }
        IlpOutcome::Unknown(why) => {
            stats.exact = if why.contains("too large") {
                "too_large".into()
            } else {
                format!("unknown: {why}")
            };
            None
        }
    }
}
