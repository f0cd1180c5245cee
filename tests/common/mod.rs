//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tickopt::instance::{Demand, Instance, Limits, Model};

mod programs;
#[allow(unused_imports)] // not every test file uses them
pub use programs::*;

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tickopt"))
}

pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run tickopt")
}

pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn instance(model: Model, slots: u32, bw: u64, demands: &[(u32, u32, u64)]) -> Instance {
    Instance::new(
        model,
        slots,
        bw,
        demands
            .iter()
            .map(|&(src, dst, bits)| Demand { src, dst, bits }),
        &Limits::default(),
    )
    .expect("valid test instance")
}

/// Brute-force minimum ticks of a tiny instance (chunks <= ~12): tries
/// every assignment of chunks to ticks, increasing the tick count.
pub fn brute_force_ticks(inst: &Instance) -> u64 {
    let mut chunks: Vec<(u32, u32)> = Vec::new();
    for (i, d) in inst.demands().iter().enumerate() {
        for _ in 0..inst.chunks(i) {
            chunks.push((d.src, d.dst));
        }
    }
    if chunks.is_empty() {
        return 0;
    }
    let conflict =
        |a: (u32, u32), b: (u32, u32)| tickopt::schedule::model_conflicts(inst.model, a, b);
    fn place(
        k: usize,
        chunks: &[(u32, u32)],
        ticks: &mut Vec<Vec<(u32, u32)>>,
        t: usize,
        conflict: &dyn Fn((u32, u32), (u32, u32)) -> bool,
    ) -> bool {
        if k == chunks.len() {
            return true;
        }
        let mut tried_empty = false;
        for i in 0..t {
            if ticks[i].is_empty() {
                if tried_empty {
                    continue;
                }
                tried_empty = true;
            }
            if ticks[i].iter().all(|&c| !conflict(c, chunks[k])) {
                ticks[i].push(chunks[k]);
                if place(k + 1, chunks, ticks, t, conflict) {
                    return true;
                }
                ticks[i].pop();
            }
        }
        false
    }
    for t in 1.. {
        let mut ticks = vec![Vec::new(); t];
        if place(0, &chunks, &mut ticks, t, &conflict) {
            return t as u64;
        }
    }
    unreachable!()
}

// Instances shared by the executor tests.

fn d(src: u32, dst: u32, bits: u64) -> Demand {
    Demand { src, dst, bits }
}

/// Deterministic pseudo-random demands (xorshift), `n` slots.
pub fn random(model: Model, n: u32, seed: u64, bw: u64) -> Instance {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut ds = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a != b && next() % 3 == 0 {
                ds.push(d(a, b, 1 + next() % (5 * bw)));
            }
        }
    }
    if ds.is_empty() {
        ds.push(d(0, 1, bw + 1));
    }
    Instance::new(model, n, bw, ds, &Limits::default()).unwrap()
}

/// Every ordered pair, `bits` each.
pub fn all_to_all(model: Model, n: u32, bits: u64, bw: u64) -> Instance {
    let ds = (0..n).flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| d(a, b, bits)));
    Instance::new(model, n, bw, ds, &Limits::default()).unwrap()
}

/// Slot i sends to i+1 (mod n).
pub fn ring(model: Model, n: u32, bits: u64, bw: u64) -> Instance {
    let ds = (0..n).map(|a| d(a, (a + 1) % n, bits));
    Instance::new(model, n, bw, ds, &Limits::default()).unwrap()
}

/// A handful of instances of both models, with ragged last chunks.
pub fn suite() -> Vec<(String, Instance)> {
    let mut v = Vec::new();
    for model in Model::ALL {
        v.push((format!("ring5 {model}"), ring(model, 5, 1000, 96)));
        v.push((format!("a2a4 {model}"), all_to_all(model, 4, 777, 64)));
        for seed in 1..=4 {
            v.push((format!("random{seed} {model}"), random(model, 6, seed, 40)));
        }
    }
    v
}

