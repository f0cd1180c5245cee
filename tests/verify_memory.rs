//! Verify's peak memory grows at most linearly with its input (issue 25):
//! on small random claims, a proof check run with a budget proportional to
//! the instance + summary size never allocates more than a constant plus a
//! constant times that size, whatever the claim asks for (huge tick
//! counts, long DRAT texts, degrees that make the CNF cubic).
//!
//! Allocation is counted by a global allocator wrapper, so this file holds
//! only this test (other tests' threads would be counted too).

use proptest::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
mod common;
use tickopt::instance::Model;
use tickopt::proof::cnf::{cnf_size, colourable_cnf};
use tickopt::proof::{check_proof, instance_sha256, Proof};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size(), Relaxed);
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Peak bytes allocated (above what was live before) while `f` runs.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let r = f();
    (r, PEAK.load(Relaxed).saturating_sub(base))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn proof_checks_allocate_linearly_in_their_input(
        slots in 2u32..6,
        demands in prop::collection::vec((0u32..6, 0u32..6, 1u64..60), 1..6),
        lemma_lines in 0usize..2000,
        ticks_delta in 0u64..3,
        dual in any::<bool>(),
    ) {
        let demands: Vec<(u32, u32, u64)> = demands
            .into_iter()
            .map(|(s, d, b)| (s % slots, d % slots, b))
            .filter(|(s, d, _)| s != d)
            .collect();
        prop_assume!(!demands.is_empty());
        let inst = common::instance(Model::Strict1, slots, 1, &demands);
        let chunks: u64 = demands.iter().map(|d| d.2).sum();
        let ticks = chunks / 2 + ticks_delta;
        let body = if dual {
            serde_json::json!({"kind": "dual", "denominator": 1, "weights": [], "tight_matchings": []})
        } else {
            // A DRAT body that matches the CNF where the CNF is small enough
            // to build here, so the whole checker runs on it.
            let (variables, clauses, sha) = match cnf_size(&inst, ticks) {
                Ok(z) if z.literals <= 1_000_000 => {
                    let c = colourable_cnf(&inst, ticks).unwrap();
                    (c.variables, c.clauses.len(), c.sha256())
                }
                _ => (1, 1, "0".to_string()),
            };
            serde_json::json!({"kind": "drat", "cnf_sha256": sha, "variables": variables,
                "clauses": clauses, "lemmas": lemma_lines, "drat": "1 0\n".repeat(lemma_lines)})
        };
        let proof: Proof = serde_json::from_value(serde_json::json!({
            "instance_sha256": instance_sha256(&inst), "refutes_ticks": ticks, "body": body,
        })).unwrap();
        let input_bytes = serde_json::to_string(&proof).unwrap().len()
            + demands.len() * 24
            + 64;
        let budget = 64 * input_bytes as u64;
        let (_, peak) = peak_during(|| check_proof(&inst, ticks, &proof, budget));
        prop_assert!(
            peak as u64 <= 64 * 1024 + 2 * budget,
            "peak {peak} bytes for {input_bytes} input bytes (budget {budget})"
        );
    }
}
