//! Property tests over random instances of both models: every schedule
//! validates (compact and expanded checks agree), READ1_WRITE1 is exactly
//! Delta, bounds never exceed the brute-force optimum, every format
//! round-trips, and the validator catches each kind of error.

mod common;
use common::*;
use proptest::prelude::*;
use tickopt::graph::DemandGraph;
use tickopt::instance::{Instance, Model};
use tickopt::interop::{load_schedule, validate_schedule_file};
use tickopt::schedule::{write_schedule_file, Expansion, Format, Schedule};
use tickopt::solve::greedy::greedy_schedule;
use tickopt::solve::koenig::koenig_schedule;
use tickopt::validate::{validate_compact, validate_expanded, ErrorKind, RawChunk, TickValidator};
use tickopt::{bounds_for, solve_instance, SolveRequest, SolverChoice};

fn arb_instance(max_slots: u32, max_bits: u64) -> impl Strategy<Value = Instance> {
    (2u32..=max_slots, 1u64..=16, any::<bool>()).prop_flat_map(move |(n, bw, r1w1)| {
        let model = if r1w1 {
            Model::Read1Write1
        } else {
            Model::Strict1
        };
        proptest::collection::vec((0..n, 0..n, 1u64..=max_bits), 1..(3 * n as usize)).prop_map(
            move |raw| {
                let demands: Vec<(u32, u32, u64)> = raw
                    .into_iter()
                    .map(|(a, b, bits)| {
                        if a == b {
                            (a, (a + 1) % n, bits)
                        } else {
                            (a, b, bits)
                        }
                    })
                    .collect();
                instance(model, n, bw, &demands)
            },
        )
    })
}

fn expanded_ticks(inst: &Instance, s: &Schedule) -> Vec<Vec<(u32, u32, u64)>> {
    let mut out = Vec::new();
    let _ = Expansion::new(inst, s).try_for_each(|_, t| -> Result<(), ()> {
        let mut v: Vec<_> = t
            .iter()
            .map(|c| (c.src_slot, c.dst_slot, c.len_bits))
            .collect();
        v.sort_unstable();
        out.push(v);
        Ok(())
    });
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn solutions_validate_and_r1w1_is_delta(inst in arb_instance(12, 200)) {
        let g = DemandGraph::new(&inst);
        let bounds = bounds_for(&inst, &g);
        for choice in [SolverChoice::Auto, SolverChoice::Greedy] {
            let sol = solve_instance(&inst, &SolveRequest { solver: choice, ..Default::default() }).unwrap();
            let fast = validate_compact(&inst, &sol.schedule);
            let slow = validate_expanded(&inst, &sol.schedule);
            prop_assert!(fast.passed(), "{}", fast.one_line());
            prop_assert_eq!(&fast, &slow);
            prop_assert!(sol.ticks >= bounds.best.ticks);
            prop_assert_eq!(sol.ticks, sol.schedule.ticks());
            if inst.model == Model::Read1Write1 && choice == SolverChoice::Auto {
                prop_assert_eq!(sol.ticks, g.max_degree().0);
                prop_assert_eq!(sol.status, tickopt::solve::Status::Optimal);
            }
            // The per-tick greedy (copyspace-guard's) is valid on its own too.
            let per_tick = tickopt::solve::per_tick_greedy::per_tick_greedy(&inst);
            prop_assert!(validate_compact(&inst, &per_tick).passed());
            if choice == SolverChoice::Greedy {
                prop_assert!(sol.ticks <= per_tick.ticks());
            }
            // The witness re-derives the bound from the instance alone.
            prop_assert_eq!(sol.lower_bound.witness.recompute(&inst).unwrap(), sol.lower_bound.ticks);
        }
    }

    #[test]
    fn every_format_round_trips(inst in arb_instance(8, 60)) {
        let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let want = expanded_ticks(&inst, &sol.schedule);
        for (format, name) in [(Format::Json, "s.json"), (Format::Csv, "s.csv"), (Format::Compact, "c.json")] {
            let p = dir.path().join(name);
            write_schedule_file(&inst, &sol.schedule, format, &p).unwrap();
            let rep = validate_schedule_file(&inst, &p).unwrap();
            prop_assert!(rep.passed(), "{:?}: {}", format, rep.one_line());
            prop_assert_eq!(rep.ticks_total, sol.ticks);
            let back = load_schedule(&inst, &p).unwrap();
            prop_assert_eq!(&expanded_ticks(&inst, &back), &want);
        }
    }

    #[test]
    fn bounds_never_exceed_brute_force(inst in arb_instance(5, 3).prop_filter("tiny", |i| i.total_chunks() <= 9)) {
        let opt = brute_force_ticks(&inst);
        let g = DemandGraph::new(&inst);
        let b = bounds_for(&inst, &g);
        prop_assert!(b.best.ticks <= opt, "bound {} > optimum {}", b.best.ticks, opt);
        let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
        prop_assert!(sol.ticks >= opt);
        if inst.model == Model::Read1Write1 {
            prop_assert_eq!(sol.ticks, opt);
        }
        if sol.status == tickopt::solve::Status::Optimal {
            prop_assert_eq!(sol.ticks, opt);
        }
    }
}