/// The instances of a bundled set (`instances/<set>/manifest.json`) with
/// the models each is listed for (STRICT1 when the entry names none).
pub fn bundled(set: &str) -> Vec<(PathBuf, Vec<String>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances")
        .join(set);
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    m["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let models = e["models"]
                .as_array()
                .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
                .unwrap_or_else(|| vec!["STRICT1".to_string()]);
            (dir.join(e["file"].as_str().unwrap()), models)
        })
        .collect()
}

/// Runs the binary with `NO_COLOR` set (plain tables, whatever the
/// terminal), as the CLI tests compare text.
pub fn tickopt(args: &[&str]) -> Output {
    bin()
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run tickopt")
}

/// A path as the `&str` argument the binary takes.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The instance of a bundled manifest entry under `model` (the entry's bw
/// and slot count as overrides), read from `dir`.
pub fn manifest_instance(
    dir: &Path,
    entry: &tickopt::bench::ManifestEntry,
    model: Model,
) -> Instance {
    let o = tickopt::instance::Overrides {
        model: Some(model),
        bw: entry.bw,
        slots: entry.slots,
        ports: None,
    };
    tickopt::instance::read_instance_file(&dir.join(&entry.file), &o, &Limits::default())
        .unwrap_or_else(|e| panic!("{}: {e}", entry.file))
}

/// A chunk's identity: (gpu, offset in its input buffer).
pub type Origin = (usize, usize);

/// Every demand's chunks in place: gpu s's input holds its demands in
/// order of destination, gpu t's output its incoming ones in order of
/// source (chunk counts from the instance, layout derived here). Each
/// output is as long as its demands, or with `padded` may be longer with
/// nothing written past them.
pub fn check_placement(inst: &Instance, out: &[Vec<Option<Origin>>], padded: bool) {
    let d = inst.demands();
    let chunks = |i: usize| d[i].bits.div_ceil(inst.bw) as usize;
    let mut send_off = vec![0; d.len()];
    let mut used = vec![0; inst.slots as usize];
    for i in 0..d.len() {
        send_off[i] = used[d[i].src as usize];
        used[d[i].src as usize] += chunks(i);
    }
    let mut by_src: Vec<usize> = (0..d.len()).collect();
    by_src.sort_by_key(|&i| (d[i].dst, d[i].src));
    let mut recv_used = vec![0; inst.slots as usize];
    for i in by_src {
        let t = d[i].dst as usize;
        for k in 0..chunks(i) {
            assert_eq!(
                out[t][recv_used[t] + k],
                Some((d[i].src as usize, send_off[i] + k)),
                "demand {i} ({} -> {}) chunk {k}",
                d[i].src,
                d[i].dst
            );
        }
        recv_used[t] += chunks(i);
    }
    for (t, o) in out.iter().enumerate() {
        if padded {
            assert!(o.len() >= recv_used[t], "gpu {t}'s output size");
            assert!(
                o[recv_used[t]..].iter().all(Option::is_none),
                "gpu {t}'s padding written"
            );
        } else {
            assert_eq!(o.len(), recv_used[t], "gpu {t}'s output size");
        }
    }
}

/// Copies of `part` at slot offsets `k * stride`, each with its slots
/// permuted by a different rotation (so no copy is numbered like another),
/// plus `extra` demands as they are.
pub fn copies(part: &Instance, count: u32, stride: u32, extra: &[(u32, u32, u64)]) -> Instance {
    let n = part.slots;
    let mut demands = Vec::new();
    for k in 0..count {
        let at = |v: u32| k * stride + (v + 3 * k) % n;
        demands.extend(part.demands().iter().map(|d| Demand {
            src: at(d.src),
            dst: at(d.dst),
            bits: d.bits,
        }));
    }
    demands.extend(
        extra
            .iter()
            .map(|&(src, dst, bits)| Demand { src, dst, bits }),
    );
    let slots = demands.iter().map(|d| d.src.max(d.dst) + 1).max().unwrap();
    Instance::new(part.model, slots, part.bw, demands, &Limits::default()).unwrap()
}
