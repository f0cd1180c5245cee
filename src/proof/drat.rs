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
//! Unit propagation uses two watched literals over a persistent root level
//! (unit clauses and their consequences stay assigned), so no check
//! rescans the unit clauses; every clause visit, literal and byte is
//! charged to the verify budget ([`Work`]), and running out of it is a
//! refusal, never a pass.
//!
//! The DIMACS CNF and the DRAT text can be written to files
//! (`tickopt verify --emit-proof DIR`) and checked with drat-trim too.

use super::cnf::{cnf_size, colourable_cnf};
use super::{ProofError, Work};
use crate::instance::Instance;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Largest DRAT text accepted.
pub const MAX_DRAT_BYTES: usize = 64 << 20;
/// Work units charged per CNF literal before the CNF is built: a literal
/// costs about this many bytes in the checker's database, so the budget
/// bounds memory as well as time.
pub const LITERAL_WORK: u64 = 64;
/// Work units charged per byte of DRAT text before it is parsed (a parsed
/// step costs about this many bytes per byte of text).
pub const DRAT_BYTE_WORK: u64 = 16;

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

/// Checks `proof` against the CNF re-derived from `inst` and `ticks`,
/// charging every step to `work`: the CNF's literals (weighted by
/// [`LITERAL_WORK`], priced before anything is built), the DRAT text's
/// bytes and every clause visit of unit propagation.
pub fn check(
    inst: &Instance,
    ticks: u64,
    proof: &DratProof,
    work: &mut Work,
) -> Result<Vec<String>, ProofError> {
    let size = cnf_size(inst, ticks)?;
    work.charge(
        size.literals.saturating_mul(LITERAL_WORK),
        &format!(
            "the CNF would have {} variables and {} literals",
            size.variables, size.literals
        ),
    )?;
    work.charge(
        (proof.drat.len() as u64).saturating_mul(DRAT_BYTE_WORK),
        &format!("a DRAT text of {} bytes", proof.drat.len()),
    )?;
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
    let sha = cnf.sha256();
    if proof.cnf_sha256 != sha {
        return Err(ProofError::Invalid(format!(
            "cnf_sha256 {} is not the SHA-256 of the re-derived CNF ({sha})",
            proof.cnf_sha256
        )));
    }
    out.push(format!(
        "cnf_sha256 equals the re-derived CNF's ({})",
        &sha[..16]
    ));
    let steps = parse_drat(&proof.drat, cnf.variables)?;
    let added = steps.iter().filter(|s| matches!(s, Step::Add(_))).count() as u64;
    if added != proof.lemmas {
        return Err(ProofError::Invalid(format!(
            "lemmas {} does not match the DRAT text, which adds {added} clauses",
            proof.lemmas
        )));
    }
    let variables = cnf.variables;
    let lemmas = check_refutation(cnf.clauses, variables, &steps, work)?;
    out.push(format!(
        "DRAT refutation checked by forward RUP: {lemmas} lemmas used of {added} (lemmas field equal), empty clause derived"
    ));
    Ok(out)
}

