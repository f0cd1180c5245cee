//! The CNF "the STRICT1 chunk multigraph is f-colourable with `T`
//! colours" (T ticks, f = ports: slot `v` in at most `ports(v)` transfers
//! per tick, DESIGN.md §11), re-derived from the instance by anyone who
//! checks a DRAT proof. With one port per slot it is plain edge colouring.
//!
//! Variables: `x(i, c)` = chunk `i` is sent in tick `c`, numbered
//! `i * T + c + 1` (chunks in support order: pairs sorted, each pair's
//! chunks consecutive); then the counter variables of clause group 3.
//! Clauses, in this order:
//! 1. symmetry breaking (unit clauses), sound because ticks are
//!    interchangeable. If some slot has one port: the chunks of the
//!    lowest-numbered one-port slot of maximum degree among the one-port
//!    slots get ticks `0, 1, 2, ...` in chunk order, when its degree is at
//!    most `T` (any colouring, its ticks permuted, gives that slot's
//!    distinct ticks in this order). Otherwise chunk 0 gets tick 0;
//! 2. at least one tick per chunk;
//! 3. per slot `v` and tick `c` (slots ascending, then ticks), at most
//!    `p = ports(v)` of the slot's chunks (`k` of them, in chunk order):
//!    nothing when `k <= p`; pairwise clauses `-x(i,c) -x(j,c)` when
//!    `p = 1`; otherwise Sinz's sequential counter (CP 2005) with
//!    `(k - 1) p` new variables `s(r, j)` ("at least `j` of the first `r`
//!    chunks", `r < k`, `j <= p`, numbered next in `(r, j)` order), and for
//!    the chunk literals `x_1..x_k`: `-x_1 s(1,1)`; `-s(1,j)` for `j > 1`;
//!    for `1 < r < k`: `-x_r s(r,1)`, `-s(r-1,1) s(r,1)`, then for `j > 1`
//!    `-x_r -s(r-1,j-1) s(r,j)` and `-s(r-1,j) s(r,j)`, then
//!    `-x_r -s(r-1,p)`; last `-x_k -s(k-1,p)`.
//!
//! A chunk given two ticks can drop one, so no at-most-one-tick-per-chunk
//! clauses are needed for the refutation to mean "no schedule". Several
//! chunks of one pair may share a tick (several rails).

use super::{support, ProofError};
use crate::instance::Instance;

/// Largest number of variables the encoder builds.
pub const MAX_VARIABLES: u64 = 200_000;
/// Largest number of literals the encoder builds.
pub const MAX_LITERALS: u64 = 20_000_000;

/// A CNF formula in DIMACS numbering (literals are non-zero `i32`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cnf {
    pub variables: u32,
    pub clauses: Vec<Vec<i32>>,
}

impl Cnf {
    /// DIMACS CNF text (what drat-trim and every SAT solver read).
    pub fn to_dimacs(&self) -> String {
        let mut s = format!("p cnf {} {}\n", self.variables, self.clauses.len());
        for c in &self.clauses {
            for l in c {
                s.push_str(&l.to_string());
                s.push(' ');
            }
            s.push_str("0\n");
        }
        s
    }

    /// SHA-256 (hex) of [`Cnf::to_dimacs`].
    pub fn sha256(&self) -> String {
        use sha2::{Digest, Sha256};
        super::hex(&Sha256::digest(self.to_dimacs().as_bytes()))
    }
}

/// The size of [`colourable_cnf`] for an instance and a tick count,
/// computed from the degrees alone (nothing is built), in checked
/// arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CnfSize {
    pub chunks: u64,
    /// All variables: the `chunks x T` tick variables and the counters'.
    pub variables: u64,
    pub literals: u64,
}

/// Prices the CNF before building it (what `verify` charges its budget).
pub fn cnf_size(inst: &Instance, ticks: u64) -> Result<CnfSize, ProofError> {
    Ok(degrees(inst, &support(inst)?, ticks)?.1)
}

/// Literals and new variables of the at-most-`p` clauses over `k` chunk
/// literals for one tick (module docs, clause group 3), checked.
fn at_most_size(k: u64, p: u64) -> Option<(u64, u64)> {
    if k <= p {
        Some((0, 0))
    } else if p == 1 {
        Some((k.checked_mul(k - 1)?, 0))
    } else {
        // first chunk: 2 + (p - 1); middle chunks: 2 + 2 + 5 (p - 1) + 2;
        // last chunk: 2.
        let middle = (k - 2).checked_mul(p.checked_sub(1)?.checked_mul(5)?.checked_add(6)?)?;
        let lits = middle.checked_add(p + 3)?;
        Some((lits, (k - 1).checked_mul(p)?))
    }
}

