//! Relay schedules in `validate`, `export` and `audit` (issue 52, item 4):
//! validate accepts a solved relay schedule and names what is wrong with
//! doctored ones; `export --to p2p-json` writes a relay program that this
//! file's own executor runs to the all-to-all's bytes (and that the
//! library's reference executor refuses when doctored); other formats are
//! refused; audit given the machine ranks a direct plan against the
//! relayed lower bound.

mod common;

use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use tickopt::instance::{Demand, Instance, Limits, Model};
use tickopt::interop::relay_p2p::{self, Buf, ExecError, Op};
use tickopt::relay::{plan_relay, TwoTier};

/// Runs the binary in `dir`: exit code, stdout, stderr.
fn tickopt(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = common::bin()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("runs");
    let code = out.status.code().unwrap_or(-1);
    (code, common::stdout(&out), common::stderr(&out))
}

/// 16 ranks (nodes of 4), rank 5 hot, sizes of 1 to 30 chunks of 64 bits
/// and some odd byte counts.
fn demands() -> Vec<(u32, u32, u64)> {
    let mut d = Vec::new();
    for s in 0..16u32 {
        for t in 0..16u32 {
            if s != t && (s + t) % 7 != 0 {
                let hot = if t == 5 { 6 } else { 1 };
                let odd = if (s * t) % 3 == 0 { 24 } else { 0 };
                d.push((s, t, 64 * hot * u64::from(1 + (s * 7 + t * 3) % 5) + odd));
            }
        }
    }
    d
}

const MACHINE: [&str; 4] = ["--gpus-per-node", "4", "--nvlink-speedup", "2"];

/// Writes m.csv and a relay plan of it (s.json, sum.json) into `d`.
fn solved(d: &Path) {
    let mut csv = String::from("src_slot,dst_slot,bits_total\n");
    for (s, t, b) in demands() {
        csv.push_str(&format!("{s},{t},{b}\n"));
    }
    std::fs::write(d.join("m.csv"), csv).unwrap();
    let mut args = vec!["solve", "m.csv", "--model", "READ1_WRITE1", "--bw", "64"];
    args.extend(MACHINE);
    args.extend(["--out", "s.json", "--summary", "sum.json"]);
    let (rc, _, err) = tickopt(&args, d);
    assert_eq!(rc, 0, "{err}");
}

