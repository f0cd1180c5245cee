//! STRICT1 with odd ports, exactly (DESIGN.md §11, issue 29): the rails
//! grid proven and verified, brute-force f-colourings on tiny odd-port
//! instances, multi-port DRAT proofs checked and doctored ones refused, and
//! a time limit that ends a multi-port solve with a cut-short status.

use proptest::prelude::*;
use std::time::Duration;
use tickopt::gen::multiport::{generate_multiport, MultiportFamily};
use tickopt::instance::{Demand, Instance, Limits, Model, Ports};
use tickopt::proof::{check_proof, instance_sha256, Proof, ProofBody, DEFAULT_MAX_PROOF_WORK};
use tickopt::solve::{Solution, Status, CUT_SHORT};
use tickopt::validate::validate_compact;
use tickopt::verify::{verify_claim, Claim};
use tickopt::{solve_instance, SolveRequest, SolverChoice};

fn claim_of(sol: &Solution, inst: &Instance) -> Claim {
    Claim::from_value(serde_json::json!({
        "model": inst.model.as_str(), "ticks": sol.ticks,
        "lower_bound": sol.lower_bound.ticks, "status": sol.status,
        "witness": sol.lower_bound.witness, "proof": sol.proof,
    }))
    .unwrap()
}

/// Solves with `auto`, validates, and has `verify` re-check the claim.
fn solve_verified(inst: &Instance, time_limit: Option<Duration>) -> Solution {
    let sol = solve_instance(
        inst,
        &SolveRequest {
            solver: SolverChoice::Auto,
            time_limit,
            ..Default::default()
        },
    )
    .unwrap();
    let report = validate_compact(inst, &sol.schedule);
    assert!(report.passed(), "{}", report.one_line());
    assert_eq!(report.ticks_total, sol.ticks);
    let v = verify_claim(inst, &report, &claim_of(&sol, inst), &Default::default());
    assert!(v.holds, "claim refused: {:?}", v.failures);
    sol
}

fn rails(n: u32, mult: u64) -> Instance {
    generate_multiport(
        &MultiportFamily::Rails { n, rails: 3 },
        Model::Strict1,
        mult,
        1,
        0,
    )
    .unwrap()
}

/// The grid: rails n x 3 for n = 7..13 and multiplicities 1..5,
/// every cell proven optimal and re-checked by `verify`.
#[test]
fn rails_with_three_ports_are_proven_on_the_grid() {
    let mut unproven = Vec::new();
    for n in 7..=13 {
        for mult in 1..=5 {
            let inst = rails(n, mult);
            let sol = solve_verified(&inst, None);
            if !matches!(sol.status, Status::Optimal | Status::OptimalExhaustive) {
                unproven.push((n, mult, sol.ticks, sol.lower_bound.ticks, sol.status));
            }
        }
    }
    assert!(unproven.is_empty(), "not proven: {unproven:?}");
}

/// High multiplicities (hundreds of ticks): column generation over
/// f-matchings, rounded, with the MIP on the residual, reaches the bound.
#[test]
fn rails_at_high_multiplicity_reach_the_bound() {
    for (n, mult) in [(7, 50), (9, 100)] {
        let sol = solve_verified(&rails(n, mult), None);
        assert_eq!(
            sol.status,
            Status::Optimal,
            "rails {n} x 3, mult {mult}: {sol:?}"
        );
        assert_eq!(sol.stats.solver, "multiport-fcolour-colgen");
    }
}

/// Minimum ticks of a tiny STRICT1 instance with ports, by exhaustive
/// search over f-colourings: chunks in order, each to a tick where both
/// ends have a free port; a new tick only as the next unused one.
fn brute_force_f_colouring(inst: &Instance) -> u64 {
    let mut chunks: Vec<(usize, usize)> = Vec::new();
    for (i, d) in inst.demands().iter().enumerate() {
        for _ in 0..inst.chunks(i) {
            chunks.push((d.src as usize, d.dst as usize));
        }
    }
    let n = inst.slots as usize;
    let ports: Vec<u32> = (0..n).map(|v| inst.port(v)).collect();
    fn place(
        k: usize,
        used: usize,
        chunks: &[(usize, usize)],
        load: &mut [Vec<u32>],
        ports: &[u32],
    ) -> bool {
        let Some(&(a, b)) = chunks.get(k) else {
            return true;
        };
        for c in 0..load.len().min(used + 1) {
            if load[c][a] < ports[a] && load[c][b] < ports[b] {
                load[c][a] += 1;
                load[c][b] += 1;
                if place(k + 1, used.max(c + 1), chunks, load, ports) {
                    return true;
                }
                load[c][a] -= 1;
                load[c][b] -= 1;
            }
        }
        false
    }
    (0..=chunks.len() as u64)
        .find(|&t| place(0, 0, &chunks, &mut vec![vec![0; n]; t as usize], &ports))
        .unwrap()
}

