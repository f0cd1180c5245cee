//! `tickopt verify` bounded by its input (issue 25): a claim cannot make
//! verify spend memory or time out of proportion to the files it was
//! given, every summary field it prints over is checked or listed as not
//! checked, and schedule formats are told apart by structure.

mod common;
use common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tickopt::instance::{read_instance_file, Limits, Overrides};
use tickopt::proof::cnf::colourable_cnf;
use tickopt::proof::drat::{check_refutation, parse_drat};
use tickopt::proof::{instance_sha256, ProofError, Work};

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

/// N unit lemmas `1 0` then M lemmas `-4 0`: each is RUP at once, and a
/// checker that rescans the unit clauses for every lemma is quadratic
/// (80k + 80k lines took 19 s). Here the whole check is charged at most a
/// constant per proof byte.
#[test]
fn quadratic_drat_is_checked_in_work_linear_in_its_size() {
    // 2 slots, 6 chunks between them: the symmetry-breaking units put chunk
    // k in tick k, so `1` is a CNF unit and `-4` (chunk 0 in tick 3, where
    // chunk 3 already is) is RUP.
    let inst = instance(tickopt::instance::Model::Strict1, 2, 1, &[(0, 1, 6)]);
    let cnf = colourable_cnf(&inst, 6).unwrap();
    let n = 80_000;
    let mut text = "1 0\n".repeat(n);
    text.push_str(&"-4 0\n".repeat(n));
    let steps = parse_drat(&text, cnf.variables).unwrap();
    let budget = 8 * text.len() as u64 + 10_000;
    let mut work = Work::new(budget);
    let r = check_refutation(cnf.clauses.clone(), cnf.variables, &steps, &mut work);
    // All lemmas hold, but they never reach the empty clause.
    match r {
        Err(ProofError::Invalid(m)) => {
            assert!(m.contains("without deriving the empty clause"), "{m}")
        }
        other => panic!("expected a refusal for the missing empty clause, got {other:?}"),
    }
    assert!(work.used <= budget, "{} > {budget}", work.used);
    // A budget below the proof's size is a refusal by budget, not a pass.
    let mut small = Work::new(1_000);
    let r = check_refutation(cnf.clauses, cnf.variables, &steps, &mut small);
    assert!(matches!(r, Err(ProofError::OverBudget { .. })), "{r:?}");
}

/// The 215-chunk, 2-slot `optimal_exhaustive` claim with a DRAT body: the
/// CNF would be 20 M literals (551 MB built); verify prices it first and
/// refuses, under a 256 MiB address-space limit, with exit 2 and the flag
/// to raise.
#[test]
fn huge_cnf_claim_is_refused_before_building_under_256_mib() {
    let dir = tempfile::tempdir().unwrap();
    let inst_path = write(
        dir.path(),
        "two.csv",
        "src_slot,dst_slot,bits_total\n0,1,215\n",
    );
    let inst = read_instance_file(
        &inst_path,
        &Overrides {
            bw: Some(1),
            ..Default::default()
        },
        &Limits::default(),
    )
    .unwrap();
    // 216 ticks: chunks at ticks 0..=213 and 215 (tick 214 empty).
    let mut sched = String::from("tick,src_slot,dst_slot,len_bits\n");
    for t in (0..=213).chain([215]) {
        sched.push_str(&format!("{t},0,1,1\n"));
    }
    let sched_path = write(dir.path(), "s.csv", &sched);
    let summary = json!({
        "model": "STRICT1", "slots": 2, "copy_bw_bits_per_tick": 1, "demands": 1,
        "chunks": 215, "ticks": 216, "lower_bound": 215, "gap": 1,
        "status": "optimal_exhaustive",
        "witness": {"kind": "degree", "slot": 0, "chunks": 215, "direction": "both"},
        "proof": {
            "instance_sha256": instance_sha256(&inst), "refutes_ticks": 215,
            "body": {"kind": "drat", "cnf_sha256": "0", "variables": 46225,
                     "clauses": 1, "lemmas": 0, "drat": "0\n"}
        }
    });
    let sum_path = write(dir.path(), "sum.json", &summary.to_string());
    let cmd = format!(
        "ulimit -v 262144; exec {} verify {} {} {} --bw 1",
        env!("CARGO_BIN_EXE_tickopt"),
        s(&inst_path),
        s(&sched_path),
        s(&sum_path)
    );
    let o = std::process::Command::new("sh")
        .args(["-c", &cmd])
        .output()
        .unwrap();
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(
        text.contains("proof too large for the verify budget") && text.contains("--max-proof-work"),
        "{text}"
    );
    assert!(text.contains("REJECTED"), "{text}");
}

/// Solves the flower snark (a DRAT proof) and returns the files.
fn snark_claim(dir: &Path) -> (PathBuf, PathBuf, Value) {
    let inst =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/standard/flower_snark_n20_m1_s0.csv");
    let sched = dir.join("s.json");
    let sum = dir.join("sum.json");
    let o = run(&[
        "solve",
        s(&inst),
        "--bw",
        "1024",
        "--out",
        s(&sched),
        "--summary",
        s(&sum),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&sum).unwrap()).unwrap();
    assert_eq!(v["proof"]["body"]["kind"], "drat");
    (inst, sched, v)
}

