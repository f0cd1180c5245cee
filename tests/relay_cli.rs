//! `tickopt solve --gpus-per-node --nvlink-speedup` and `tickopt verify`
//! of its relay summary (issue 52): VERIFIED on what it wrote, REJECTED
//! (exit 2) on a doctored certificate or schedule.

use std::path::Path;
use std::process::Command;

fn tickopt(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tickopt"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn solve_writes_a_relay_plan_that_verify_recomputes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut csv = String::from("src_slot,dst_slot,bits_total\n");
    for s in 0..16u32 {
        for t in 0..16u32 {
            if s != t {
                let hot = if t == 5 { 6 } else { 1 };
                csv.push_str(&format!(
                    "{s},{t},{}\n",
                    64 * hot * (1 + (s * 7 + t * 3) % 5)
                ));
            }
        }
    }
    std::fs::write(d.join("m.csv"), csv).unwrap();
    let (rc, _, err) = tickopt(
        &[
            "solve",
            "m.csv",
            "--model",
            "READ1_WRITE1",
            "--bw",
            "64",
            "--gpus-per-node",
            "4",
            "--nvlink-speedup",
            "4",
            "--out",
            "s.json",
            "--summary",
            "sum.json",
        ],
        d,
    );
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("relay:"), "{err}");
    let (rc, out, err) = tickopt(&["verify", "m.csv", "s.json", "sum.json"], d);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("VERIFIED"), "{out}");
    // A doctored certificate: one weight changed.
    let text = std::fs::read_to_string(d.join("sum.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let w = &mut v["certificate"]["weights"][0]["weight"];
    *w = serde_json::json!(w.as_u64().unwrap() + 3);
    std::fs::write(d.join("bad.json"), v.to_string()).unwrap();
    let (rc, out, _) = tickopt(&["verify", "m.csv", "s.json", "bad.json"], d);
    assert_eq!(rc, 2, "{out}");
    assert!(out.contains("FAIL  relay     certificate refused"), "{out}");
    assert!(out.contains("REJECTED"), "{out}");
    // A doctored schedule: one hop moved past the end.
    let text = std::fs::read_to_string(d.join("s.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["chunks"][0]["hops"][0][0] = serde_json::json!(1_000_000);
    std::fs::write(d.join("bad_s.json"), v.to_string()).unwrap();
    let (rc, out, _) = tickopt(&["verify", "m.csv", "bad_s.json", "sum.json"], d);
    assert_eq!(rc, 2, "{out}");
    assert!(out.contains("schedule invalid"), "{out}");
    // The machine recorded in the CSV's comment lines, no flags.
    let text = std::fs::read_to_string(d.join("m.csv")).unwrap();
    std::fs::write(
        d.join("meta.csv"),
        format!("# gpus_per_node=4\n# nvlink_speedup=4\n{text}"),
    )
    .unwrap();
    let (rc, _, err) = tickopt(
        &[
            "solve",
            "meta.csv",
            "--model",
            "READ1_WRITE1",
            "--bw",
            "64",
            "--summary",
            "meta.json",
        ],
        d,
    );
    assert_eq!(rc, 0, "{err}");
    assert!(
        err.contains("gpus_per_node 4 from meta.csv line 1"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("meta.json")).unwrap(),
        std::fs::read_to_string(d.join("sum.json")).unwrap(),
        "the same plan as with the flags"
    );
    // The machine recorded in an instance JSON's keys, no flags.
    let demands: Vec<serde_json::Value> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<u64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            serde_json::json!({"src_slot": f[0], "dst_slot": f[1], "bits_total": f[2]})
        })
        .collect();
    let mut inst = serde_json::json!({
        "version": 0, "model": "READ1_WRITE1", "slots": 16,
        "copy_bw_bits_per_tick": 64, "demands": demands,
        "gpus_per_node": 4, "nvlink_speedup": 4,
    });
    std::fs::write(d.join("meta_inst.json"), inst.to_string()).unwrap();
    let (rc, _, err) = tickopt(&["solve", "meta_inst.json", "--summary", "meta_j.json"], d);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("gpus_per_node 4 from meta_inst.json"), "{err}");
    assert!(!err.contains("unknown key"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("meta_j.json")).unwrap(),
        std::fs::read_to_string(d.join("sum.json")).unwrap(),
        "the same plan as with the flags"
    );
    inst["nvlink_speedup"] = serde_json::json!(0);
    std::fs::write(d.join("bad_inst.json"), inst.to_string()).unwrap();
    let (rc, _, err) = tickopt(&["solve", "bad_inst.json"], d);
    assert_ne!(rc, 0);
    assert!(err.contains("\"nvlink_speedup\" is 0"), "{err}");
    // STRICT1 is refused by name.
    let (rc, _, err) = tickopt(
        &[
            "solve",
            "m.csv",
            "--model",
            "STRICT1",
            "--bw",
            "64",
            "--gpus-per-node",
            "4",
            "--nvlink-speedup",
            "4",
        ],
        d,
    );
    assert_ne!(rc, 0);
    assert!(err.contains("STRICT1 with relays"), "{err}");
}

