//! Exact "do `T` ticks suffice?" for STRICT1 with ports (an f-colouring of
//! the chunk multigraph, f = ports; DESIGN.md §11), by a HiGHS MIP bounded
//! by a deadline.
//!
//! Variables `x[e][c]`: chunks of edge `e` sent in tick `c`, integers in
//! `0..=min(m_e, ports(a), ports(b))` (several rails may carry one pair in a
//! tick). Rows: `sum_c x[e][c] = m_e` per edge, and `sum_{e at v} x[e][c] <=
//! ports(v)` per slot and tick wherever the slot's edges could exceed it.
//! Odd-set rows (valid cuts, DESIGN.md §11): for each given slot set `S`
//! with odd `ports(S)`, at most `floor(ports(S)/2)` transfers inside `S`
//! per tick; the bound's witness set makes the relaxation as strong as the
//! bound, which is what lets the MIP settle tight instances quickly.
//! Symmetry breaking (valid for any instance): ticks are interchangeable, so
//! they may be sorted by the count of one edge, `x[e0][c] >= x[e0][c+1]`
//! (`e0` the edge of largest multiplicity, lowest index on ties).
//!
//! Exponential in the worst case; the model has `edges x T` integer
//! variables, so callers use it where that product is small (a residual, a
//! small support). An "infeasible" from HiGHS is evidence, not a proof
//! (DESIGN.md §10): proofs come from [`crate::proof`].

use highs::{ColProblem, HighsModelStatus, Row, Sense};
use std::time::Instant;

/// Outcome of [`f_colourable`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FOutcome {
    /// Ticks in order; each lists `(edge, chunks)` with `chunks >= 1`.
    Feasible(Vec<Vec<(u32, u64)>>),
    /// HiGHS found the MIP infeasible (evidence only).
    Infeasible,
    /// The deadline stopped the search: nothing is known.
    TimedOut,
    /// HiGHS error or model too large: nothing is known.
    Unknown(String),
}

/// Decides whether the STRICT1 multigraph `edges` (`(a, b, chunks)`, `a !=
/// b`) with `ports[v]` per slot has an f-colouring with `t` ticks, within
/// `deadline` and `max_vars` integer variables. Never panics.
pub(crate) fn f_colourable(
    ports: &[u32],
    edges: &[(u32, u32, u64)],
    odd_sets: &[Vec<u32>],
    t: u64,
    deadline: Instant,
    max_vars: u64,
) -> FOutcome {
    let live: Vec<usize> = (0..edges.len()).filter(|&e| edges[e].2 > 0).collect();
    if live.is_empty() {
        return FOutcome::Feasible(Vec::new());
    }
    let cap = |e: usize| {
        let (a, b, m) = edges[e];
        m.min(ports[a as usize].min(ports[b as usize]) as u64)
    };
    // Necessary conditions first: an edge needs ceil(m/cap) ticks, a slot
    // ceil(d/ports).
    if live.iter().any(|&e| edges[e].2.div_ceil(cap(e)) > t) {
        return FOutcome::Infeasible;
    }
    let mut deg = vec![0u128; ports.len()];
    for &e in &live {
        let (a, b, m) = edges[e];
        deg[a as usize] += m as u128;
        deg[b as usize] += m as u128;
    }
    if (0..ports.len()).any(|v| deg[v] > ports[v] as u128 * t as u128) {
        return FOutcome::Infeasible;
    }
    let vars = (live.len() as u128) * t as u128;
    if vars > max_vars as u128 {
        return FOutcome::Unknown(format!(
            "{vars} variables (limit {max_vars}): model too large"
        ));
    }
    let secs = deadline
        .saturating_duration_since(Instant::now())
        .as_secs_f64();
    if secs <= 0.0 {
        return FOutcome::TimedOut;
    }
    std::panic::catch_unwind(|| solve(ports, edges, odd_sets, &live, t as usize, secs))
        .unwrap_or_else(|_| FOutcome::Unknown("HiGHS panicked".into()))
}

