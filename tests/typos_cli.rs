//! Typos are not silent (issue 30, item 3): a misspelt instance JSON key or
//! CSV column is refused with a suggestion, other unknown keys warn, gen
//! refuses an --out extension of the other format, and the messages for 0
//! or negative sizes give the real lower bound.

mod common;
use common::*;
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

const DEMAND: &str = r#"{"src_slot":0,"dst_slot":1,"bits_total":8}"#;

#[test]
fn a_misspelt_instance_key_is_refused_with_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, key, meant) in [
        (
            "port.json",
            format!(r#"{{"version":0,"model":"STRICT1","slots":2,"copy_bw_bits_per_tick":8,"port":2,"demands":[{DEMAND}]}}"#),
            "\"port\"",
            "`ports`",
        ),
        (
            "copy_bw.json",
            format!(r#"{{"version":0,"model":"STRICT1","slots":2,"copy_bw":8,"demands":[{DEMAND}]}}"#),
            "\"copy_bw\"",
            "`copy_bw_bits_per_tick`",
        ),
        (
            "bw.json",
            r#"{"version":0,"model":"STRICT1","slots":2,"copy_bw_bits_per_tick":8,"demands":[{"src_slot":0,"dst_slot":1,"bits_total":8,"bw":4}]}"#.to_string(),
            "demands[0].bw",
            "`copy_bw_bits_per_tick`",
        ),
    ] {
        let p = write(dir.path(), name, &text);
        let o = run(&["solve", &p]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        let e = stderr(&o);
        assert!(e.contains(name) && e.contains(key), "{name}: {e}");
        assert!(e.contains(&format!("did you mean {meant}?")), "{name}: {e}");
    }
}

#[test]
fn other_unknown_keys_only_warn() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "meta.json",
        &format!(
            r#"{{"version":0,"model":"STRICT1","slots":2,"copy_bw_bits_per_tick":8,"generator":"cg 0.2.6","demands":[{DEMAND}]}}"#
        ),
    );
    let o = run(&["solve", &p]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning") && stderr(&o).contains("\"generator\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_misspelt_csv_header_names_the_column_meant() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "d.csv", "src,dst,bytes\n0,1,8\n");
    let o = run(&["solve", &p, "--bw", "8"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("d.csv:1"), "{e}");
    assert!(
        e.contains("unknown column bytes (did you mean bits_total?"),
        "{e}"
    );
    assert!(
        e.contains("unknown column src (did you mean src_slot?)"),
        "{e}"
    );
    assert!(!e.contains("is not an integer"), "{e}");
}

#[test]
fn zero_and_negative_bits_name_the_real_bound() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("zero.csv", "src_slot,dst_slot,bits_total\n0,1,0\n".to_string()),
        ("neg.csv", "src_slot,dst_slot,bits_total\n0,1,-3\n".to_string()),
        (
            "neg.json",
            r#"{"version":0,"model":"STRICT1","slots":2,"copy_bw_bits_per_tick":8,"demands":[{"src_slot":0,"dst_slot":1,"bits_total":-3}]}"#.to_string(),
        ),
    ] {
        let p = write(dir.path(), name, &text);
        let o = run(&["solve", &p, "--bw", "8"]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        let e = stderr(&o);
        assert!(e.contains("bits_total"), "{name}: {e}");
        assert!(!e.contains(">= 0"), "{name}: {e}");
    }
}

#[test]
fn gen_refuses_an_extension_of_the_other_format() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rails.csv");
    let o = run(&[
        "gen",
        "rails",
        "--n",
        "4",
        "--rails",
        "2",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("instance JSON") && stderr(&o).contains(".json"),
        "{}",
        stderr(&o)
    );
    assert!(!csv.exists());
    let json = dir.path().join("ring.json");
    let o = run(&["gen", "ring", "--n", "4", "--out", json.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("demands CSV"), "{}", stderr(&o));
    assert!(!json.exists());
    // The right extension is written, and --out-dir is created.
    let sub = dir.path().join("new/sub");
    let o = run(&[
        "gen",
        "rails",
        "--n",
        "4",
        "--rails",
        "2",
        "--out-dir",
        sub.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let names: Vec<String> = std::fs::read_dir(&sub)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.len() == 1 && names[0].ends_with(".json"), "{names:?}");
}
