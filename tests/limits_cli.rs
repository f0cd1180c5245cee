//! Size limits set by flag (issue 30, item 6): `--max-slots` and
//! `--max-demands` on every command that reads an instance. An instance
//! over a lowered limit is refused with the limit and its flag named; a
//! raised limit accepts what the default refuses.

mod common;
use common::*;
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// Three demand rows on slots 0..3, bw recorded in the file.
const CSV: &str = "# copy_bw_bits_per_tick=8\n0,1,8\n1,2,8\n2,0,8\n";

/// An instance JSON with 5 slots and one demand.
const JSON: &str = r#"{"version":0,"model":"STRICT1","slots":5,"copy_bw_bits_per_tick":8,
"demands":[{"src_slot":0,"dst_slot":4,"bits_total":8}]}"#;

fn refused(args: &[&str], wanted: &[&str]) {
    let o = run(args);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
    let err = stderr(&o);
    for w in wanted {
        assert!(err.contains(w), "{args:?}: {w:?} not in {err}");
    }
}

#[test]
fn a_lowered_limit_refuses_with_the_limit_and_its_flag_named() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "three.csv", CSV);
    let json = write(dir.path(), "five.json", JSON);
    let rows = ["the limit of 2 demand rows", "--max-demands"];
    let slots = ["the limit of 4 slots", "--max-slots"];
    refused(&["bounds", &csv, "--max-demands", "2"], &rows);
    refused(&["solve", &csv, "--max-demands", "2"], &rows);
    refused(&["solve", &json, "--max-slots", "4"], &slots);
    refused(&["bounds", &json, "--max-demands", "0"], &["--max-demands"]);
    refused(
        &["convert", &csv, "--max-slots", "2", "-o", "-"],
        &["limit of 2 slots", "--max-slots"],
    );
    // Commands that read a schedule with the instance refuse the instance.
    let sched = write(
        dir.path(),
        "s.csv",
        "tick,src_slot,dst_slot,len_bits\n0,0,4,8\n",
    );
    refused(&["validate", &json, &sched, "--max-slots", "4"], &slots);
    refused(&["audit", &json, &sched, "--max-slots", "4"], &slots);
    // At the limit the same files are read.
    let o = run(&["bounds", &csv, "--max-demands", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["bounds", &json, "--max-slots", "5"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_raised_slot_limit_accepts_what_the_default_refuses() {
    let dir = tempfile::tempdir().unwrap();
    // Slot id 2,000,000: 2,000,001 slots, above the default 2^20.
    let csv = write(
        dir.path(),
        "far.csv",
        "# copy_bw_bits_per_tick=8\n0,2000000,8\n",
    );
    refused(
        &["bounds", &csv],
        &["above the limit of 1048576 slots", "--max-slots"],
    );
    let o = run(&["bounds", &csv, "--max-slots", "3000000", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["capacity"]["witness"]["slots"], 2_000_001, "{v}");
}

#[test]
fn bench_passes_its_limits_to_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("set");
    std::fs::create_dir_all(&set).unwrap();
    write(&set, "five.json", JSON);
    let out = dir.path().join("out");
    let o = run(&[
        "bench",
        set.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--max-slots",
        "4",
        "--jobs",
        "1",
    ]);
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap())
            .unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    let records = results["records"].as_array().unwrap();
    assert!(!records.is_empty());
    for r in records {
        assert_eq!(r["status"], "failed", "{r}");
        let err = r["error"].as_str().unwrap();
        assert!(err.contains("the limit of 4 slots (--max-slots)"), "{err}");
    }
    // With the default limits the same set runs.
    let out2 = dir.path().join("out2");
    let o = run(&[
        "bench",
        set.to_str().unwrap(),
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out2.join("results.json")).unwrap()).unwrap();
    for r in results["records"].as_array().unwrap() {
        assert_ne!(r["status"], "failed", "{r}");
    }
}

#[test]
fn plugin_reads_stdin_under_its_limits() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = bin()
        .args(["plugin", "--max-slots", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(CSV.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("above the limit of 2 slots (--max-slots)"),
        "{err}"
    );
    assert!(o.stdout.is_empty(), "no partial output");
}
