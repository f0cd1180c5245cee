//! Export and import (issue 27): p2p-json programs run byte for byte by an
//! interpreter written here (sharing no code with the exporter), round
//! trips over the bundled sets in both models, doctored programs refused,
//! traffic matrices in.

#![allow(clippy::needless_range_loop)] // the interpreter indexes ranks and ticks by number

mod common;
use common::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A byte every (rank, position in its send buffer) is filled with.
fn pattern(rank: u64, pos: u64) -> u8 {
    (rank.wrapping_mul(131).wrapping_add(pos.wrapping_mul(7919)) % 251) as u8
}

/// Runs a p2p-json program on real buffers: in every tick, the k-th send
/// from r to p is paired with the k-th receive at p from r and its bytes
/// copied; per tick the model's limits are checked (counting ports). At
/// the end every receive buffer must hold its incoming demands in order of
/// source, each the bytes its sender held for it (layout derived here
/// from the demands list alone).
fn run_program(p: &Value) {
    let slots = p["slots"].as_u64().unwrap() as usize;
    let model = p["model"].as_str().unwrap();
    let ports: Vec<u64> = match &p["ports"] {
        Value::Null => vec![1; slots],
        Value::Number(n) => vec![n.as_u64().unwrap(); slots],
        Value::Array(a) => a.iter().map(|x| x.as_u64().unwrap()).collect(),
        other => panic!("ports {other}"),
    };
    let demands: Vec<(u64, u64, u64)> = p["demands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["src_slot"].as_u64().unwrap(),
                d["dst_slot"].as_u64().unwrap(),
                d["bits_total"].as_u64().unwrap().div_ceil(8),
            )
        })
        .collect();
    // Layout: outgoing by destination, incoming by source.
    let mut send_off = vec![0u64; demands.len()];
    let mut recv_off = vec![0u64; demands.len()];
    let mut send_len = vec![0u64; slots];
    let mut recv_len = vec![0u64; slots];
    let mut by_dst: Vec<usize> = (0..demands.len()).collect();
    by_dst.sort_by_key(|&i| (demands[i].0, demands[i].1));
    for i in by_dst {
        let (a, _, b) = demands[i];
        send_off[i] = send_len[a as usize];
        send_len[a as usize] += b;
    }
    let mut by_src: Vec<usize> = (0..demands.len()).collect();
    by_src.sort_by_key(|&i| (demands[i].1, demands[i].0));
    for i in by_src {
        let (_, d, b) = demands[i];
        recv_off[i] = recv_len[d as usize];
        recv_len[d as usize] += b;
    }
    let send: Vec<Vec<u8>> = (0..slots)
        .map(|r| (0..send_len[r]).map(|x| pattern(r as u64, x)).collect())
        .collect();
    let mut recv: Vec<Vec<Option<u8>>> = (0..slots)
        .map(|r| vec![None; recv_len[r] as usize])
        .collect();
    let ranks = p["ranks"].as_array().unwrap();
    let ticks = p["ticks"].as_u64().unwrap() as usize;
    for (r, rp) in ranks.iter().enumerate() {
        assert_eq!(rp["ticks"].as_array().unwrap().len(), ticks, "rank {r}");
        assert_eq!(rp["send_buffer_bytes"].as_u64().unwrap(), send_len[r]);
        assert_eq!(rp["recv_buffer_bytes"].as_u64().unwrap(), recv_len[r]);
    }
    for t in 0..ticks {
        let ops = |r: usize| ranks[r]["ticks"][t].as_array().unwrap().clone();
        let mut recv_queues: HashMap<(usize, u64), Vec<Value>> = HashMap::new();
        for r in 0..slots {
            let (mut sends, mut recvs) = (0u64, 0u64);
            for o in ops(r) {
                if o["op"] == "send" {
                    sends += 1;
                } else {
                    recvs += 1;
                    recv_queues
                        .entry((r, o["peer"].as_u64().unwrap()))
                        .or_default()
                        .push(o);
                }
            }
            match model {
                "STRICT1" => assert!(
                    sends + recvs <= ports[r],
                    "tick {t} rank {r}: {sends}+{recvs} ops"
                ),
                _ => assert!(sends <= ports[r] && recvs <= ports[r], "tick {t} rank {r}"),
            }
        }
        for r in 0..slots {
            for o in ops(r).into_iter().filter(|o| o["op"] == "send") {
                let peer = o["peer"].as_u64().unwrap() as usize;
                let q = recv_queues
                    .get_mut(&(peer, r as u64))
                    .expect("a receive for every send");
                assert!(!q.is_empty(), "tick {t}: send {r}->{peer} without receive");
                let rv = q.remove(0);
                let n = o["bytes"].as_u64().unwrap();
                assert_eq!(rv["bytes"].as_u64().unwrap(), n);
                let so = o["offset"].as_u64().unwrap() as usize;
                let ro = rv["offset"].as_u64().unwrap() as usize;
                for k in 0..n as usize {
                    let slot = &mut recv[peer][ro + k];
                    assert!(
                        slot.is_none(),
                        "tick {t}: byte {} at rank {peer} written twice",
                        ro + k
                    );
                    *slot = Some(send[r][so + k]);
                }
            }
        }
        assert!(
            recv_queues.values().all(|q| q.is_empty()),
            "tick {t}: a receive without send"
        );
    }
    for (i, &(a, d, b)) in demands.iter().enumerate() {
        for k in 0..b {
            assert_eq!(
                recv[d as usize][(recv_off[i] + k) as usize],
                Some(send[a as usize][(send_off[i] + k) as usize]),
                "demand {i} byte {k}"
            );
        }
    }
}

