//! `export --to mscclpp-dsl` (issue 38): MSCCL++ DSL programs.
//!
//! Without MSCCL++ (CI): the exported text's structure, read here by a
//! parser of its own: imports from `mscclpp.language` only, one tick line
//! per schedule tick, in each tick every (rank, threadblock) serving at
//! most one transfer and threadblocks within the model's lanes, every
//! transfer's channel pair listed once, and every demand's chunks landing
//! in place.
//!
//! With a checkout: `TICKOPT_MSCCLPP` names a microsoft/mscclpp checkout
//! (`TICKOPT_MSCCLPP_PYTHON` a Python with `sortedcontainers`, default
//! `python3`). The program runs with the checkout's DSL, loaded as
//! `mscclpp.language` under a stub `mscclpp` package (the package's own
//! `__init__` loads the C++ extension), and the execution-plan JSON it
//! prints is run by an interpreter written here (sharing nothing with the
//! exporter): threadblocks run their operations in order, a wait takes one
//! signal of its channel (the k-th channel from a to b meets the k-th from
//! b to a, as the executor connects them), a put copies chunks to the
//! remote buffer its threadblock names; no threadblock may be stuck, every
//! signal must be waited for, and every demand's chunks must land in place.
//! MSCCL++ is not in the package registries, so that test is ignored on
//! CI; scripts/external_checks.sh runs it where the variable is set.

mod common;
use common::*;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;
use tickopt::instance::{read_instance_file, Instance, Limits, Model, Overrides};

/// (name, demands CSV rows, bw, model, ports).
const CASES: [(&str, &str, u64, &str, u32); 4] = [
    ("three", "0,1,128\n1,2,64\n2,0,64\n0,2,64\n", 64, "STRICT1", 1),
    (
        "a2a",
        "0,1,512\n0,2,256\n0,3,128\n1,0,128\n1,2,384\n1,3,128\n2,0,128\n2,1,128\n2,3,256\n3,0,384\n3,1,128\n3,2,128\n",
        128,
        "STRICT1",
        1,
    ),
    (
        "a2a",
        "0,1,512\n0,2,256\n0,3,128\n1,0,128\n1,2,384\n1,3,128\n2,0,128\n2,1,128\n2,3,256\n3,0,384\n3,1,128\n3,2,128\n",
        128,
        "READ1_WRITE1",
        1,
    ),
    (
        "ports",
        "0,1,1024\n0,2,512\n1,2,512\n2,0,768\n3,0,256\n3,1,512\n1,3,256\n",
        128,
        "READ1_WRITE1",
        2,
    ),
];

/// A transfer of the text: (src, src tb, input chunk, dst, dst tb, output chunk).
type Put = [u64; 6];

/// The exported text's tables, read with a parser of the test's own.
struct Tables {
    chunks: usize,
    links: Vec<[u64; 4]>,
    ticks: Vec<Vec<Put>>,
}

fn ints(s: &str) -> Vec<u64> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().unwrap())
        .collect()
}

/// The lines of a `NAME = [ ... ]` list, one entry per line.
fn list<'a>(py: &'a str, name: &str) -> Vec<&'a str> {
    let start = py.find(&format!("\n{name} = [\n")).expect(name) + name.len() + 6;
    py[start..].lines().take_while(|l| *l != "]").collect()
}

fn tables(py: &str) -> Tables {
    let chunks = py
        .lines()
        .find_map(|l| l.strip_prefix("CHUNKS = "))
        .unwrap()
        .parse()
        .unwrap();
    let links = list(py, "LINKS")
        .iter()
        .map(|l| ints(l).try_into().unwrap())
        .collect();
    let ticks = list(py, "TICKS")
        .iter()
        .map(|l| ints(l).chunks(6).map(|c| c.try_into().unwrap()).collect())
        .collect();
    Tables {
        chunks,
        links,
        ticks,
    }
}

/// Solves and exports one case; (instance, schedule ticks, program text).
fn export(dir: &Path, case: (&str, &str, u64, &str, u32)) -> (Instance, u64, String) {
    let (name, rows, bw, model, ports) = case;
    let csv = dir.join(format!("{name}.csv"));
    std::fs::write(&csv, format!("src_slot,dst_slot,bits_total\n{rows}")).unwrap();
    let (sched, py) = (dir.join("s.json"), dir.join(format!("{name}.py")));
    let (bw, ports) = (bw.to_string(), ports.to_string());
    let common = ["--bw", &bw, "--model", model, "--ports", &ports];
    let o = run(&[&["solve", s(&csv), "--out", s(&sched)], &common[..]].concat());
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    let o = run(&[&["validate", s(&csv), s(&sched)], &common[..]].concat());
    let out = stdout(&o);
    assert!(out.starts_with("PASS: "), "{name}: {out}");
    let ticks = out[6..].split(' ').next().unwrap().parse().unwrap();
    let o = run(&[
        &["export", s(&csv), s(&sched), "--to", "mscclpp-dsl"],
        &common[..],
        &["--out", s(&py)],
    ]
    .concat());
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    let m: Model = model.parse().unwrap();
    let overrides = Overrides {
        model: Some(m),
        bw: Some(bw.parse().unwrap()),
        ports: Some(ports.parse().unwrap()),
        ..Default::default()
    };
    let inst = read_instance_file(&csv, &overrides, &Limits::default()).unwrap();
    (inst, ticks, std::fs::read_to_string(&py).unwrap())
}

