//! Complementary-slackness refutations for high multiplicity on a small
//! support (DESIGN.md §10).
//!
//! A dual of the matching LP is a weight `w_e >= 0` per support edge with
//! `w(M) <= 1` for every matching `M`. Any schedule of `T` ticks sends every
//! chunk once, each tick along a matching, so
//! `sum_e m_e w_e = sum_ticks w(M_t) <= T`. If the dual value equals `T`,
//! every tick of a `T`-tick schedule uses a *tight* matching (`w(M) = 1`),
//! and the counts `x_M` of ticks per tight matching solve
//! `sum_{M contains e} x_M = m_e` for every support edge, `sum_M x_M = T`,
//! in non-negative integers. The proof gives `w` (integer numerators over
//! one denominator) and lists the tight matchings; the checker enumerates
//! all matchings of the support graph itself (refusing above a node limit),
//! checks `w(M) <= 1` for each and that the tight ones are exactly the
//! listed ones, and solves the restricted system in exact rationals: no
//! rational solution, or a unique one that is negative or fractional, means
//! no `T`-tick schedule. (Petersen x 1001: `w = 1/5` on every edge, the six
//! perfect matchings are tight, and the unique solution is 1001/2 each.)
//! A dual value above `T` refutes `T` outright.

use super::rational::{solve, Solved, Q};
use super::{support, ProofError, SupportEdge};
use crate::instance::Instance;
use serde::{Deserialize, Serialize};

/// Largest support (distinct slot pairs) the enumeration accepts.
pub const MAX_SUPPORT_EDGES: usize = 64;
/// Largest number of search nodes of the matching enumeration.
pub const MAX_NODES: u64 = 20_000_000;
/// Largest number of tight matchings.
pub const MAX_TIGHT: usize = 2_000;

/// A dual weight: `numerator / denominator` on the pair `{a, b}`, `a < b`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdgeWeight {
    pub a: u32,
    pub b: u32,
    pub numerator: u64,
}

/// A complementary-slackness proof (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DualProof {
    pub denominator: u64,
    /// Pairs not listed weigh 0.
    pub weights: Vec<EdgeWeight>,
    /// The matchings of weight exactly 1, each as sorted `[a, b]` pairs, sorted.
    pub tight_matchings: Vec<Vec<[u32; 2]>>,
}

/// All matchings of weight exactly `den` (as edge-index lists, in
/// enumeration order), or the first matching heavier than `den`.
pub fn tight_matchings(
    edges: &[SupportEdge],
    num: &[u64],
    den: u64,
    slots: usize,
    work: &mut super::Work,
) -> Result<Vec<Vec<usize>>, ProofError> {
    struct Ctx<'a> {
        edges: &'a [SupportEdge],
        num: &'a [u64],
        suffix: Vec<u128>,
        den: u128,
        used: Vec<bool>,
        cur: Vec<usize>,
        found: Vec<Vec<usize>>,
        nodes: u64,
        work: &'a mut super::Work,
    }
    fn go(c: &mut Ctx, i: usize, w: u128) -> Result<(), ProofError> {
        c.nodes += 1;
        c.work
            .charge(1, "enumerating the matchings of the support")?;
        if c.nodes > MAX_NODES {
            return Err(ProofError::TooLarge(format!(
                "enumerating the matchings of the support needs more than {MAX_NODES} nodes"
            )));
        }
        if w > c.den {
            let pairs: Vec<String> = c
                .cur
                .iter()
                .map(|&k| format!("{}-{}", c.edges[k].a, c.edges[k].b))
                .collect();
            return Err(ProofError::Invalid(format!(
                "dual infeasible: matching {{{}}} weighs more than 1",
                pairs.join(", ")
            )));
        }
        if i == c.edges.len() {
            if w == c.den {
                if c.found.len() >= MAX_TIGHT {
                    return Err(ProofError::TooLarge(format!(
                        "more than {MAX_TIGHT} tight matchings"
                    )));
                }
                c.found.push(c.cur.clone());
            }
            return Ok(());
        }
        if w + c.suffix[i] < c.den {
            return Ok(()); // nothing below can be tight or too heavy
        }
        let (a, b) = (c.edges[i].a as usize, c.edges[i].b as usize);
        if !c.used[a] && !c.used[b] {
            c.used[a] = true;
            c.used[b] = true;
            c.cur.push(i);
            go(c, i + 1, w + c.num[i] as u128)?;
            c.cur.pop();
            c.used[a] = false;
            c.used[b] = false;
        }
        go(c, i + 1, w)
    }
    let mut suffix = vec![0u128; edges.len() + 1];
    for i in (0..edges.len()).rev() {
        suffix[i] = suffix[i + 1] + num[i] as u128;
    }
    let mut c = Ctx {
        edges,
        num,
        suffix,
        den: den as u128,
        used: vec![false; slots],
        cur: Vec::new(),
        found: Vec::new(),
        nodes: 0,
        work,
    };
    go(&mut c, 0, 0)?;
    Ok(c.found)
}

