//! Readers that cannot be read two ways (issue 14 item 4): duplicate JSON
//! keys are refused with file, line and key in every JSON reader; a UTF-8
//! byte-order mark is accepted in JSON and schedule CSV.

mod common;
use common::*;
use std::fs;
use std::path::{Path, PathBuf};
use tickopt::instance::{parse_instance_json, Limits, Overrides};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, bytes).unwrap();
    p
}

const INSTANCE: &str = r#"{"version":0,"model":"STRICT1","slots":3,"copy_bw_bits_per_tick":10,
"demands":[{"src_slot":0,"dst_slot":1,"bits_total":15},{"src_slot":1,"dst_slot":2,"bits_total":10}]}"#;

/// A valid expanded schedule of INSTANCE (3 ticks).
const SCHEDULE: &str = r#"{"version":0,"model":"STRICT1","ticks":[
[{"src_slot":0,"dst_slot":1,"len_bits":10}],
[{"src_slot":0,"dst_slot":1,"len_bits":5}],
[{"src_slot":1,"dst_slot":2,"len_bits":10}]
]}"#;

fn validate(inst: &Path, sched: &Path) -> std::process::Output {
    run(&["validate", inst.to_str().unwrap(), sched.to_str().unwrap()])
}

#[test]
fn a_schedule_with_two_ticks_keys_is_refused_with_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let inst = write(dir.path(), "i.json", INSTANCE.as_bytes());
    assert_eq!(
        validate(&inst, &write(dir.path(), "ok.json", SCHEDULE.as_bytes()))
            .status
            .code(),
        Some(0)
    );
    // The first "ticks" covers the demands, the second is empty: a reader
    // keeping the first says PASS, one keeping the last says FAIL.
    let two = SCHEDULE.replace("\n]}", "\n],\n\"ticks\":[]}");
    let p = write(dir.path(), "two.json", two.as_bytes());
    let o = validate(&inst, &p);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains(&format!("{}:6:", p.display())),
        "file and line: {e}"
    );
    assert!(e.contains("duplicate key \"ticks\""), "{e}");
    // Inside a chunk, and in an unknown key's value.
    let inner = SCHEDULE.replace(r#""len_bits":5}"#, r#""len_bits":5,"len_bits":10}"#);
    let o = validate(&inst, &write(dir.path(), "inner.json", inner.as_bytes()));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(":3:") && stderr(&o).contains("duplicate key \"len_bits\""),
        "{}",
        stderr(&o)
    );
    let extra = SCHEDULE.replace("\"version\":0,", "\"version\":0,\"x\":{\"a\":1,\"a\":2},");
    let o = validate(&inst, &write(dir.path(), "extra.json", extra.as_bytes()));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("duplicate key \"a\""), "{}", stderr(&o));
    // Two "model" keys.
    let model = SCHEDULE.replace(
        "\"version\":0,",
        "\"version\":0,\"model\":\"READ1_WRITE1\",",
    );
    let o = validate(&inst, &write(dir.path(), "model.json", model.as_bytes()));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("duplicate key \"model\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn instance_json_with_a_duplicate_key_is_refused() {
    for (text, key, line) in [
        (
            INSTANCE.replace("\"slots\":3,", "\"slots\":3,\"slots\":2,"),
            "slots",
            1,
        ),
        (
            INSTANCE.replace("\"bits_total\":10}", "\"bits_total\":10,\"bits_total\":20}"),
            "bits_total",
            2,
        ),
        (
            INSTANCE.replace("\"demands\"", "\"id\":\"a\",\"id\":\"b\",\n\"demands\""),
            "id",
            2,
        ),
    ] {
        let e = parse_instance_json(text.as_bytes(), &Overrides::default(), &Limits::default())
            .unwrap_err();
        assert_eq!(e.field.as_deref(), Some(key), "{e}");
        assert_eq!(e.line, Some(line), "{e}");
        assert!(
            e.to_string().contains(&format!("duplicate key \"{key}\"")),
            "{e}"
        );
    }
    // Through the CLI: the file is named.
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "dup.json",
        INSTANCE
            .replace("\"slots\":3,", "\"slots\":3,\"slots\":2,")
            .as_bytes(),
    );
    let o = run(&["bounds", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!("{}:1:", p.display())),
        "{}",
        stderr(&o)
    );
}

#[test]
fn compact_schedule_with_a_duplicate_key_is_refused() {
    let text = br#"{"version":0,"format":"tickopt-compact-v1","model":"STRICT1",
"rounds":[{"repeat":1,"repeat":2,"pairs":[[0,1]]}]}"#;
    let e = tickopt::schedule::readers::parse_compact(text).unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.to_string().contains("duplicate key \"repeat\""), "{e}");
}

#[test]
fn a_byte_order_mark_is_accepted_in_json_and_schedule_csv() {
    let dir = tempfile::tempdir().unwrap();
    let bom = |s: &str| [b"\xEF\xBB\xBF".as_slice(), s.as_bytes()].concat();
    let inst = write(dir.path(), "i.json", &bom(INSTANCE));
    let o = run(&["bounds", inst.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let sched = write(dir.path(), "s.json", &bom(SCHEDULE));
    let o = validate(&inst, &sched);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let csv_rows = "0,0,1,10\n1,0,1,5\n2,1,2,10\n";
    for (name, text) in [
        (
            "h.csv",
            format!("tick,src_slot,dst_slot,len_bits\n{csv_rows}"),
        ),
        ("n.csv", csv_rows.to_string()),
    ] {
        let p = write(dir.path(), name, &bom(&text));
        let o = validate(&inst, &p);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{name}: {}{}",
            stdout(&o),
            stderr(&o)
        );
    }
    // A compact schedule with a BOM, written by tickopt and then marked.
    let c = dir.path().join("c.json");
    let o = run(&[
        "solve",
        inst.to_str().unwrap(),
        "--format",
        "compact",
        "--out",
        c.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = fs::read_to_string(&c).unwrap();
    let p = write(dir.path(), "cb.json", &bom(&text));
    let o = validate(&inst, &p);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}