/// Largest schedule (in chunks) the round-trip test runs.
const MAX_CHUNKS: u64 = 20_000;

/// Solves `inst` (a file of a bundled set), exports, runs and imports back;
/// `Some(exported)`, or `None` when the instance is too large to run here.
fn round_trip(dir: &Path, inst: &Path, extra: &[&str]) -> Option<bool> {
    let sched = dir.join("s.json");
    let sum = dir.join("sum.json");
    let mut args = vec![
        "solve",
        s(inst),
        "--out",
        s(&sched),
        "--format",
        "compact",
        "--summary",
        s(&sum),
    ];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert!(o.status.success(), "{}: {}", inst.display(), stderr(&o));
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&sum).unwrap()).unwrap();
    if summary["chunks"].as_u64().unwrap() > MAX_CHUNKS {
        return None; // the interpreter below is plain and slow; keep CI short
    }
    let prog = dir.join("p.json");
    let o = export(inst, &sched, None, "p2p-json", &prog, extra);
    if !o.status.success() {
        // Only a bandwidth that is not whole bytes may refuse, and then no file.
        assert!(
            stderr(&o).contains("not a whole number of bytes"),
            "{}: {}",
            inst.display(),
            stderr(&o)
        );
        assert!(!prog.exists());
        return Some(false);
    }
    let p: Value = serde_json::from_str(&std::fs::read_to_string(&prog).unwrap()).unwrap();
    run_program(&p);
    let back_i = dir.join("back.json");
    let back_s = dir.join("back.s.json");
    let o = run(&import_args(
        &prog,
        "p2p-json",
        None,
        &back_i,
        &["--schedule-out", s(&back_s)],
    ));
    assert!(o.status.success(), "{}: {}", inst.display(), stderr(&o));
    let o = run(&["validate", s(&back_i), s(&back_s)]);
    assert!(
        o.status.success() && stdout(&o).contains("PASS"),
        "{}",
        stdout(&o)
    );
    std::fs::remove_file(&prog).unwrap();
    Some(true)
}

#[test]
fn p2p_programs_of_the_bundled_sets_run_byte_for_byte_and_import_back() {
    let dir = tempfile::tempdir().unwrap();
    let (mut exported, mut refused) = (0, 0);
    for set in ["demo", "standard", "multiport"] {
        for (file, models) in bundled(set) {
            for model in models {
                match round_trip(dir.path(), &file, &["--model", &model]) {
                    Some(true) => exported += 1,
                    Some(false) => refused += 1,
                    None => {}
                }
            }
        }
    }
    assert!(
        exported >= 40,
        "only {exported} programs exported ({refused} refused for bw)"
    );
}

fn exported_program(dir: &Path) -> (PathBuf, Value) {
    let (inst, sched) = solved_csv(
        dir,
        "src_slot,dst_slot,bits_total\n0,1,100\n1,2,64\n2,0,8\n0,2,16\n",
        "64",
    );
    let prog = dir.join("p.json");
    let o = export(&inst, &sched, Some("64"), "p2p-json", &prog, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&prog).unwrap()).unwrap();
    run_program(&v);
    (inst, v)
}

