//! Claims and their proofs: genuine `optimal_exhaustive` claims (Petersen at
//! multiplicity 1 and 1001, snarks) verify including their proofs; a corpus
//! of doctored claims (wrong witness, missing or empty proof, a proof from
//! another instance or for another tick count, corrupted proof steps,
//! overflowed counts, a 2^64-tick compact schedule) never verifies; proofs
//! are never found for tick counts that are feasible (brute force).

mod common;
use common::*;
use serde_json::{json, Value};
use std::path::Path;
use tickopt::instance::{read_instance_file, Instance, Limits, Model, Overrides};
use tickopt::proof::cnf::colourable_cnf;
use tickopt::proof::drat::{check_refutation, parse_drat};
use tickopt::proof::{
    check_proof, instance_sha256, Proof, ProofBody, Work, DEFAULT_MAX_PROOF_WORK,
};
use tickopt::schedule::Schedule;
use tickopt::solve::proofs::find_proof;
use tickopt::solve::{Solution, Status};
use tickopt::validate::validate_compact;
use tickopt::verify::{verify_claim, Claim, Outcome, Part};
use tickopt::{solve_instance, SolveRequest};

fn petersen(m: u64) -> Instance {
    let pe: Vec<(u32, u32, u64)> = (0..5)
        .map(|i| (i, (i + 1) % 5))
        .chain((0..5).map(|i| (5 + i, 5 + (i + 2) % 5)))
        .chain((0..5).map(|i| (i, i + 5)))
        .map(|(a, b)| (a, b, m))
        .collect();
    instance(Model::Strict1, 10, 1, &pe)
}

fn standard(file: &str) -> Instance {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/standard")
        .join(file);
    let o = Overrides {
        model: Some(Model::Strict1),
        bw: Some(1024),
        slots: None,
        ports: None,
    };
    read_instance_file(&path, &o, &Limits::default()).unwrap()
}

/// The claim a summary of `sol` makes, as JSON (what `verify` reads).
fn claim_json(sol: &Solution) -> Value {
    json!({
        "model": "STRICT1", "ticks": sol.ticks, "lower_bound": sol.lower_bound.ticks,
        "status": sol.status, "witness": sol.lower_bound.witness, "proof": sol.proof,
    })
}

fn verify(inst: &Instance, sol: &Solution, claim: &Value) -> tickopt::verify::Verification {
    let report = validate_compact(inst, &sol.schedule);
    let claim = Claim::from_value(claim.clone()).expect("claim parses");
    verify_claim(inst, &report, &claim, &Default::default())
}

fn solved(inst: &Instance) -> Solution {
    solve_instance(inst, &SolveRequest::default()).unwrap()
}

#[test]
fn petersen_x1001_is_optimal_exhaustive_at_3004_and_verifies() {
    let inst = petersen(1001);
    let sol = solved(&inst);
    assert_eq!(sol.ticks, 3004);
    assert_eq!(sol.lower_bound.ticks, 3003);
    assert_eq!(sol.status, Status::OptimalExhaustive);
    let proof = sol.proof.as_ref().expect("proof");
    assert_eq!(proof.body.kind(), "dual");
    let v = verify(&inst, &sol, &claim_json(&sol));
    assert!(v.holds, "{:?}", v.failures);
    let proof_lines: Vec<_> = v.lines.iter().filter(|l| l.part == Part::Proof).collect();
    assert!(proof_lines.iter().all(|l| l.outcome == Outcome::Checked));
    assert!(proof_lines
        .iter()
        .any(|l| l.what.contains("tight matchings re-enumerated: 6")));
    assert!(proof_lines
        .iter()
        .any(|l| l.what.contains("2003/2") || l.what.contains("1001/2")));
}

#[test]
fn genuine_exhaustive_claims_verify_with_their_proofs() {
    let mut kinds = Vec::new();
    for inst in [
        petersen(1),
        standard("flower_snark_n20_m1_s0.csv"),
        standard("blanusa_n18_m1_s0.csv"),
    ] {
        let sol = solved(&inst);
        assert_eq!(sol.status, Status::OptimalExhaustive);
        assert_eq!(sol.ticks, 4);
        let v = verify(&inst, &sol, &claim_json(&sol));
        assert!(v.holds, "{:?}", v.failures);
        kinds.push(sol.proof.unwrap().body.kind());
    }
    // Petersen by complementary slackness, the snarks by DRAT refutations.
    assert_eq!(kinds, ["dual", "drat", "drat"]);
}

