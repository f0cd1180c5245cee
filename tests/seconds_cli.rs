//! Seconds through the binary (doc/design.md §12): cost flags and the
//! instance JSON "cost" object, --chunk auto, verify of the seconds
//! fields (doctored ones refused), and calibrate on synthetic and real
//! executor reports.

mod common;

use common::{run, stderr, stdout};
use std::path::Path;

fn instance_json(dir: &Path, model: &str, cost: &str) -> String {
    let p = dir.join(format!("inst_{model}.json"));
    std::fs::write(
        &p,
        format!(
            r#"{{"version":0,"model":"{model}","slots":5,"copy_bw_bits_per_tick":512,{cost}
            "demands":[{{"src_slot":0,"dst_slot":1,"bits_total":50000}},{{"src_slot":1,"dst_slot":2,"bits_total":30000}},
            {{"src_slot":2,"dst_slot":0,"bits_total":20480}},{{"src_slot":3,"dst_slot":4,"bits_total":9990}},
            {{"src_slot":0,"dst_slot":3,"bits_total":7000}},{{"src_slot":4,"dst_slot":1,"bits_total":1500}}]}}"#
        ),
    )
    .unwrap();
    p.to_str().unwrap().to_string()
}

fn solve(inst: &str, dir: &Path, extra: &[&str]) -> (String, String, serde_json::Value) {
    let (s, m) = (dir.join("s.json"), dir.join("m.json"));
    let (s, m) = (s.to_str().unwrap(), m.to_str().unwrap());
    let mut args = vec!["solve", inst, "-o", s, "--summary", m];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = serde_json::from_str(&std::fs::read_to_string(m).unwrap()).unwrap();
    (s.to_string(), m.to_string(), v)
}

#[test]
fn chunk_auto_from_the_instance_cost_object_verifies() {
    let dir = tempfile::tempdir().unwrap();
    for model in ["STRICT1", "READ1_WRITE1"] {
        let inst = instance_json(
            dir.path(),
            model,
            r#""cost":{"alpha_us":2.5,"link_gbps":100},"#,
        );
        let (s, m, v) = solve(&inst, dir.path(), &["--chunk", "auto"]);
        let c = v["cost"]["chunk_bits"].as_u64().unwrap();
        assert_eq!(v["copy_bw_bits_per_tick"].as_u64(), Some(c));
        assert_eq!(v["cost"]["chunk"], "auto");
        assert!(c % 8 == 0, "{c}");
        let (p, lb) = (
            v["seconds_predicted"].as_f64().unwrap(),
            v["seconds_lower_bound"].as_f64().unwrap(),
        );
        assert!(lb <= p && lb >= v["cost"]["fluid_limit_seconds"].as_f64().unwrap());
        let o = run(&["verify", &inst, &s, &m]);
        let out = stdout(&o);
        assert!(o.status.success(), "{out}{}", stderr(&o));
        assert!(out.contains("ok    seconds   seconds_lower_bound"), "{out}");
        // The instance's model is given to verify: compared, not assumed.
        assert!(out.contains("ok    seconds   cost model"), "{out}");
        // Another model given on the command line: refused.
        let o = run(&[
            "verify",
            &inst,
            &s,
            &m,
            "--alpha-us",
            "3",
            "--link-gbps",
            "100",
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    }
}

#[test]
fn doctored_seconds_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let inst = instance_json(dir.path(), "STRICT1", "");
    let (s, m, v) = solve(
        &inst,
        dir.path(),
        &["--alpha-us", "10", "--link-gbps", "40"],
    );
    assert_eq!(v["cost"]["chunk"], "given");
    let o = run(&["verify", &inst, &s, &m]);
    assert!(o.status.success(), "{}", stdout(&o));
    let doctor = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut w = v.clone();
        f(&mut w);
        std::fs::write(&m, serde_json::to_string(&w).unwrap()).unwrap();
        let o = run(&["verify", &inst, &s, &m]);
        (o.status.code(), stdout(&o))
    };
    let lb = v["seconds_lower_bound"].as_f64().unwrap();
    // A larger bound than the instance allows (in both places).
    let (code, out) = doctor(&|w| {
        w["seconds_lower_bound"] = (lb * 1.5).into();
        w["cost"]["lower_bound"] = (lb * 1.5).into();
    });
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("FAIL  seconds   seconds_lower_bound") && out.contains("REJECTED"),
        "{out}"
    );
    assert!(
        out.contains("is above"),
        "the FAIL line says what failed: {out}"
    );
    // The two statements of the bound disagree: the line names both.
    let (code, out) = doctor(&|w| w["seconds_lower_bound"] = (lb * 0.999).into());
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("differs from the summary's cost.lower_bound"),
        "{out}"
    );
    // A prediction that is not ticks x tick time.
    let (code, out) = doctor(&|w| w["seconds_predicted"] = 1e-9.into());
    assert_eq!(code, Some(2), "{out}");
    // Seconds without the object that says under which model.
    let (code, out) = doctor(&|w| {
        w.as_object_mut().unwrap().remove("cost");
    });
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("without the `cost` object"), "{out}");
    // A witness step that does not hold at its chunk size.
    let (code, out) = doctor(&|w| {
        let t = w["cost"]["bound"]["ticks"].as_u64().unwrap();
        w["cost"]["bound"]["ticks"] = (t + 1).into();
    });
    assert_eq!(code, Some(2), "{out}");
}

