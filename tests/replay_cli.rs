//! `tickopt replay` through the binary: tables, reports, exit codes, and
//! clean failures (bad schedule, CUDA unavailable) without partial files.

mod common;
use common::tickopt;

use std::path::Path;
use std::process::Output;

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Writes an instance (ring + chords, 6 slots) and its solved schedule.
fn setup(dir: &Path, model: &str) -> (String, String) {
    let inst = dir.join(format!("inst_{model}.json"));
    std::fs::write(
        &inst,
        format!(
            r#"{{"version":0,"model":"{model}","slots":6,"copy_bw_bits_per_tick":512,
            "demands":[{{"src_slot":0,"dst_slot":1,"bits_total":5000}},{{"src_slot":1,"dst_slot":2,"bits_total":3000}},
            {{"src_slot":2,"dst_slot":3,"bits_total":2048}},{{"src_slot":3,"dst_slot":4,"bits_total":999}},
            {{"src_slot":4,"dst_slot":5,"bits_total":4000}},{{"src_slot":5,"dst_slot":0,"bits_total":100}},
            {{"src_slot":0,"dst_slot":3,"bits_total":7000}},{{"src_slot":4,"dst_slot":1,"bits_total":1500}}]}}"#
        ),
    )
    .unwrap();
    let sched = dir.join(format!("sched_{model}.csv"));
    let o = tickopt(&[
        "solve",
        inst.to_str().unwrap(),
        "--out",
        sched.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    (
        inst.to_str().unwrap().to_string(),
        sched.to_str().unwrap().to_string(),
    )
}

#[test]
fn replay_compare_writes_a_report_for_both_models() {
    let dir = tempfile::tempdir().unwrap();
    for model in ["STRICT1", "READ1_WRITE1"] {
        let (inst, sched) = setup(dir.path(), model);
        let out = dir.path().join(format!("report_{model}.json"));
        let o = tickopt(&[
            "replay",
            &inst,
            &sched,
            "--compare",
            "--peak",
            "--repeat",
            "3",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let stdout = String::from_utf8_lossy(&o.stdout);
        for row in [
            "schedule",
            "schedule:device-barrier",
            "schedule:device-dataflow",
            "greedy",
            "all_at_once",
            "peak copy",
            "skipped graph",
        ] {
            assert!(stdout.contains(row), "{stdout}");
        }
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let runs = v["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 5);
        assert_eq!(v["skipped"][0]["mode"], "graph");
        assert_eq!(runs[1]["mode"], "device-barrier");
        for r in runs {
            assert_eq!(r["verification"]["passed"], true, "{r}");
            assert_eq!(r["repeat"], 3);
            assert_eq!(r["bytes"], runs[0]["bytes"]);
        }
        assert_eq!(runs[4]["ticks"], 1);
        assert_eq!(runs[4]["label"], "all_at_once");
        assert_eq!(v["model"], model);
        assert_eq!(v["layout"]["regions"].as_array().unwrap().len(), 8);
    }
}

#[test]
fn a_corrupted_schedule_fails_cleanly_without_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let (inst, sched) = setup(dir.path(), "READ1_WRITE1");
    // Drop the last transfer from the schedule CSV.
    let csv = std::fs::read_to_string(&sched).unwrap();
    let mut lines: Vec<&str> = csv.lines().collect();
    lines.pop();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let out = dir.path().join("r.json");
    let o = tickopt(&[
        "replay",
        &inst,
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("does not validate"), "{}", text(&o));
    assert!(!out.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        3,
        "no stray files"
    );
}

#[test]
fn bad_options_fail_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let (inst, sched) = setup(dir.path(), "STRICT1");
    for args in [
        vec!["--scale-bits", "0"],
        vec!["--repeat", "0"],
        vec!["--out", "/nonexistent-dir/r.json"],
        vec!["--max-mib", "0"],
    ] {
        let mut all = vec!["replay", inst.as_str(), sched.as_str()];
        all.extend(args.iter().copied());
        let o = tickopt(&all);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", text(&o));
        assert!(!text(&o).contains("panicked"), "{}", text(&o));
    }
    let o = tickopt(&["replay", &inst, "/nonexistent.csv"]);
    assert_eq!(o.status.code(), Some(1));
}

/// `--executor cuda` fails cleanly without a GPU (CI), and replays where
/// `TICKOPT_CUDA_TESTS=1` says a GPU is present in a `--features cuda`
/// build (scripts/external_checks.sh).
#[test]
fn cuda_executor_fails_cleanly_without_a_gpu_and_replays_with_one() {
    let gpu = cfg!(feature = "cuda") && std::env::var("TICKOPT_CUDA_TESTS").as_deref() == Ok("1");
    let dir = tempfile::tempdir().unwrap();
    let (inst, sched) = setup(dir.path(), "STRICT1");
    let out = dir.path().join("r.json");
    let o = tickopt(&[
        "replay",
        &inst,
        &sched,
        "--executor",
        "cuda",
        "--out",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert!(!t.contains("panicked"), "{t}");
    if gpu {
        assert_eq!(o.status.code(), Some(0), "{t}");
        assert!(out.exists());
        return;
    }
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("CUDA") || t.contains("cuda"), "{t}");
    assert!(!out.exists());
    if cfg!(not(feature = "cuda")) {
        assert!(t.contains("not enabled in this build"), "{t}");
    }
}

#[test]
fn modes_run_on_the_cpu_or_are_refused_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let (inst, sched) = setup(dir.path(), "READ1_WRITE1");
    for mode in ["host", "device-barrier", "device-dataflow"] {
        let o = tickopt(&["replay", &inst, &sched, "--mode", mode, "--repeat", "2"]);
        assert_eq!(o.status.code(), Some(0), "{mode}: {}", text(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains(mode));
    }
    let o = tickopt(&["replay", &inst, &sched, "--mode", "graph"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("graph mode"), "{}", text(&o));
    let o = tickopt(&["replay", &inst, &sched, "--mode", "warp"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(text(&o).contains("device-dataflow"), "{}", text(&o));
    // Without a GPU (or this build's cuda feature) the device modes of the
    // cuda executor are refused like the executor itself.
    if std::env::var("TICKOPT_CUDA_TESTS").as_deref() != Ok("1") {
        let o = tickopt(&[
            "replay",
            &inst,
            &sched,
            "--executor",
            "cuda",
            "--mode",
            "device-dataflow",
        ]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(1), "{t}");
        assert!(!t.contains("panicked"), "{t}");
    }
}