#[test]
fn koenig_rounds_do_not_grow_with_multiplicity() {
    // Dense READ1_WRITE1 all-to-all, 24 slots, random sizes; then the same
    // support with every pair scaled by 10^6.
    let n = 24u32;
    let mut seed = 12345u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut small = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a != b {
                small.push((a, b, 1 + next() % 9));
            }
        }
    }
    let big: Vec<_> = small
        .iter()
        .map(|&(a, b, m)| (a, b, m * 1_000_000))
        .collect();
    let pairs = small.len();
    for demands in [&small, &big] {
        let inst = instance(Model::Read1Write1, n, 1, demands);
        let s = koenig_schedule(&inst);
        assert!(validate_compact(&inst, &s).passed());
        assert_eq!(s.ticks(), DemandGraph::new(&inst).max_degree().0);
        assert!(
            s.len() <= pairs + 2 * n as usize,
            "{} rounds for {} pairs",
            s.len(),
            pairs
        );
    }
}

#[test]
fn greedy_handles_multiplicity_one_million_compactly() {
    // Odd clique K7, multiplicity 10^6 per direction, STRICT1.
    let mut d = Vec::new();
    for a in 0..7u32 {
        for b in 0..7u32 {
            if a != b {
                d.push((a, b, 1_000_000u64));
            }
        }
    }
    let inst = instance(Model::Strict1, 7, 1, &d);
    let s = greedy_schedule(&inst);
    assert!(validate_compact(&inst, &s).passed());
    assert!(s.len() < 20_000, "{} rounds", s.len());
    // chi'(K7 with multiplicity 2*10^6) = 7 * 2*10^6; greedy stays within 1%.
    assert!(s.ticks() as f64 <= 1.01 * 14e6, "{} ticks", s.ticks());
}

#[test]
fn solving_is_deterministic() {
    let inst = tickopt::instance::read_instance_file(
        &data("random_n64_strict1.json"),
        &Default::default(),
        &Default::default(),
    )
    .unwrap();
    let a = solve_instance(&inst, &SolveRequest::default()).unwrap();
    let b = solve_instance(&inst, &SolveRequest::default()).unwrap();
    assert_eq!(a.schedule, b.schedule);
}

fn chunk(src: i128, dst: i128, len: i128) -> RawChunk {
    RawChunk::Chunk { src, dst, len }
}

