//! MSCCL XML (issues 27 and 38): every exported program is run by a
//! chunk-level MSCCL interpreter written here (sharing no code with the
//! exporter or the importer: it reads the XML itself, pairs the k-th send
//! with the k-th receive on each connection and channel, lets a send go on
//! before its receive as the executor's connection buffers do, and waits
//! on `depid`/`deps` flags raised only by `hasdep` steps), for the bundled
//! sets in both models; round trips; hand-written programs of msccl-tools'
//! shapes (a ring allgather and an all-to-all that send before they
//! receive, a two-step relay all-to-all on 2 x 4 gpus) imported by hops
//! and end to end, serialized, validated and audited; a real cycle and a
//! send the buffer cannot take refused; doctored programs refused with the
//! place named.

mod common;
use common::*;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use tickopt::instance::{read_instance_file, Limits, Model, Overrides};

#[derive(Clone, Debug)]
struct St {
    ty: String,
    srcbuf: String,
    srcoff: usize,
    dstbuf: String,
    dstoff: usize,
    cnt: usize,
    dep: Option<(usize, i64)>,
    hasdep: bool,
}

struct Tb {
    send: i64,
    recv: i64,
    chan: i64,
    steps: Vec<St>,
}

/// Chunks in flight on each (from, to, channel), one entry per send step.
type Wire = HashMap<(usize, usize, i64), VecDeque<Vec<Option<Origin>>>>;