#[test]
fn exported_programs_have_the_ticks_lanes_channels_and_places_of_their_schedules() {
    let dir = tempfile::tempdir().unwrap();
    for case in CASES {
        let (inst, ticks, py) = export(dir.path(), case);
        let what = format!("{} {}", case.0, case.3);
        for l in py
            .lines()
            .filter(|l| l.starts_with("from ") || l.starts_with("import "))
        {
            assert!(l.starts_with("from mscclpp.language."), "{what}: {l}");
        }
        let t = tables(&py);
        assert_eq!(t.ticks.len() as u64, ticks, "{what}");
        let links: HashSet<[u64; 4]> = t.links.iter().copied().collect();
        assert_eq!(links.len(), t.links.len(), "{what}: a channel pair twice");
        let (ports, strict) = (case.4 as u64, case.3 == "STRICT1");
        let mut used_links = HashSet::new();
        let mut out = vec![vec![None; t.chunks]; inst.slots as usize];
        for tick in &t.ticks {
            let mut busy = HashSet::new();
            for &[src, stb, si, dst, dtb, di] in tick {
                assert!(busy.insert((src, stb)) && busy.insert((dst, dtb)), "{what}");
                assert!(stb < ports, "{what}: send threadblock {stb}");
                let recv_lanes = if strict { 0..ports } else { ports..2 * ports };
                assert!(
                    recv_lanes.contains(&dtb),
                    "{what}: receive threadblock {dtb}"
                );
                let link = if (src, stb) < (dst, dtb) {
                    [src, stb, dst, dtb]
                } else {
                    [dst, dtb, src, stb]
                };
                assert!(links.contains(&link), "{what}: {link:?} not listed");
                used_links.insert(link);
                let slot = &mut out[dst as usize][di as usize];
                assert_eq!(*slot, None, "{what}: output {di} of {dst} written twice");
                *slot = Some((src as usize, si as usize));
            }
        }
        assert_eq!(used_links, links, "{what}: a channel pair no transfer uses");
        check_placement(&inst, &out, true);
    }
}

#[test]
fn exports_refuse_chunks_of_no_whole_bytes_and_write_nothing() {
    assert_export_refused_at_12_bits("mscclpp-dsl", "py");
}

