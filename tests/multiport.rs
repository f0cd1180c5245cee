//! Multi-port slots and per-demand bandwidth (DESIGN.md §11), end to end:
//! solves against a brute-force f-colouring reference on small instances,
//! closed forms on large ones, the claims re-checked by `verify`, and the
//! validator's per-tick rule with ports.

mod common;

use proptest::prelude::*;
use tickopt::bounds::Witness;
use tickopt::instance::{Demand, Instance, Limits, Model, Ports};
use tickopt::solve::Status;
use tickopt::validate::{validate_compact, validate_expanded, ErrorKind, RawChunk, TickValidator};
use tickopt::verify::{verify_claim, Claim};
use tickopt::{solve_instance, SolveRequest, SolverChoice};

/// Minimum ticks by exhaustive search: every chunk gets a tick, slot `v`
/// in at most `ports(v)` chunks per tick (READ1_WRITE1: per direction).
/// Chunks in order, a new tick only as the next unused one (symmetry).
fn brute_force_ticks(inst: &Instance) -> u64 {
    let mut chunks: Vec<(usize, usize)> = Vec::new();
    for (i, d) in inst.demands().iter().enumerate() {
        for _ in 0..inst.chunks(i) {
            chunks.push((d.src as usize, d.dst as usize));
        }
    }
    if chunks.is_empty() {
        return 0;
    }
    let n = inst.slots as usize;
    let ports: Vec<u32> = (0..n).map(|v| inst.port(v)).collect();
    let strict = inst.model == Model::Strict1;
    for t in 1..=chunks.len() {
        // load[tick][side][slot]
        let mut load = vec![[vec![0u32; n], vec![0u32; n]]; t];
        if colour(&chunks, 0, 0, t, &mut load, &ports, strict) {
            return t as u64;
        }
    }
    unreachable!()
}

fn colour(
    chunks: &[(usize, usize)],
    k: usize,
    used: usize,
    t: usize,
    load: &mut Vec<[Vec<u32>; 2]>,
    ports: &[u32],
    strict: bool,
) -> bool {
    if k == chunks.len() {
        return true;
    }
    let (s, d) = chunks[k];
    // Same pair as the previous chunk: no earlier tick than its (symmetry).
    for c in 0..t.min(used + 1) {
        let fits = if strict {
            load[c][0][s] < ports[s] && load[c][0][d] < ports[d]
        } else {
            load[c][0][s] < ports[s] && load[c][1][d] < ports[d]
        };
        if !fits {
            continue;
        }
        let (ss, ds) = if strict { (0, 0) } else { (0, 1) };
        load[c][ss][s] += 1;
        load[c][ds][d] += 1;
        if colour(chunks, k + 1, used.max(c + 1), t, load, ports, strict) {
            return true;
        }
        load[c][ss][s] -= 1;
        load[c][ds][d] -= 1;
    }
    false
}

fn claim_of(sol: &tickopt::solve::Solution, inst: &Instance) -> Claim {
    Claim::from_value(serde_json::json!({
        "model": inst.model.as_str(), "ticks": sol.ticks,
        "lower_bound": sol.lower_bound.ticks, "status": sol.status,
        "witness": sol.lower_bound.witness, "proof": sol.proof,
    }))
    .unwrap()
}

/// Solves, validates both ways and verifies the claim; returns the solution.
fn solve_checked(inst: &Instance, solver: SolverChoice) -> tickopt::solve::Solution {
    let sol = solve_instance(
        inst,
        &SolveRequest {
            solver,
            ..Default::default()
        },
    )
    .unwrap();
    let compact = validate_compact(inst, &sol.schedule);
    assert!(compact.passed(), "{}", compact.one_line());
    assert_eq!(compact.ticks_total, sol.ticks);
    let v = verify_claim(inst, &compact, &claim_of(&sol, inst), &Default::default());
    assert!(v.holds, "claim refused: {:?}", v.failures);
    sol
}

