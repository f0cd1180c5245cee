//! The CNF "the STRICT1 chunk multigraph is edge-colourable with `T`
//! colours" (T ticks), re-derived from the instance by anyone who checks a
//! DRAT proof.
//!
//! Variables: `x(i, c)` = chunk `i` is sent in tick `c`, numbered
//! `i * T + c + 1` (chunks in support order: pairs sorted, each pair's
//! chunks consecutive). Clauses, in this order:
//! 1. symmetry breaking: the chunks of the lowest-numbered slot of maximum
//!    degree get ticks `0, 1, 2, ...` in chunk order (unit clauses). Sound
//!    because ticks are interchangeable: any colouring, its ticks permuted,
//!    gives that slot's distinct ticks in this order;
//! 2. at least one tick per chunk;
//! 3. at most one chunk per slot per tick (pairwise).
//!
//! A chunk given two ticks can drop one, so no at-most-one-tick-per-chunk
//! clauses are needed for the refutation to mean "no schedule".

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
    pub variables: u64,
    pub literals: u64,
}

/// Prices the CNF before building it (what `verify` charges its budget).
pub fn cnf_size(inst: &Instance, ticks: u64) -> Result<CnfSize, ProofError> {
    Ok(degrees(inst, &support(inst)?, ticks)?.1)
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
    let vars = chunks
        .checked_mul(t)
        .ok_or(ProofError::Overflow("variables"))?;
    let mut lits = vars; // at-least-one clauses
    for &d in &deg {
        // pairs * 2 literals * T
        let pairs = d
            .checked_mul(d.saturating_sub(1))
            .ok_or(ProofError::Overflow("literals"))?;
        lits = pairs
            .checked_mul(t)
            .and_then(|p| lits.checked_add(p))
            .ok_or(ProofError::Overflow("literals"))?;
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
    // 1. symmetry breaking at the first slot of maximum degree (if it fits).
    let dmax = deg.iter().copied().max().unwrap_or(0);
    if let Some(v) = deg.iter().position(|&d| d == dmax) {
        if dmax <= t {
            for (k, &chunk) in incident[v].iter().enumerate() {
                clauses.push(vec![var(chunk, k as u64)]);
            }
        }
    }
    // 2. at least one tick per chunk.
    for chunk in 0..chunks {
        clauses.push((0..t).map(|c| var(chunk, c)).collect());
    }
    // 3. at most one chunk per slot per tick.
    for inc in &incident {
        for c in 0..t {
            for (x, &i) in inc.iter().enumerate() {
                for &j in &inc[x + 1..] {
                    clauses.push(vec![-var(i, c), -var(j, c)]);
                }
            }
        }
    }
    Ok(Cnf {
        variables: vars as u32, // vars <= MAX_VARIABLES
        clauses,
    })
}
