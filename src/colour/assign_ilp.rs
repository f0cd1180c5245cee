//! Exact "do `T` colours suffice?" decision by a HiGHS MIP (exponential worst
//! case, bounded by a time limit).
//!
//! Variables `x[e][c]` in {0, 1} for every edge with positive multiplicity and
//! colour `c < T`; rows `sum_c x[e][c] = m_e` and, per vertex and colour,
//! `sum_{e at v} x[e][c] <= 1`. Symmetry breaking (valid for any instance):
//! colours are interchangeable and the chunks at one vertex all get distinct
//! colours, so the chunks at a vertex of largest degree are fixed to colours
//! `0..deg` in edge order. Used on the LP residual and as the exhaustive proof.

use highs::{ColProblem, HighsModelStatus, Row, Sense};
use std::time::{Duration, Instant};

/// Outcome of [`t_colourable`].
#[derive(Clone, Debug)]
pub enum IlpOutcome {
    /// A colouring with at most `T` colours, as rounds of repeat 1 (not merged).
    Feasible(Vec<(u64, Vec<u32>)>),
    /// HiGHS proved that `T` colours do not suffice.
    Infeasible,
    /// Time limit, HiGHS error or model too large: nothing is known.
    Unknown(String),
}

/// Size and effort of one MIP solve.
#[derive(Clone, Debug, Default)]
pub struct IlpInfo {
    /// Binary variables.
    pub variables: u64,
    /// Rows.
    pub constraints: u64,
    /// Branch-and-bound nodes.
    pub nodes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Vertex whose chunks were fixed to colours `0..deg`.
    pub fixed_vertex: Option<u32>,
}

/// Decides whether the multigraph `(edges, mult)` is `t`-edge-colourable.
/// `max_vars` caps the model size (beyond it: `Unknown`). Never panics.
pub fn t_colourable(
    n: usize,
    edges: &[(u32, u32, u64)],
    mult: &[u64],
    t: u64,
    time_limit: Duration,
    max_vars: u64,
) -> (IlpOutcome, IlpInfo) {
    let start = Instant::now();
    let live: Vec<usize> = (0..edges.len()).filter(|&e| mult[e] > 0).collect();
    let info = IlpInfo {
        variables: live.len() as u64 * t,
        ..Default::default()
    };
    if live.is_empty() {
        return (IlpOutcome::Feasible(Vec::new()), info);
    }
    if live.iter().any(|&e| mult[e] > t) {
        return (IlpOutcome::Infeasible, info);
    }
    if info.variables > max_vars {
        return (IlpOutcome::Unknown("model too large".into()), info);
    }
    let out =
        std::panic::catch_unwind(|| solve(n, edges, mult, &live, t, time_limit, &mut info.clone()));
    match out {
        Ok((o, mut i)) => {
            i.seconds = start.elapsed().as_secs_f64();
            (o, i)
        }
        Err(_) => (IlpOutcome::Unknown("HiGHS panicked".into()), info),
    }
}

fn solve(
    n: usize,
    edges: &[(u32, u32, u64)],
    mult: &[u64],
    live: &[usize],
    t: u64,
    time_limit: Duration,
    info: &mut IlpInfo,
) -> (IlpOutcome, IlpInfo) {
    let t = t as usize;
    let mut deg = vec![0u64; n];
    let mut nedges = vec![0u32; n];
    for &e in live {
        let (a, b, _) = edges[e];
        for v in [a as usize, b as usize] {
            deg[v] += mult[e];
            nedges[v] += 1;
        }
    }
    if deg.iter().any(|&d| d > t as u64) {
        return (IlpOutcome::Infeasible, info.clone());
    }
    // Fixed block per edge at the symmetry vertex: colours [lo, hi).
    let fixv = (0..n)
        .max_by_key(|&v| (deg[v], std::cmp::Reverse(v)))
        .unwrap_or(0);
    info.fixed_vertex = Some(fixv as u32);
    let mut block = vec![(0usize, 0usize); edges.len()];
    let mut off = 0usize;
    for &e in live {
        let (a, b, _) = edges[e];
        if a as usize == fixv || b as usize == fixv {
            block[e] = (off, off + mult[e] as usize);
            off += mult[e] as usize;
        }
    }
    let mut pb = ColProblem::default();
    let erow: Vec<Option<Row>> = (0..edges.len())
        .map(|e| (mult[e] > 0).then(|| pb.add_row(mult[e] as f64..=mult[e] as f64)))
        .collect();
    // Vertex-colour rows only where two or more edges meet.
    let mut vrow: Vec<Option<Vec<Row>>> = vec![None; n];
    for v in 0..n {
        if nedges[v] >= 2 {
            vrow[v] = Some((0..t).map(|_| pb.add_row(..=1.0)).collect());
        }
    }
    let mut nrows = live.len() as u64;
    nrows += vrow.iter().flatten().map(|r| r.len() as u64).sum::<u64>();
    for &e in live {
        let (a, b, _) = edges[e];
        let er = erow[e].expect("live edge has a row");
        for c in 0..t {
            let mut f = vec![(er, 1.0)];
            for v in [a as usize, b as usize] {
                if let Some(rs) = &vrow[v] {
                    f.push((rs[c], 1.0));
                }
            }
            let (lo, hi) = block[e];
            let fixed_one = c >= lo && c < hi;
            let fixed_zero = !fixed_one && c < off && (a as usize == fixv || b as usize == fixv);
            let (l, u) = if fixed_one {
                (1.0, 1.0)
            } else if fixed_zero {
                (0.0, 0.0)
            } else {
                (0.0, 1.0)
            };
            pb.add_integer_column(0.0, l..=u, f);
        }
    }
    info.constraints = nrows;
    let mut model = match pb.try_optimise(Sense::Minimise) {
        Ok(m) => m,
        Err(e) => return (IlpOutcome::Unknown(format!("HiGHS: {e:?}")), info.clone()),
    };
    model.set_option("time_limit", time_limit.as_secs_f64().max(0.01));
    model.set_option("threads", 1);
    let solved = match model.try_solve() {
        Ok(s) => s,
        Err(e) => return (IlpOutcome::Unknown(format!("HiGHS: {e:?}")), info.clone()),
    };
    let mut nodes: i64 = 0;
    // SAFETY: valid HiGHS handle owned by `solved`; the key names an int64 info value.
    unsafe {
        highs_sys::Highs_getInt64InfoValue(
            solved.as_ptr() as _,
            c"mip_node_count".as_ptr(),
            &mut nodes,
        );
    }
    info.nodes = nodes.max(0) as u64;
    let outcome = match solved.status() {
        HighsModelStatus::Infeasible => IlpOutcome::Infeasible,
        HighsModelStatus::Optimal => {
            let x = solved.get_solution().columns().to_vec();
            let mut classes: Vec<Vec<u32>> = vec![Vec::new(); t];
            for (i, &e) in live.iter().enumerate() {
                for (c, class) in classes.iter_mut().enumerate() {
                    if x[i * t + c] > 0.5 {
                        class.push(e as u32);
                    }
                }
            }
            IlpOutcome::Feasible(
                classes
                    .into_iter()
                    .filter(|c| !c.is_empty())
                    .map(|c| (1, c))
                    .collect(),
            )
        }
        s => IlpOutcome::Unknown(format!("HiGHS status {s:?}")),
    };
    (outcome, info.clone())
}
