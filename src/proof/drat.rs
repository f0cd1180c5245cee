//! DRAT refutations of the colourability CNF, and a forward checker of the
//! project's own.
//!
//! The checker is the textbook forward DRUP check (Heule, Hunt, Wetzler,
//! "Trimming while checking clausal proofs", FMCAD 2013, without the
//! backward trimming): every added lemma must be a reverse unit propagation
//! (RUP) consequence of the original clauses and the lemmas before it;
//! deletions remove a clause (deleting unit clauses is ignored, as
//! drat-trim does; ignoring a deletion is always sound); the proof must end
//! with the empty clause derivable. RAT steps are not accepted: the solver
//! used here (varisat) emits none, and a lemma that is not RUP is a refusal.
//! Unit propagation uses two watched literals; the watches stay valid
//! because every check starts from the empty assignment.
//!
//! The DIMACS CNF and the DRAT text can be written to files
//! (`tickopt verify --emit-proof DIR`) and checked with drat-trim too.

use super::cnf::colourable_cnf;
use super::ProofError;
use crate::instance::Instance;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Largest DRAT text accepted.
pub const MAX_DRAT_BYTES: usize = 64 << 20;
/// Largest number of clause visits during propagation, over the whole check.
pub const MAX_PROPAGATION_WORK: u64 = 4_000_000_000;

/// A DRAT refutation of [`colourable_cnf`] for the proof's instance and ticks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DratProof {
    /// SHA-256 of the DIMACS text of the CNF the solver refuted.
    pub cnf_sha256: String,
    pub variables: u32,
    pub clauses: u64,
    /// Number of added lemmas in `drat`.
    pub lemmas: u64,
    /// The DRAT text (`d` lines delete, others add; each ends with `0`).
    pub drat: String,
}

/// One step of a DRAT proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Add(Vec<i32>),
    Delete(Vec<i32>),
}

/// Parses DRAT text; every literal must name a variable `1..=variables`.
pub fn parse_drat(text: &str, variables: u32) -> Result<Vec<Step>, ProofError> {
    if text.len() > MAX_DRAT_BYTES {
        return Err(ProofError::TooLarge(format!(
            "DRAT proof of {} bytes (limit {MAX_DRAT_BYTES})",
            text.len()
        )));
    }
    let mut steps = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('c') {
            continue;
        }
        let (delete, rest) = match line.strip_prefix('d') {
            Some(r) => (true, r),
            None => (false, line),
        };
        let mut lits = Vec::new();
        let mut ended = false;
        for tok in rest.split_whitespace() {
            if ended {
                return Err(ProofError::Invalid(format!(
                    "DRAT line {}: text after the closing 0",
                    i + 1
                )));
            }
            let l: i64 = tok.parse().map_err(|_| {
                ProofError::Invalid(format!("DRAT line {}: {tok:?} is not a literal", i + 1))
            })?;
            if l == 0 {
                ended = true;
                continue;
            }
            if l.unsigned_abs() > variables as u64 {
                return Err(ProofError::Invalid(format!(
                    "DRAT line {}: literal {l} names no variable of the CNF (1..={variables})",
                    i + 1
                )));
            }
            lits.push(l as i32);
        }
        if !ended {
            return Err(ProofError::Invalid(format!(
                "DRAT line {}: clause not closed by 0",
                i + 1
            )));
        }
        steps.push(if delete {
            Step::Delete(lits)
        } else {
            Step::Add(lits)
        });
    }
    Ok(steps)
}

/// Checks `proof` against the CNF re-derived from `inst` and `ticks`.
pub fn check(inst: &Instance, ticks: u64, proof: &DratProof) -> Result<Vec<String>, ProofError> {
    let cnf = colourable_cnf(inst, ticks)?;
    let mut out = vec![format!(
        "CNF re-derived from the instance: {} variables, {} clauses (colourable in {ticks} ticks)",
        cnf.variables,
        cnf.clauses.len()
    )];
    if cnf.variables != proof.variables || cnf.clauses.len() as u64 != proof.clauses {
        return Err(ProofError::Invalid(format!(
            "proof was made for a CNF of {} variables and {} clauses, the instance gives {} and {}",
            proof.variables,
            proof.clauses,
            cnf.variables,
            cnf.clauses.len()
        )));
    }
    let steps = parse_drat(&proof.drat, cnf.variables)?;
    let lemmas = check_refutation(&cnf.clauses, cnf.variables, &steps)?;
    out.push(format!(
        "DRAT refutation checked by forward RUP: {lemmas} lemmas, empty clause derived"
    ));
    Ok(out)
}

/// Forward-checks that `steps` refute `clauses`; returns the lemma count.
pub fn check_refutation(
    clauses: &[Vec<i32>],
    variables: u32,
    steps: &[Step],
) -> Result<u64, ProofError> {
    let mut db = Db::new(variables);
    for c in clauses {
        db.add(c.clone());
    }
    let mut lemmas = 0u64;
    for (k, step) in steps.iter().enumerate() {
        if db.has_empty {
            break;
        }
        match step {
            Step::Add(c) => {
                if !db.rup(c)? {
                    return Err(ProofError::Invalid(format!(
                        "proof step {} (lemma {:?}) is not a unit-propagation consequence",
                        k + 1,
                        c
                    )));
                }
                lemmas += 1;
                db.add(c.clone());
            }
            Step::Delete(c) => db.delete(c),
        }
    }
    if db.has_empty || db.rup(&[])? {
        Ok(lemmas)
    } else {
        Err(ProofError::Invalid(
            "the proof ends without deriving the empty clause".into(),
        ))
    }
}