/// Checks a dual proof that `inst` has no schedule of `ticks` ticks.
pub fn check(
    inst: &Instance,
    ticks: u64,
    p: &DualProof,
    work: &mut super::Work,
) -> Result<Vec<String>, ProofError> {
    let edges = support(inst)?;
    if edges.len() > MAX_SUPPORT_EDGES {
        return Err(ProofError::TooLarge(format!(
            "support of {} slot pairs (limit {MAX_SUPPORT_EDGES})",
            edges.len()
        )));
    }
    if p.denominator == 0 {
        return Err(ProofError::Invalid("dual denominator is 0".into()));
    }
    let num = dual_weights(&edges, p)?;
    let mut value = 0u128;
    for (e, &x) in edges.iter().zip(&num) {
        value = (e.mult as u128)
            .checked_mul(x as u128)
            .and_then(|v| v.checked_add(value))
            .ok_or(ProofError::Overflow("dual value"))?;
    }
    let target = (ticks as u128)
        .checked_mul(p.denominator as u128)
        .ok_or(ProofError::Overflow("dual value"))?;
    let mut out = Vec::new();
    let tight = tight_matchings(&edges, &num, p.denominator, inst.slots as usize, work)?;
    out.push(format!(
        "dual feasible: every matching of the {}-pair support weighs at most 1 (enumerated)",
        edges.len()
    ));
    if value > target {
        out.push(format!(
            "dual value {}/{} exceeds {ticks}: no schedule of {ticks} ticks",
            value, p.denominator
        ));
        return Ok(out);
    }
    if value < target {
        return Err(ProofError::Invalid(format!(
            "dual value {}/{} is below {ticks}: it restricts nothing",
            value, p.denominator
        )));
    }
    out.push(format!(
        "dual value sum m_e w_e = {ticks}: every {ticks}-tick schedule uses tight matchings only"
    ));
    check_tight_list(&edges, &tight, p)?;
    out.push(format!(
        "tight matchings re-enumerated: {} (equal to the proof's list)",
        tight.len()
    ));
    out.push(restricted_system(&edges, &tight, ticks)?);
    Ok(out)
}

/// The proof's dual weights as numerators per support edge (0 where none
/// is given); every weight on a pair of the instance, none twice.
fn dual_weights(edges: &[SupportEdge], p: &DualProof) -> Result<Vec<u64>, ProofError> {
    let mut num = vec![0u64; edges.len()];
    let mut seen = vec![false; edges.len()];
    for w in &p.weights {
        let k = edges
            .iter()
            .position(|e| e.a == w.a && e.b == w.b)
            .ok_or_else(|| {
                ProofError::Invalid(format!(
                    "dual weight on {}-{}, which is no pair of the instance",
                    w.a, w.b
                ))
            })?;
        if std::mem::replace(&mut seen[k], true) {
            return Err(ProofError::Invalid(format!(
                "dual weight on {}-{} given twice",
                w.a, w.b
            )));
        }
        num[k] = w.numerator;
    }
    Ok(num)
}

/// The proof's list of tight matchings is the enumeration's (as sets of
/// slot pairs, in any order).
fn check_tight_list(
    edges: &[SupportEdge],
    tight: &[Vec<usize>],
    p: &DualProof,
) -> Result<(), ProofError> {
    let pairs =
        |m: &Vec<usize>| -> Vec<[u32; 2]> { m.iter().map(|&k| [edges[k].a, edges[k].b]).collect() };
    let mut listed = p.tight_matchings.clone();
    for m in &mut listed {
        m.sort_unstable();
    }
    listed.sort();
    let mut found: Vec<Vec<[u32; 2]>> = tight.iter().map(pairs).collect();
    found.sort();
    if listed != found {
        return Err(ProofError::Invalid(format!(
            "proof lists {} tight matchings, enumeration finds {} (or different ones)",
            listed.len(),
            found.len()
        )));
    }
    Ok(())
}

/// The restricted system (one row per support edge, one for the tick
/// count; one unknown per tight matching) has no non-negative integer
/// solution: it is inconsistent, or its unique solution is not one.
/// Returns the step's sentence.
fn restricted_system(
    edges: &[SupportEdge],
    tight: &[Vec<usize>],
    ticks: u64,
) -> Result<String, ProofError> {
    // Restricted system: one row per support edge, one for the tick count.
    let k = tight.len();
    let mut a = vec![vec![Q::ZERO; k]; edges.len() + 1];
    let mut b = Vec::with_capacity(edges.len() + 1);
    for (j, m) in tight.iter().enumerate() {
        for &e in m {
            a[e][j] = Q::int(1);
        }
        a[edges.len()][j] = Q::int(1);
    }
    for e in edges {
        b.push(Q::int(e.mult as i128));
    }
    b.push(Q::int(ticks as i128));
    let solved = solve(a, b).ok_or(ProofError::Overflow("the restricted system"))?;
    match solved {
        Solved::Inconsistent => Ok(format!(
            "restricted system ({} equations, {k} unknowns) has no rational solution",
            edges.len() + 1
        )),
        Solved::Unique(x) => {
            let bad = x.iter().find(|q| !q.is_integer() || q.n < 0);
            match bad {
                Some(q) => Ok(format!(
                    "restricted system ({} equations, {k} unknowns) has the unique rational solution with x = {q}: no non-negative integer solution",
                    edges.len() + 1
                )),
                None => Err(ProofError::Invalid(
                    "the restricted system has a non-negative integer solution: it refutes nothing".into(),
                )),
            }
        }
        Solved::Many { rank } => Err(ProofError::Invalid(format!(
            "the restricted system has rank {rank} < {k} unknowns: this route does not refute it"
        ))),
    }
}