fn small_instance() -> impl Strategy<Value = Instance> {
    (2u32..6, any::<bool>()).prop_flat_map(|(n, strict)| {
        (
            proptest::collection::vec(1u32..4, n as usize),
            proptest::collection::vec((0..n, 0..n, 1u64..4, 1u64..3), 1..6),
        )
            .prop_filter_map("needs demands", move |(ports, raw)| {
                let model = if strict {
                    Model::Strict1
                } else {
                    Model::Read1Write1
                };
                // bits = chunks * bw, per-demand bw 10 or 20; one bw per pair.
                let mut seen = std::collections::BTreeSet::new();
                let demands: Vec<(Demand, Option<u64>)> = raw
                    .into_iter()
                    .filter(|&(s, d, _, _)| s != d && seen.insert((s, d)))
                    .map(|(s, d, c, b)| {
                        let bw = 10 * b;
                        (
                            Demand {
                                src: s,
                                dst: d,
                                bits: c * bw - 3,
                            },
                            Some(bw),
                        )
                    })
                    .collect();
                let total: u64 = demands
                    .iter()
                    .map(|(d, b)| d.bits.div_ceil(b.unwrap()))
                    .sum();
                if demands.is_empty() || total > 9 {
                    return None;
                }
                Instance::new_multiport(
                    model,
                    n,
                    10,
                    demands,
                    Ports::PerSlot(ports),
                    &Limits::default(),
                )
                .ok()
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Against brute force: bounds never exceed the optimum; READ1_WRITE1
    /// and STRICT1 with even ports are solved at the optimum, proven by the
    /// port degree; every status is true.
    #[test]
    fn multiport_matches_brute_force(inst in small_instance()) {
        let opt = brute_force_ticks(&inst);
        for solver in [SolverChoice::Auto, SolverChoice::Greedy] {
            let sol = solve_checked(&inst, solver);
            prop_assert!(sol.lower_bound.ticks <= opt, "bound {} above optimum {opt}", sol.lower_bound.ticks);
            prop_assert!(sol.ticks >= opt);
            let exact_case = inst.model == Model::Read1Write1 || inst.ports().all_even();
            if exact_case {
                prop_assert_eq!(sol.ticks, opt);
                prop_assert_eq!(sol.status, Status::Optimal);
                prop_assert_eq!(sol.lower_bound.ticks, sol.bounds.degree.ticks);
            }
            match sol.status {
                Status::Optimal => prop_assert_eq!(sol.ticks, opt),
                Status::WithinOne => prop_assert!(sol.ticks <= opt + 1),
                Status::OptimalExhaustive => prop_assert!(false, "no exhaustive proof is claimed for multi-port"),
                Status::Feasible => {}
            }
            prop_assert!(sol.bounds.complete);
        }
    }

    /// STRICT1 with even ports only: Hakimi–Kariv reaches the degree bound.
    #[test]
    fn even_ports_strict1_is_exact(
        n in 2u32..7,
        ports in proptest::collection::vec(prop_oneof![Just(2u32), Just(4)], 7),
        raw in proptest::collection::vec((0u32..7, 0u32..7, 1u64..50), 1..25),
    ) {
        let demands: Vec<Demand> = raw.into_iter()
            .filter(|&(s, d, _)| s != d && s < n && d < n)
            .map(|(s, d, bits)| Demand { src: s, dst: d, bits })
            .collect();
        prop_assume!(!demands.is_empty());
        let inst = Instance::new(Model::Strict1, n, 1, demands, &Limits::default()).unwrap()
            .with_ports(Ports::PerSlot(ports[..n as usize].to_vec())).unwrap();
        let sol = solve_checked(&inst, SolverChoice::Auto);
        prop_assert_eq!(sol.status, Status::Optimal);
        prop_assert_eq!(sol.ticks, sol.bounds.degree.ticks);
    }
}

/// All-to-all among `n` GPUs with `k` rails each, `m` chunks per pair.
fn all_to_all(model: Model, n: u32, k: u32, m: u64) -> Instance {
    let demands = (0..n).flat_map(|s| {
        (0..n).filter(move |&d| d != s).map(move |d| Demand {
            src: s,
            dst: d,
            bits: m * 1000,
        })
    });
    Instance::new(model, n, 1000, demands, &Limits::default())
        .unwrap()
        .with_ports(Ports::Uniform(k))
        .unwrap()
}

/// Closed forms: n x k all-to-all needs ceil(2(n-1)m/k) ticks (STRICT1, k
/// even) and ceil((n-1)m/k) (READ1_WRITE1, any k), proven optimal.
#[test]
fn multi_rail_all_to_all_closed_forms() {
    for (n, k, m) in [(64u32, 8u32, 1000u64), (48, 2, 7), (33, 4, 1_000_000)] {
        let inst = all_to_all(Model::Strict1, n, k, m);
        let sol = solve_checked(&inst, SolverChoice::Auto);
        assert_eq!(sol.ticks, (2 * (n as u64 - 1) * m).div_ceil(k as u64));
        assert_eq!(sol.status, Status::Optimal);
        assert!(matches!(
            sol.lower_bound.witness,
            Witness::PortDegree { .. }
        ));
    }
    for (n, k, m) in [(64u32, 8u32, 1000u64), (50, 3, 11), (17, 5, 1_000_000_007)] {
        let inst = all_to_all(Model::Read1Write1, n, k, m);
        let sol = solve_checked(&inst, SolverChoice::Auto);
        assert_eq!(sol.ticks, ((n as u64 - 1) * m).div_ceil(k as u64));
        assert_eq!(sol.status, Status::Optimal);
    }
}

/// Skewed dense traffic with the same ports on every slot (a two-tier
/// MoE's shape): first fit grouped `ports` ticks at a time, on the demands
/// (READ1_WRITE1) or on the Euler orientation's pieces (STRICT1, even
/// ports), meets the port-degree bound, validated and verified.
#[test]
fn skewed_dense_traffic_takes_first_fit_grouped_at_the_port_degree() {
    let n = 24u32;
    // A fixed pseudo-random spread of 1-12 chunks, 4x into slots 0 and 5.
    let demands: Vec<Demand> = (0..n)
        .flat_map(|s| (0..n).filter(move |&d| d != s).map(move |d| (s, d)))
        .map(|(s, d)| {
            let spread = 1 + (s as u64 * 7919 + d as u64 * 104_729) % 12;
            let hot = if d == 0 || d == 5 { 4 } else { 1 };
            Demand {
                src: s,
                dst: d,
                bits: spread * hot * 1000,
            }
        })
        .collect();
    for (model, ports, name) in [
        (Model::Read1Write1, 1, None),
        (Model::Read1Write1, 3, Some("multiport-first-fit")),
        (Model::Read1Write1, 4, Some("multiport-first-fit")),
        (Model::Strict1, 2, Some("multiport-first-fit")),
        (Model::Strict1, 3, Some("multiport-first-fit")),
        (Model::Strict1, 4, Some("multiport-first-fit")),
    ] {
        let inst = Instance::new(model, n, 1000, demands.clone(), &Limits::default())
            .unwrap()
            .with_ports(Ports::Uniform(ports))
            .unwrap();
        let sol = solve_checked(&inst, SolverChoice::Auto);
        assert_eq!(sol.status, Status::Optimal, "{model} ports {ports}");
        if let Some(name) = name {
            assert_eq!(sol.stats.solver, name, "{model} ports {ports}");
            assert!(matches!(
                sol.lower_bound.witness,
                Witness::PortDegree { .. }
            ));
        }
    }
}

/// Where STRICT1 first fit on the demands cannot fit (a triangle: one
/// edge per one-port tick, 4 chunks over a one-port Delta of 3), Hakimi–
/// Kariv's orientation does (2 ports: 2 ticks); uniform traffic goes there
/// at once. Both at the port-degree bound, validated and verified.
#[test]
fn strict1_falls_back_to_hakimi_kariv_where_first_fit_cannot_fit() {
    let triangle = [(0, 1, 2), (1, 2, 1), (2, 0, 1)].map(|(src, dst, k)| Demand {
        src,
        dst,
        bits: k * 1000,
    });
    let inst = Instance::new(Model::Strict1, 3, 1000, triangle, &Limits::default())
        .unwrap()
        .with_ports(Ports::Uniform(2))
        .unwrap();
    let sol = solve_checked(&inst, SolverChoice::Auto);
    assert_eq!(sol.stats.solver, "multiport-hakimi-kariv-first-fit");
    assert_eq!((sol.ticks, sol.status), (2, Status::Optimal));
    let uniform = solve_checked(&all_to_all(Model::Strict1, 16, 4, 3), SolverChoice::Auto);
    assert_eq!(uniform.stats.solver, "multiport-hakimi-kariv-first-fit");
    assert_eq!(
        (uniform.ticks, uniform.status),
        (2 * 15 * 3 / 4 + 1, Status::Optimal)
    );
}

/// The worked example of the docs: two rails per GPU halve the ticks of an
/// 8-GPU all-to-all, and both schedules are proven optimal.
#[test]
fn two_rails_halve_an_all_to_all() {
    let one = solve_checked(&all_to_all(Model::Strict1, 8, 1, 4), SolverChoice::Auto);
    let two = solve_checked(&all_to_all(Model::Strict1, 8, 2, 4), SolverChoice::Auto);
    assert_eq!((one.ticks, one.status), (56, Status::Optimal));
    assert_eq!((two.ticks, two.status), (28, Status::Optimal));
}

/// Odd ports, STRICT1: the triangle of 3-port slots with 9 chunks per edge
/// has 9 ports in all, at most 4 transfers inside per tick: 27 chunks need
/// 7 ticks, above the degree bound ceil(18/3) = 6; the witness verifies.
#[test]
fn odd_port_set_bound_beats_the_degree() {
    let demands = [(0, 1), (1, 2), (0, 2)].map(|(s, d)| Demand {
        src: s,
        dst: d,
        bits: 9,
    });
    let inst = Instance::new(Model::Strict1, 3, 1, demands, &Limits::default())
        .unwrap()
        .with_ports(Ports::Uniform(3))
        .unwrap();
    let sol = solve_checked(&inst, SolverChoice::Auto);
    assert_eq!(sol.bounds.degree.ticks, 6);
    assert_eq!(sol.lower_bound.ticks, 7);
    assert!(matches!(
        sol.lower_bound.witness,
        Witness::OddPortSet {
            chunks_inside: 27,
            ports_total: 9,
            bound: 7,
            ..
        }
    ));
    assert!(sol.ticks == 7 || sol.status != Status::Optimal);
    // A doctored witness is refused.
    let doctored = Witness::OddPortSet {
        slots: vec![0, 1, 2],
        chunks_inside: 27,
        ports_total: 9,
        bound: 8,
    };
    assert!(doctored.recompute(&inst).is_err());
    // A one-port witness on a multi-port instance proves too much: refused.
    let one_port = Witness::Degree {
        slot: 0,
        chunks: 18,
        direction: tickopt::bounds::Direction::Both,
    };
    assert!(one_port.recompute(&inst).is_err());
    // Port degree: the true one holds; wrong ports or a wrong bound do not.
    let pd = |ports, bound| Witness::PortDegree {
        slot: 0,
        chunks: 18,
        ports,
        direction: tickopt::bounds::Direction::Both,
        bound,
    };
    assert_eq!(pd(3, 6).recompute(&inst), Ok(6));
    assert!(pd(4, 5).recompute(&inst).is_err());
    assert!(pd(3, 7).recompute(&inst).is_err());
    // A set whose ports are even proves nothing.
    let even = inst.with_ports(Ports::PerSlot(vec![3, 3, 2])).unwrap();
    let set = Witness::OddPortSet {
        slots: vec![0, 1, 2],
        chunks_inside: 27,
        ports_total: 8,
        bound: 7,
    };
    assert!(set.recompute(&even).is_err());
}

/// The validator allows `ports(v)` transfers per tick and no more, with
/// messages that name the ports; chunks are held to their demand's bandwidth.
#[test]
fn validator_counts_ports_and_per_demand_bandwidth() {
    let inst = Instance::new_multiport(
        Model::Read1Write1,
        3,
        100,
        [
            (
                Demand {
                    src: 0,
                    dst: 1,
                    bits: 400,
                },
                Some(200),
            ),
            (
                Demand {
                    src: 0,
                    dst: 2,
                    bits: 100,
                },
                None,
            ),
        ],
        Ports::PerSlot(vec![2, 1, 1]),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(inst.chunks(0), 2);
    let chunk = |s, d, len| RawChunk::Chunk {
        src: s,
        dst: d,
        len,
    };
    // Slot 0 sends twice (2 ports): fine; slot 1 receives twice: not.
    let mut v = TickValidator::new(&inst);
    v.push_tick(&[chunk(0, 1, 200), chunk(0, 2, 100)]);
    v.push_tick(&[chunk(0, 1, 200)]);
    assert!(v.finish().passed());
    let mut v = TickValidator::new(&inst);
    v.push_tick(&[chunk(0, 1, 200), chunk(0, 1, 200)]);
    v.push_tick(&[chunk(0, 2, 100)]);
    let r = v.finish();
    assert!(!r.passed());
    assert!(
        r.one_line().contains("receives more than once"),
        "{}",
        r.one_line()
    );
    // 201 bits exceed the demand's bandwidth of 200; 101 exceed 100.
    let mut v = TickValidator::new(&inst);
    v.push_tick(&[chunk(0, 1, 201), chunk(0, 2, 101)]);
    let r = v.finish();
    assert_eq!(
        r.errors
            .iter()
            .filter(|e| e.kind == tickopt::validate::ErrorKind::Bandwidth)
            .count(),
        2
    );
    // Three sends from a 2-port slot in one tick.
    let inst3 = inst.with_ports(Ports::PerSlot(vec![2, 3, 3])).unwrap();
    let mut v = TickValidator::new(&inst3);
    v.push_tick(&[chunk(0, 1, 200), chunk(0, 1, 200), chunk(0, 2, 100)]);
    let r = v.finish();
    assert!(
        r.one_line().contains("more than its 2 ports"),
        "{}",
        r.one_line()
    );
    // The expanded and compact validators agree on a solved schedule.
    let sol = solve_checked(&inst, SolverChoice::Auto);
    assert!(validate_expanded(&inst, &sol.schedule).passed());
    assert_eq!(sol.ticks, 2);
}

/// The bundled multi-port set: every known optimum is matched and proven,
/// every schedule survives a round trip through each schedule format
/// (a tick may list one pair several times), and every claim verifies.
#[test]
fn multiport_set_meets_its_known_optima() {
    use tickopt::bench::manifest::Manifest;
    use tickopt::interop::validate_schedule_file;
    use tickopt::schedule::{write_schedule_file, Format};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/multiport");
    let manifest = Manifest::load(&dir.join("manifest.json")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut known = 0;
    for entry in manifest.entries.iter().map(|e| e.as_ref().unwrap()) {
        for &model in &entry.models {
            let inst = common::manifest_instance(&dir, entry, model);
            let sol = solve_checked(&inst, SolverChoice::Auto);
            if let Some(&k) = entry.known_optimum.get(&model) {
                assert_eq!(
                    (sol.ticks, sol.status),
                    (k, Status::Optimal),
                    "{} {model}",
                    entry.file
                );
                known += 1;
            }
            if inst.total_chunks() < 20_000 {
                for (format, name) in [
                    (Format::Json, "s.json"),
                    (Format::Csv, "s.csv"),
                    (Format::Compact, "c.json"),
                ] {
                    let path = tmp.path().join(name);
                    write_schedule_file(&inst, &sol.schedule, format, &path).unwrap();
                    let report = validate_schedule_file(&inst, &path).unwrap();
                    assert!(
                        report.passed(),
                        "{} {model} {name}: {}",
                        entry.file,
                        report.one_line()
                    );
                    assert_eq!(report.ticks_total, sol.ticks);
                }
            }
        }
    }
    assert!(known >= 11, "only {known} known optima checked");
}

/// Bad multi-port input: file, field, and no instance.
#[test]
fn bad_ports_and_bandwidths_are_refused_with_the_field() {
    use tickopt::instance::{read_instance_bytes, Overrides};
    let json = |ports: &str, bw: &str| {
        format!(
            r#"{{"version":0,"model":"STRICT1","slots":3,"copy_bw_bits_per_tick":10,{ports}
            "demands":[{{"src_slot":0,"dst_slot":1,"bits_total":30{bw}}}]}}"#
        )
    };
    let o = Overrides::default();
    let read =
        |text: String| read_instance_bytes(text.as_bytes(), "i.json", &o, &Limits::default());
    let cases = [
        (
            json(r#""ports":0,"#, ""),
            "i.json: field ports: ports must be >= 1, got 0",
        ),
        (
            json(r#""ports":[1,0,2],"#, ""),
            "field ports[1]: ports must be >= 1",
        ),
        (
            json(r#""ports":[1,2],"#, ""),
            "field ports: a ports array needs one entry per slot: 2 entries for 3 slots",
        ),
        (
            json(r#""ports":"two","#, ""),
            "field ports: expected an integer",
        ),
        (
            json("", r#","copy_bw_bits_per_tick":0"#),
            "field demands[0].copy_bw_bits_per_tick: bandwidth per tick must be > 0",
        ),
    ];
    for (text, want) in cases {
        let e = read(text).unwrap_err().to_string();
        assert!(e.contains(want), "{e:?} lacks {want:?}");
    }
    let ok = read(json(
        r#""ports":[2,2,1],"#,
        r#","copy_bw_bits_per_tick":20"#,
    ))
    .unwrap();
    assert_eq!((ok.port(0), ok.port(2), ok.chunks(0)), (2, 1, 2));
    // And back: the writer keeps ports and the per-demand bandwidth.
    let back = tickopt::instance::instance_to_json(&ok);
    assert_eq!(back["ports"], serde_json::json!([2, 2, 1]));
    assert_eq!(back["demands"][0]["copy_bw_bits_per_tick"], 20);
    // v0 output is unchanged: no "ports", no per-demand bandwidth.
    let v0 = read(json("", "")).unwrap();
    let v0j = tickopt::instance::instance_to_json(&v0);
    assert!(v0j.get("ports").is_none() && v0j["demands"][0].get("copy_bw_bits_per_tick").is_none());
    // CSV: --ports and the bw column (by position or by header name).
    let csv = |text: &str, ports: Option<u32>| {
        let o = Overrides {
            bw: Some(10),
            ports,
            ..Overrides::default()
        };
        read_instance_bytes(text.as_bytes(), "d.csv", &o, &Limits::default())
    };
    let i = csv("0,1,100,50\n1,2,100\n", Some(2)).unwrap();
    assert_eq!((i.chunks(0), i.chunks(1), i.port(1)), (2, 10, 2));
    let i = csv("src_slot,dst_slot,bits_total,bw\n0,1,100,25\n", None).unwrap();
    assert_eq!(i.chunks(0), 4);
    let e = csv("0,1,100,0\n", None).unwrap_err().to_string();
    assert_eq!(e, "d.csv:1: field bw: bandwidth per tick must be > 0");
    let e = csv("0,1,100\n", Some(0)).unwrap_err().to_string();
    assert!(e.contains("field --ports: ports must be >= 1"), "{e}");
    let e = csv("0,1,100,20\n0,1,50,30\n", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("different bandwidths"), "{e}");
}

/// The command line: `--ports 2` halves an 8-GPU all-to-all, `verify`
/// re-checks it, and the same schedule fails with one port.
#[test]
fn cli_ports_flag_solves_validates_and_verifies() {
    let bin = env!("CARGO_BIN_EXE_tickopt");
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("a2a.csv");
    let mut text = String::new();
    for s in 0..8 {
        for d in 0..8 {
            if s != d {
                text += &format!("{s},{d},4096\n");
            }
        }
    }
    std::fs::write(&csv, text).unwrap();
    let run = |args: &[&str]| std::process::Command::new(bin).args(args).output().unwrap();
    let (s, sum) = (tmp.path().join("s.json"), tmp.path().join("sum.json"));
    let (csv, s, sum) = (
        csv.to_str().unwrap(),
        s.to_str().unwrap(),
        sum.to_str().unwrap(),
    );
    let out = run(&[
        "solve",
        csv,
        "--bw",
        "1024",
        "--ports",
        "2",
        "-o",
        s,
        "--summary",
        sum,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(sum).unwrap()).unwrap();
    assert_eq!(summary["ticks"], 28);
    assert_eq!(summary["status"], "optimal");
    assert_eq!(summary["ports"], 2);
    let out = run(&["verify", csv, s, sum, "--bw", "1024", "--ports", "2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = run(&["validate", csv, s, "--bw", "1024"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["solve", csv, "--bw", "1024", "--ports", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("field --ports: ports must be >= 1"));
}

/// The CPU executor runs k copies per slot per tick for a k-port slot and
/// moves every byte (per-demand bandwidths included); the plan check
/// refuses the same ticks on one port.
#[test]
fn cpu_executor_replays_multiport_schedules() {
    use tickopt::exec::{CpuExecutor, ExecOptions, Executor, Plan, PlanError};
    let opts = ExecOptions {
        scale_bits: 1,
        warmup: 0,
        repeat: 1,
        ..ExecOptions::default()
    };
    let f = tickopt::gen::multiport::MultiportFamily::TwoTier {
        nodes: 2,
        gpus_per_node: 4,
        nics: 2,
        fast: 4,
    };
    for model in [Model::Strict1, Model::Read1Write1] {
        let inst = tickopt::gen::multiport::generate_multiport(&f, model, 8, 64, 0).unwrap();
        let sol = solve_checked(&inst, SolverChoice::Auto);
        let r = CpuExecutor.replay(&inst, &sol.schedule, &opts).unwrap();
        assert!(r.verification.passed, "{:?}", r.verification.faults);
        assert_eq!((r.ticks, r.copies), (sol.ticks, inst.total_chunks()));
        let one = inst.with_ports(Ports::Uniform(1)).unwrap();
        match Plan::from_schedule(&one, &sol.schedule, 1, 1) {
            Err(PlanError::BadTick { what, .. }) => assert!(what.contains("forbids"), "{what}"),
            other => panic!(
                "one-port plan of a two-port schedule accepted: {:?}",
                other.map(|p| p.copies())
            ),
        }
    }
}

/// With two ports a demand may be sent twice in one round, so its chunk
/// count can pass the tick count: a doctored compact schedule whose count
/// would wrap around u64 (back to the one chunk the demand has) is refused
/// as an overflow, not passed.
#[test]
fn compact_chunk_counts_that_would_wrap_are_refused() {
    let inst = Instance::new_multiport(
        Model::Read1Write1,
        2,
        100,
        [(
            Demand {
                src: 0,
                dst: 1,
                bits: 100,
            },
            None,
        )],
        Ports::Uniform(2),
        &Limits::default(),
    )
    .unwrap();
    let mut doctored = tickopt::schedule::Schedule::new();
    doctored.push(1 << 63, vec![0, 0]);
    doctored.push(1, vec![0]);
    let report = validate_compact(&inst, &doctored);
    assert!(!report.passed(), "{}", report.one_line());
    assert!(
        report.one_line().contains("overflows"),
        "{}",
        report.one_line()
    );
}

/// Doctored multi-port compact schedules are refused with the messages the
/// general path words, now that valid multi-port rounds take the fast path
/// (issue 29): a slot over its ports in one round, a demand sent more
/// chunks than it has (listed twice in a round), a repeat that overflows.
#[test]
fn doctored_multiport_compact_schedules_keep_their_messages() {
    let inst = Instance::new_multiport(
        Model::Read1Write1,
        4,
        100,
        (1..4).map(|dst| {
            (
                Demand {
                    src: 0,
                    dst,
                    bits: 200,
                },
                None,
            )
        }),
        Ports::Uniform(2),
        &Limits::default(),
    )
    .unwrap();
    let schedule = |rounds: &[(u64, &[u32])]| {
        tickopt::schedule::Schedule::from_rounds(
            rounds
                .iter()
                .map(|&(repeat, d)| tickopt::schedule::Round {
                    repeat,
                    demands: d.to_vec(),
                })
                .collect(),
        )
    };
    // The valid schedule: two sends of slot 0 per tick, 3 ticks.
    let good = schedule(&[(1, &[0, 1]), (1, &[1, 2]), (1, &[0, 2])]);
    assert!(validate_compact(&inst, &good).passed());
    let first = |s: &tickopt::schedule::Schedule| {
        let r = validate_compact(&inst, s);
        assert!(!r.passed());
        (r.errors[0].clone(), r.one_line())
    };
    // Slot 0 sends three times in a round: over its 2 ports.
    let (e, line) = first(&schedule(&[(2, &[0, 1, 2]), (2, &[2])]));
    assert_eq!(e.kind, ErrorKind::Read1Write1);
    assert_eq!(
        e.msg,
        "source slot sends more than its 2 ports allow in one tick"
    );
    assert_eq!(
        (e.tick, e.chunk, e.src_slot, e.dst_slot),
        (Some(0), Some(2), Some(0), Some(3))
    );
    assert!(
        line.starts_with("FAIL: 3 error(s) [READ1_WRITE1,COVERAGE], first at tick 0: "),
        "{line}"
    );
    // Demand 0 listed twice in a round of 2 ticks: 4 chunks of its 2.
    let (e, line) = first(&schedule(&[(2, &[0, 0]), (2, &[1]), (2, &[2])]));
    assert_eq!(e.kind, ErrorKind::Coverage);
    assert_eq!(e.msg, "demand coverage mismatch (over)");
    assert_eq!((e.demand_bits, e.scheduled_bits), (Some(200), Some(400)));
    assert_eq!(
        line,
        "FAIL: 1 error(s) [COVERAGE]: COVERAGE: demand coverage mismatch (over)"
    );
    // A repeat that takes the tick count past u64.
    let (e, line) = first(&schedule(&[(u64::MAX, &[0]), (1, &[1, 2])]));
    assert_eq!(e.kind, ErrorKind::Struct);
    assert_eq!(
        e.msg,
        format!(
            "round 1: tick count {} + repeat 1 overflows: the schedule counts past what can be checked exactly",
            u64::MAX
        )
    );
    assert!(line.starts_with("FAIL: "), "{line}");
}
