//! Every subcommand through the binary: exit codes, outputs, files.

mod common;
use common::*;
use serde_json::Value;

fn read_json(p: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn solve_writes_schedule_and_summary_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let inst = data("a2a_n16_r1w1.json");
    for (fmt, name) in [("json", "s.json"), ("csv", "s.csv"), ("compact", "c.json")] {
        let out = dir.path().join(name);
        let sum = dir.path().join(format!("{name}.summary.json"));
        let o = run(&[
            "solve",
            inst.to_str().unwrap(),
            "--format",
            fmt,
            "--out",
            out.to_str().unwrap(),
            "--summary",
            sum.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("status optimal"), "{}", stderr(&o));
        let s = read_json(&sum);
        for key in [
            "ticks",
            "lower_bound",
            "status",
            "witness",
            "model",
            "slots",
            "demands",
            "chunks",
            "solver",
            "seconds",
        ] {
            assert!(s.get(key).is_some(), "summary lacks {key}");
        }
        assert_eq!(s["status"], "optimal");
        assert_eq!(s["ticks"], s["lower_bound"]);
        assert_eq!(s["witness"]["kind"], "degree");
        let v = run(&["validate", inst.to_str().unwrap(), out.to_str().unwrap()]);
        assert_eq!(v.status.code(), Some(0), "{}", stdout(&v));
        assert!(stdout(&v).starts_with("PASS"));
        let v = run(&[
            "verify",
            inst.to_str().unwrap(),
            out.to_str().unwrap(),
            sum.to_str().unwrap(),
        ]);
        assert_eq!(v.status.code(), Some(0), "{}", stdout(&v));
    }
}

#[test]
fn csv_input_with_flags_and_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("d.csv");
    std::fs::write(
        &csv,
        "src_slot,dst_slot,bits_total\n0,1,100\n1,2,100\n2,0,100\n",
    )
    .unwrap();
    let sum = dir.path().join("s.json");
    // Triangle under STRICT1: odd set {0,1,2} gives 3 ticks (Delta is 2).
    let o = run(&[
        "solve",
        csv.to_str().unwrap(),
        "--bw",
        "100",
        "--summary",
        sum.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = read_json(&sum);
    assert_eq!(
        (s["ticks"].as_u64(), s["lower_bound"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(s["witness"]["kind"], "odd_set");
    // Same demands under READ1_WRITE1 with more slots: 1 tick.
    let o = run(&[
        "solve",
        csv.to_str().unwrap(),
        "--bw",
        "100",
        "--model",
        "READ1_WRITE1",
        "--slots",
        "8",
        "--summary",
        sum.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let s = read_json(&sum);
    assert_eq!(
        (
            s["ticks"].as_u64(),
            s["slots"].as_u64(),
            s["model"].as_str()
        ),
        (Some(1), Some(8), Some("READ1_WRITE1"))
    );
    // A JSON instance's bw is overridden by --bw.
    let o = run(&[
        "solve",
        data("ring_n12_strict1.json").to_str().unwrap(),
        "--bw",
        "500",
        "--summary",
        sum.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(read_json(&sum)["chunks"].as_u64(), Some(120));
}

/// The summary's `timings` (issue 39): the five phases in seconds, as the
/// last key; without it (and `seconds`) two runs write the same bytes, and
/// `verify` accepts the claim, listing `timings` as not checked.
#[test]
fn summary_timings_are_last_and_change_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let inst = data("k5_m3_strict1.json");
    let mut texts = Vec::new();
    for i in 0..2 {
        let (out, sum) = (
            dir.path().join(format!("o{i}.json")),
            dir.path().join(format!("s{i}.json")),
        );
        let o = run(&[
            "solve",
            inst.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--summary",
            sum.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = std::fs::read_to_string(&sum).unwrap();
        let s = read_json(&sum);
        let t = s["timings"].as_object().expect("timings object");
        let keys: Vec<&str> = t.keys().map(String::as_str).collect();
        let mut want = vec!["parse", "bounds", "solve", "validate", "write"];
        want.sort_unstable();
        let mut got = keys.clone();
        got.sort_unstable();
        assert_eq!(got, want);
        assert!(t.values().all(|x| x.as_f64().is_some_and(|x| x >= 0.0)));
        // In that order, and last of all.
        let at = |k: &str| text.find(&format!("\"{k}\":")).unwrap();
        let tail = &text[at("timings")..];
        let inner = |k: &str| tail.find(&format!("\"{k}\":")).unwrap();
        let order = ["parse", "bounds", "solve", "validate", "write"];
        assert!(
            order.windows(2).all(|w| inner(w[0]) < inner(w[1])),
            "{text}"
        );
        assert!(text.trim_end().ends_with("}\n}"), "{text}");
        let v = run(&[
            "verify",
            inst.to_str().unwrap(),
            out.to_str().unwrap(),
            sum.to_str().unwrap(),
        ]);
        assert_eq!(v.status.code(), Some(0), "{}", stdout(&v));
        assert!(
            stdout(&v)
                .lines()
                .any(|l| l.contains("not checked:") && l.contains("timings")),
            "{}",
            stdout(&v)
        );
        // Everything before `timings`, but the whole-solve `seconds`.
        let head = &text[..at("timings")];
        let seconds = head.find("\"seconds\":").unwrap();
        let line_end = seconds + head[seconds..].find('\n').unwrap();
        texts.push(format!("{}{}", &head[..seconds], &head[line_end..]));
    }
    assert_eq!(texts[0], texts[1]);
}

#[test]
fn bounds_text_and_json() {
    let o = run(&[
        "bounds",
        data("k5_m3_strict1.json").to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success());
    let b: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(b["best"]["ticks"], 15);
    assert_eq!(b["best"]["witness"]["kind"], "odd_set");
    assert_eq!(
        b["best"]["witness"]["slots"],
        serde_json::json!([0, 1, 2, 3, 4])
    );
    assert_eq!(b["degree"]["ticks"], 12);
    let o = run(&["bounds", data("petersen_m1_strict1.json").to_str().unwrap()]);
    assert!(stdout(&o).contains("lower bound  3"), "{}", stdout(&o));
}

#[test]
fn bounds_take_a_time_limit() {
    let k5 = data("k5_m3_strict1.json");
    let o = run(&[
        "bounds",
        k5.to_str().unwrap(),
        "--json",
        "--time-limit",
        "5",
    ]);
    assert!(o.status.success());
    let b: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(b["best"]["ticks"], 15);
    assert_eq!(b["complete"], true);
    let o = run(&["bounds", k5.to_str().unwrap(), "--time-limit=-1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--time-limit"));
}

#[test]
fn validate_fails_with_kinds_and_first_tick() {
    let dir = tempfile::tempdir().unwrap();
    let inst = data("ring_n12_strict1.json");
    let bad = dir.path().join("bad.csv");
    // 0->1 and 1->2 share slot 1 in tick 0; everything else missing.
    std::fs::write(
        &bad,
        "tick,src_slot,dst_slot,len_bits\n0,0,1,1000\n0,1,2,1000\n1,5,4,1000\n",
    )
    .unwrap();
    let o = run(&[
        "validate",
        inst.to_str().unwrap(),
        bad.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["status"], "FAIL");
    assert_eq!(
        r["error_kinds"],
        serde_json::json!(["STRICT1", "EXTRAS", "COVERAGE"])
    );
    assert_eq!(r["first_error_tick"], 0);
    // Unreadable schedule: exit 1.
    let o = run(&[
        "validate",
        inst.to_str().unwrap(),
        dir.path().join("missing.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    // Model mismatch is a structural failure.
    let sched = dir.path().join("r.json");
    assert!(run(&[
        "solve",
        data("ring_n9_r1w1.json").to_str().unwrap(),
        "--out",
        sched.to_str().unwrap()
    ])
    .status
    .success());
    let o = run(&[
        "validate",
        data("ring_n9_r1w1.json").to_str().unwrap(),
        sched.to_str().unwrap(),
        "--model",
        "STRICT1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).contains("STRUCT"), "{}", stdout(&o));
}

#[test]
fn verify_rejects_doctored_claims() {
    let dir = tempfile::tempdir().unwrap();
    let inst = data("k5_m3_strict1.json");
    let sched = dir.path().join("s.json");
    let sum = dir.path().join("sum.json");
    assert!(run(&[
        "solve",
        inst.to_str().unwrap(),
        "--out",
        sched.to_str().unwrap(),
        "--summary",
        sum.to_str().unwrap()
    ])
    .status
    .success());
    let good = read_json(&sum);
    let doctor = |f: &dyn Fn(&mut Value)| {
        let mut s = good.clone();
        f(&mut s);
        let p = dir.path().join("doctored.json");
        std::fs::write(&p, serde_json::to_string(&s).unwrap()).unwrap();
        run(&[
            "verify",
            inst.to_str().unwrap(),
            sched.to_str().unwrap(),
            p.to_str().unwrap(),
        ])
    };
    assert_eq!(doctor(&|_| {}).status.code(), Some(0));
    type Doctor = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Doctor)> = vec![
        ("fewer ticks", Box::new(|s| s["ticks"] = 14.into())),
        ("higher bound", Box::new(|s| s["lower_bound"] = 16.into())),
        (
            "bound without witness",
            Box::new(|s| {
                s["lower_bound"] = 16.into();
                s["witness"]["bound"] = 16.into();
            }),
        ),
        (
            "set with a slot removed",
            Box::new(|s| s["witness"]["slots"] = serde_json::json!([0, 1, 2])),
        ),
        (
            "even set",
            Box::new(|s| s["witness"]["slots"] = serde_json::json!([0, 1, 2, 3])),
        ),
        (
            "wrong inside count",
            Box::new(|s| s["witness"]["chunks_inside"] = 31.into()),
        ),
        (
            "degree witness",
            Box::new(|s| {
                s["witness"] =
                    serde_json::json!({"kind":"degree","slot":0,"chunks":15,"direction":"both"})
            }),
        ),
        (
            "exhaustive without record",
            Box::new(|s| {
                s["status"] = "optimal_exhaustive".into();
                s["lower_bound"] = 14.into();
            }),
        ),
        ("model", Box::new(|s| s["model"] = "READ1_WRITE1".into())),
    ];
    for (what, f) in cases {
        let o = doctor(&*f);
        assert_eq!(
            o.status.code(),
            Some(2),
            "doctored claim accepted: {what}\n{}",
            stdout(&o)
        );
        assert!(stdout(&o).contains("REJECTED"));
    }
    // A doctored schedule (one chunk dropped) is rejected too.
    let text = std::fs::read_to_string(&sched).unwrap();
    let cut = text.replacen("{\"src_slot\":0,\"dst_slot\":1,\"len_bits\":100},", "", 1);
    assert_ne!(cut, text);
    std::fs::write(&sched, cut).unwrap();
    let o = run(&[
        "verify",
        inst.to_str().unwrap(),
        sched.to_str().unwrap(),
        sum.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn plugin_speaks_the_copyspace_guard_protocol() {
    use std::io::Write;
    use std::process::Stdio;
    let input = std::fs::read(data("petersen_m1_strict1.json")).unwrap();
    let mut child = bin()
        .arg("plugin")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let s: Value = serde_json::from_slice(&o.stdout).expect("stdout is exactly one JSON document");
    assert_eq!(s["version"], 0);
    assert_eq!(s["model"], "STRICT1");
    assert!(s["ticks"].as_array().unwrap().len() >= 4);
    // Bad stdin: exit 1, nothing on stdout.
    let mut child = bin()
        .arg("plugin")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"version\":0}")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("<stdin>"));
}

#[test]
fn help_explains_every_command() {
    let o = run(&["--help"]);
    assert!(o.status.success());
    for cmd in ["solve", "bounds", "validate", "verify", "plugin"] {
        assert!(stdout(&o).contains(cmd), "--help lacks {cmd}");
        let h = run(&[cmd, "--help"]);
        assert!(h.status.success());
    }
    let h = stdout(&run(&["solve", "--help"]));
    for flag in [
        "--bw",
        "--model",
        "--slots",
        "--out",
        "--format",
        "--summary",
        "--solver",
        "--time-limit",
        "--threads",
    ] {
        assert!(h.contains(flag), "solve --help lacks {flag}");
    }
}

#[test]
fn output_is_byte_identical_across_runs_and_threads() {
    let dir = tempfile::tempdir().unwrap();
    let mut outs = Vec::new();
    for threads in ["1", "2", "2"] {
        let p = dir.path().join(format!("s{}.json", outs.len()));
        let o = run(&[
            "solve",
            data("random_n64_strict1.json").to_str().unwrap(),
            "--threads",
            threads,
            "--out",
            p.to_str().unwrap(),
        ]);
        assert!(o.status.success());
        outs.push(std::fs::read(&p).unwrap());
    }
    assert!(outs.windows(2).all(|w| w[0] == w[1]));
}