/// Forward-checks that `steps` refute `clauses`; returns the number of
/// lemmas checked before the empty clause was derived.
pub fn check_refutation(
    clauses: Vec<Vec<i32>>,
    variables: u32,
    steps: &[Step],
    work: &mut Work,
) -> Result<u64, ProofError> {
    let mut db = Db::new(variables);
    for c in clauses {
        db.add(c, work)?;
    }
    let mut lemmas = 0u64;
    for (k, step) in steps.iter().enumerate() {
        if db.has_empty {
            break;
        }
        match step {
            Step::Add(c) => {
                if !db.rup(c, work)? {
                    return Err(ProofError::Invalid(format!(
                        "proof step {} (lemma {:?}) is not a unit-propagation consequence",
                        k + 1,
                        c
                    )));
                }
                lemmas += 1;
                db.add(c.clone(), work)?;
            }
            Step::Delete(c) => db.delete(c, work)?,
        }
    }
    if db.has_empty || db.rup(&[], work)? {
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

/// The clause database with two watched literals per clause and a
/// persistent root level: unit clauses (never deleted, as in drat-trim)
/// and everything they propagate stay assigned between checks, so each
/// check propagates only from the lemma's negation. Keeping a root
/// consequence after a deletion is sound: every clause in the database is
/// implied by the CNF, so propagation over more of them proves nothing
/// false. Watches sit on literals not false at the root, so the two-watch
/// invariant holds at the root and survives undoing each check.
struct Db {
    clauses: Vec<Vec<i32>>,
    alive: Vec<bool>,
    watches: Vec<Vec<usize>>,
    /// Clause ids by a hash of the sorted clause, for deletions.
    index: HashMap<u64, Vec<usize>>,
    has_empty: bool,
    value: Vec<i8>,
    trail: Vec<i32>,
    /// Length of the root part of `trail`.
    root: usize,
}

impl Db {
    fn new(variables: u32) -> Db {
        let n = variables as usize + 1;
        Db {
            clauses: Vec::new(),
            alive: Vec::new(),
            watches: vec![Vec::new(); 2 * n],
            index: HashMap::new(),
            has_empty: false,
            value: vec![0; n],
            trail: Vec::new(),
            root: 0,
        }
    }

    fn normalise(mut c: Vec<i32>) -> Vec<i32> {
        c.sort_unstable_by_key(|&l| (l.unsigned_abs(), l < 0));
        c.dedup();
        c
    }

    fn hash(c: &[i32]) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        c.hash(&mut h);
        h.finish()
    }

    fn val(&self, l: i32) -> i8 {
        let v = self.value[l.unsigned_abs() as usize];
        if l < 0 {
            -v
        } else {
            v
        }
    }

    /// Adds a clause at the root: watched on two literals not false there;
    /// a clause with one such literal propagates it (persistently), one
    /// with none derives the empty clause.
    fn add(&mut self, c: Vec<i32>, work: &mut Work) -> Result<(), ProofError> {
        work.charge(c.len() as u64 + 1, "adding clauses")?;
        let mut c = Self::normalise(c);
        if c.windows(2).any(|w| w[0] == -w[1]) {
            return Ok(()); // a tautology adds nothing
        }
        if self.has_empty {
            return Ok(());
        }
        // Non-false literals first (stable, so the order is deterministic).
        let free = {
            let (mut a, mut b): (Vec<i32>, Vec<i32>) = c.iter().partition(|&&l| self.val(l) != -1);
            let n = a.len();
            a.append(&mut b);
            c = a;
            n
        };
        let id = self.clauses.len();
        self.index
            .entry(Self::hash(&Self::normalise(c.clone())))
            .or_default()
            .push(id);
        if c.len() >= 2 {
            self.watches[code(c[0])].push(id);
            self.watches[code(c[1])].push(id);
        }
        let first = c.first().copied();
        self.clauses.push(c);
        self.alive.push(true);
        match (free, first) {
            (0, _) => self.has_empty = true,
            (1, Some(l)) if self.val(l) == 0 => {
                self.assign(l);
                if self.propagate(work)? {
                    self.has_empty = true;
                }
                self.root = self.trail.len();
            }
            _ => {}
        }
        Ok(())
    }

    fn delete(&mut self, c: &[i32], work: &mut Work) -> Result<(), ProofError> {
        work.charge(c.len() as u64 + 1, "deleting clauses")?;
        let k = Self::normalise(c.to_vec());
        if k.len() <= 1 {
            return Ok(());
        }
        let clauses = &self.clauses;
        if let Some(ids) = self.index.get_mut(&Self::hash(&k)) {
            if let Some(pos) = ids
                .iter()
                .rposition(|&id| Self::normalise(clauses[id].clone()) == k)
            {
                let id = ids.remove(pos);
                self.alive[id] = false;
            }
        }
        Ok(())
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

    /// Whether `lemma` follows by unit propagation from the live clauses
    /// and the root assignment.
    fn rup(&mut self, lemma: &[i32], work: &mut Work) -> Result<bool, ProofError> {
        work.charge(lemma.len() as u64 + 1, "checking lemmas")?;
        let mut conflict = false;
        for &l in lemma {
            if !self.assign(-l) {
                conflict = true; // l is true at the root, or the lemma holds l and -l
                break;
            }
        }
        let conflict = match conflict {
            true => Ok(true),
            false => self.propagate(work),
        };
        for &l in &self.trail[self.root..] {
            self.value[l.unsigned_abs() as usize] = 0;
        }
        self.trail.truncate(self.root);
        conflict
    }

    /// Unit propagation over the trail from its first unpropagated
    /// literal (the root's end, or where the last root propagation
    /// stopped); true on a conflict.
    fn propagate(&mut self, work: &mut Work) -> Result<bool, ProofError> {
        let mut head = self.root;
        while head < self.trail.len() {
            let p = self.trail[head];
            head += 1;
            let false_lit = -p;
            let mut ws = std::mem::take(&mut self.watches[code(false_lit)]);
            work.charge(ws.len() as u64 + 1, "unit propagation")?;
            let mut i = 0;
            let mut conflict = false;
            while i < ws.len() {
                let id = ws[i];
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
                work.charge(c.len() as u64, "unit propagation")?;
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
                return Ok(true);
            }
        }
        Ok(false)
    }
}