/// Per-slot chunk counts and the CNF's size.
fn degrees(
    inst: &Instance,
    edges: &[super::SupportEdge],
    t: u64,
) -> Result<(Vec<u64>, CnfSize), ProofError> {
    let mut deg = vec![0u64; inst.slots as usize];
    let mut chunks = 0u64;
    for e in edges {
        for v in [e.a, e.b] {
            let d = deg
                .get_mut(v as usize)
                .ok_or_else(|| ProofError::Invalid(format!("slot {v} out of range")))?;
            *d = d
                .checked_add(e.mult)
                .ok_or(ProofError::Overflow("degree"))?;
        }
        chunks = chunks
            .checked_add(e.mult)
            .ok_or(ProofError::Overflow("chunks"))?;
    }
    let mut vars = chunks
        .checked_mul(t)
        .ok_or(ProofError::Overflow("variables"))?;
    let mut lits = vars; // at-least-one clauses
    for (v, &d) in deg.iter().enumerate() {
        let (l, a) =
            at_most_size(d, inst.port(v) as u64).ok_or(ProofError::Overflow("literals"))?;
        lits = l
            .checked_mul(t)
            .and_then(|x| lits.checked_add(x))
            .ok_or(ProofError::Overflow("literals"))?;
        vars = a
            .checked_mul(t)
            .and_then(|x| vars.checked_add(x))
            .ok_or(ProofError::Overflow("variables"))?;
    }
    Ok((
        deg,
        CnfSize {
            chunks,
            variables: vars,
            literals: lits,
        },
    ))
}

/// Appends the at-most-`p` clauses over `xs` (module docs, group 3),
/// numbering counter variables from `*next`.
fn at_most(xs: &[i32], p: usize, next: &mut i32, clauses: &mut Vec<Vec<i32>>) {
    let k = xs.len();
    if k <= p {
        return;
    }
    if p == 1 {
        for (a, &x) in xs.iter().enumerate() {
            for &y in &xs[a + 1..] {
                clauses.push(vec![-x, -y]);
            }
        }
        return;
    }
    let base = *next;
    // s(r, j), r in 1..k, j in 1..=p.
    let s = |r: usize, j: usize| base + ((r - 1) * p + (j - 1)) as i32;
    *next += ((k - 1) * p) as i32;
    clauses.push(vec![-xs[0], s(1, 1)]);
    for j in 2..=p {
        clauses.push(vec![-s(1, j)]);
    }
    for r in 2..k {
        let x = xs[r - 1];
        clauses.push(vec![-x, s(r, 1)]);
        clauses.push(vec![-s(r - 1, 1), s(r, 1)]);
        for j in 2..=p {
            clauses.push(vec![-x, -s(r - 1, j - 1), s(r, j)]);
            clauses.push(vec![-s(r - 1, j), s(r, j)]);
        }
        clauses.push(vec![-x, -s(r - 1, p)]);
    }
    clauses.push(vec![-xs[k - 1], -s(k - 1, p)]);
}

/// Builds the CNF for `inst` and `ticks`, or refuses above the limits.
pub fn colourable_cnf(inst: &Instance, ticks: u64) -> Result<Cnf, ProofError> {
    let edges = support(inst)?;
    let n = inst.slots as usize;
    let t = ticks;
    // Chunks incident to each slot, and sizes, all checked before building.
    let (deg, size) = degrees(inst, &edges, t)?;
    let (chunks, vars, lits) = (size.chunks, size.variables, size.literals);
    if vars > MAX_VARIABLES {
        return Err(ProofError::TooLarge(format!(
            "the CNF would have {vars} variables (limit {MAX_VARIABLES})"
        )));
    }
    if lits > MAX_LITERALS {
        return Err(ProofError::TooLarge(format!(
            "the CNF would have {lits} literals (limit {MAX_LITERALS})"
        )));
    }
    let var = |chunk: u64, c: u64| (chunk * t + c + 1) as i32;
    let mut incident: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut next = 0u64;
    for e in &edges {
        for _ in 0..e.mult {
            incident[e.a as usize].push(next);
            incident[e.b as usize].push(next);
            next += 1;
        }
    }
    let mut clauses = Vec::new();
    // 1. symmetry breaking.
    let one_port = |v: usize| inst.port(v) == 1;
    let dmax = (0..n).filter(|&v| one_port(v)).map(|v| deg[v]).max();
    match dmax.and_then(|d| (0..n).find(|&v| one_port(v) && deg[v] == d)) {
        Some(v) => {
            if deg[v] <= t {
                for (k, &chunk) in incident[v].iter().enumerate() {
                    clauses.push(vec![var(chunk, k as u64)]);
                }
            }
        }
        None => {
            if chunks > 0 && t > 0 {
                clauses.push(vec![var(0, 0)]);
            }
        }
    }
    // 2. at least one tick per chunk.
    for chunk in 0..chunks {
        clauses.push((0..t).map(|c| var(chunk, c)).collect());
    }
    // 3. at most ports(v) chunks per slot per tick.
    let mut next_var = (chunks * t + 1) as i32;
    for (v, inc) in incident.iter().enumerate() {
        for c in 0..t {
            let xs: Vec<i32> = inc.iter().map(|&i| var(i, c)).collect();
            at_most(&xs, inst.port(v) as usize, &mut next_var, &mut clauses);
        }
    }
    debug_assert_eq!(next_var as u64, vars + 1);
    Ok(Cnf {
        variables: vars as u32, // vars <= MAX_VARIABLES
        clauses,
    })
}