#[test]
fn validator_reports_each_error_kind() {
    let s1 = instance(Model::Strict1, 4, 10, &[(0, 1, 15), (2, 3, 10)]);
    let r1 = instance(
        Model::Read1Write1,
        4,
        10,
        &[(0, 1, 10), (0, 2, 10), (3, 1, 10)],
    );
    let check = |inst: &Instance, ticks: &[Vec<RawChunk>], kind: ErrorKind, tick: Option<u64>| {
        let mut v = TickValidator::new(inst);
        for t in ticks {
            v.push_tick(t);
        }
        let r = v.finish();
        assert!(!r.passed());
        assert!(
            r.error_kinds.contains(&kind),
            "{kind:?} not in {:?}",
            r.error_kinds
        );
        assert_eq!(r.first_error_tick, tick);
    };
    let good = vec![vec![chunk(0, 1, 10), chunk(2, 3, 10)], vec![chunk(0, 1, 5)]];
    let mut v = TickValidator::new(&s1);
    for t in &good {
        v.push_tick(t);
    }
    assert!(v.finish().passed());
    check(
        &s1,
        &[
            vec![chunk(0, 1, 10), chunk(1, 3, 10)],
            vec![chunk(0, 1, 5), chunk(2, 3, 10)],
        ],
        ErrorKind::Strict1,
        Some(0),
    );
    check(
        &s1,
        &[vec![chunk(0, 1, 15), chunk(2, 3, 10)]],
        ErrorKind::Bandwidth,
        Some(0),
    );
    check(
        &s1,
        &[
            vec![chunk(0, 1, 10), chunk(2, 3, 10)],
            vec![chunk(0, 1, 5)],
            vec![chunk(3, 2, 1)],
        ],
        ErrorKind::Extras,
        None,
    );
    check(
        &s1,
        &[vec![chunk(0, 1, 10), chunk(2, 3, 10)]],
        ErrorKind::Coverage,
        None,
    );
    check(&s1, &[vec![chunk(0, 9, 10)]], ErrorKind::Struct, Some(0));
    check(
        &s1,
        &[vec![], vec![RawChunk::Malformed]],
        ErrorKind::Struct,
        Some(1),
    );
    check(
        &r1,
        &[
            vec![chunk(0, 1, 10), chunk(0, 2, 10)],
            vec![chunk(3, 1, 10)],
        ],
        ErrorKind::Read1Write1,
        Some(0),
    );
    check(
        &r1,
        &[
            vec![chunk(0, 1, 10), chunk(3, 1, 10)],
            vec![chunk(0, 2, 10)],
        ],
        ErrorKind::Read1Write1,
        Some(0),
    );
    // READ1_WRITE1 allows a slot to send and receive in one tick.
    let mut v = TickValidator::new(&r1);
    v.push_tick(&[chunk(0, 1, 10), chunk(3, 0, 0)]);
    // A chunk with an error does not count: no EXTRAS for 3->0, as in copyspace-guard.
    assert_eq!(
        v.finish().error_kinds,
        vec![ErrorKind::Bandwidth, ErrorKind::Coverage]
    );
}

#[test]
fn compact_validation_catches_broken_schedules() {
    let inst = instance(Model::Strict1, 4, 10, &[(0, 1, 25), (2, 3, 10), (1, 2, 10)]);
    // Demands by index: 0 = 0->1 (3 chunks), 1 = 1->2, 2 = 2->3.
    let mut s = Schedule::new();
    s.push(1, vec![0, 2]);
    s.push(2, vec![0]);
    s.push(1, vec![1]);
    assert!(validate_compact(&inst, &s).passed());
    let mut over = s.clone();
    over.rounds[1].repeat = 3;
    assert_eq!(
        validate_compact(&inst, &over).error_kinds,
        vec![ErrorKind::Coverage]
    );
    let mut clash = s.clone();
    clash.rounds[2].demands = vec![0, 1];
    assert!(validate_compact(&inst, &clash)
        .error_kinds
        .contains(&ErrorKind::Strict1));
    for bad in [over, clash] {
        assert_eq!(
            validate_compact(&inst, &bad).passed(),
            validate_expanded(&inst, &bad).passed()
        );
    }
}
