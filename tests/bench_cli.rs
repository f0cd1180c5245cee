//! The `gen` and `bench` commands through the binary: exit codes, plain
//! progress lines, manifests written by `gen`, `bench merge`.

mod common;
use common::{s, tickopt};

use std::path::Path;

#[test]
fn gen_writes_a_set_that_bench_runs_and_merge_joins() {
    let tmp = tempfile::tempdir().unwrap();
    let set = tmp.path().join("mini");
    std::fs::create_dir_all(&set).unwrap();
    let manifest = set.join("manifest.json");
    for args in [
        &["ring", "--n", "5"][..],
        &["clique", "--n", "5", "--mult", "3"],
        &["moe", "--n", "4", "--tokens", "20", "--seed", "2"],
        &["petersen"],
    ] {
        let mut a = vec!["gen"];
        a.extend_from_slice(args);
        a.extend_from_slice(&["--out-dir", s(&set), "--manifest", s(&manifest)]);
        let o = tickopt(&a);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // Regenerating one replaces its entry instead of adding another.
    let o = tickopt(&[
        "gen",
        "ring",
        "--n",
        "5",
        "--out-dir",
        s(&set),
        "--manifest",
        s(&manifest),
    ]);
    assert!(o.status.success());
    let m = tickopt::bench::Manifest::load(&set).unwrap();
    assert_eq!(m.entries.len(), 4);
    assert_eq!(m.set, "mini");
    let k5 = m
        .entries
        .iter()
        .flatten()
        .find(|e| e.family == "clique")
        .unwrap();
    assert_eq!(k5.file, "clique_n5_m3_s0.csv");
    assert_eq!(k5.known_optimum[&tickopt::instance::Model::Strict1], 15);

    let whole = tmp.path().join("whole");
    let o = tickopt(&["bench", s(&set), "--out", s(&whole), "--jobs", "2"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("[8/8]"),
        "plain progress lines expected: {stderr}"
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("report:") && stdout.contains("report.html"),
        "{stdout}"
    );

    let mut shards = Vec::new();
    for i in 1..=3 {
        let d = tmp.path().join(format!("shard{i}"));
        let shard = format!("{i}/3");
        let o = tickopt(&[
            "bench",
            s(&set),
            "--out",
            s(&d),
            "--shard",
            &shard,
            "--jobs",
            "1",
        ]);
        assert!(o.status.success());
        shards.push(d);
    }
    let merged = tmp.path().join("merged");
    let mut a = vec!["bench", "merge"];
    a.extend(shards.iter().map(|d| s(d)));
    a.extend_from_slice(&["--out", s(&merged)]);
    let o = tickopt(&a);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |d: &Path| {
        let r = tickopt::bench::export::read_results(&d.join("results.json")).unwrap();
        r.records
            .iter()
            .map(|r| r.without_timing())
            .collect::<Vec<_>>()
    };
    assert_eq!(read(&merged), read(&whole));
}

#[test]
fn gen_to_stdout_and_bad_parameters() {
    let o = tickopt(&["gen", "bidir_ring", "--n", "3", "--out", "-"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        text,
        "# tickopt gen bidir_ring n=3 mult=1 bw=1024 seed=0; slots=3 demands=6 chunks=6\n\
         # copy_bw_bits_per_tick=1024\n\
         src_slot,dst_slot,bits_total\n0,1,1024\n0,2,1024\n1,0,1024\n1,2,1024\n2,0,1024\n2,1,1024\n"
    );
    let o = tickopt(&["gen", "ring", "--n", "1", "--out", "-"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("ring: n must be >= 2"));
    let o = tickopt(&["gen", "ring", "--n", "4"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn bench_with_a_failure_exits_2_and_still_writes_everything() {
    let tmp = tempfile::tempdir().unwrap();
    let set = tmp.path().join("s");
    std::fs::create_dir_all(&set).unwrap();
    std::fs::write(set.join("a.csv"), "0,1,10\n").unwrap();
    std::fs::write(
        set.join("manifest.json"),
        r#"{"instances":[{"file":"a.csv","bw":10},{"file":"gone.csv","bw":10}]}"#,
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = tickopt(&[
        "bench",
        s(&set),
        "--out",
        s(&out),
        "--models",
        "READ1_WRITE1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("gone.csv") && stderr.contains("FAILED"),
        "{stderr}"
    );
    for f in ["results.json", "results.csv", "report.md", "report.html"] {
        assert!(out.join(f).is_file());
    }
    let o = tickopt(&["bench", s(&set), "--out", s(&out), "--shard", "3/2"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad shard"));
}

#[test]
fn a_directory_of_csvs_without_a_manifest_benches_with_bw() {
    let tmp = tempfile::tempdir().unwrap();
    let set = tmp.path().join("plain");
    std::fs::create_dir_all(&set).unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/demo");
    for f in ["petersen_n10_m1_s0.csv", "ring_n8_m1_s0.csv"] {
        // CSVs that record no bw (no `# copy_bw_bits_per_tick=N` line).
        let text = std::fs::read_to_string(demo.join(f)).unwrap();
        let bare: String = text
            .lines()
            .filter(|l| !l.starts_with("# copy_bw_bits_per_tick"))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(set.join(f), bare).unwrap();
    }
    let out = tmp.path().join("out");
    // Without --bw the CSVs cannot be read: exit 1, nothing written.
    let o = tickopt(&["bench", s(&set), "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("--bw") && stderr.contains("petersen_n10_m1_s0.csv records no bw"),
        "{stderr}"
    );
    assert!(!out.exists());

    let o = tickopt(&[
        "bench",
        s(&set),
        "--out",
        s(&out),
        "--bw",
        "1024",
        "--model",
        "STRICT1",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r = tickopt::bench::export::read_results(&out.join("results.json")).unwrap();
    assert_eq!(r.header.sets, vec!["plain".to_string()]);
    let by_family: Vec<(&str, &str, Option<u64>)> = r
        .records
        .iter()
        .map(|r| (r.family.as_str(), r.status.as_str(), r.ticks))
        .collect();
    // Petersen's chromatic index is 4 over a bound of 3: proven by the
    // exhaustive search, not by the bound.
    assert_eq!(
        by_family,
        vec![
            ("petersen", "optimal_exhaustive", Some(4)),
            ("ring", "optimal", Some(2))
        ]
    );
    // The gap chart separates ticks above the bound (Petersen: 1 of 3)
    // from the possible gap to the optimum (zero: proven).
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("petersen: above the lower bound: mean 33.33%"),
        "{html}"
    );
    assert!(html.contains(
        "petersen: possible gap to the optimum: mean 0.00% of the lower bound, max 0 ticks"
    ));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| optimal_exhaustive |") && md.contains("seconds (sum)"));
    // The terminal table names the status as it is.
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("optimal_exhaustive"), "{stdout}");
}

#[test]
fn a_missing_set_path_is_exit_1_with_no_output() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let gone = tmp.path().join("gone");
    let o = tickopt(&["bench", s(&gone), "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("gone: no such set"), "{stderr}");
    assert!(!out.exists());
    assert!(o.stdout.is_empty());
}

/// Each file benches at its own bw: a CSV's recorded
/// `# copy_bw_bits_per_tick=N` line, a manifest entry's `bw`; `--bw` only
/// completes a CSV that records none. Every run shows its bw and source.
#[test]
fn each_file_benches_at_its_own_bw_and_reports_show_it() {
    let tmp = tempfile::tempdir().unwrap();
    let set = tmp.path().join("mixed");
    std::fs::create_dir_all(&set).unwrap();
    // The same ring made for two bandwidths: 8 chunks per demand either way.
    for (bw, name) in [("1024", "ring_n6_a.csv"), ("4KiB", "ring_n6_b.csv")] {
        let f = set.join(name);
        let o = tickopt(&[
            "gen",
            "--bw",
            bw,
            "--mult",
            "8",
            "ring",
            "--n",
            "6",
            "-o",
            s(&f),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // One CSV without a recorded bw: 3 demands of 3000 bits.
    std::fs::write(
        set.join("bare_n3.csv"),
        "src_slot,dst_slot,bits_total\n0,1,3000\n1,2,3000\n2,0,3000\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = tickopt(&[
        "bench",
        s(&set),
        "--out",
        s(&out),
        "--bw",
        "1000",
        "--models",
        "READ1_WRITE1",
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r = tickopt::bench::export::read_results(&out.join("results.json")).unwrap();
    type Row<'a> = (&'a str, Option<u64>, Option<&'a str>, Option<u64>);
    let got: Vec<Row> = r
        .records
        .iter()
        .map(|r| (r.instance.as_str(), r.bw, r.bw_from.as_deref(), r.ticks))
        .collect();
    assert_eq!(
        got,
        vec![
            ("bare_n3", Some(1000), Some("--bw"), Some(3)),
            ("ring_n6_a", Some(1024), Some("csv comment"), Some(8)),
            ("ring_n6_b", Some(32768), Some("csv comment"), Some(8)),
        ]
    );
    // The table on stdout, results.csv, report.md and report.html show it.
    assert!(stdout.contains("32768 (csv comment)"), "{stdout}");
    assert!(stdout.contains("1000 (--bw)"), "{stdout}");
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert!(
        csv.lines().next().unwrap().contains(",chunks,bw,bw_from,"),
        "{csv}"
    );
    assert!(csv.contains(",1024,csv comment,"), "{csv}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("| bw (from) |") && md.contains("| 32768 (csv comment) |"),
        "{md}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<th>bw (from)</th>") && html.contains("<td>1000 (--bw)</td>"));

    // A manifest entry's bw wins over the file's comment; --bw does not
    // override either.
    let m = tmp.path().join("man");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::copy(set.join("ring_n6_a.csv"), m.join("ring_n6_a.csv")).unwrap();
    std::fs::write(
        m.join("manifest.json"),
        r#"{"version":1,"set":"man","instances":[{"file":"ring_n6_a.csv","bw":2048,"models":["READ1_WRITE1"]}]}"#,
    )
    .unwrap();
    let out2 = tmp.path().join("out2");
    let o = tickopt(&["bench", s(&m), "--out", s(&out2), "--bw", "1"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r = tickopt::bench::export::read_results(&out2.join("results.json")).unwrap();
    assert_eq!(r.records[0].bw, Some(2048));
    assert_eq!(r.records[0].bw_from.as_deref(), Some("manifest"));
    assert_eq!(r.records[0].ticks, Some(4));
}

/// With a link cost model every run records its predicted seconds (ticks x
/// (alpha + bw / rate)) and their ratio to the fluid limit, in results and
/// reports; without one the column is absent (issue 28).
#[test]
fn bench_with_a_cost_model_predicts_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("set");
    std::fs::create_dir(&set).unwrap();
    let csv = set.join("a.csv");
    let o = tickopt(&["gen", "--bw", "8192", "alltoall", "--n", "6", "-o", s(&csv)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = dir.path().join("out");
    let o = tickopt(&[
        "bench",
        s(&set),
        "--models",
        "READ1_WRITE1",
        "--alpha-us",
        "10",
        "--link-gbps",
        "8",
        "--out",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let r = &results["records"][0];
    let ticks = r["ticks"].as_f64().unwrap();
    // 8192 bits at 8 Gbit/s = 1.024 us; a tick is 11.024 us.
    let predicted = r["seconds_predicted"].as_f64().unwrap();
    assert!((predicted - ticks * 11.024e-6).abs() < 1e-12, "{r}");
    // Fluid: the busiest slot moves 5 demands of 8192 bits each way
    // (READ1_WRITE1: max of out and in) = 5.12 us.
    let ratio = r["predicted_over_fluid"].as_f64().unwrap();
    assert!((ratio - predicted / 5.12e-6).abs() < 1e-9, "{r}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("predicted (x fluid)") && md.contains("x fluid) |"),
        "{md}"
    );
    let csv_text = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert!(csv_text
        .lines()
        .next()
        .unwrap()
        .contains("seconds_predicted,predicted_over_fluid"));

    let plain = dir.path().join("plain");
    let o = tickopt(&["bench", s(&set), "--out", s(&plain)]);
    assert!(o.status.success());
    let md = std::fs::read_to_string(plain.join("report.md")).unwrap();
    assert!(!md.contains("predicted (x fluid)"), "{md}");
    // One flag alone is refused before anything runs.
    let o = tickopt(&[
        "bench",
        s(&set),
        "--alpha-us",
        "10",
        "--out",
        s(&dir.path().join("x")),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("go together"));
    assert!(!dir.path().join("x").join("results.json").exists());
}