/// Runs `py` with the DSL of the checkout at `mscclpp` (under a stub
/// parent package), returning the plan it prints.
fn compile(mscclpp: &Path, py: &Path, stub: &Path) -> Value {
    let pkg = stub.join("mscclpp");
    if !pkg.exists() {
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(pkg.join("__init__.py"), "").unwrap();
        let lang = mscclpp.join("python/mscclpp/language");
        assert!(lang.is_dir(), "{} has no DSL", mscclpp.display());
        std::os::unix::fs::symlink(lang, pkg.join("language")).unwrap();
    }
    let python = std::env::var("TICKOPT_MSCCLPP_PYTHON").unwrap_or_else(|_| "python3".into());
    let o = Command::new(&python)
        .arg(py)
        .env("PYTHONPATH", stub)
        .output()
        .unwrap_or_else(|e| panic!("{python}: {e}"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A chunk place: (gpu, buffer type, index).
type Place = (usize, String, usize);

/// Runs an execution plan (see the module docs); every gpu's output.
fn interpret(plan: &Value) -> Vec<Vec<Option<Origin>>> {
    let gpus = plan["gpus"].as_array().unwrap();
    let n = |v: &Value| v.as_u64().unwrap() as usize;
    let mut data: HashMap<Place, Origin> = HashMap::new();
    // (gpu, channel id) -> (peer, its channel id there), by k-th meets k-th.
    let mut nth: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    for (g, gpu) in gpus.iter().enumerate() {
        assert_eq!(n(&gpu["id"]), g);
        for i in 0..n(&gpu["input_chunks"]) {
            data.insert((g, "i".into(), i), (g, i));
        }
        for ch in gpu["channels"].as_array().unwrap() {
            assert_eq!(ch["channel_type"], "memory");
            for (id, peer) in ch["connected_to"].as_array().unwrap().iter().enumerate() {
                nth.entry((g, n(peer))).or_default().push(id);
            }
        }
    }
    let peer_channel = |g: usize, id: usize| -> (usize, usize) {
        let peer = n(&gpus[g]["channels"][0]["connected_to"][id]);
        let k = nth[&(g, peer)].iter().position(|&c| c == id).unwrap();
        (peer, nth[&(peer, g)][k])
    };
    let tbs: Vec<(usize, &Value)> = gpus
        .iter()
        .enumerate()
        .flat_map(|(g, gpu)| {
            gpu["threadblocks"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |t| (g, t))
        })
        .collect();
    let mut pc = vec![0usize; tbs.len()];
    let mut signals: HashMap<(usize, usize), usize> = HashMap::new(); // arrived
    let mut waited: HashMap<(usize, usize), usize> = HashMap::new();
    let local = |tb: &Value, i: &Value| -> usize {
        let ids = tb["channels"].as_array().unwrap();
        let ids = &ids.iter().find(|c| c["channel_type"] == "memory").unwrap()["channel_ids"];
        n(&ids[n(i)])
    };
    loop {
        let mut progress = false;
        for (k, &(g, tb)) in tbs.iter().enumerate() {
            let ops = tb["ops"].as_array().unwrap();
            while let Some(op) = ops.get(pc[k]) {
                let chans = || op["channel_ids"].as_array().unwrap().iter();
                match op["name"].as_str().unwrap() {
                    "nop" => {}
                    "signal" => {
                        for c in chans() {
                            *signals.entry(peer_channel(g, local(tb, c))).or_default() += 1;
                        }
                    }
                    "wait" => {
                        let ids: Vec<usize> = chans().map(|c| local(tb, c)).collect();
                        let ready = |id: &usize| {
                            signals.get(&(g, *id)).copied().unwrap_or(0)
                                > waited.get(&(g, *id)).copied().unwrap_or(0)
                        };
                        if !ids.iter().all(ready) {
                            break;
                        }
                        for id in ids {
                            *waited.entry((g, id)).or_default() += 1;
                        }
                    }
                    "put" => {
                        let refs = tb["remote_buffer_refs"].as_array().unwrap();
                        let refs = &refs
                            .iter()
                            .find(|r| r["access_channel_type"] == "memory")
                            .unwrap()["remote_buffer_ids"];
                        let srcs = op["src_buff"].as_array().unwrap();
                        for (src, dst) in srcs.iter().zip(op["dst_buff"].as_array().unwrap()) {
                            let rb = &gpus[g]["remote_buffers"][n(&refs[n(&dst["buffer_id"])])];
                            assert_eq!(n(&src["size"]), n(&dst["size"]));
                            for x in 0..n(&src["size"]) {
                                let from = (
                                    g,
                                    src["type"].as_str().unwrap().to_string(),
                                    n(&src["index"]) + x,
                                );
                                let to = (
                                    n(&rb["rank"]),
                                    rb["type"].as_str().unwrap().to_string(),
                                    n(&dst["index"]) + x,
                                );
                                match data.get(&from).copied() {
                                    Some(v) => data.insert(to, v),
                                    None => data.remove(&to),
                                };
                            }
                        }
                    }
                    other => panic!("gpu {g}: unexpected operation {other:?}"),
                }
                pc[k] += 1;
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    for (k, &(g, tb)) in tbs.iter().enumerate() {
        let left = tb["ops"].as_array().unwrap().len() - pc[k];
        assert_eq!(left, 0, "gpu {g}, threadblock {}: stuck", tb["id"]);
    }
    assert_eq!(signals, waited, "a signal no wait takes");
    gpus.iter()
        .enumerate()
        .map(|(g, gpu)| {
            (0..n(&gpu["output_chunks"]))
                .map(|i| data.get(&(g, "o".to_string(), i)).copied())
                .collect()
        })
        .collect()
}

#[test]
#[ignore = "needs a microsoft/mscclpp checkout (TICKOPT_MSCCLPP): scripts/external_checks.sh"]
fn mscclpp_compiles_the_exported_programs_and_their_plans_place_every_byte() {
    let mscclpp = std::env::var_os("TICKOPT_MSCCLPP")
        .expect("TICKOPT_MSCCLPP must name a microsoft/mscclpp checkout");
    let dir = tempfile::tempdir().unwrap();
    let stub = dir.path().join("stub");
    for case in CASES {
        let (inst, _, py) = export(dir.path(), case);
        let file = dir.path().join("p.py");
        std::fs::write(&file, &py).unwrap();
        let plan = compile(Path::new(&mscclpp), &file, &stub);
        let gpus = plan["gpus"].as_array().unwrap();
        assert_eq!(gpus.len(), inst.slots as usize, "{}", case.0);
        assert!(plan["name"].as_str().unwrap().starts_with("tickopt_"));
        check_placement(&inst, &interpret(&plan), true);
    }
}
