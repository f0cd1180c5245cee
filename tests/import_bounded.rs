//! Instance JSON written streamed, and imports bounded by their input
//! (issues 38 item 6, 39 item 4): the streamed writer reproduces the
//! bundled instance files byte for byte, a matrix import yields one demand
//! per non-zero off-diagonal entry, and `--max-slots` / `--max-demands`
//! refuse an import with the limit named, a non-zero exit and no file left
//! behind (neither the output nor a temporary file).
//!
//! No timings here: doc/performance.md ("Writing instances") has them.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// A W x W matrix of ones (zero diagonal), one row per line.
fn ones(w: usize) -> String {
    (0..w)
        .map(|i| {
            (0..w)
                .map(|j| if i == j { "0" } else { "1" })
                .collect::<Vec<_>>()
                .join(" ")
                + "\n"
        })
        .collect()
}

#[test]
fn convert_reproduces_the_bundled_multiport_instances_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/multiport");
    let mut seen = 0;
    for name in listing(&set) {
        if !name.ends_with(".json") || name == "manifest.json" {
            continue;
        }
        let out = dir.path().join(&name);
        let o = run(&["convert", s(&set.join(&name)), "--out", s(&out)]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let (want, got) = (
            std::fs::read(set.join(&name)).unwrap(),
            std::fs::read(&out).unwrap(),
        );
        assert!(want == got, "{name}: convert does not reproduce the file");
        seen += 1;
    }
    assert!(seen >= 5, "{seen} bundled multi-port instances");
}

#[test]
fn a_matrix_of_ones_imports_one_demand_per_off_diagonal_entry() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("ones.txt");
    std::fs::write(&m, format!("# 40 x 40\n\n{}", ones(40))).unwrap();
    let out = dir.path().join("i.json");
    let o = run(&import_args(&m, "matrix", Some("1"), &out, &[]));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["slots"], 40);
    let demands = v["demands"].as_array().unwrap();
    assert_eq!(demands.len(), 40 * 39);
    assert!(demands.iter().all(|d| d["bits_total"] == 1));
    // The same instance, written by `convert` from it: the writers agree.
    let again = dir.path().join("again.json");
    assert!(run(&["convert", s(&out), "--out", s(&again)])
        .status
        .success());
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
}

/// Runs `import` with `args`, expecting a refusal whose message contains
/// every one of `want`; nothing may be left in `dir` but `keep`.
fn refused(dir: &Path, args: &[&str], want: &[&str], keep: &[String]) {
    let o = run(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    for w in want {
        assert!(err.contains(w), "{args:?}: {err} lacks {w:?}");
    }
    assert_eq!(listing(dir), keep, "{args:?} left files behind");
}

#[test]
fn matrices_over_the_limits_are_refused_with_the_limit_named_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m.txt");
    std::fs::write(&m, ones(30)).unwrap();
    let keep = listing(dir.path());
    let out = dir.path().join("i.json");
    let with = |extra: &[&'static str]| import_args(&m, "matrix", Some("8"), &out, extra);
    // The width is refused on the first line, before any row is kept.
    refused(
        dir.path(),
        &with(&["--max-slots", "29"]),
        &["line 1", "30 slots", "limit of 29 slots (--max-slots)"],
        &keep,
    );
    // 500 demands: the 501st non-zero entry is row 17, column 7 (29 per row).
    refused(
        dir.path(),
        &with(&["--max-demands", "500"]),
        &[
            "line 18",
            "row 17, column 7",
            "limit of 500 demand rows (--max-demands)",
        ],
        &keep,
    );
    // At the limits exactly, the import succeeds.
    let o = run(&with(&["--max-slots", "30", "--max-demands", "870"]));
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn matrices_that_are_not_square_are_refused_as_they_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m.txt");
    let out = dir.path().join("i.json");
    for (body, want) in [
        (
            "0 1\n1 0\n1 1\n",
            "line 3: row 2: the matrix has more rows than its 2 columns",
        ),
        ("0 1 1\n1 0 1\n", "the matrix has 2 rows of 3 entries"),
        ("0 1 1\n1 0\n", "line 2: row 1 has 2 entries, row 0 has 3"),
        ("# only a comment\n\n", "empty matrix"),
    ] {
        std::fs::write(&m, body).unwrap();
        let keep = listing(dir.path());
        let args = import_args(&m, "matrix", Some("8"), &out, &[]);
        refused(dir.path(), &args, &[want], &keep);
    }
}

/// A small solved instance exported as a p2p-json program.
fn p2p_program(dir: &Path) -> std::path::PathBuf {
    let inst = dir.join("a2a.csv");
    let sched = dir.join("a2a.sched.json");
    let prog = dir.join("a2a.p2p.json");
    for args in [
        vec![
            "gen",
            "alltoall",
            "--n",
            "6",
            "--mult",
            "3",
            "--bw",
            "64",
            "--out",
            s(&inst),
        ],
        vec!["solve", s(&inst), "--out", s(&sched)],
    ] {
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
    let o = export(&inst, &sched, None, "p2p-json", &prog, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    prog
}

#[test]
fn p2p_programs_over_the_limits_are_refused_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let prog = p2p_program(dir.path());
    let keep = listing(dir.path());
    let (out, sched) = (dir.path().join("i.json"), dir.path().join("s.json"));
    let with = |extra: &[&'static str]| {
        import_args(
            &prog,
            "p2p-json",
            None,
            &out,
            &[&["--schedule-out", s(&sched)][..], extra].concat(),
        )
    };
    refused(
        dir.path(),
        &with(&["--max-slots", "5"]),
        &["6 slots exceed the limit of 5 slots (--max-slots)"],
        &keep,
    );
    refused(
        dir.path(),
        &with(&["--max-demands", "29"]),
        &["limit of 29 demand rows (--max-demands)"],
        &keep,
    );
    let o = run(&with(&["--max-slots", "6", "--max-demands", "30"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["demands"].as_array().unwrap().len(), 30);
}

#[test]
fn msccl_programs_over_the_limits_are_refused_before_their_chunks_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(data("msccl_alltoall_4.xml")).unwrap();
    // A 4 GiB-chunk output buffer: one attribute asks for ~64 GB.
    let huge = good.replacen("o_chunks=\"4\"", "o_chunks=\"4000000000\"", 1);
    assert_ne!(huge, good);
    let (xml, big) = (dir.path().join("p.xml"), dir.path().join("big.xml"));
    std::fs::write(&xml, &good).unwrap();
    std::fs::write(&big, &huge).unwrap();
    let keep = listing(dir.path());
    let out = dir.path().join("i.json");
    let args = |file, extra| import_args(file, "msccl-xml", Some("8"), &out, extra);
    // 4 gpus; their buffers hold 32 chunks (4 in, 4 out each), their steps
    // move 28 (12 sends, 12 receives, 4 copies of one chunk).
    for (file, extra, want) in [
        (
            &xml,
            &["--max-slots", "3"][..],
            "4 gpus exceed the limit of 3 slots (--max-slots)",
        ),
        (
            &xml,
            &["--max-demands", "31"][..],
            "buffers hold 32 chunks, above the limit of 31 demand rows (--max-demands)",
        ),
        (
            &big,
            &[][..],
            "buffers hold 4000000028 chunks, above the limit of 20000000 demand rows",
        ),
    ] {
        refused(dir.path(), &args(file, extra), &[want], &keep);
    }
    let o = run(&args(&xml, &["--max-slots", "4", "--max-demands", "32"]));
    assert!(o.status.success(), "{}", stderr(&o));
}
