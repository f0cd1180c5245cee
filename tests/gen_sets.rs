//! The bundled instance sets: manifests are complete, and
//! `scripts/make_instances.sh` regenerates them byte for byte.

use std::path::{Path, PathBuf};
use tickopt::bench::Manifest;
use tickopt::instance::{read_instance_file, Limits, Model, Overrides};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const SETS: [&str; 5] = ["demo", "standard", "scale", "cluster", "reshard"];

#[test]
fn manifests_list_every_file_and_every_file_parses() {
    for set in SETS {
        let dir = root().join("instances").join(set);
        let m = Manifest::load(&dir).unwrap();
        assert_eq!(m.set, set);
        let mut listed = Vec::new();
        for e in &m.entries {
            let e = e.as_ref().unwrap();
            listed.push(e.file.clone());
            assert!(
                e.known_optimum.contains_key(&Model::Read1Write1),
                "{}",
                e.file
            );
            assert!(!e.family.is_empty() && e.bw.is_some() && e.slots.is_some());
            assert!(e.name.starts_with(&e.family));
            let inst = read_instance_file(
                &dir.join(&e.file),
                &Overrides {
                    model: Some(Model::Strict1),
                    bw: e.bw,
                    slots: e.slots,
                    ports: None,
                },
                &Limits::default(),
            )
            .unwrap();
            assert!(inst.total_chunks() > 0);
        }
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|f| f.ends_with(".csv"))
            .collect();
        on_disk.sort();
        assert_eq!(listed, on_disk, "{set}: manifest and files differ");
    }
    let n = Manifest::load(&root().join("instances/standard"))
        .unwrap()
        .entries
        .len();
    assert!((45..=60).contains(&n), "standard has {n} instances");
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|f| {
            let f = f.unwrap();
            (
                f.file_name().to_string_lossy().into_owned(),
                std::fs::read(f.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[cfg(unix)]
#[test]
fn make_instances_regenerates_the_bundled_sets_identically() {
    let tmp = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("bash")
        .arg(root().join("scripts/make_instances.sh"))
        .arg(tmp.path())
        .env("TICKOPT", env!("CARGO_BIN_EXE_tickopt"))
        .status()
        .unwrap();
    assert!(status.success());
    for set in SETS.iter().chain(&["multiport"]) {
        let fresh = files(&tmp.path().join(set));
        let bundled = files(&root().join("instances").join(set));
        let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
        assert_eq!(names(&fresh), names(&bundled), "{set}");
        for (a, b) in fresh.iter().zip(&bundled) {
            assert!(
                a.1 == b.1,
                "{set}/{} differs from a fresh regeneration",
                a.0
            );
        }
    }
}
