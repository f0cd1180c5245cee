//! tickopt's DRAT refutations checked by an external checker, drat-trim
//! (Heule et al.; the reference DRAT checker of the SAT competitions).
//!
//! drat-trim is not vendored and cannot be downloaded here (CI has no
//! network but the package registries), so the test needs it named:
//! `TICKOPT_DRAT_TRIM=/path/to/drat-trim` (a built binary), or
//! `TICKOPT_DRAT_TRIM_SRC=/path/to/drat-trim.c` (built here with `cc`). Without
//! either it prints why it did not run and passes; with one, every proof must
//! be VERIFIED by drat-trim. doc/formats.md records the run made with
//! drat-trim's public source (github.com/marijnheule/drat-trim).

mod common;

use common::{run, stderr};
use std::path::{Path, PathBuf};
use std::process::Command;

fn drat_trim(dir: &Path) -> Option<PathBuf> {
    if let Ok(bin) = std::env::var("TICKOPT_DRAT_TRIM") {
        return Some(PathBuf::from(bin));
    }
    let src = std::env::var("TICKOPT_DRAT_TRIM_SRC").ok()?;
    let bin = dir.join("drat-trim");
    let o = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&bin)
        .arg(&src)
        .output()
        .expect("run cc");
    assert!(o.status.success(), "cc {src}: {}", stderr(&o));
    Some(bin)
}

#[test]
fn emitted_drat_proofs_are_verified_by_drat_trim() {
    let dir = tempfile::tempdir().unwrap();
    let Some(checker) = drat_trim(dir.path()) else {
        eprintln!(
            "drat_external: skipped (set TICKOPT_DRAT_TRIM or TICKOPT_DRAT_TRIM_SRC to run drat-trim)"
        );
        return;
    };
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
            .expect("run drat-trim");
        let out = String::from_utf8_lossy(&o.stdout).replace('\r', "\n");
        assert!(
            out.lines().any(|l| l.trim() == "s VERIFIED"),
            "{name}: drat-trim did not verify the refutation:\n{out}"
        );
    }
}
