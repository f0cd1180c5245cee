//! `tickopt audit` through the binary: gaps against tickopt's proven
//! optimum, gates and exit codes, ranking, reports, unreadable input.

mod common;
use common::{s, tickopt};

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A copy of `csv` in `dir` without its `# copy_bw_bits_per_tick` line.
fn without_recorded_bw(csv: &Path, dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(csv).unwrap();
    let kept: String = text
        .lines()
        .filter(|l| !l.starts_with("# copy_bw_bits_per_tick"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = dir.join("bare.csv");
    std::fs::write(&out, kept).unwrap();
    out
}

fn petersen() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/demo/petersen_n10_m1_s0.csv")
}

/// A valid 5-tick schedule of the Petersen graph (one matching of a
/// 4-edge-colouring split in two), as a schedule CSV.
const FIVE_TICKS: &str = "tick,src_slot,dst_slot,len_bits
0,0,1,1024
0,2,3,1024
0,4,9,1024
0,5,7,1024
0,6,8,1024
1,1,2,1024
1,3,4,1024
1,0,5,1024
1,7,9,1024
2,1,6,1024
2,2,7,1024
2,3,8,1024
2,4,0,1024
3,8,5,1024
4,9,6,1024
";

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn audit_json(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("audit.json")).unwrap()).unwrap()
}

#[test]
fn petersen_five_ticks_is_one_tick_above_the_proven_optimum() {
    let tmp = tempfile::tempdir().unwrap();
    let five = tmp.path().join("five.csv");
    std::fs::write(&five, FIVE_TICKS).unwrap();
    let p = petersen();
    let out = tmp.path().join("report");
    let o = tickopt(&[
        "audit",
        s(&p),
        s(&five),
        "--bw",
        "1024",
        "--out-dir",
        s(&out),
    ]);
    assert_eq!(code(&o), Some(0), "{}", err(&o));
    let a = audit_json(&out);
    assert_eq!(a["lower_bound"], 3);
    assert_eq!(a["witness"]["kind"], "degree");
    assert_eq!(a["optimum_ticks"], 4);
    assert_eq!(a["optimum_status"], "optimal_exhaustive");
    assert_eq!(a["gap_reference"], "optimum");
    let sch = &a["schedules"][0];
    assert_eq!(sch["valid"], true);
    assert_eq!(sch["schedule_ticks"], 5);
    assert_eq!(sch["gap_ticks"], 1);
    assert_eq!(sch["gap_ratio"], 0.25);
    assert_eq!(sch["gap_is_upper_estimate"], false);
    assert_eq!(sch["ticks_saved"], 1);
    // 15 transfers in 5 ticks of at most 5: 60%.
    assert_eq!(sch["utilisation"]["mean"], 0.6);
    assert_eq!(sch["utilisation"]["buckets"].as_array().unwrap().len(), 5);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("optimum: 4 ticks, proven (optimal_exhaustive)"),
        "{md}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains(r#"aria-label="schedules against optimum and lower bound""#));
    assert!(html.contains(r#"aria-label="utilisation per tick of "#));
    assert!(html.contains("optimum 4 (proven)"));
    assert!(!html.contains("<script") && !html.contains("src=") && !html.contains("href="));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("optimum 4 ticks (proven: optimal_exhaustive)"),
        "{stdout}"
    );

    // Gates: one tick over is outside --max-gap-ticks 0 and --max-gap 0.2.
    for (gate, want) in [
        (&["--max-gap-ticks", "0"][..], 2),
        (&["--max-gap-ticks", "1"], 0),
        (&["--max-gap", "0.2"], 2),
        (&["--max-gap", "0.25"], 0),
    ] {
        let mut args = vec!["audit", s(&p), s(&five), "--bw", "1024"];
        args.extend_from_slice(gate);
        let o = tickopt(&args);
        assert_eq!(code(&o), Some(want), "{gate:?}: {}", err(&o));
    }
    let o = tickopt(&[
        "audit",
        s(&p),
        s(&five),
        "--bw",
        "1024",
        "--max-gap-ticks",
        "0",
    ]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("gap 1 ticks > --max-gap-ticks 0"));
}

#[test]
fn tickopt_own_schedule_passes_and_ranks_first_in_every_format() {
    let tmp = tempfile::tempdir().unwrap();
    let p = petersen();
    let five = tmp.path().join("five.csv");
    std::fs::write(&five, FIVE_TICKS).unwrap();
    let mut own = Vec::new();
    for (name, format) in [
        ("own.json", "json"),
        ("own.csv", "csv"),
        ("own.compact.json", "compact"),
    ] {
        let path = tmp.path().join(name);
        let o = tickopt(&[
            "solve",
            s(&p),
            "--bw",
            "1024",
            "--out",
            s(&path),
            "--format",
            format,
        ]);
        assert!(o.status.success(), "{}", err(&o));
        own.push(path);
    }
    for path in &own {
        let o = tickopt(&[
            "audit",
            s(&p),
            s(path),
            "--bw",
            "1024",
            "--max-gap-ticks",
            "0",
        ]);
        assert_eq!(code(&o), Some(0), "{}: {}", path.display(), err(&o));
    }
    // Side by side: the 5-tick schedule first on the command line, ranked second.
    let o = tickopt(&[
        "audit",
        s(&p),
        s(&five),
        s(&own[0]),
        "--bw",
        "1024",
        "--json",
    ]);
    assert_eq!(code(&o), Some(0), "{}", err(&o));
    let a: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(a["schedules"][0]["rank"], 2);
    assert_eq!(a["schedules"][1]["rank"], 1);
    assert_eq!(a["schedules"][1]["gap_ticks"], 0);
    assert_eq!(a["schedules"][1]["utilisation"]["mean"], 0.75);
}

#[test]
fn an_invalid_schedule_fails_with_its_first_errors_and_ranks_last() {
    let tmp = tempfile::tempdir().unwrap();
    let p = petersen();
    let five = tmp.path().join("five.csv");
    std::fs::write(&five, FIVE_TICKS).unwrap();
    // Drop the last chunk (9 -> 6): coverage fails.
    let short = tmp.path().join("short.csv");
    std::fs::write(&short, FIVE_TICKS.replace("4,9,6,1024\n", "")).unwrap();
    let o = tickopt(&[
        "audit",
        s(&p),
        s(&short),
        s(&five),
        "--bw",
        "1024",
        "--json",
    ]);
    assert_eq!(code(&o), Some(2), "{}", err(&o));
    let a: Value = serde_json::from_slice(&o.stdout).unwrap();
    let bad = &a["schedules"][0];
    assert_eq!(bad["valid"], false);
    assert_eq!(bad["rank"], 2);
    assert_eq!(bad["gap_ticks"], Value::Null);
    assert_eq!(bad["error_kinds"][0], "COVERAGE");
    assert_eq!(bad["first_errors"][0]["kind"], "COVERAGE");
    assert_eq!(a["schedules"][1]["rank"], 1);
    assert_eq!(a["passed"], false);
}

#[test]
fn unreadable_input_is_exit_1_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let p = petersen();
    let out = tmp.path().join("report");
    let gone = tmp.path().join("gone.csv");
    let o = tickopt(&[
        "audit",
        s(&p),
        s(&gone),
        "--bw",
        "1024",
        "--out-dir",
        s(&out),
    ]);
    assert_eq!(code(&o), Some(1));
    assert!(err(&o).contains("gone.csv"), "{}", err(&o));
    assert!(!out.exists());
    // A schedule row that is not numbers: the file and line are named.
    let garbled = tmp.path().join("garbled.csv");
    std::fs::write(&garbled, "tick,src_slot,dst_slot,len_bits\n0,0,x,1024\n").unwrap();
    let o = tickopt(&[
        "audit",
        s(&p),
        s(&garbled),
        "--bw",
        "1024",
        "--out-dir",
        s(&out),
    ]);
    assert_eq!(code(&o), Some(1));
    assert!(err(&o).contains("garbled.csv:2"), "{}", err(&o));
    assert!(!out.exists());
    // A CSV instance without --bw (and without a recorded bw).
    let five = tmp.path().join("five.csv");
    std::fs::write(&five, FIVE_TICKS).unwrap();
    let bare = without_recorded_bw(&p, tmp.path());
    let o = tickopt(&["audit", s(&bare), s(&five), "--out-dir", s(&out)]);
    assert_eq!(code(&o), Some(1));
    assert!(!out.exists());
}

