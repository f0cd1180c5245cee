//! What an import may allocate, checked against [`Limits`] before it does.
//!
//! A traffic matrix checks its width and non-zero cells while it reads
//! ([`super::matrix::read_matrix`]), a p2p-json program its slots and
//! demands as its instance is built ([`super::p2p_json::import`]). An MSCCL
//! program is checked here, once parsed: a few attributes (`o_chunks`,
//! `cnt`) can ask for far more memory than the file takes, since the
//! importer follows every chunk of every buffer and every step.

use super::msccl_xml::Program;
use super::InteropError;
use crate::instance::Limits;

/// Refuses an MSCCL program with more gpus than `limits.max_slots`, or
/// whose buffers (input, output and scratch chunks of every gpu) or steps
/// (the sum of their `cnt`) hold more chunks than `limits.max_demands`:
/// every chunk moved is a demand row of the instance (as a demands CSV would
/// list it), and every buffer chunk one the importer tracks. Linear in the
/// program's size.
pub fn check_program_size(p: &Program, limits: &Limits) -> Result<(), InteropError> {
    if p.gpus.len() as u64 > limits.max_slots as u64 {
        return Err(InteropError::Invalid(format!(
            "{} gpus exceed {}",
            p.gpus.len(),
            limits.slots_limit()
        )));
    }
    let buffers = p.gpus.iter().fold(0u64, |n, g| {
        n.saturating_add(g.i_chunks)
            .saturating_add(g.o_chunks)
            .saturating_add(g.s_chunks)
    });
    let moved = p
        .gpus
        .iter()
        .flat_map(|g| &g.tbs)
        .flat_map(|t| &t.steps)
        .fold(0u64, |n, s| n.saturating_add(s.cnt as u64));
    for (what, n) in [("buffers hold", buffers), ("steps move", moved)] {
        if n > limits.max_demands {
            return Err(InteropError::Invalid(format!(
                "the program's {what} {n} chunks, above {}",
                limits.demands_limit()
            )));
        }
    }
    Ok(())
}
