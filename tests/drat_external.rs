//! tickopt's DRAT refutations checked by an external checker that shares
//! no code with tickopt (its own checker and the SAT solver are varisat's).
//!
//! The checker is `rate` (Altmanninger and Paxian, CPP 2020; crates.io,
//! `cargo install rate --locked`), which scripts/setup.sh installs, so CI
//! checks every emitted refutation. `TICKOPT_DRAT_CHECKER` names another
//! checker taking `FORMULA PROOF` and printing `s VERIFIED` (drat-trim,
//! github.com/marijnheule/drat-trim, as doc/formats.md records). Without
//! a checker the test fails and says how to install one: it never passes
//! having checked nothing.

mod common;

use common::{run, stderr};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The checker: `TICKOPT_DRAT_CHECKER`, else `rate` on `PATH`, else in
/// cargo's bin directory (where `cargo install` puts it).
fn checker() -> PathBuf {
    if let Some(bin) = std::env::var_os("TICKOPT_DRAT_CHECKER") {
        return PathBuf::from(bin);
    }
    let runs = |b: &Path| {
        Command::new(b)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let cargo_bin = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .map(|d| d.join("bin/rate"));
    [Some(PathBuf::from("rate")), cargo_bin]
        .into_iter()
        .flatten()
        .find(|b| runs(b))
        .expect(
            "no DRAT checker: run scripts/setup.sh (it installs `rate` with \
             `cargo install rate --locked`) or set TICKOPT_DRAT_CHECKER",
        )
}

#[test]
fn emitted_drat_proofs_are_verified_by_an_external_checker() {
    let checker = checker();
    let dir = tempfile::tempdir().unwrap();
    let standard = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/standard");
    let mut instances: Vec<PathBuf> = ["blanusa_n18_m1_s0.csv", "flower_snark_n20_m1_s0.csv"]
        .iter()
        .map(|n| standard.join(n))
        .collect();
    // Flower snarks J_5 .. J_13 (odd k: not 3-edge-colourable).
    for k in [5u32, 7, 9, 11, 13] {
        let f = dir.path().join(format!("j{k}.csv"));
        let k = k.to_string();
        let o = run(&["gen", "flower_snark", "--k", &k, "-o", f.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        instances.push(f);
    }
    for inst in &instances {
        let name = inst.file_stem().unwrap().to_str().unwrap();
        let case = dir.path().join(name);
        let (sched, sum, proof) = (
            case.join("s.json"),
            case.join("sum.json"),
            case.join("proof"),
        );
        std::fs::create_dir_all(&case).unwrap();
        let (i, s, j) = (
            inst.to_str().unwrap(),
            sched.to_str().unwrap(),
            sum.to_str().unwrap(),
        );
        let o = run(&["solve", i, "--bw", "1024", "--out", s, "--summary", j]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&sum).unwrap()).unwrap();
        assert_eq!(summary["proof"]["body"]["kind"], "drat", "{name}");
        let o = run(&[
            "verify",
            i,
            s,
            j,
            "--bw",
            "1024",
            "--emit-proof",
            proof.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let o = Command::new(&checker)
            .arg(proof.join("colourable.cnf"))
            .arg(proof.join("refutation.drat"))
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", checker.display()));
        let out = String::from_utf8_lossy(&o.stdout).replace('\r', "\n");
        assert!(
            out.lines().any(|l| l.trim() == "s VERIFIED"),
            "{name}: {} did not verify the refutation:\n{out}{}",
            checker.display(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // The checker is a real one: the last refutation with its second half
    // (the empty clause included) cut off is not verified.
    let proof = dir.path().join("j13/proof");
    let drat = std::fs::read_to_string(proof.join("refutation.drat")).unwrap();
    let lines: Vec<&str> = drat.lines().collect();
    let cut = proof.join("cut.drat");
    std::fs::write(&cut, lines[..lines.len() / 2].join("\n") + "\n").unwrap();
    let o = Command::new(&checker)
        .arg(proof.join("colourable.cnf"))
        .arg(&cut)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).replace('\r', "\n");
    assert!(
        !out.lines().any(|l| l.trim() == "s VERIFIED"),
        "a refutation cut in half verified:\n{out}"
    );
}