#[test]
fn no_proof_for_a_feasible_tick_count_brute_force() {
    // Soundness against brute force: a proof is found only for T < optimum.
    let mut found = 0;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = |k: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % k
    };
    for _ in 0..60 {
        let n = 3 + next(3) as u32;
        let mut d = Vec::new();
        for _ in 0..3 + next(6) {
            let a = next(n as u64) as u32;
            let b = next(n as u64) as u32;
            if a != b {
                d.push((a, b, 1 + next(2)));
            }
        }
        if d.is_empty() {
            continue;
        }
        let inst = instance(Model::Strict1, n, 1, &d);
        if inst.total_chunks() > 10 {
            continue;
        }
        let opt = brute_force_ticks(&inst);
        assert!(
            find_proof(&inst, opt).is_none(),
            "{d:?}: proof for the optimum"
        );
        if opt > 0 {
            if let Some(p) = find_proof(&inst, opt - 1) {
                assert!(check_proof(&inst, opt - 1, &p, DEFAULT_MAX_PROOF_WORK).is_ok());
                found += 1;
            }
        }
    }
    // Petersen x2 is 6-colourable: neither route refutes 6.
    assert!(find_proof(&petersen(2), 6).is_none());
    assert!(found > 0, "no refutation found below any optimum");
}

/// Asserts `claim` (a doctored copy of a good one) is refused, at parse
/// time or by `verify_claim`, and that the refusal names `why`: a claim
/// refused for another reason (a typo in the doctoring) does not count.
fn assert_rejected(inst: &Instance, sol: &Solution, what: &str, why: &str, claim: Value) {
    let report = validate_compact(inst, &sol.schedule);
    let message = match Claim::from_value(claim) {
        Err(e) => format!("not a claim: {e:#}"),
        Ok(c) => {
            let v = verify_claim(inst, &report, &c, &Default::default());
            assert!(!v.holds, "doctored claim verified: {what}");
            v.failures.join("; ")
        }
    };
    assert!(
        message.contains(why),
        "{what}: refused, but not for {why:?}: {message}"
    );
}