/// Runs an MSCCL XML and returns every gpu's output buffer.
fn interpret(xml: &str) -> Vec<Vec<Option<Origin>>> {
    let doc = roxmltree::Document::parse(xml).unwrap();
    let algo = doc.root_element();
    assert_eq!(algo.tag_name().name(), "algo");
    for key in [
        "name",
        "proto",
        "nchannels",
        "nchunksperloop",
        "ngpus",
        "coll",
        "inplace",
        "outofplace",
        "minBytes",
        "maxBytes",
    ] {
        assert!(algo.attribute(key).is_some(), "<algo> lacks {key}");
    }
    let int = |n: roxmltree::Node, k: &str| -> i64 { n.attribute(k).unwrap().parse().unwrap() };
    let ngpus = int(algo, "ngpus") as usize;
    // In place, a gpu's input is its output: chunk k of it starts there.
    let inplace = int(algo, "inplace") == 1;
    let mut bufs: HashMap<(usize, String), Vec<Option<Origin>>> = HashMap::new();
    let mut gpus: Vec<Vec<Tb>> = Vec::new();
    for (g, gn) in algo.children().filter(|n| n.is_element()).enumerate() {
        assert_eq!(int(gn, "id") as usize, g);
        let ic = int(gn, "i_chunks") as usize;
        bufs.insert((g, "i".into()), (0..ic).map(|o| Some((g, o))).collect());
        let oc = int(gn, "o_chunks") as usize;
        let out = (0..oc).map(|o| inplace.then_some((g, o))).collect();
        bufs.insert((g, "o".into()), out);
        bufs.insert((g, "s".into()), vec![None; int(gn, "s_chunks") as usize]);
        let mut tbs = Vec::new();
        for (t, tn) in gn.children().filter(|n| n.is_element()).enumerate() {
            assert_eq!(int(tn, "id") as usize, t);
            let steps = tn
                .children()
                .filter(|n| n.is_element())
                .enumerate()
                .map(|(k, sn)| {
                    assert_eq!(int(sn, "s") as usize, k);
                    St {
                        ty: sn.attribute("type").unwrap().into(),
                        srcbuf: sn.attribute("srcbuf").unwrap().into(),
                        srcoff: int(sn, "srcoff").max(0) as usize,
                        dstbuf: sn.attribute("dstbuf").unwrap().into(),
                        dstoff: int(sn, "dstoff").max(0) as usize,
                        cnt: int(sn, "cnt") as usize,
                        dep: (int(sn, "depid") >= 0)
                            .then(|| (int(sn, "depid") as usize, int(sn, "deps"))),
                        hasdep: int(sn, "hasdep") == 1,
                    }
                })
                .collect();
            tbs.push(Tb {
                send: int(tn, "send"),
                recv: int(tn, "recv"),
                chan: int(tn, "chan"),
                steps,
            });
        }
        gpus.push(tbs);
    }
    assert_eq!(gpus.len(), ngpus);
    // One send and one receive threadblock per peer and channel.
    for tbs in &gpus {
        let mut seen = std::collections::HashSet::new();
        for tb in tbs {
            assert!(tb.send < 0 || seen.insert(("s", tb.send, tb.chan)));
            assert!(tb.recv < 0 || seen.insert(("r", tb.recv, tb.chan)));
        }
    }
    let mut pc: Vec<Vec<usize>> = gpus.iter().map(|t| vec![0; t.len()]).collect();
    let mut flag: Vec<Vec<i64>> = gpus.iter().map(|t| vec![-1; t.len()]).collect();
    // In flight on (from, to, channel): one entry per send step.
    let mut wire: Wire = HashMap::new();
    loop {
        let mut progress = false;
        for g in 0..ngpus {
            for t in 0..gpus[g].len() {
                while let Some(st) = gpus[g][t].steps.get(pc[g][t]).cloned() {
                    if let Some((d, s)) = st.dep {
                        if flag[g][d] < s {
                            break;
                        }
                    }
                    let (send, recv, chan) = (gpus[g][t].send, gpus[g][t].recv, gpus[g][t].chan);
                    let mut got = None;
                    if st.ty == "r" || st.ty == "rcs" {
                        let q = wire.entry((recv as usize, g, chan)).or_default();
                        let Some(data) = q.pop_front() else { break };
                        assert_eq!(data.len(), st.cnt, "send and receive counts differ");
                        let dst = bufs.get_mut(&(g, st.dstbuf.clone())).unwrap();
                        dst[st.dstoff..st.dstoff + st.cnt].clone_from_slice(&data);
                        got = Some(data);
                    }
                    match st.ty.as_str() {
                        "s" => {
                            let src = &bufs[&(g, st.srcbuf.clone())];
                            let data = src[st.srcoff..st.srcoff + st.cnt].to_vec();
                            wire.entry((g, send as usize, chan))
                                .or_default()
                                .push_back(data);
                        }
                        "rcs" => wire
                            .entry((g, send as usize, chan))
                            .or_default()
                            .push_back(got.unwrap()),
                        "r" | "nop" => {}
                        "cpy" => {
                            let data = bufs[&(g, st.srcbuf.clone())][st.srcoff..st.srcoff + st.cnt]
                                .to_vec();
                            bufs.get_mut(&(g, st.dstbuf.clone())).unwrap()
                                [st.dstoff..st.dstoff + st.cnt]
                                .clone_from_slice(&data);
                        }
                        other => panic!("step type {other}"),
                    }
                    if st.hasdep {
                        flag[g][t] = pc[g][t] as i64;
                    }
                    pc[g][t] += 1;
                    progress = true;
                }
            }
        }
        if !progress {
            break;
        }
    }
    for g in 0..ngpus {
        for t in 0..gpus[g].len() {
            assert_eq!(pc[g][t], gpus[g][t].steps.len(), "gpu {g} tb {t} is stuck");
        }
    }
    assert!(
        wire.values().all(|q| q.is_empty()),
        "a send nobody received"
    );
    (0..ngpus)
        .map(|g| bufs.remove(&(g, "o".into())).unwrap())
        .collect()
}

/// Largest schedule (in chunks) the round trip runs (the interpreter is
/// plain; this keeps CI short).
const MAX_CHUNKS: u64 = 5_000;