#[test]
fn doctored_programs_are_refused_with_the_place_named() {
    let dir = tempfile::tempdir().unwrap();
    let (_, good) = exported_program(dir.path());
    let import = |v: &Value| {
        let p = dir.path().join("d.json");
        std::fs::write(&p, v.to_string()).unwrap();
        let out = dir.path().join("o.json");
        let _ = std::fs::remove_file(&out);
        let o = run(&import_args(&p, "p2p-json", None, &out, &[]));
        (o.status.code(), stderr(&o), out.exists())
    };
    let (code, err, _) = import(&good);
    assert_eq!(code, Some(0), "{err}");
    // First tick of rank 0 holds its first send (of demand 0 -> 1 or 0 -> 2).
    let first_send = |v: &Value| -> (usize, usize) {
        for t in 0..v["ticks"].as_u64().unwrap() as usize {
            let ops = v["ranks"][0]["ticks"][t].as_array().unwrap();
            if let Some(k) = ops.iter().position(|o| o["op"] == "send") {
                return (t, k);
            }
        }
        panic!("no send at rank 0")
    };
    let (t, k) = first_send(&good);
    let cases: Vec<(&str, Value)> = vec![
        ("receives but 0 sends", {
            let mut v = good.clone();
            v["ranks"][0]["ticks"][t].as_array_mut().unwrap().remove(k);
            v
        }),
        ("differs", {
            let mut v = good.clone();
            let b = v["ranks"][0]["ticks"][t][k]["bytes"].as_u64().unwrap();
            v["ranks"][0]["ticks"][t][k]["bytes"] = (b - 1).into();
            v
        }),
        ("outside demand", {
            let mut v = good.clone();
            v["ranks"][0]["ticks"][t][k]["offset"] = 10_000.into();
            v
        }),
        ("tick lists", {
            let mut v = good.clone();
            v["ranks"][1]["ticks"].as_array_mut().unwrap().pop();
            v
        }),
        ("send_buffer_bytes", {
            let mut v = good.clone();
            v["ranks"][2]["send_buffer_bytes"] = 999.into();
            v
        }),
    ];
    for (what, v) in cases {
        let (code, err, written) = import(&v);
        assert_ne!(code, Some(0), "{what}: accepted");
        assert!(err.contains(what), "{what}: {err}");
        assert!(!written, "{what}: an instance was written");
    }
}

#[test]
fn a_bandwidth_that_is_not_whole_bytes_is_refused_and_nothing_written() {
    assert_export_refused_at_12_bits("p2p-json", "json");
}

#[test]
fn traffic_matrices_import_as_instances_and_bad_ones_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m.csv");
    std::fs::write(&m, "# W=3, bytes\n0,4KiB,1000\n2048,0,0\n0,512,0\n").unwrap();
    let out = dir.path().join("i.json");
    let o = run(&import_args(
        &m,
        "matrix",
        Some("8KiB"),
        &out,
        &["--unit", "bytes"],
    ));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["slots"], 3);
    assert_eq!(v["copy_bw_bits_per_tick"], 65536);
    let bits: Vec<(u64, u64, u64)> = v["demands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["src_slot"].as_u64().unwrap(),
                d["dst_slot"].as_u64().unwrap(),
                d["bits_total"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        bits,
        vec![(0, 1, 32768), (0, 2, 8000), (1, 0, 16384), (2, 1, 4096)]
    );
    // The imported instance solves.
    assert!(
        run(&["solve", s(&out), "--out", s(&dir.path().join("s.json"))])
            .status
            .success()
    );
    for (body, want) in [
        ("0 1\n1 0 1\n", "line 2"),
        ("3 1\n1 0\n", "diagonal"),
        ("0 1\n-1 0\n", "line 2"),
    ] {
        std::fs::write(&m, body).unwrap();
        let out = dir.path().join("bad.json");
        let o = run(&import_args(&m, "matrix", Some("8"), &out, &[]));
        assert_eq!(o.status.code(), Some(1), "{body}");
        assert!(stderr(&o).contains(want), "{body}: {}", stderr(&o));
        assert!(!out.exists());
    }
}