#[test]
fn doctored_claims_never_verify() {
    let pete = petersen(1);
    let p_sol = solved(&pete);
    let snark = standard("flower_snark_n20_m1_s0.csv");
    let s_sol = solved(&snark);
    let good_p = claim_json(&p_sol);
    let good_s = claim_json(&s_sol);
    assert!(verify(&pete, &p_sol, &good_p).holds);
    assert!(verify(&snark, &s_sol, &good_s).holds);

    let edit = |base: &Value, f: &dyn Fn(&mut Value)| {
        let mut v = base.clone();
        f(&mut v);
        v
    };
    // The K4-style holes of the issue: a non-null `exhaustive`, no proof.
    for legacy in [
        json!(false),
        json!({}),
        json!({"method": "ilp", "variables": 45}),
    ] {
        let c = edit(&good_p, &|c| {
            c.as_object_mut().unwrap().remove("proof");
            c["exhaustive"] = legacy.clone();
        });
        assert_rejected(
            &pete,
            &p_sol,
            "exhaustive record instead of a proof",
            "carries no proof object",
            c,
        );
    }
    assert_rejected(
        &pete,
        &p_sol,
        "proof {}",
        "missing field `instance_sha256`",
        edit(&good_p, &|c| c["proof"] = json!({})),
    );
    assert_rejected(
        &pete,
        &p_sol,
        "proof null",
        "carries no proof object",
        edit(&good_p, &|c| c["proof"] = Value::Null),
    );
    // Wrong witness: another slot, a wrong count, an odd set that is not odd.
    assert_rejected(
        &pete,
        &p_sol,
        "witness count",
        "slot 0 has 3 chunks, witness says 4",
        edit(&good_p, &|c| c["witness"]["chunks"] = 4.into()),
    );
    assert_rejected(
        &pete,
        &p_sol,
        "odd-set witness",
        "odd set must have an odd size >= 3, has 4",
        edit(
            &good_p,
            &|c| {
                c["witness"] = json!({"kind": "odd_set", "slots": [0, 1, 2, 3], "chunks_inside": 4, "bound": 3})
            },
        ),
    );
    // A proof copied from another instance, as is and with the hash rewritten.
    let copied = edit(&good_s, &|c| c["proof"] = good_p["proof"].clone());
    assert_rejected(
        &snark,
        &s_sol,
        "proof from Petersen",
        "proof is for instance 3c4543819c8aaf1e",
        copied,
    );
    let sha = instance_sha256(&snark);
    let rebound = edit(&good_s, &|c| {
        c["proof"] = good_p["proof"].clone();
        c["proof"]["instance_sha256"] = sha.clone().into();
    });
    assert_rejected(
        &snark,
        &s_sol,
        "Petersen's dual rebound to the snark",
        "dual weight on 0-1, which is no pair of the instance",
        rebound,
    );
    let sha_p = instance_sha256(&pete);
    let rebound = edit(&good_p, &|c| {
        c["proof"] = good_s["proof"].clone();
        c["proof"]["instance_sha256"] = sha_p.clone().into();
    });
    assert_rejected(
        &pete,
        &p_sol,
        "the snark's DRAT rebound to Petersen",
        "proof was made for a CNF of 90 variables and 213 clauses",
        rebound,
    );
    // A proof for another tick count.
    assert_rejected(
        &snark,
        &s_sol,
        "refutes 2 ticks",
        "proof refutes 2 ticks, the claim needs 3 refuted",
        edit(&good_s, &|c| c["proof"]["refutes_ticks"] = 2.into()),
    );
    assert_rejected(
        &snark,
        &s_sol,
        "lower bound 2 with a 2-tick proof",
        "proves 3 ticks, summary claims lower bound 2",
        edit(&good_s, &|c| {
            c["lower_bound"] = 2.into();
            c["ticks"] = 3.into();
            c["proof"]["refutes_ticks"] = 2.into();
        }),
    );
    // Corrupted DRAT steps.
    let drat = good_s["proof"]["body"]["drat"]
        .as_str()
        .unwrap()
        .to_string();
    let first_unit = colourable_cnf(&snark, 3).unwrap().clauses[0][0];
    // The `lemmas` field is set to the doctored text's count, so that the
    // DRAT check itself refuses it (not the count).
    for (what, why, text) in [
        (
            "no lemmas",
            "ends without deriving the empty clause",
            String::new(),
        ),
        (
            "first lemma contradicts a unit",
            "proof step 1 (lemma [-1]) is not a unit-propagation consequence",
            format!("{} 0\n{drat}", -first_unit),
        ),
        (
            "literal of no variable",
            "literal 99999 names no variable of the CNF",
            format!("99999 0\n{drat}"),
        ),
        (
            "unclosed clause",
            "clause not closed by 0",
            format!("1 2\n{drat}"),
        ),
        (
            "only deletions",
            "ends without deriving the empty clause",
            drat.lines()
                .filter(|l| l.starts_with('d'))
                .map(|l| format!("{l}\n"))
                .collect(),
        ),
    ] {
        let lemmas = text.lines().filter(|l| !l.starts_with('d')).count();
        let c = edit(&good_s, &|c| {
            c["proof"]["body"]["drat"] = text.clone().into();
            c["proof"]["body"]["lemmas"] = lemmas.into();
        });
        assert_rejected(&snark, &s_sol, what, why, c);
    }
    // Corrupted dual proofs.
    for (what, why, f) in [
        (
            "denominator",
            "weighs more than 1",
            Box::new(|c: &mut Value| c["proof"]["body"]["denominator"] = 9.into())
                as Box<dyn Fn(&mut Value)>,
        ),
        (
            "one weight raised",
            "weighs more than 1",
            Box::new(|c: &mut Value| c["proof"]["body"]["weights"][0]["numerator"] = 5.into()),
        ),
        (
            "a tight matching dropped",
            "proof lists 5 tight matchings, enumeration finds 6",
            Box::new(|c: &mut Value| {
                c["proof"]["body"]["tight_matchings"]
                    .as_array_mut()
                    .unwrap()
                    .pop();
            }),
        ),
        (
            "kind switched",
            "unknown field `denominator`",
            Box::new(|c: &mut Value| c["proof"]["body"]["kind"] = "drat".into()),
        ),
        (
            "unknown field",
            "unknown field `trust_me`",
            Box::new(|c: &mut Value| c["proof"]["trust_me"] = true.into()),
        ),
    ] {
        assert_rejected(&pete, &p_sol, what, why, edit(&good_p, &*f));
    }
    // Status arithmetic: overflowed and saturated counts.
    assert_rejected(
        &pete,
        &p_sol,
        "ticks u64::MAX",
        "is at the u64 limit: refused",
        edit(&good_p, &|c| {
            c["ticks"] = u64::MAX.into();
            c["lower_bound"] = u64::MAX.into();
            c["status"] = "optimal".into();
        }),
    );
    // A count past u64 in the JSON text is no claim at all.
    let text = good_p.to_string();
    let over = text.replacen("\"ticks\":4", "\"ticks\":18446744073709551616", 1);
    assert_ne!(over, text);
    assert!(
        serde_json::from_str::<Claim>(&over).is_err(),
        "2^64 ticks parsed"
    );
    assert_rejected(
        &pete,
        &p_sol,
        "optimal claimed at LB+1",
        "optimal: ticks 4 == lower bound 3",
        edit(&good_p, &|c| c["status"] = "optimal".into()),
    );
}