#[test]
fn flags_and_cost_objects_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let inst = instance_json(dir.path(), "STRICT1", "");
    let out = dir.path().join("x.json");
    let out = out.to_str().unwrap();
    for (args, msg) in [
        (vec!["--chunk", "auto"], "--chunk auto needs a cost model"),
        (
            vec!["--alpha-us", "3"],
            "--alpha-us and --link-gbps go together",
        ),
        (
            vec!["--alpha-us", "-3", "--link-gbps", "1"],
            "alpha_us must be a finite number >= 0",
        ),
        (
            vec![
                "--alpha-us",
                "3",
                "--link-gbps",
                "1",
                "--chunk",
                "auto",
                "--min-chunk",
                "12",
            ],
            "not a whole number of bytes",
        ),
        (vec!["--min-chunk", "64B"], "need a cost model"),
        (
            vec![
                "--alpha-us",
                "3",
                "--link-gbps",
                "1",
                "--min-chunk",
                "1KiB",
                "--max-chunk",
                "64B",
            ],
            "at most the largest",
        ),
    ] {
        let mut a = vec!["solve", &inst, "-o", out];
        a.extend(args.iter());
        let o = run(&a);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(msg), "{args:?}: {}", stderr(&o));
        assert!(!Path::new(out).exists());
    }
    for (cost, msg) in [
        (
            r#""cost":{"alpha":1,"link_gbps":2},"#,
            "did you mean `alpha_us`",
        ),
        (r#""cost":{"link_gbps":2},"#, "cost.alpha_us"),
        (
            r#""cost":{"alpha_us":1,"link_gbps":0},"#,
            "link_gbps must be",
        ),
        (r#""cost":[1,2],"#, "expected an object"),
        (
            r#""costs":{"alpha_us":1,"link_gbps":2},"#,
            "did you mean `cost`",
        ),
    ] {
        let inst = instance_json(dir.path(), "STRICT1", cost);
        let o = run(&["solve", &inst]);
        assert_eq!(o.status.code(), Some(1), "{cost}");
        assert!(stderr(&o).contains(msg), "{cost}: {}", stderr(&o));
    }
}

#[test]
fn a_csv_without_bw_takes_chunk_auto() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("d.csv");
    std::fs::write(
        &csv,
        "src_slot,dst_slot,bits_total\n0,1,80000\n1,2,4000\n2,0,160\n",
    )
    .unwrap();
    let csv = csv.to_str().unwrap();
    let (s, m, v) = solve(
        csv,
        dir.path(),
        &[
            "--chunk",
            "auto",
            "--alpha-us",
            "1",
            "--link-gbps",
            "8",
            "--model",
            "READ1_WRITE1",
        ],
    );
    assert_eq!(v["seconds_predicted"], v["seconds_lower_bound"]);
    let o = run(&["verify", csv, &s, &m, "--model", "READ1_WRITE1"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
}

/// A report as `tickopt replay --out` writes it, with ticks of a known model.
fn synthetic_report(alpha_us: f64, gbytes: f64) -> String {
    let ticks: Vec<String> = (0..60)
        .map(|i| {
            let bytes = 1000 + 37_000 * i;
            let us = (alpha_us + bytes as f64 / (gbytes * 1e3)) * (1.0 + 0.001 * ((i % 5) as f64 - 2.0));
            format!(r#"{{"copies":2,"bytes":{},"max_copy_bytes":{bytes},"median_us":{us},"p95_us":{us}}}"#, 2 * bytes)
        })
        .collect();
    format!(
        r#"{{"tool":"test","runs":[{{"label":"schedule","per_tick":[{}]}},{{"label":"all_at_once","per_tick":[{{"copies":9,"bytes":1,"max_copy_bytes":1,"median_us":1e9,"p95_us":1e9}}]}}]}}"#,
        ticks.join(",")
    )
}

#[test]
fn calibrate_recovers_known_values() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("r.json");
    std::fs::write(&r, synthetic_report(36.3, 678.0)).unwrap();
    let o = run(&["calibrate", r.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let (a, g) = (
        v["alpha_us"].as_f64().unwrap(),
        v["rate_gbytes_per_s"].as_f64().unwrap(),
    );
    assert!((a / 36.3 - 1.0).abs() < 0.01, "{a}");
    assert!((g / 678.0 - 1.0).abs() < 0.01, "{g}");
    assert_eq!(v["samples"], 60);
    assert!(
        v["flags"].as_str().unwrap().starts_with("--alpha-us 36."),
        "{v}"
    );
    // Not a report: refused with the file's name.
    std::fs::write(&r, "{\"runs\":[{}]}").unwrap();
    let o = run(&["calibrate", r.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("r.json: not an executor report"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn replay_predicts_and_calibrate_reads_the_cpu_report() {
    let dir = tempfile::tempdir().unwrap();
    let inst = instance_json(dir.path(), "READ1_WRITE1", "");
    let mut reports = Vec::new();
    for bw in ["512", "4096", "32768"] {
        let s = dir.path().join(format!("s{bw}.json"));
        let o = run(&["solve", &inst, "--bw", bw, "-o", s.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let r = dir.path().join(format!("r{bw}.json"));
        let o = run(&[
            "replay",
            &inst,
            s.to_str().unwrap(),
            "--bw",
            bw,
            "--executor",
            "cpu",
            "--repeat",
            "3",
            "--out",
            r.to_str().unwrap(),
            "--alpha-us",
            "5",
            "--link-gbps",
            "80",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains("predicted"), "{}", stdout(&o));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&r).unwrap()).unwrap();
        let p = &v["prediction"];
        assert_eq!(
            p["per_tick_us"].as_array().unwrap().len() as u64,
            v["runs"][0]["ticks"].as_u64().unwrap()
        );
        assert!(p["total_us"].as_f64().unwrap() > 0.0);
        reports.push(r.to_str().unwrap().to_string());
    }
    let mut args = vec!["calibrate"];
    args.extend(reports.iter().map(String::as_str));
    let o = run(&args);
    // Host timings are noisy: the fit runs and prints flags, or says why
    // no rate fits (time not growing with bytes).
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        text.contains("flags: --alpha-us") || text.contains("no link rate can be fitted"),
        "{text}"
    );
}