fn strict1_with_ports(n: u32, ports: Vec<u32>, demands: &[(u32, u32, u64)]) -> Instance {
    Instance::new_multiport(
        Model::Strict1,
        n,
        1,
        demands
            .iter()
            .map(|&(src, dst, bits)| (Demand { src, dst, bits }, None)),
        Ports::PerSlot(ports),
        &Limits::default(),
    )
    .unwrap()
}

fn odd_port_instance() -> impl Strategy<Value = Instance> {
    (3u32..6).prop_flat_map(|n| {
        (
            proptest::collection::vec(prop_oneof![Just(1u32), Just(3u32), Just(2u32)], n as usize),
            proptest::collection::vec((0..n, 0..n, 1u64..5), 2..8),
        )
            .prop_filter_map("needs an odd port and a few chunks", move |(ports, raw)| {
                let mut seen = std::collections::BTreeSet::new();
                let demands: Vec<(u32, u32, u64)> = raw
                    .into_iter()
                    .filter(|&(s, d, _)| s != d && seen.insert((s, d)))
                    .collect();
                let total: u64 = demands.iter().map(|d| d.2).sum();
                let odd = ports.iter().any(|p| p % 2 == 1) && ports.iter().any(|&p| p > 1);
                (odd && !demands.is_empty() && total <= 11)
                    .then(|| strict1_with_ports(n, ports, &demands))
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]
    /// bound <= ticks == brute-force optimum, and the claim verifies: where
    /// the optimum is the bound + 1 the solve proves it (a DRAT refutation
    /// of the f-colouring CNF, tiny here).
    #[test]
    fn odd_ports_match_brute_force(inst in odd_port_instance()) {
        let sol = solve_verified(&inst, None);
        let best = brute_force_f_colouring(&inst);
        prop_assert!(sol.lower_bound.ticks <= best);
        prop_assert_eq!(sol.ticks, best);
        prop_assert!(
            matches!(sol.status, Status::Optimal | Status::OptimalExhaustive),
            "{:?} at {} ticks, bound {}", sol.status, sol.ticks, sol.lower_bound.ticks
        );
    }
}

/// The Petersen graph with slot 0 at three ports: bound 3 (every other
/// slot has 3 chunks and one port), optimum 4 (the three ports of slot 0
/// do not make the rest 3-colourable), proven by a DRAT refutation of the
/// f-colouring CNF.
fn needs_one_more() -> Instance {
    let mut edges = Vec::new();
    for i in 0..5 {
        edges.push((i, (i + 1) % 5, 1));
        edges.push((i, i + 5, 1));
        edges.push((5 + i, 5 + (i + 2) % 5, 1));
    }
    let mut ports = vec![1; 10];
    ports[0] = 3;
    strict1_with_ports(10, ports, &edges)
}

#[test]
fn a_multiport_proof_is_checked_and_doctored_ones_are_refused() {
    let inst = needs_one_more();
    let sol = solve_verified(&inst, None);
    assert_eq!(sol.ticks, brute_force_f_colouring(&inst));
    assert_eq!(sol.status, Status::OptimalExhaustive, "{sol:?}");
    let proof = sol
        .proof
        .clone()
        .expect("optimal_exhaustive carries a proof");
    assert!(matches!(proof.body, ProofBody::Drat(_)));
    let lb = sol.lower_bound.ticks;
    check_proof(&inst, lb, &proof, DEFAULT_MAX_PROOF_WORK).unwrap();

    // The same demands with other ports: another instance, another hash.
    let more_ports = inst
        .with_ports(Ports::PerSlot([vec![3, 3], vec![1; 8]].concat()))
        .unwrap();
    assert_ne!(instance_sha256(&more_ports), instance_sha256(&inst));
    let err = check_proof(&more_ports, lb, &proof, DEFAULT_MAX_PROOF_WORK).unwrap_err();
    assert!(err.to_string().contains("proof is for instance"), "{err}");
    // Re-bound to the other ports, the DRAT no longer matches their CNF.
    let rebound = Proof {
        instance_sha256: instance_sha256(&more_ports),
        ..proof.clone()
    };
    assert!(check_proof(&more_ports, lb, &rebound, DEFAULT_MAX_PROOF_WORK).is_err());
    // Lemmas dropped: the refutation no longer ends in the empty clause.
    let ProofBody::Drat(drat) = &proof.body else {
        unreachable!()
    };
    let mut cut = drat.clone();
    cut.drat = String::new();
    cut.lemmas = 0;
    let doctored = Proof {
        body: ProofBody::Drat(cut),
        ..proof.clone()
    };
    let err = check_proof(&inst, lb, &doctored, DEFAULT_MAX_PROOF_WORK).unwrap_err();
    assert!(err.to_string().contains("empty clause"), "{err}");
    // Another tick count is refused.
    assert!(check_proof(&inst, lb - 1, &proof, DEFAULT_MAX_PROOF_WORK).is_err());
    // A dual proof does not apply to multi-port slots.
    let dual: ProofBody = serde_json::from_value(serde_json::json!({
        "kind": "dual", "denominator": 1, "weights": [], "tight_matchings": []
    }))
    .unwrap();
    let dual = Proof {
        body: dual,
        ..proof.clone()
    };
    let err = check_proof(&inst, lb, &dual, DEFAULT_MAX_PROOF_WORK).unwrap_err();
    assert!(err.to_string().contains("one-port"), "{err}");
    // verify refuses the doctored claim as a whole.
    let mut claim = claim_of(&sol, &inst);
    claim.proof = Some(doctored);
    let report = validate_compact(&inst, &sol.schedule);
    let v = verify_claim(&inst, &report, &claim, &Default::default());
    assert!(!v.holds);
}

/// The f-colouring CNF is priced exactly before it is built: the verify
/// budget charges what the CNF will hold.
#[test]
fn multiport_cnf_is_priced_exactly() {
    use tickopt::proof::cnf::{cnf_size, colourable_cnf};
    for (n, mult) in [(7, 1), (5, 2)] {
        for t in [3, 5, 8] {
            let inst = rails(n, mult);
            let size = cnf_size(&inst, t).unwrap();
            let cnf = colourable_cnf(&inst, t).unwrap();
            let lits: u64 = cnf.clauses.iter().map(|c| c.len() as u64).sum();
            // The symmetry units (positive literals) are not priced.
            let symmetry = cnf
                .clauses
                .iter()
                .filter(|c| c.len() == 1 && c[0] > 0)
                .count() as u64;
            assert_eq!(size.variables, cnf.variables as u64);
            assert_eq!(size.literals, lits - symmetry);
        }
    }
}

/// A multi-port solve with a time limit of zero (every deadline check
/// fires the first time it is made, whatever the machine's speed) ends
/// with a valid schedule, an honest status and the phases the limit cut
/// short named (rails 7 x 3 at multiplicity 5 needs the f-colouring MIP).
#[test]
fn multiport_time_limit_is_a_status() {
    let inst = rails(7, 5);
    let sol = solve_verified(&inst, Some(Duration::ZERO));
    assert!(sol.ticks >= sol.lower_bound.ticks);
    let cut: Vec<&str> = sol
        .stats
        .details
        .get(CUT_SHORT)
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|p| p.as_str()).collect())
        .unwrap_or_default();
    let mut cut = cut;
    cut.sort();
    assert_eq!(
        cut,
        ["bounds", "exact", "greedy"],
        "{:?}",
        sol.stats.details
    );
    assert_ne!(sol.status, Status::OptimalExhaustive);
    // Without the limit the same instance is proven.
    assert_eq!(solve_verified(&inst, None).status, Status::Optimal);
}