#[test]
fn msccl_programs_of_the_bundled_sets_run_and_import_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (mut exported, mut refused) = (0, 0);
    for set in ["demo", "standard", "multiport"] {
        for (file, models) in bundled(set) {
            for model in models {
                let m: Model = model.parse().unwrap();
                let inst = read_instance_file(
                    &file,
                    &Overrides {
                        model: Some(m),
                        ..Default::default()
                    },
                    &Limits::default(),
                )
                .unwrap();
                if inst.total_chunks() > MAX_CHUNKS {
                    continue;
                }
                let (sched, prog) = (d.join("s.json"), d.join("p.xml"));
                let _ = std::fs::remove_file(&prog);
                let o = run(&[
                    "solve",
                    s(&file),
                    "--model",
                    &model,
                    "--format",
                    "compact",
                    "--out",
                    s(&sched),
                ]);
                assert!(o.status.success(), "{}", stderr(&o));
                let o = run(&[
                    "export",
                    s(&file),
                    s(&sched),
                    "--model",
                    &model,
                    "--to",
                    "msccl-xml",
                    "--out",
                    s(&prog),
                ]);
                if !o.status.success() {
                    let e = stderr(&o);
                    assert!(
                        e.contains("not a whole number of bytes") || e.contains("own bandwidth"),
                        "{}: {e}",
                        file.display()
                    );
                    assert!(!prog.exists());
                    refused += 1;
                    continue;
                }
                exported += 1;
                let xml = std::fs::read_to_string(&prog).unwrap();
                check_placement(&inst, &interpret(&xml), false);
                // The program as a schedule of the instance: valid, and
                // never longer than the schedule it came from.
                let ticks = |o: &std::process::Output| -> u64 {
                    let out = stdout(o);
                    assert!(out.starts_with("PASS: "), "{}: {out}", file.display());
                    out[6..].split(' ').next().unwrap().parse().unwrap()
                };
                let solved = ticks(&run(&["validate", s(&file), s(&sched), "--model", &model]));
                let as_xml = ticks(&run(&["validate", s(&file), s(&prog), "--model", &model]));
                assert_eq!(as_xml, solved, "{} {model}", file.display());
                // Import: the same chunks per pair, a schedule that validates.
                let (bi, bs) = (d.join("bi.json"), d.join("bs.json"));
                let bw = inst.bw.to_string();
                let ports = inst.port(0).to_string();
                let mut args = import_args(
                    &prog,
                    "msccl-xml",
                    Some(&bw),
                    &bi,
                    &["--model", &model, "--schedule-out", s(&bs)],
                );
                if inst.ports().clone() == tickopt::instance::Ports::Uniform(inst.port(0)) {
                    args.extend(["--ports", &ports]);
                } else {
                    args.push("--serialize"); // per-slot ports: judged with one port each
                }
                let o = run(&args);
                assert!(o.status.success(), "{}: {}", file.display(), stderr(&o));
                let back =
                    read_instance_file(&bi, &Overrides::default(), &Limits::default()).unwrap();
                let pairs = |i: &tickopt::instance::Instance| -> Vec<(u32, u32, u64)> {
                    (0..i.demands().len())
                        .map(|k| (i.demands()[k].src, i.demands()[k].dst, i.chunks(k)))
                        .collect()
                };
                assert_eq!(pairs(&back), pairs(&inst), "{}", file.display());
                if inst.demands().iter().all(|x| x.bits % inst.bw == 0) && inst.is_single_port() {
                    assert_eq!(back.demands(), inst.demands());
                }
                let o = run(&["validate", s(&bi), s(&bs)]);
                assert!(stdout(&o).starts_with("PASS"), "{}", stdout(&o));
                if !args.contains(&"--serialize") {
                    assert_eq!(ticks(&o), solved, "{}", file.display());
                }
            }
        }
    }
    assert!(exported >= 20, "{exported} exported, {refused} refused");
}