#[test]
fn a_2_pow_64_tick_compact_schedule_is_refused() {
    // One demand of 2^64 - 1 chunks; two rounds of 2^63 ticks each carry one
    // chunk too many. Whatever the validator reports, the claim of
    // 2^64 - 1 (saturated) ticks is refused.
    let inst = instance(Model::Strict1, 2, 1, &[(0, 1, u64::MAX)]);
    let mut s = Schedule::new();
    s.push(1 << 63, vec![0]);
    s.push(1 << 63, vec![0]);
    let report = validate_compact(&inst, &s);
    let claim = Claim::from_value(json!({
        "model": "STRICT1", "ticks": u64::MAX, "lower_bound": u64::MAX, "status": "optimal",
        "witness": {"kind": "degree", "slot": 0, "chunks": u64::MAX, "direction": "both"},
    }))
    .unwrap();
    let v = verify_claim(&inst, &report, &claim, &Default::default());
    assert!(!v.holds);
    assert!(v
        .lines
        .iter()
        .any(|l| l.part == Part::Ticks && l.outcome == Outcome::Failed));
}

#[test]
fn drat_checker_refuses_what_is_not_a_refutation() {
    // K4 is 3-edge-colourable: the CNF is satisfiable, so no proof exists,
    // and an empty-clause-only "proof" is not RUP.
    let k4 = instance(
        Model::Strict1,
        4,
        1,
        &[
            (0, 1, 1),
            (0, 2, 1),
            (0, 3, 1),
            (1, 2, 1),
            (1, 3, 1),
            (2, 3, 1),
        ],
    );
    assert!(find_proof(&k4, 3).is_none());
    let cnf = colourable_cnf(&k4, 3).unwrap();
    let steps = parse_drat("0\n", cnf.variables).unwrap();
    assert!(check_refutation(
        cnf.clauses.clone(),
        cnf.variables,
        &steps,
        &mut Work::new(DEFAULT_MAX_PROOF_WORK)
    )
    .is_err());
    // K4 in 2 ticks is impossible and the SAT route proves it.
    let p: Proof = find_proof(&k4, 2).expect("K4 is not 2-colourable");
    assert!(check_proof(&k4, 2, &p, DEFAULT_MAX_PROOF_WORK).is_ok());
    assert!(check_proof(&k4, 3, &p, DEFAULT_MAX_PROOF_WORK).is_err());
    if let ProofBody::Drat(d) = &p.body {
        let cnf2 = colourable_cnf(&k4, 2).unwrap();
        assert_eq!(d.cnf_sha256, cnf2.sha256());
    }
}