fn solve(
    ports: &[u32],
    edges: &[(u32, u32, u64)],
    odd_sets: &[Vec<u32>],
    live: &[usize],
    t: usize,
    secs: f64,
) -> FOutcome {
    let n = ports.len();
    let cap = |e: usize| {
        let (a, b, m) = edges[e];
        m.min(ports[a as usize].min(ports[b as usize]) as u64)
    };
    // A slot needs rows only where its edges' caps could exceed its ports.
    let mut cap_sum = vec![0u64; n];
    for &e in live {
        let (a, b, _) = edges[e];
        cap_sum[a as usize] += cap(e);
        cap_sum[b as usize] += cap(e);
    }
    let mut pb = ColProblem::default();
    let erow: Vec<Row> = live
        .iter()
        .map(|&e| pb.add_row(edges[e].2 as f64..=edges[e].2 as f64))
        .collect();
    let vrow: Vec<Option<Vec<Row>>> = (0..n)
        .map(|v| {
            (cap_sum[v] > ports[v] as u64)
                .then(|| (0..t).map(|_| pb.add_row(..=ports[v] as f64)).collect())
        })
        .collect();
    // Symmetry rows x[e0][c] - x[e0][c+1] >= 0.
    let e0 = (0..live.len())
        .max_by_key(|&i| (edges[live[i]].2, std::cmp::Reverse(i)))
        .expect("live is not empty");
    let srow: Vec<Row> = (0..t.saturating_sub(1))
        .map(|_| pb.add_row(0.0..))
        .collect();
    // Odd-set rows: at most floor(ports(S)/2) transfers inside S per tick.
    let mut member = vec![Vec::new(); n];
    let orow: Vec<Vec<Row>> = odd_sets
        .iter()
        .enumerate()
        .map(|(k, set)| {
            let p: u64 = set.iter().map(|&v| ports[v as usize] as u64).sum();
            for &v in set {
                member[v as usize].push(k);
            }
            (0..t).map(|_| pb.add_row(..=(p / 2) as f64)).collect()
        })
        .collect();
    for (i, &e) in live.iter().enumerate() {
        let (a, b, _) = edges[e];
        let inside: Vec<usize> = member[a as usize]
            .iter()
            .filter(|k| member[b as usize].contains(k))
            .copied()
            .collect();
        for c in 0..t {
            let mut f = vec![(erow[i], 1.0)];
            f.extend(inside.iter().map(|&k| (orow[k][c], 1.0)));
            for v in [a as usize, b as usize] {
                if let Some(rs) = &vrow[v] {
                    f.push((rs[c], 1.0));
                }
            }
            if i == e0 {
                if c + 1 < t {
                    f.push((srow[c], 1.0));
                }
                if c > 0 {
                    f.push((srow[c - 1], -1.0));
                }
            }
            pb.add_integer_column(0.0, 0.0..=cap(e) as f64, f);
        }
    }
    let mut model = match pb.try_optimise(Sense::Minimise) {
        Ok(m) => m,
        Err(e) => return FOutcome::Unknown(format!("HiGHS: {e:?}")),
    };
    model.set_option("time_limit", secs.max(0.01));
    model.set_option("threads", 1);
    model.set_option("output_flag", false);
    let solved = match model.try_solve() {
        Ok(s) => s,
        Err(e) => return FOutcome::Unknown(format!("HiGHS: {e:?}")),
    };
    match solved.status() {
        HighsModelStatus::Infeasible => FOutcome::Infeasible,
        HighsModelStatus::Optimal => {
            let x = solved.get_solution().columns().to_vec();
            let mut ticks: Vec<Vec<(u32, u64)>> = vec![Vec::new(); t];
            for (i, &e) in live.iter().enumerate() {
                for (c, tick) in ticks.iter_mut().enumerate() {
                    let k = x[i * t + c].round();
                    if k >= 0.5 {
                        tick.push((e as u32, k as u64));
                    }
                }
            }
            FOutcome::Feasible(ticks)
        }
        HighsModelStatus::ReachedTimeLimit => FOutcome::TimedOut,
        s => FOutcome::Unknown(format!("HiGHS status {s:?}")),
    }
}
