//! Defaults that follow the files (issue 30, item 2): a demands CSV's
//! recorded `# copy_bw_bits_per_tick=N` is used when no --bw is given, and
//! stderr says so.

mod common;
use common::*;
use std::path::Path;

fn gen_ring(dir: &Path, bw: &str) -> String {
    let csv = dir.join("ring.csv");
    let o = run(&[
        "gen",
        "ring",
        "--n",
        "6",
        "--bw",
        bw,
        "--mult",
        "3",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    csv.to_str().unwrap().to_string()
}

fn summary_bw(dir: &Path, args: &[&str]) -> (u64, String) {
    let sum = dir.join("sum.json");
    let mut a = args.to_vec();
    a.extend_from_slice(&["--summary", sum.to_str().unwrap()]);
    let o = run(&a);
    assert!(o.status.success(), "{a:?}: {}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sum).unwrap()).unwrap();
    (v["copy_bw_bits_per_tick"].as_u64().unwrap(), stderr(&o))
}

#[test]
fn gen_records_the_bw_and_solve_uses_it() {
    let dir = tempfile::tempdir().unwrap();
    let csv = gen_ring(dir.path(), "2048");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(
        text.lines().any(|l| l == "# copy_bw_bits_per_tick=2048"),
        "{text}"
    );
    let (bw, e) = summary_bw(dir.path(), &["solve", &csv]);
    assert_eq!(bw, 2048);
    assert!(
        e.contains("bw 2048 bits per tick from") && e.contains("line 2"),
        "{e}"
    );
    // --bw still wins, and stderr says it replaced the recorded value.
    let (bw, e) = summary_bw(dir.path(), &["solve", &csv, "--bw", "1024"]);
    assert_eq!(bw, 1024);
    assert!(
        e.contains("--bw 1024 replaces the copy_bw_bits_per_tick=2048"),
        "{e}"
    );
    // The same bw gives no note.
    let (_, e) = summary_bw(dir.path(), &["solve", &csv, "--bw", "2Ki"]);
    assert!(!e.contains("replaces"), "{e}");
}

#[test]
fn every_reader_takes_the_recorded_bw() {
    let dir = tempfile::tempdir().unwrap();
    let csv = gen_ring(dir.path(), "512");
    let sched = dir.path().join("s.json");
    let sum = dir.path().join("s.summary.json");
    let o = run(&[
        "solve",
        &csv,
        "--out",
        sched.to_str().unwrap(),
        "--summary",
        sum.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for args in [
        vec!["bounds", csv.as_str()],
        vec!["validate", csv.as_str(), sched.to_str().unwrap()],
        vec![
            "verify",
            csv.as_str(),
            sched.to_str().unwrap(),
            sum.to_str().unwrap(),
        ],
    ] {
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {}{}", stdout(&o), stderr(&o));
        assert!(
            stderr(&o).contains("bw 512 bits per tick from"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_csv_without_a_recorded_bw_still_asks_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("d.csv");
    std::fs::write(&csv, "src_slot,dst_slot,bits_total\n0,1,8\n").unwrap();
    let o = run(&["solve", csv.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("--bw") && e.contains("copy_bw_bits_per_tick"),
        "{e}"
    );
    std::fs::write(
        &csv,
        "# copy_bw_bits_per_tick=0\nsrc_slot,dst_slot,bits_total\n0,1,8\n",
    )
    .unwrap();
    let o = run(&["solve", csv.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("d.csv:1:") && e.contains("copy_bw_bits_per_tick"),
        "{e}"
    );
    assert!(!e.contains(">= 0"), "{e}");
}

/// A READ1_WRITE1 solve of a CSV: (csv, schedule, summary) paths.
fn r1w1_solve(dir: &Path) -> (String, String, String) {
    let csv = dir.join("a.csv");
    let o = run(&[
        "gen",
        "alltoall",
        "--n",
        "6",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (sched, sum) = (dir.join("r.json"), dir.join("r.summary.json"));
    let o = run(&[
        "solve",
        csv.to_str().unwrap(),
        "--model",
        "READ1_WRITE1",
        "--out",
        sched.to_str().unwrap(),
        "--summary",
        sum.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    (s(&csv), s(&sched), s(&sum))
}

#[test]
fn verify_validate_audit_take_the_model_from_schedule_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, sched, sum) = r1w1_solve(dir.path());
    for args in [
        vec!["verify", &csv, &sched, &sum],
        vec!["validate", &csv, &sched],
        vec!["audit", &csv, &sched],
    ] {
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {}{}", stdout(&o), stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("model READ1_WRITE1 from"), "{args:?}: {e}");
    }
    let o = run(&["verify", &csv, &sched, &sum]);
    assert!(
        stdout(&o).contains("VERIFIED: claim READ1_WRITE1"),
        "{}",
        stdout(&o)
    );
}

/// An instance JSON keeps its own model, but a schedule solved with
/// `--model` READ1_WRITE1 from it is checked under STRICT1 only with a
/// note saying so and how to check it as solved.
#[test]
fn an_instance_json_model_other_than_the_files_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, _, _) = r1w1_solve(dir.path());
    let file = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (json, sched, sum) = (file("ring.json"), file("j.json"), file("j.summary.json"));
    let json = json.as_str();
    let o = run(&["convert", &csv, "--model", "STRICT1", "--out", json]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&[
        "solve",
        json,
        "--model",
        "READ1_WRITE1",
        "--out",
        &sched,
        "--summary",
        &sum,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for args in [
        vec!["verify", json, &sched, &sum],
        vec!["validate", json, &sched],
        vec!["audit", json, &sched],
    ] {
        let e = stderr(&run(&args));
        assert!(
            e.contains("model STRICT1 from") && e.contains("pass --model READ1_WRITE1"),
            "{args:?}: {e}"
        );
    }
    let mut args = vec!["verify", json, &sched, &sum, "--model", "READ1_WRITE1"];
    let o = run(&args);
    assert!(
        stdout(&o).contains("VERIFIED"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    assert!(!stderr(&o).contains("pass --model"), "{}", stderr(&o));
    args.truncate(3);
    assert!(!stderr(&run(&args)).contains("pass --model"));
}

#[test]
fn schedule_and_summary_that_disagree_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, sched, _) = r1w1_solve(dir.path());
    let strict = dir.path().join("s.summary.json");
    let o = run(&["solve", &csv, "--summary", strict.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["verify", &csv, &sched, strict.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let e = stderr(&o);
    assert!(
        e.contains("says model READ1_WRITE1")
            && e.contains("says STRICT1")
            && e.contains("--model"),
        "{e}"
    );
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
}

#[test]
fn an_explicit_model_mismatch_is_reported_as_a_mismatch() {
    // --model wins; the report then says "differs" (not "matches" on a
    // FAIL) and does not claim the unread schedule has 0 ticks.
    let dir = tempfile::tempdir().unwrap();
    let (csv, sched, sum) = r1w1_solve(dir.path());
    let o = run(&["verify", &csv, &sched, &sum, "--model", "STRICT1"]);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(
        out.contains("summary model READ1_WRITE1 differs from instance model STRICT1"),
        "{out}"
    );
    assert!(!out.contains("matches"), "{out}");
    assert!(!out.contains("schedule has 0 ticks"), "{out}");
    assert!(out.contains("REJECTED"), "{out}");
}

#[test]
fn a_csv_schedule_of_a_csv_instance_says_the_default_model() {
    // Neither file states a model: STRICT1 is assumed, and stderr says so,
    // so a READ1_WRITE1 schedule failing with STRICT1 errors is explained.
    let dir = tempfile::tempdir().unwrap();
    let (csv, _, _) = r1w1_solve(dir.path());
    let sched = dir.path().join("r.csv");
    let o = run(&[
        "solve",
        &csv,
        "--model",
        "READ1_WRITE1",
        "--out",
        sched.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["validate", &csv, sched.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let e = stderr(&o);
    assert!(
        e.contains("model STRICT1 (the default") && e.contains("--model overrides"),
        "{e}"
    );
    let o = run(&[
        "validate",
        &csv,
        sched.to_str().unwrap(),
        "--model",
        "READ1_WRITE1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(!stderr(&o).contains("the default"), "{}", stderr(&o));
}