fn verify_with(inst: &Path, sched: &Path, summary: &Value, dir: &Path) -> (Option<i32>, String) {
    let sum = write(dir, "doctored.json", &summary.to_string());
    let o = run(&["verify", s(inst), s(sched), s(&sum), "--bw", "1024"]);
    (o.status.code(), format!("{}{}", stdout(&o), stderr(&o)))
}

#[test]
fn every_false_summary_field_is_rejected_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (inst, sched, good) = snark_claim(dir.path());
    let (code, text) = verify_with(&inst, &sched, &good, dir.path());
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("VERIFIED"), "{text}");
    // What is printed but not recomputed is listed as such.
    assert!(
        text.lines().any(|l| l.contains("not checked:")
            && l.contains("solver")
            && l.contains("seconds")
            && l.contains("timings")),
        "{text}"
    );
    type Doctor = Box<dyn Fn(&mut Value)>;
    let mutations: Vec<(&str, Doctor)> = vec![
        (
            "gap",
            Box::new(|v| v["gap"] = json!(v["gap"].as_u64().unwrap() + 1)),
        ),
        (
            "chunks",
            Box::new(|v| v["chunks"] = json!(v["chunks"].as_u64().unwrap() + 1)),
        ),
        (
            "slots",
            Box::new(|v| v["slots"] = json!(v["slots"].as_u64().unwrap() + 1)),
        ),
        (
            "demands",
            Box::new(|v| v["demands"] = json!(v["demands"].as_u64().unwrap() - 1)),
        ),
        (
            "copy_bw_bits_per_tick",
            Box::new(|v| v["copy_bw_bits_per_tick"] = json!(2048)),
        ),
        (
            "instance",
            Box::new(|v| v["instance"] = json!("other_instance.csv")),
        ),
        (
            "cnf_sha256",
            Box::new(|v| v["proof"]["body"]["cnf_sha256"] = json!("00".repeat(32))),
        ),
        (
            "lemmas",
            Box::new(|v| {
                let l = v["proof"]["body"]["lemmas"].as_u64().unwrap();
                v["proof"]["body"]["lemmas"] = json!(l + 1)
            }),
        ),
        (
            "witness",
            Box::new(|v| v["witness"]["note"] = json!("extra")),
        ),
    ];
    for (field, doctor) in mutations {
        let mut bad = good.clone();
        doctor(&mut bad);
        let (code, text) = verify_with(&inst, &sched, &bad, dir.path());
        assert_eq!(code, Some(2), "{field}: {text}");
        assert!(text.contains("REJECTED"), "{field}: {text}");
        assert!(
            text.lines()
                .any(|l| l.starts_with("FAIL") && l.contains(field)),
            "{field} not named on a FAIL line:\n{text}"
        );
    }
}

#[test]
fn the_proof_is_not_checked_once_the_tick_count_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (inst, sched, good) = snark_claim(dir.path());
    let mut bad = good.clone();
    bad["ticks"] = json!(good["ticks"].as_u64().unwrap() + 1);
    bad["lower_bound"] = json!(good["lower_bound"].as_u64().unwrap() + 1);
    let (code, text) = verify_with(&inst, &sched, &bad, dir.path());
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("proof not checked: the claim already fails above"),
        "{text}"
    );
    assert!(!text.contains("empty clause derived"), "{text}");
}

#[test]
fn schedule_formats_are_told_apart_by_structure() {
    let dir = tempfile::tempdir().unwrap();
    let inst = write(
        dir.path(),
        "i.csv",
        "src_slot,dst_slot,bits_total\n0,1,8\n1,2,8\n",
    );
    let validate = |body: &str| {
        let p = write(dir.path(), "sched.json", body);
        let o = run(&["validate", s(&inst), s(&p), "--bw", "8"]);
        (o.status.code(), format!("{}{}", stdout(&o), stderr(&o)))
    };
    // The compact tag in free text does not make a file compact.
    let expanded = r#"{"notes": "written next to a tickopt-compact-v1 file", "version": 0, "model": "STRICT1",
        "ticks": [[{"src_slot": 0, "dst_slot": 1, "len_bits": 8}], [{"src_slot": 1, "dst_slot": 2, "len_bits": 8}]]}"#;
    let (code, text) = validate(expanded);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("PASS"), "{text}");
    // A compact file whose tag is not first is still compact.
    let compact = r#"{"model": "STRICT1", "rounds": [{"repeat": 1, "pairs": [[0, 1]]}, {"repeat": 1, "pairs": [[1, 2]]}], "format": "tickopt-compact-v1"}"#;
    let (code, text) = validate(compact);
    assert_eq!(code, Some(0), "{text}");
    // Both, or neither: refused, naming the keys found.
    let both = r#"{"format": "tickopt-compact-v1", "version": 0, "model": "STRICT1", "rounds": [], "ticks": []}"#;
    let (code, text) = validate(both);
    assert_ne!(code, Some(0), "{text}");
    assert!(
        text.contains("both") && text.contains("format, version, model, rounds, ticks"),
        "{text}"
    );
    let neither = r#"{"version": 0, "model": "STRICT1", "tick": []}"#;
    let (code, text) = validate(neither);
    assert_ne!(code, Some(0), "{text}");
    assert!(
        text.contains("neither") && text.contains("version, model, tick"),
        "{text}"
    );
}