#[test]
fn cli_verify_checks_proofs_and_emits_them_for_standard_tools() {
    let dir = tempfile::tempdir().unwrap();
    let inst =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/standard/flower_snark_n20_m1_s0.csv");
    let sched = dir.path().join("s.json");
    let sum = dir.path().join("sum.json");
    let o = run(&[
        "solve",
        inst.to_str().unwrap(),
        "--bw",
        "1024",
        "--out",
        sched.to_str().unwrap(),
        "--summary",
        sum.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&sum).unwrap()).unwrap();
    assert_eq!(summary["status"], "optimal_exhaustive");
    assert_eq!(summary["proof"]["body"]["kind"], "drat");
    // --emit-proof creates its directory (nested, not there yet).
    let out = dir.path().join("proof").join("snark");
    let o = run(&[
        "verify",
        inst.to_str().unwrap(),
        sched.to_str().unwrap(),
        sum.to_str().unwrap(),
        "--bw",
        "1024",
        "--emit-proof",
        out.to_str().unwrap(),
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}{}", stderr(&o));
    assert!(text.contains("VERIFIED"));
    for part in ["model", "schedule", "ticks", "witness", "status", "proof"] {
        assert!(
            text.lines()
                .any(|l| l.starts_with("ok") && l.contains(part)),
            "no checked line for {part}:\n{text}"
        );
    }
    assert!(text.contains("empty clause derived"), "{text}");
    // The emitted files are the CNF verify re-derives and the summary's DRAT.
    let cnf = std::fs::read_to_string(out.join("colourable.cnf")).unwrap();
    let snark = standard("flower_snark_n20_m1_s0.csv");
    assert_eq!(cnf, colourable_cnf(&snark, 3).unwrap().to_dimacs());
    let drat = std::fs::read_to_string(out.join("refutation.drat")).unwrap();
    assert_eq!(drat, summary["proof"]["body"]["drat"].as_str().unwrap());
}

#[test]
fn cli_k4_exhaustive_claim_without_proof_is_rejected() {
    // The K4 case: a valid 4-tick schedule claimed optimal_exhaustive
    // at lower bound 3 with a non-null `exhaustive` field.
    let dir = tempfile::tempdir().unwrap();
    let inst = dir.path().join("k4.csv");
    std::fs::write(
        &inst,
        "src_slot,dst_slot,bits_total\n0,1,1\n0,2,1\n0,3,1\n1,2,1\n1,3,1\n2,3,1\n",
    )
    .unwrap();
    let sched = dir.path().join("s.csv");
    std::fs::write(
        &sched,
        "tick,src_slot,dst_slot,len_bits\n0,0,1,1\n0,2,3,1\n1,0,2,1\n2,0,3,1\n2,1,2,1\n3,1,3,1\n",
    )
    .unwrap();
    for exhaustive in [json!(false), json!({}), json!({"method": "ilp"})] {
        let sum = dir.path().join("sum.json");
        let claim = json!({
            "model": "STRICT1", "ticks": 4, "lower_bound": 3, "status": "optimal_exhaustive",
            "witness": {"kind": "degree", "slot": 0, "chunks": 3, "direction": "both"},
            "exhaustive": exhaustive,
        });
        std::fs::write(&sum, claim.to_string()).unwrap();
        let o = run(&[
            "verify",
            inst.to_str().unwrap(),
            sched.to_str().unwrap(),
            sum.to_str().unwrap(),
            "--bw",
            "1",
        ]);
        let text = stdout(&o);
        assert_eq!(o.status.code(), Some(2), "{text}{}", stderr(&o));
        assert!(
            text.contains("REJECTED") && !text.contains("VERIFIED"),
            "{text}"
        );
        assert!(text.contains("no proof object"), "{text}");
    }
}

#[test]
fn a_witness_whose_inside_count_passes_u64_is_refused() {
    // K5 with one demand of 2^64 - 1 bits per pair, 2^63 bits per tick: two
    // chunks a pair, 10 ticks by the odd set of all five slots. At 8-bit
    // chunks every pair has 2^61 chunks: degrees fit (2^63) but the set's
    // inside count (10 x 2^61) does not.
    let k5: Vec<(u32, u32, u64)> = (0..5)
        .flat_map(|a| (a + 1..5).map(move |b| (a, b, u64::MAX)))
        .collect();
    let inst = instance(Model::Strict1, 5, 1 << 63, &k5);
    let sol = solved(&inst);
    assert_eq!((sol.ticks, sol.lower_bound.witness.kind()), (10, "odd_set"));
    let cost = tickopt::cost::CostModel::new(10.0, 40.0).unwrap();
    let range = tickopt::cost::ChunkRange::new(8, 1024).unwrap();
    let opts = tickopt::cost::ChunkOptions::default();
    let s = tickopt::cost::assess(
        &inst,
        &cost,
        sol.ticks,
        &sol.lower_bound,
        None,
        range,
        &opts,
    )
    .unwrap();
    let mut good = claim_json(&sol);
    good["seconds_predicted"] = s.predicted.into();
    good["seconds_lower_bound"] = s.lower_bound.into();
    good["cost"] = serde_json::to_value(&s).unwrap();
    let v = verify(&inst, &sol, &good);
    assert!(v.holds, "{:?}", v.lines);
    // The witness step doctored to the odd set at 8-bit chunks, its inside
    // count saturated (what a saturating count would have stated).
    let ticks = (2 * u64::MAX as u128).div_ceil(4) as u64;
    let mut bad = good.clone();
    bad["cost"]["bound"] = json!({
        "chunk_bits": 8, "ticks": ticks, "seconds": cost.seconds(ticks, 8),
        "witness": {"kind": "odd_set", "slots": [0, 1, 2, 3, 4], "chunks_inside": u64::MAX, "bound": ticks},
    });
    let v = verify(&inst, &sol, &bad);
    assert!(!v.holds);
    let line = v
        .lines
        .iter()
        .find(|l| l.part == Part::Seconds && l.outcome == Outcome::Failed)
        .expect("a failed seconds line");
    assert!(
        line.what
            .contains("bound step at chunk 8 bits does not hold")
            && line.what.contains("overflows u64"),
        "{}",
        line.what
    );
}