/// A skewed 16-GPU instance JSON (READ1_WRITE1, chunks of 64 bits) with
/// `extra` top-level entries (spliced into the text as written).
fn instance_json(extra: &str) -> String {
    let mut demands = Vec::new();
    for s in 0..16u32 {
        for t in 0..16u32 {
            if s != t {
                let hot = if t == 5 { 6 } else { 1 };
                let bits = 64 * hot * (1 + (s * 7 + t * 3) % 5);
                demands.push(format!(
                    r#"{{"src_slot":{s},"dst_slot":{t},"bits_total":{bits}}}"#
                ));
            }
        }
    }
    format!(
        r#"{{"version":0,"model":"READ1_WRITE1","slots":16,"copy_bw_bits_per_tick":64,{extra}"demands":[{}]}}"#,
        demands.join(",")
    )
}

fn summary(d: &Path, name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(d.join(name)).unwrap()).unwrap()
}

/// The instance reader returns the machine an instance JSON records with
/// the instance: the keys plan relays, the flags replace or complete
/// them, bad values are refused naming the key, and without the keys the
/// plan is the direct one as before.
#[test]
fn an_instance_json_records_the_machine_the_flags_replace() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write =
        |name: &str, extra: &str| std::fs::write(d.join(name), instance_json(extra)).unwrap();
    write("plain.json", "");
    write("both.json", r#""gpus_per_node":4,"nvlink_speedup":4,"#);
    // Spelt with an escape: the fast reader leaves the document to the
    // strict one, which reads the same key.
    write(
        "escaped.json",
        r#""gpus\u005fper_node":4,"nvlink_speedup":4,"#,
    );
    write("half.json", r#""gpus_per_node":4,"#);
    let solve = |args: &[&str]| tickopt(&[&["solve"], args].concat(), d);

    let (rc, _, err) = solve(&[
        "plain.json",
        "--gpus-per-node",
        "4",
        "--nvlink-speedup",
        "4",
        "--summary",
        "flags.json",
    ]);
    assert_eq!(rc, 0, "{err}");
    let flags = summary(d, "flags.json");
    assert_eq!(flags["kind"], "relay_summary", "{flags}");
    for name in ["both.json", "escaped.json"] {
        let (rc, _, err) = solve(&[name, "--summary", "rec.json"]);
        assert_eq!(rc, 0, "{name}: {err}");
        assert!(
            err.contains(&format!("gpus_per_node 4 from {name}")),
            "{err}"
        );
        assert!(
            err.contains(&format!("nvlink_speedup 4 from {name}")),
            "{err}"
        );
        assert!(
            err.contains("relay:") && !err.contains("unknown key"),
            "{err}"
        );
        assert_eq!(
            summary(d, "rec.json"),
            flags,
            "{name}: the plan the flags give"
        );
    }
    // A flag replaces the recorded value; the other is taken from the file.
    let (rc, _, err) = solve(&[
        "both.json",
        "--nvlink-speedup",
        "2",
        "--summary",
        "rho2.json",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("gpus_per_node 4 from both.json"), "{err}");
    assert!(!err.contains("nvlink_speedup 4 from"), "{err}");
    let rho2 = summary(d, "rho2.json");
    assert_eq!(rho2["nvlink_speedup"], 2, "{rho2}");
    let (rc, _, err) = solve(&[
        "plain.json",
        "--gpus-per-node",
        "4",
        "--nvlink-speedup",
        "2",
        "--summary",
        "flags2.json",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(summary(d, "flags2.json"), rho2);
    // One key recorded, the other given as a flag; or missing.
    let (rc, _, err) = solve(&[
        "half.json",
        "--nvlink-speedup",
        "4",
        "--summary",
        "half_s.json",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(summary(d, "half_s.json"), flags);
    let (rc, _, err) = solve(&["half.json"]);
    assert_ne!(rc, 0);
    assert!(err.contains("go together"), "{err}");
    // Bad values: refused with the file and the key named.
    for (value, said) in [
        ("0", "0"),
        ("\"4\"", "\"4\""),
        ("2.5", "2.5"),
        ("4294967296", "4294967296"),
        ("-1", "-1"),
    ] {
        write(
            "bad.json",
            &format!(r#""gpus_per_node":{value},"nvlink_speedup":4,"#),
        );
        let (rc, _, err) = solve(&["bad.json"]);
        assert_eq!(rc, 1, "{value}: {err}");
        assert!(
            err.contains(&format!(
                "bad.json: \"gpus_per_node\" is {said}: expected an integer from 1 to 4294967295"
            )),
            "{value}: {err}"
        );
    }
    // Without the keys: the direct plan, as before.
    let (rc, _, err) = solve(&["plain.json", "--summary", "direct.json"]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        !err.contains("relay:") && !err.contains("gpus_per_node"),
        "{err}"
    );
    let direct = summary(d, "direct.json");
    assert_ne!(direct["kind"], "relay_summary", "{direct}");
    assert_eq!(direct["status"], "optimal", "{direct}");
}
