//! Finding proofs that a tick count is infeasible (for `optimal_exhaustive`).
//!
//! Two routes, cheapest first (DESIGN.md §10, [`crate::proof`]):
//! 1. complementary slackness on a small support: the dual that averages the
//!    degree duals of every slot whose degree equals `T` (each weighs 1 on
//!    the slot's pairs, so every matching weighs at most 1 and the average
//!    has value `T`); its tight matchings are those that cover every such
//!    slot. Refutes e.g. Petersen at any multiplicity.
//! 2. a SAT refutation of the colourability CNF by varisat (the
//!    f-colouring CNF with multi-port slots), which writes a
//!    DRAT proof as it solves, for small chunk multigraphs
//!    ([`SAT_MAX_VARIABLES`]).
//!
//! A proof is returned only after [`check_proof`] has accepted it, so a
//! solve never claims what `verify` would refuse.

use crate::instance::{Instance, Model};
use crate::proof::cnf::{colourable_cnf, Cnf};
use crate::proof::drat::DratProof;
use crate::proof::dual::{tight_matchings, DualProof, EdgeWeight, MAX_SUPPORT_EDGES};
use crate::proof::{
    check_proof, instance_sha256, support, Proof, ProofBody, Work, DEFAULT_MAX_PROOF_WORK,
};

/// Largest CNF (variables = chunks x T) handed to the SAT solver: varisat
/// has no time limit, and the refutations that matter (snarks, small
/// odd structures) are far below this.
pub const SAT_MAX_VARIABLES: u64 = 4_000;

/// A checked proof that `inst` has no STRICT1 schedule of `ticks` ticks.
pub fn find_proof(inst: &Instance, ticks: u64) -> Option<Proof> {
    if inst.model != Model::Strict1 {
        return None;
    }
    let sha = instance_sha256(inst);
    let candidates = [dual_proof(inst, ticks), sat_proof(inst, ticks)];
    candidates.into_iter().flatten().find_map(|body| {
        let proof = Proof {
            instance_sha256: sha.clone(),
            refutes_ticks: ticks,
            body,
        };
        check_proof(inst, ticks, &proof, DEFAULT_MAX_PROOF_WORK)
            .ok()
            .map(|_| proof)
    })
}

fn dual_proof(inst: &Instance, ticks: u64) -> Option<ProofBody> {
    // Tight sets of the degree dual are matchings: one port per slot only.
    if !inst.is_single_port() {
        return None;
    }
    let edges = support(inst).ok()?;
    if edges.is_empty() || edges.len() > MAX_SUPPORT_EDGES {
        return None;
    }
    let mut deg = vec![0u64; inst.slots as usize];
    for e in &edges {
        deg[e.a as usize] = deg[e.a as usize].checked_add(e.mult)?;
        deg[e.b as usize] = deg[e.b as usize].checked_add(e.mult)?;
    }
    let full = |v: u32| deg[v as usize] == ticks;
    let k = deg.iter().filter(|&&d| d == ticks).count() as u64;
    if k == 0 {
        return None;
    }
    let num: Vec<u64> = edges
        .iter()
        .map(|e| u64::from(full(e.a)) + u64::from(full(e.b)))
        .collect();
    let tight = tight_matchings(
        &edges,
        &num,
        k,
        inst.slots as usize,
        &mut Work::new(DEFAULT_MAX_PROOF_WORK),
    )
    .ok()?;
    let mut lists: Vec<Vec<[u32; 2]>> = tight
        .iter()
        .map(|m| m.iter().map(|&i| [edges[i].a, edges[i].b]).collect())
        .collect();
    lists.sort();
    Some(ProofBody::Dual(DualProof {
        denominator: k,
        weights: edges
            .iter()
            .zip(&num)
            .filter(|(_, &x)| x > 0)
            .map(|(e, &x)| EdgeWeight {
                a: e.a,
                b: e.b,
                numerator: x,
            })
            .collect(),
        tight_matchings: lists,
    }))
}

fn sat_proof(inst: &Instance, ticks: u64) -> Option<ProofBody> {
    let chunks = inst.total_chunks();
    if chunks.checked_mul(ticks)? > SAT_MAX_VARIABLES {
        return None;
    }
    let cnf = colourable_cnf(inst, ticks).ok()?;
    let drat = refute(&cnf)?;
    Some(ProofBody::Drat(DratProof {
        cnf_sha256: cnf.sha256(),
        variables: cnf.variables,
        clauses: cnf.clauses.len() as u64,
        lemmas: drat
            .lines()
            .filter(|l| !l.starts_with('d') && !l.trim().is_empty())
            .count() as u64,
        drat,
    }))
}

/// Runs varisat on `cnf`; the DRAT text when it is unsatisfiable.
fn refute(cnf: &Cnf) -> Option<String> {
    use varisat::{CnfFormula, ExtendFormula, Lit, ProofFormat, Solver};
    let mut buf: Vec<u8> = Vec::new();
    let unsat = {
        let mut solver = Solver::new();
        solver.write_proof(&mut buf, ProofFormat::Drat);
        let mut f = CnfFormula::new();
        f.set_var_count(cnf.variables as usize);
        for c in &cnf.clauses {
            let lits: Vec<Lit> = c.iter().map(|&l| Lit::from_dimacs(l as isize)).collect();
            f.add_clause(&lits);
        }
        solver.add_formula(&f);
        let sat = solver.solve().ok()?;
        solver.close_proof().ok()?;
        !sat
    };
    if unsat {
        String::from_utf8(buf).ok()
    } else {
        None
    }
}
