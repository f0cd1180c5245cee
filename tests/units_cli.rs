//! Sizes on the command line (issue 30, item 1): every size flag takes the
//! one syntax of `tickopt::units` (plain integers in bits for bandwidths,
//! K/M/G, Ki/Mi/Gi bits, KB/MB/GB, KiB/MiB/GiB bytes), refuses 0 and
//! negatives with a message of ours, and says so in --help.

mod common;
use common::*;
use std::path::Path;

fn gen_ring(dir: &Path) -> String {
    let csv = dir.join("ring.csv");
    let o = run(&["gen", "ring", "--n", "6", "--out", csv.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    csv.to_str().unwrap().to_string()
}

fn solve_json(csv: &str, bw: &str, out: &Path) -> std::process::Output {
    run(&["solve", csv, "--bw", bw, "--out", out.to_str().unwrap()])
}

#[test]
fn bw_suffixes_mean_the_same_bits_as_the_plain_integer() {
    let dir = tempfile::tempdir().unwrap();
    let csv = gen_ring(dir.path());
    let plain = dir.path().join("plain.json");
    let o = solve_json(&csv, "1024", &plain);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = std::fs::read(&plain).unwrap();
    for bw in ["1Ki", "128B", "1024b", "1_024"] {
        let out = dir.path().join(format!("{bw}.json"));
        let o = solve_json(&csv, bw, &out);
        assert!(o.status.success(), "--bw {bw}: {}", stderr(&o));
        assert_eq!(std::fs::read(&out).unwrap(), want, "--bw {bw}");
    }
    // 1M (10^6 bits) is accepted and gives one chunk per 1024-bit demand.
    for (bw, bits) in [("1M", 1_000_000u64), ("1KiB", 8192), ("2Ki", 2048)] {
        let sum = dir.path().join("sum.json");
        let o = run(&[
            "solve",
            &csv,
            "--bw",
            bw,
            "--summary",
            sum.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("6 chunks"), "{}", stderr(&o));
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&sum).unwrap()).unwrap();
        assert_eq!(s["copy_bw_bits_per_tick"], bits, "--bw {bw}: {s}");
    }
}

#[test]
fn zero_and_negative_sizes_get_our_message() {
    let dir = tempfile::tempdir().unwrap();
    let csv = gen_ring(dir.path());
    for (args, says) in [
        (vec!["solve", &csv, "--bw", "0"], "is zero"),
        (vec!["solve", &csv, "--bw", "-1"], "is negative"),
        (vec!["solve", &csv, "--bw=-8"], "is negative"),
        (vec!["bounds", &csv, "--bw", "0"], "is zero"),
        (vec!["solve", &csv, "--bw", "1Q"], "unknown unit"),
        (
            vec!["solve", &csv, "--bw", "1024", "--max-output-bytes", "0"],
            "is zero",
        ),
        (vec!["gen", "ring", "--n", "4", "--bw", "0"], "is zero"),
        (
            vec!["gen", "moe", "--n", "4", "--token-bits", "-3"],
            "is negative",
        ),
    ] {
        let o = run(&args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let e = stderr(&o);
        assert!(e.contains(says), "{args:?}: {e}");
        assert!(
            !e.contains("invalid digit"),
            "{args:?}: clap's message: {e}"
        );
        assert!(!e.contains(">= 0"), "{args:?}: {e}");
    }
}

#[test]
fn gen_bw_and_token_bits_take_units() {
    let dir = tempfile::tempdir().unwrap();
    let gen = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let mut args = vec!["gen", "moe", "--n", "4", "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        std::fs::read(out).unwrap()
    };
    let plain = gen("a.csv", &["--bw", "8192", "--token-bits", "12000"]);
    assert_eq!(
        gen("b.csv", &["--bw", "1KiB", "--token-bits", "1500B"]),
        plain
    );
    assert_eq!(gen("c.csv", &["--bw", "8Ki", "--token-bits", "12K"]), plain);
    assert_ne!(
        gen("d.csv", &["--bw", "8192", "--token-bits", "12Ki"]),
        plain
    );
}

#[test]
fn max_output_bytes_counts_bytes_and_keeps_the_old_k_m_g() {
    // The ring's JSON schedule is a few hundred bytes: 1K (old meaning,
    // 1024 bytes) and 1KB (1000 bytes) let it through; 1Kb (1000 bits =
    // 125 bytes) and 10 (bytes) do not.
    let dir = tempfile::tempdir().unwrap();
    let csv = gen_ring(dir.path());
    let out = dir.path().join("s.json");
    for (limit, ok) in [
        ("1K", true),
        ("1KB", true),
        ("1KiB", true),
        ("1G", true),
        ("1Kb", false),
        ("10", false),
    ] {
        let o = run(&[
            "solve",
            &csv,
            "--bw",
            "1024",
            "--out",
            out.to_str().unwrap(),
            "--max-output-bytes",
            limit,
        ]);
        assert_eq!(
            o.status.success(),
            ok,
            "--max-output-bytes {limit}: {}",
            stderr(&o)
        );
        if !ok {
            assert!(
                stderr(&o).contains("above the output limit"),
                "{}",
                stderr(&o)
            );
        }
    }
}

#[test]
fn help_of_every_size_flag_names_the_units() {
    for args in [
        vec!["solve", "--help"],
        vec!["bounds", "--help"],
        vec!["verify", "--help"],
        vec!["bench", "--help"],
        vec!["gen", "ring", "--help"],
        vec!["gen", "moe", "--help"],
    ] {
        let o = run(&args);
        assert!(o.status.success(), "{args:?}");
        let h = stdout(&o);
        assert!(
            h.contains("KiB") && h.contains("Ki,"),
            "{args:?} --help: {h}"
        );
    }
    let h = stdout(&run(&["solve", "--help"]));
    assert!(h.contains("4G = 4GiB"), "{h}");
}