fn code(l: i32) -> usize {
    // literal v -> 2v, -v -> 2v+1
    (l.unsigned_abs() as usize) * 2 + usize::from(l < 0)
}

struct Db {
    clauses: Vec<Vec<i32>>,
    alive: Vec<bool>,
    watches: Vec<Vec<usize>>,
    units: Vec<usize>,
    index: HashMap<Vec<i32>, Vec<usize>>,
    has_empty: bool,
    value: Vec<i8>,
    trail: Vec<i32>,
    work: u64,
}

impl Db {
    fn new(variables: u32) -> Db {
        let n = variables as usize + 1;
        Db {
            clauses: Vec::new(),
            alive: Vec::new(),
            watches: vec![Vec::new(); 2 * n],
            units: Vec::new(),
            index: HashMap::new(),
            has_empty: false,
            value: vec![0; n],
            trail: Vec::new(),
            work: 0,
        }
    }

    fn key(c: &[i32]) -> Vec<i32> {
        let mut k = c.to_vec();
        k.sort_unstable_by_key(|&l| (l.unsigned_abs(), l < 0));
        k.dedup();
        k
    }

    fn add(&mut self, c: Vec<i32>) {
        let c = Self::key(&c);
        if c.windows(2).any(|w| w[0] == -w[1]) {
            return; // a tautology adds nothing
        }
        let id = self.clauses.len();
        match c.len() {
            0 => self.has_empty = true,
            1 => self.units.push(id),
            _ => {
                self.watches[code(c[0])].push(id);
                self.watches[code(c[1])].push(id);
            }
        }
        self.index.entry(c.clone()).or_default().push(id);
        self.clauses.push(c);
        self.alive.push(true);
    }

    fn delete(&mut self, c: &[i32]) {
        let k = Self::key(c);
        if k.len() <= 1 {
            return;
        }
        if let Some(ids) = self.index.get_mut(&k) {
            if let Some(id) = ids.pop() {
                self.alive[id] = false;
            }
        }
    }

    fn val(&self, l: i32) -> i8 {
        let v = self.value[l.unsigned_abs() as usize];
        if l < 0 {
            -v
        } else {
            v
        }
    }

    /// Assigns `l` true; false if it was already false (a conflict).
    fn assign(&mut self, l: i32) -> bool {
        match self.val(l) {
            1 => true,
            -1 => false,
            _ => {
                self.value[l.unsigned_abs() as usize] = if l < 0 { -1 } else { 1 };
                self.trail.push(l);
                true
            }
        }
    }

    /// Whether `lemma` follows by unit propagation from the live clauses.
    fn rup(&mut self, lemma: &[i32]) -> Result<bool, ProofError> {
        let conflict = self.propagate_from(lemma);
        for &l in &self.trail {
            self.value[l.unsigned_abs() as usize] = 0;
        }
        self.trail.clear();
        if self.work > MAX_PROPAGATION_WORK {
            return Err(ProofError::TooLarge(format!(
                "checking the proof needs more than {MAX_PROPAGATION_WORK} propagation steps"
            )));
        }
        Ok(conflict)
    }

    fn propagate_from(&mut self, lemma: &[i32]) -> bool {
        for &l in lemma {
            if !self.assign(-l) {
                return true; // lemma contains l and -l: a tautology
            }
        }
        for k in 0..self.units.len() {
            let id = self.units[k];
            if self.alive[id] && !self.assign(self.clauses[id][0]) {
                return true;
            }
        }
        let mut head = 0;
        while head < self.trail.len() {
            let p = self.trail[head];
            head += 1;
            let false_lit = -p;
            let mut ws = std::mem::take(&mut self.watches[code(false_lit)]);
            let mut i = 0;
            let mut conflict = false;
            while i < ws.len() {
                let id = ws[i];
                self.work += 1;
                if !self.alive[id] {
                    ws.swap_remove(i);
                    continue;
                }
                let c = &mut self.clauses[id];
                if c[0] == false_lit {
                    c.swap(0, 1);
                }
                let first = c[0];
                let first_val = {
                    let v = self.value[first.unsigned_abs() as usize];
                    if first < 0 {
                        -v
                    } else {
                        v
                    }
                };
                if first_val == 1 {
                    i += 1;
                    continue;
                }
                let mut moved = false;
                for k in 2..c.len() {
                    let l = c[k];
                    let v = self.value[l.unsigned_abs() as usize];
                    let lv = if l < 0 { -v } else { v };
                    if lv != -1 {
                        c.swap(1, k);
                        let nl = c[1];
                        self.watches[code(nl)].push(id);
                        ws.swap_remove(i);
                        moved = true;
                        break;
                    }
                }
                if moved {
                    continue;
                }
                i += 1;
                if first_val == -1 || !self.assign(first) {
                    conflict = true;
                    break;
                }
            }
            let slot = &mut self.watches[code(false_lit)];
            ws.append(slot);
            *slot = ws;
            if conflict {
                return true;
            }
        }
        false
    }
}