#[test]
fn a_hand_written_all_to_all_imports_validates_with_its_conflicts_and_is_audited() {
    let dir = tempfile::tempdir().unwrap();
    let (xml, inst) = (data("msccl_alltoall_4.xml"), data("msccl_alltoall_4.csv"));
    // The program itself runs and puts every chunk where an all-to-all must.
    let out = interpret(&std::fs::read_to_string(&xml).unwrap().replace(
        "inplace=\"0\"",
        "inplace=\"0\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\"",
    ));
    for (t, o) in out.iter().enumerate() {
        for (src, c) in o.iter().enumerate() {
            assert_eq!(*c, Some((src, t)), "gpu {t} output {src}");
        }
    }
    // As written (every peer in one step): one level, conflicts named.
    let o = run(&["validate", s(&inst), s(&xml)]);
    assert!(!o.status.success());
    assert!(
        stdout(&o).contains("FAIL")
            && stdout(&o).contains("STRICT1: slot participates more than once"),
        "{}",
        stdout(&o)
    );
    let (i, sc) = (dir.path().join("i.json"), dir.path().join("s.json"));
    let o = import_xml(&xml, &i, &["--schedule-out", s(&sc)]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("do not validate under STRICT1") && stderr(&o).contains("--serialize"),
        "{}",
        stderr(&o)
    );
    assert!(!i.exists() && !sc.exists());
    // Without a schedule to write, the instance imports and the conflicts are named.
    let o = import_xml(&xml, &i, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("slot participates more than once"));
    assert!(stderr(&o).contains("has no minBytes"), "{}", stderr(&o));
    let got: Value = serde_json::from_str(&std::fs::read_to_string(&i).unwrap()).unwrap();
    assert_eq!(got["demands"].as_array().unwrap().len(), 12);
    // Serialized: first fit gives the optimum of K4 both ways, 6 ticks.
    let o = import_xml(&xml, &i, &["--schedule-out", s(&sc), "--serialize"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["validate", s(&inst), s(&sc)]);
    assert!(stdout(&o).starts_with("PASS: 6 ticks"), "{}", stdout(&o));
    // READ1_WRITE1: one send and one receive per gpu per tick, so the one
    // level still conflicts (3 sends at each gpu).
    let o = run(&["validate", s(&inst), s(&xml), "--model", "READ1_WRITE1"]);
    assert!(stdout(&o).contains("READ1_WRITE1"), "{}", stdout(&o));
    // audit ranks the program as written against the proven optimum.
    let o = run(&["audit", s(&inst), s(&xml), s(&sc), "--json"]);
    let a: Value = serde_json::from_str(&stdout(&o)).unwrap_or_else(|_| panic!("{}", stderr(&o)));
    assert_eq!(a["optimum_ticks"], 6);
    let rows = a["schedules"].as_array().unwrap();
    let row = |name: &Path| rows.iter().find(|r| r["name"] == s(name)).unwrap().clone();
    assert_eq!(row(&xml)["valid"], false);
    assert_eq!(row(&xml)["schedule_ticks"], 1);
    assert!(row(&xml)["verdict"].as_str().unwrap().contains("STRICT1"));
    assert_eq!(row(&sc)["gap_ticks"], 0);
    assert_eq!(row(&sc)["rank"], 1);
}

#[test]
fn doctored_programs_are_refused_with_the_place_named_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(data("msccl_alltoall_4.xml")).unwrap();
    let import = |text: &str| {
        let p = dir.path().join("d.xml");
        std::fs::write(&p, text).unwrap();
        let out = dir.path().join("o.json");
        let o = run(&import_args(
            &p,
            "msccl-xml",
            Some("8"),
            &out,
            &["--serialize"],
        ));
        assert!(!out.exists(), "written despite {}", stderr(&o));
        assert!(!o.status.success());
        stderr(&o)
    };
    // A missing chunk: gpu 1's send to 2 removed.
    let line = r#"      <step s="0" type="s" srcbuf="i" srcoff="2" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>"#;
    assert!(good.contains(line));
    let e = import(&good.replacen(&format!("{line}\n"), "", 1));
    assert!(
        e.contains("gpu 2, tb") && e.contains("has no send") && e.contains("line "),
        "{e}"
    );
    // A bad peer.
    let e = import(&good.replacen(r#"send="1" recv="-1""#, r#"send="7" recv="-1""#, 1));
    assert!(
        e.contains("line 15, column 5: gpu 0, tb 4") && e.contains("send=7 is not a peer"),
        "{e}"
    );
    // Relay types that reduce are refused by name.
    let e = import(&good.replacen(r#"type="r""#, r#"type="rrc""#, 1));
    assert!(
        e.contains("type \"rrc\" reduces") && e.contains("gpu 0, tb 1, step 0"),
        "{e}"
    );
    // A dependency on a step that raises no flag.
    let e = import(&good.replacen(
        r#"cnt="1" depid="-1" deps="-1""#,
        r#"cnt="1" depid="2" deps="0""#,
        1,
    ));
    assert!(e.contains("hasdep"), "{e}");
}

#[test]
fn exports_refuse_what_msccl_cannot_carry_and_write_nothing() {
    assert_export_refused_at_12_bits("msccl-xml", "xml");
}

/// Imports `xml` into `out` (`more`: the other arguments), returning the process.
fn import_xml(xml: &Path, out: &Path, more: &[&str]) -> std::process::Output {
    run(&import_args(xml, "msccl-xml", Some("8192"), out, more))
}

/// `audit --json` of an instance and schedules.
fn audit_json(inst: &Path, schedules: &[&Path]) -> Value {
    let mut args = vec!["audit", s(inst)];
    args.extend(schedules.iter().map(|p| s(p)));
    args.push("--json");
    let o = run(&args);
    serde_json::from_str(&stdout(&o)).unwrap_or_else(|_| panic!("{}", stderr(&o)))
}

/// The audit row of one schedule: (valid, schedule ticks, gap ticks).
fn audit_row(a: &Value, name: &Path) -> (bool, u64, Option<u64>) {
    let rows = a["schedules"].as_array().unwrap();
    let r = rows.iter().find(|r| r["name"] == s(name)).unwrap();
    (
        r["valid"].as_bool().unwrap(),
        r["schedule_ticks"].as_u64().unwrap(),
        r["gap_ticks"].as_u64(),
    )
}

/// msccl-tools' shapes, written by hand: (file, what its output must hold
/// (`out[t][k]` = Some((gpu, input offset))), hop demands and chunks,
/// end-to-end demands, STRICT1 optimum of the hops and of the collective).
struct Shape {
    file: &'static str,
    allgather: bool,
    hops: (usize, u64),
    end_to_end: usize,
    optimum: (u64, u64),
}

const SHAPES: [Shape; 3] = [
    // Every gpu: s, rcs, rcs, r (allgather_ring.py 4 1 1, in place, LL128).
    Shape {
        file: "msccl_allgather_ring_4.xml",
        allgather: true,
        hops: (4, 12),
        end_to_end: 12,
        optimum: (6, 6),
    },
    // One threadblock per peer: send to it, then receive from it (Simple).
    Shape {
        file: "msccl_alltoall_4_sendfirst.xml",
        allgather: false,
        hops: (12, 12),
        end_to_end: 12,
        optimum: (6, 6),
    },
    // 2 nodes x 4 gpus: each gpu sends its peers their chunk and one to
    // relay (send, send, then receive both), then every gpu sends the 4
    // chunks for its counterpart on the other node in one step of cnt 4.
    Shape {
        file: "msccl_alltoall_2x4_relay.xml",
        allgather: false,
        hops: (32, 80),
        end_to_end: 56,
        optimum: (20, 14),
    },
];

#[test]
fn msccl_tools_shapes_run_import_serialize_validate_and_are_audited() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for shape in &SHAPES {
        let xml = data(shape.file);
        // The program runs (sends go before receives) and does its collective.
        let out = interpret(&std::fs::read_to_string(&xml).unwrap());
        for (t, o) in out.iter().enumerate() {
            for (k, c) in o.iter().enumerate() {
                let want = if shape.allgather { (k, k) } else { (k, t) };
                assert_eq!(*c, Some(want), "{}: gpu {t} output {k}", shape.file);
            }
        }
        // Hops: imported, serialized, valid, and ranked at the optimum.
        let (h, sc) = (d.join("h.json"), d.join("s.json"));
        let o = import_xml(&xml, &h, &["--schedule-out", s(&sc), "--serialize"]);
        assert!(o.status.success(), "{}: {}", shape.file, stderr(&o));
        assert!(
            stderr(&o).contains("send(s) go before their receive is reached"),
            "{}",
            stderr(&o)
        );
        let got: Value = serde_json::from_str(&std::fs::read_to_string(&h).unwrap()).unwrap();
        let demands = got["demands"].as_array().unwrap();
        let bits: u64 = demands
            .iter()
            .map(|x| x["bits_total"].as_u64().unwrap())
            .sum();
        assert_eq!((demands.len(), bits / 8192), shape.hops, "{}", shape.file);
        let o = run(&["validate", s(&h), s(&sc)]);
        assert!(stdout(&o).starts_with("PASS"), "{}", stdout(&o));
        let a = audit_json(&h, &[&sc, &xml]);
        assert_eq!(a["optimum_ticks"], shape.optimum.0, "{}", shape.file);
        assert_eq!(audit_row(&a, &sc), (true, shape.optimum.0, Some(0)));
        assert!(
            !audit_row(&a, &xml).0,
            "{}: conflicts as written",
            shape.file
        );
        // End to end: the collective, and the program ranked against it.
        let e = d.join("e.json");
        let o = import_xml(&xml, &e, &["--demands", "end-to-end"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("(end to end)"), "{}", stderr(&o));
        let got: Value = serde_json::from_str(&std::fs::read_to_string(&e).unwrap()).unwrap();
        let demands = got["demands"].as_array().unwrap();
        assert_eq!(demands.len(), shape.end_to_end, "{}", shape.file);
        assert!(demands.iter().all(|x| x["bits_total"] == 8192));
        let a = audit_json(&e, &[&xml]);
        assert_eq!(a["optimum_ticks"], shape.optimum.1, "{}", shape.file);
        let (valid, ticks, _) = audit_row(&a, &xml);
        assert!(!valid && ticks <= 3, "{}: {ticks} levels", shape.file);
    }
}

#[test]
fn a_ring_allgather_is_judged_against_its_collective_and_a_relay_writes_no_schedule_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let ring = data("msccl_allgather_ring_4.xml");
    let e = dir.path().join("e.json");
    // READ1_WRITE1: every level sends once and receives once per gpu, so
    // the ring as written is a valid relay of the allgather, at its optimum.
    let o = import_xml(
        &ring,
        &e,
        &["--demands", "end-to-end", "--model", "READ1_WRITE1"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["validate", s(&e), s(&ring)]);
    assert!(stdout(&o).starts_with("PASS: 3 ticks"), "{}", stdout(&o));
    let a = audit_json(&e, &[&ring]);
    assert_eq!(a["optimum_ticks"], 3);
    assert_eq!(audit_row(&a, &ring), (true, 3, Some(0)));
    // A relaying program's ticks are a schedule of its hops only.
    let sc = dir.path().join("s.json");
    let relay = data("msccl_alltoall_2x4_relay.xml");
    let o = import_xml(
        &relay,
        &e,
        &[
            "--demands",
            "end-to-end",
            "--schedule-out",
            s(&sc),
            "--serialize",
        ],
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("relays chunks"), "{}", stderr(&o));
    assert!(!sc.exists());
    // A direct program's end-to-end demands are its hops: its schedule is
    // one of the collective.
    let a2a = data("msccl_alltoall_4_sendfirst.xml");
    let o = import_xml(
        &a2a,
        &e,
        &[
            "--demands",
            "end-to-end",
            "--schedule-out",
            s(&sc),
            "--serialize",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["validate", s(&e), s(&sc)]);
    assert!(stdout(&o).starts_with("PASS: 6 ticks"), "{}", stdout(&o));
}

#[test]
fn a_real_cycle_and_a_send_the_buffer_cannot_take_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.json");
    // Each gpu first receives from the other: nothing can move.
    let o = import_xml(&data("msccl_cycle_2.xml"), &out, &[]);
    assert!(!o.status.success() && !out.exists());
    assert!(
        stderr(&o).contains("msccl_cycle_2.xml: line 4, column 7: gpu 0, tb 0, step 0: the program cannot finish: this step waits forever"),
        "{}",
        stderr(&o)
    );
    // Each gpu sends 3 chunks before it receives: Simple's buffer holds 2.
    let xml = data("msccl_overflow_2.xml");
    let o = import_xml(&xml, &out, &[]);
    assert!(!o.status.success() && !out.exists());
    assert!(
        stderr(&o).contains("gpu 0, tb 0, step 0: the program cannot finish: this send of 3 chunk(s) to gpu 1 on channel 0 does not fit the connection's buffer (2 chunks under proto \"Simple\")"),
        "{}",
        stderr(&o)
    );
    // Under LL a connection holds 8 chunks: the same program runs.
    let ll = dir.path().join("ll.xml");
    let text = std::fs::read_to_string(&xml).unwrap();
    std::fs::write(&ll, text.replace("proto=\"Simple\"", "proto=\"LL\"")).unwrap();
    let sc = dir.path().join("s.json");
    let o = import_xml(&ll, &out, &["--schedule-out", s(&sc), "--serialize"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("(8 chunks under proto \"LL\")"),
        "{}",
        stderr(&o)
    );
}
