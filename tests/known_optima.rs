//! STRICT1 on the project's test set of known optima (instances/standard):
//! every solve is `optimal` or `optimal_exhaustive`, matches the optimum
//! proven independently (manifest `known_optimum`: König, closed forms for
//! cliques and snarks), and its certificate passes `verify` from the data.

mod common;
use common::*;
use std::path::Path;
use tickopt::bench::manifest::Manifest;
use tickopt::instance::Model;
use tickopt::interop::validate_schedule_file;
use tickopt::schedule::{write_schedule_file, Format};
use tickopt::solve::Status;
use tickopt::verify::{verify_claim, Claim};
use tickopt::{solve_instance, SolveRequest};

#[test]
fn standard_set_strict1_is_proven_optimal_and_verifies() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/standard");
    let manifest = Manifest::load(&dir.join("manifest.json")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut solved = 0;
    let mut with_known = 0;
    for entry in manifest.entries.iter().map(|e| e.as_ref().unwrap()) {
        if !entry.models.contains(&Model::Strict1) {
            continue;
        }
        let inst = common::manifest_instance(&dir, entry, Model::Strict1);
        let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
        assert!(
            matches!(sol.status, Status::Optimal | Status::OptimalExhaustive),
            "{}: {} ticks, lower bound {}, status {}",
            entry.file,
            sol.ticks,
            sol.lower_bound.ticks,
            sol.status
        );
        if let Some(&known) = entry.known_optimum.get(&Model::Strict1) {
            assert_eq!(sol.ticks, known, "{}: known optimum {known}", entry.file);
            with_known += 1;
        }
        // The certificate re-checks from the written files alone.
        let sched = tmp.path().join("s.json");
        write_schedule_file(&inst, &sol.schedule, Format::Compact, &sched).unwrap();
        let report = validate_schedule_file(&inst, &sched).unwrap();
        let claim = Claim::from_value(serde_json::json!({
            "model": "STRICT1", "ticks": sol.ticks, "lower_bound": sol.lower_bound.ticks,
            "status": sol.status, "witness": sol.lower_bound.witness, "proof": sol.proof,
        }))
        .unwrap();
        let v = verify_claim(&inst, &report, &claim, &Default::default());
        assert!(v.holds, "{}: {:?}", entry.file, v.failures);
        solved += 1;
    }
    assert!(
        solved >= 40 && with_known >= 10,
        "{solved} solved, {with_known} with known optima"
    );
}

/// Closed forms: chi'(K_n, multiplicity m) = n*m for odd n; Petersen: 4 at
/// multiplicity 1 (proved by exhaustive search), 6 at multiplicity 2.
#[test]
fn closed_form_optima_through_the_library() {
    for n in [5u32, 7, 9, 11, 13] {
        for m in [1u64, 3, 1000] {
            let mut d = Vec::new();
            for a in 0..n {
                for b in a + 1..n {
                    d.push((a, b, m));
                }
            }
            let inst = instance(Model::Strict1, n, 1, &d);
            let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
            assert_eq!(
                (sol.ticks, sol.status),
                (n as u64 * m, Status::Optimal),
                "K{n} x{m}"
            );
            assert_eq!(sol.lower_bound.witness.kind(), "odd_set");
        }
    }
    let pe: Vec<(u32, u32)> = (0..5)
        .map(|i| (i, (i + 1) % 5))
        .chain((0..5).map(|i| (5 + i, 5 + (i + 2) % 5)))
        .chain((0..5).map(|i| (i, i + 5)))
        .collect();
    for (m, want, status) in [
        (1u64, 4u64, Status::OptimalExhaustive),
        (2, 6, Status::Optimal),
    ] {
        let d: Vec<_> = pe.iter().map(|&(a, b)| (a, b, m)).collect();
        let sol = solve_instance(
            &instance(Model::Strict1, 10, 1, &d),
            &SolveRequest::default(),
        )
        .unwrap();
        assert_eq!((sol.ticks, sol.status), (want, status), "Petersen x{m}");
        if status == Status::OptimalExhaustive {
            let proof = sol.proof.as_ref().expect("proof object");
            assert_eq!(proof.refutes_ticks, want - 1);
        }
    }
}

/// Tiny random multigraphs: the solver's ticks equal the brute-force
/// optimum whenever it claims optimality, and are at most one more.
#[test]
fn random_tiny_instances_match_brute_force() {
    let mut seed = 99u64;
    let mut next = |k: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % k
    };
    for _ in 0..150 {
        let n = 3 + next(4) as u32;
        let mut d = Vec::new();
        for _ in 0..(2 + next(6)) {
            let a = next(n as u64) as u32;
            let b = (a + 1 + next(n as u64 - 1) as u32) % n;
            d.push((a, b, 1 + next(2)));
        }
        let inst = instance(Model::Strict1, n, 1, &d);
        if inst.total_chunks() > 10 {
            continue;
        }
        let opt = brute_force_ticks(&inst);
        let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
        assert!(
            sol.lower_bound.ticks <= opt && opt <= sol.ticks && sol.ticks <= opt + 1,
            "{d:?}"
        );
        if matches!(sol.status, Status::Optimal | Status::OptimalExhaustive) {
            assert_eq!(
                sol.ticks, opt,
                "{d:?}: claimed {} but optimum is {opt}",
                sol.status
            );
        }
    }
}