#[test]
fn reports_are_byte_identical_from_run_to_run() {
    let tmp = tempfile::tempdir().unwrap();
    let p = petersen();
    let five = tmp.path().join("five.csv");
    std::fs::write(&five, FIVE_TICKS).unwrap();
    let dirs = [tmp.path().join("a"), tmp.path().join("b")];
    for d in &dirs {
        let o = tickopt(&["audit", s(&p), s(&five), "--bw", "1024", "--out-dir", s(d)]);
        assert_eq!(code(&o), Some(0), "{}", err(&o));
    }
    for f in ["audit.json", "report.md", "report.html"] {
        assert_eq!(
            std::fs::read(dirs[0].join(f)).unwrap(),
            std::fs::read(dirs[1].join(f)).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn convert_writes_the_instance_json_that_audit_and_validate_read() {
    let tmp = tempfile::tempdir().unwrap();
    let p = petersen();
    let json = tmp.path().join("petersen.json");
    let o = tickopt(&[
        "convert",
        s(&p),
        "--bw",
        "1024",
        "--model",
        "STRICT1",
        "--out",
        s(&json),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["version"], 0);
    assert_eq!(v["model"], "STRICT1");
    assert_eq!(v["slots"], 10);
    assert_eq!(v["copy_bw_bits_per_tick"], 1024);
    assert_eq!(v["demands"].as_array().unwrap().len(), 15);
    assert_eq!(v["demands"][0]["src_slot"], 0);
    // The JSON needs no --bw any more.
    let five = tmp.path().join("five.csv");
    std::fs::write(&five, FIVE_TICKS).unwrap();
    let o = tickopt(&["audit", s(&json), s(&five), "--json"]);
    assert_eq!(code(&o), Some(0), "{}", err(&o));
    let a: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(a["schedules"][0]["gap_ticks"], 1);
    // A CSV without --bw (or a recorded bw) is refused, and nothing is written.
    let none = tmp.path().join("none.json");
    let bare = without_recorded_bw(&p, tmp.path());
    let o = tickopt(&["convert", s(&bare), "--out", s(&none)]);
    assert_eq!(code(&o), Some(1));
    assert!(!none.exists());
}