/// `tickopt validate m.csv FILE --bw 64` with the machine flags.
fn validate(d: &Path, file: &str) -> (i32, String, String) {
    let mut args = vec!["validate", "m.csv", file, "--bw", "64"];
    args.extend(MACHINE);
    tickopt(&args, d)
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn validate_accepts_a_solved_relay_schedule_and_names_what_is_wrong_with_doctored_ones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    solved(d);
    let (rc, out, err) = validate(d, "s.json");
    assert_eq!(rc, 0, "{out}{err}");
    let chunks = read_json(&d.join("sum.json"))["chunks"].as_u64().unwrap();
    assert!(
        out.starts_with("PASS: relay schedule, ") && out.contains(&format!(" {chunks} chunks (")),
        "{out}"
    );
    let s = read_json(&d.join("s.json"));
    // A hop moved to the tick of the hop before it.
    let mut bad = s.clone();
    let at = bad["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["hops"].as_array().unwrap().len() >= 2)
        .expect("a relayed chunk");
    let first = bad["chunks"][at]["hops"][0][0].clone();
    bad["chunks"][at]["hops"][1][0] = first;
    std::fs::write(d.join("order.json"), bad.to_string()).unwrap();
    let (rc, out, _) = validate(d, "order.json");
    assert_eq!(rc, 2, "{out}");
    assert!(out.starts_with("FAIL: 1 error(s) [ROUTE]"), "{out}");
    assert!(
        out.contains(&format!("chunks[{at}]: hop 1 (")) && out.contains("does not follow hop 0"),
        "{out}"
    );
    // A chunk dropped: its demand is not delivered.
    let mut bad = s.clone();
    let gone = bad["chunks"].as_array_mut().unwrap().remove(3);
    std::fs::write(d.join("dropped.json"), bad.to_string()).unwrap();
    let (rc, out, _) = validate(d, "dropped.json");
    assert_eq!(rc, 2, "{out}");
    assert!(out.contains("[COVERAGE]"), "{out}");
    assert!(
        out.contains(&format!("demand {} (", gone["demand"]))
            && out.contains("chunks are delivered"),
        "{out}"
    );
    // No machine: refused, saying what to add.
    let (rc, _, err) = tickopt(&["validate", "m.csv", "s.json", "--bw", "64"], d);
    assert_eq!(rc, 1, "{err}");
    assert!(
        err.contains("add --gpus-per-node G --nvlink-speedup RHO"),
        "{err}"
    );
    // The machine recorded in the CSV instead of the flags.
    let text = std::fs::read_to_string(d.join("m.csv")).unwrap();
    std::fs::write(
        d.join("meta.csv"),
        format!("# gpus_per_node=4\n# nvlink_speedup=2\n{text}"),
    )
    .unwrap();
    let (rc, out, err) = tickopt(&["validate", "meta.csv", "s.json", "--bw", "64"], d);
    assert_eq!(rc, 0, "{out}{err}");
    // On a machine whose NVLink carries less, the same plan overloads it.
    let (rc, out, _) = tickopt(
        &[
            "validate",
            "m.csv",
            "s.json",
            "--bw",
            "64",
            "--gpus-per-node",
            "4",
            "--nvlink-speedup",
            "1",
        ],
        d,
    );
    assert_eq!(rc, 2, "{out}");
    assert!(out.contains("[NVLINK]") && out.contains("NVLink"), "{out}");
}

/// Runs a relay program file on random bytes, as a runner would: each
/// rank's operations in order, sends buffered, a receive taking the
/// oldest message from its peer; returns every rank's output.
fn run_program(p: &Value, inputs: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let ranks = p["ranks"].as_array().unwrap();
    let n = ranks.len();
    let size = |r: usize, k: &str| ranks[r][k].as_u64().unwrap() as usize;
    let mut bufs: Vec<HashMap<&str, Vec<u8>>> = (0..n)
        .map(|r| {
            assert_eq!(size(r, "input_bytes"), inputs[r].len());
            HashMap::from([
                ("input", inputs[r].clone()),
                ("output", vec![0u8; size(r, "output_bytes")]),
                ("stage", vec![0u8; size(r, "stage_bytes")]),
            ])
        })
        .collect();
    let mut queues: HashMap<(usize, usize), VecDeque<Vec<u8>>> = HashMap::new();
    let mut pc = vec![0usize; n];
    loop {
        let mut moved = false;
        for r in 0..n {
            let ops = ranks[r]["ops"].as_array().unwrap();
            while let Some(o) = ops.get(pc[r]) {
                let peer = o["peer"].as_u64().unwrap() as usize;
                let buf = o["buffer"].as_str().unwrap();
                let off = o["offset"].as_u64().unwrap() as usize;
                let len = o["bytes"].as_u64().unwrap() as usize;
                if o["op"] == "send" {
                    let data = bufs[r][buf][off..off + len].to_vec();
                    queues.entry((r, peer)).or_default().push_back(data);
                } else {
                    let Some(data) = queues.get_mut(&(peer, r)).and_then(|q| q.pop_front()) else {
                        break;
                    };
                    assert_eq!(data.len(), len, "rank {r} op {}", pc[r]);
                    bufs[r].get_mut(buf).unwrap()[off..off + len].copy_from_slice(&data);
                }
                pc[r] += 1;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    assert!(
        (0..n).all(|r| pc[r] == ranks[r]["ops"].as_array().unwrap().len()),
        "deadlock at {pc:?}"
    );
    assert!(
        queues.values().all(|q| q.is_empty()),
        "a message never received"
    );
    bufs.into_iter()
        .map(|mut b| b.remove("output").unwrap())
        .collect()
}

#[test]
fn export_writes_a_relay_program_that_runs_to_the_all_to_all_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    solved(d);
    let mut args = vec![
        "export", "m.csv", "s.json", "--bw", "64", "--to", "p2p-json", "--out", "p.json",
    ];
    args.extend(MACHINE);
    let (rc, _, err) = tickopt(&args, d);
    assert_eq!(rc, 0, "{err}");
    assert!(
        err.contains("executed: every output byte delivered once"),
        "{err}"
    );
    let p = read_json(&d.join("p.json"));
    assert_eq!(p["format"], "tickopt-relay-p2p-v1");
    assert_eq!(p["ticks"], read_json(&d.join("s.json"))["ticks"]);
    // Inputs of random bytes; the expected outputs by source, from the
    // demands (torch's all_to_all_single layout).
    let n = 16usize;
    let ds = demands();
    let bytes = |b: u64| b.div_ceil(8) as usize;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let inputs: Vec<Vec<u8>> = (0..n)
        .map(|r| {
            let len: usize = ds
                .iter()
                .filter(|x| x.0 as usize == r)
                .map(|x| bytes(x.2))
                .sum();
            (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect()
        })
        .collect();
    let mut expected = vec![Vec::new(); n];
    for t in 0..n as u32 {
        for &(s, _, b) in ds.iter().filter(|x| x.1 == t) {
            let off: usize = ds
                .iter()
                .filter(|x| x.0 == s && x.1 < t)
                .map(|x| bytes(x.2))
                .sum();
            expected[t as usize].extend_from_slice(&inputs[s as usize][off..off + bytes(b)]);
        }
    }
    let outputs = run_program(&p, &inputs);
    assert_eq!(outputs, expected);
    // Some chunks really are relayed: sends from a staging buffer.
    let staged = p["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["ops"].as_array().unwrap())
        .filter(|o| o["op"] == "send" && o["buffer"] == "stage")
        .count();
    assert!(staged > 0);

    // Other formats have no forwarding steps: refused, nothing written.
    let mut args = vec![
        "export",
        "m.csv",
        "s.json",
        "--bw",
        "64",
        "--to",
        "msccl-xml",
        "--out",
        "x.xml",
    ];
    args.extend(MACHINE);
    let (rc, _, err) = tickopt(&args, d);
    assert_eq!(rc, 1, "{err}");
    assert!(
        err.contains("cannot be exported --to msccl-xml") && err.contains("--to p2p-json"),
        "{err}"
    );
    assert!(!d.join("x.xml").exists());
    // A schedule that does not validate is not exported.
    let mut bad = read_json(&d.join("s.json"));
    bad["chunks"].as_array_mut().unwrap().remove(0);
    std::fs::write(d.join("bad.json"), bad.to_string()).unwrap();
    let mut args = vec![
        "export", "m.csv", "bad.json", "--bw", "64", "--to", "p2p-json", "--out", "q.json",
    ];
    args.extend(MACHINE);
    let (rc, _, err) = tickopt(&args, d);
    assert_eq!(rc, 1, "{err}");
    assert!(
        err.contains("does not validate") && err.contains("chunks are delivered"),
        "{err}"
    );
    assert!(!d.join("q.json").exists());
}

/// The library's program of a small relay plan, and its instance.
fn program() -> (Instance, TwoTier, relay_p2p::RelayP2pProgram) {
    let ds = demands()
        .into_iter()
        .map(|(src, dst, bits)| Demand { src, dst, bits });
    let inst = Instance::new(Model::Read1Write1, 16, 64, ds, &Limits::default()).unwrap();
    let tt = TwoTier {
        gpus_per_node: 4,
        nvlink_speedup: 2,
    };
    let sol = plan_relay(&inst, tt).unwrap();
    let p = relay_p2p::export(&inst, tt, &sol.schedule).unwrap();
    (inst, tt, p)
}

#[test]
fn the_reference_executor_refuses_doctored_programs() {
    let (inst, tt, p) = program();
    let ran = relay_p2p::execute(&p, &inst, tt).unwrap();
    assert!(ran.staged_bytes > 0 && ran.output_bytes > 0);
    // A forward sent before the receive that fills its stage.
    let mut bad = p.clone();
    let (r, at) = bad
        .ranks
        .iter()
        .enumerate()
        .find_map(|(r, rank)| {
            let at = rank
                .ops
                .iter()
                .position(|o| o.op == Op::Send && o.buffer == Buf::Stage)?;
            Some((r, at))
        })
        .expect("a forward");
    let send = bad.ranks[r].ops.remove(at);
    bad.ranks[r]
        .ops
        .insert(0, relay_p2p::RelayStep { tick: 0, ..send });
    let err = relay_p2p::execute(&bad, &inst, tt).unwrap_err();
    assert!(matches!(err, ExecError::Op { .. }), "{err}");
    assert!(
        err.to_string().contains("before a receive has filled them"),
        "{err}"
    );
    // Two receives into the output of one size swap their places: the
    // bytes land where the other source's belong.
    let mut bad = p.clone();
    let (r, i, j) = bad
        .ranks
        .iter()
        .enumerate()
        .find_map(|(r, rank)| {
            let ops = &rank.ops;
            let outs: Vec<usize> = (0..ops.len())
                .filter(|&k| ops[k].op == Op::Recv && ops[k].buffer == Buf::Output)
                .collect();
            outs.iter().find_map(|&i| {
                let j = outs
                    .iter()
                    .copied()
                    .find(|&j| ops[j].bytes == ops[i].bytes && ops[j].peer != ops[i].peer)?;
                Some((r, i, j))
            })
        })
        .expect("two receives of one size from two peers");
    let (a, b) = (bad.ranks[r].ops[i].offset, bad.ranks[r].ops[j].offset);
    bad.ranks[r].ops[i].offset = b;
    bad.ranks[r].ops[j].offset = a;
    let err = relay_p2p::execute(&bad, &inst, tt).unwrap_err();
    assert!(matches!(err, ExecError::WrongByte { .. }), "{err}");
    // A receive left out: its message stays, or later ones mismatch.
    let mut bad = p.clone();
    let k = bad.ranks[3]
        .ops
        .iter()
        .position(|o| o.op == Op::Recv)
        .unwrap();
    bad.ranks[3].ops.remove(k);
    assert!(relay_p2p::execute(&bad, &inst, tt).is_err());
    // A program for another machine.
    let other = TwoTier {
        nvlink_speedup: 4,
        ..tt
    };
    let err = relay_p2p::execute(&p, &inst, other).unwrap_err();
    assert!(err.to_string().starts_with("nvlink_speedup:"), "{err}");
}

#[test]
fn audit_given_the_machine_ranks_a_direct_plan_against_the_relayed_bound() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    solved(d);
    let (rc, _, err) = tickopt(
        &[
            "solve",
            "m.csv",
            "--model",
            "READ1_WRITE1",
            "--bw",
            "64",
            "--out",
            "direct.json",
        ],
        d,
    );
    assert_eq!(rc, 0, "{err}");
    let mut args = vec!["audit", "m.csv", "direct.json", "--bw", "64", "--json"];
    args.extend(MACHINE);
    args.extend(["--out-dir", "aud"]);
    let (rc, out, err) = tickopt(&args, d);
    assert_eq!(rc, 0, "{err}");
    let a: Value = serde_json::from_str(&out).unwrap();
    let sum = read_json(&d.join("sum.json"));
    let relay = &a["relay"];
    let bound = relay["lower_bound"].as_u64().unwrap();
    assert_eq!(bound, sum["lower_bound"].as_u64().unwrap());
    assert_eq!(relay["node_bound"], sum["node_bound"]);
    assert_eq!(relay["plan_ticks"], sum["ticks"]);
    let ticks = a["schedules"][0]["schedule_ticks"].as_u64().unwrap();
    assert!(ticks > bound, "{ticks} {bound}");
    let times = relay["schedules"][0]["times_bound"].as_f64().unwrap();
    assert!((times - ticks as f64 / bound as f64).abs() < 1e-12);
    // So do the reports.
    let md = std::fs::read_to_string(d.join("aud/report.md")).unwrap();
    assert!(
        md.contains("## Relayed") && md.contains(&format!("lower bound {bound} ticks")),
        "{md}"
    );
    let html = std::fs::read_to_string(d.join("aud/report.html")).unwrap();
    assert!(html.contains("<p>relayed on nodes of 4 GPUs, NVLink x2: lower bound"));
    // The table says it in words.
    let mut args = vec!["audit", "m.csv", "direct.json", "--bw", "64"];
    args.extend(MACHINE);
    let (rc, out, err) = tickopt(&args, d);
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.contains(&format!(
            "relayed on nodes of 4 GPUs, NVLink x2: lower bound {bound} ticks"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "direct.json: {ticks} ticks, {:.2}x the relayed lower bound",
            ticks as f64 / bound as f64
        )),
        "{out}"
    );
    // Without the machine, no relayed section.
    let (rc, out, err) = tickopt(
        &["audit", "m.csv", "direct.json", "--bw", "64", "--json"],
        d,
    );
    assert_eq!(rc, 0, "{err}");
    assert!(serde_json::from_str::<Value>(&out)
        .unwrap()
        .get("relay")
        .is_none());
    // A relay schedule is not audited as a direct one.
    let (rc, _, err) = tickopt(&["audit", "m.csv", "s.json", "--bw", "64"], d);
    assert_eq!(rc, 1, "{err}");
    assert!(err.contains("s.json: a relay schedule"), "{err}");
}
