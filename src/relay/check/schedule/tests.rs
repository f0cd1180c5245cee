//! The validator in parts against itself on one thread: planned and
//! doctored schedules, runs and overloads on either side of a cut.

use super::coverage::{bitmaps_tile, demand_table, mark_chunks};
use super::*;
use crate::gen::skew::Skew;
use crate::instance::{Demand, Limits, Model};
use crate::relay::plan_relay;
use crate::relay::schedule::{Hop, RelayRun};

fn machine(g: u32, rho: u32) -> TwoTier {
    TwoTier {
        gpus_per_node: g,
        nvlink_speedup: rho,
    }
}

/// xorshift64: the doctoring's dice.
fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// A pseudo-random sparse instance with intra- and inter-node demands.
fn random(n: u32, seed: u64) -> Instance {
    let mut x = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
    let mut demands = Vec::new();
    for src in 0..n {
        for dst in 0..n {
            if src != dst && next(&mut x) % 3 != 0 {
                let bits = 8 * (1 + x % 97);
                demands.push(Demand { src, dst, bits });
            }
        }
    }
    Instance::new(Model::Read1Write1, n, 8, demands, &Limits::default()).unwrap()
}

/// Hot-column MoE all-to-all (the relay benches' kind).
fn moe(n: u32, seed: u64) -> Instance {
    let skew = Skew {
        mean_bits: 256.0,
        sigma: 1.2,
        hot: (n / 16).max(1),
        hot_factor: 4,
    };
    let demands = skew.all_to_all(n, seed).unwrap();
    Instance::new(Model::Read1Write1, n, 64, demands, &Limits::default()).unwrap()
}

/// The verdict in 1, 2, 3 and 5 parts, checked to be the same.
fn verdict(inst: &Instance, tt: TwoTier, s: &RelaySchedule) -> Result<(), RelayInvalid> {
    let one = validate_in_parts(inst, tt, s, 1);
    for parts in [2, 3, 5] {
        assert_eq!(validate_in_parts(inst, tt, s, parts), one, "{parts} parts");
    }
    one
}

/// One random change to `s`: a hop's tick or GPU, a run's chunks, demand
/// or place, a run dropped or repeated, the length.
fn doctor(s: &mut RelaySchedule, slots: u32, demands: u32, x: &mut u64) {
    let n = s.runs.len() as u64;
    let r = (next(x) % n) as usize;
    let run = &mut s.runs[r];
    let h = (next(x) % run.hops().len() as u64) as usize;
    match next(x) % 10 {
        0 => {
            let hop = &mut run.hops_mut()[h];
            hop.tick = (hop.tick + next(x) % 5).saturating_sub(2);
        }
        1 if run.count > 1 && next(x) % 2 == 0 => run.count -= 1,
        1 => run.count += 1,
        2 => run.chunk = (run.chunk + next(x) % 3).saturating_sub(1),
        3 => run.demand = (next(x) % demands as u64) as u32,
        4 => {
            s.runs.remove(r);
        }
        5 => {
            let c = *run;
            let at = (next(x) % n) as usize;
            s.runs.insert(at, c);
        }
        6 => run.hops_mut()[h].to = (next(x) % slots as u64) as u32,
        7 => s.ticks = s.ticks.saturating_sub(next(x) % 2),
        _ => {
            // The whole run to where another starts.
            let to = s.runs[(next(x) % n) as usize].hops()[0].tick;
            let run = &mut s.runs[r];
            let from = run.hops()[0].tick;
            for hop in run.hops_mut() {
                hop.tick = hop.tick - from + to;
            }
            s.ticks = s.ticks.max(to + 3 + run.count);
        }
    }
}

#[test]
fn parts_agree_on_planned_and_doctored_schedules() {
    let cases = [
        (random(8, 11), machine(4, 2)),
        (random(16, 5), machine(4, 1)),
        (moe(32, 3), machine(8, 4)),
        (moe(64, 7), machine(8, 8)),
    ];
    let mut x = 0x5eed_u64;
    let mut kinds = std::collections::BTreeMap::new();
    for (inst, tt) in &cases {
        let s = plan_relay(inst, *tt).unwrap().schedule;
        assert_eq!(verdict(inst, *tt, &s), Ok(()));
        for _ in 0..300 {
            let mut bad = s.clone();
            for _ in 0..1 + next(&mut x) % 3 {
                doctor(&mut bad, inst.slots, inst.demands().len() as u32, &mut x);
            }
            let kind = match verdict(inst, *tt, &bad) {
                Ok(()) => "valid",
                Err(RelayInvalid::Port { .. }) => "port",
                Err(RelayInvalid::Coverage { .. } | RelayInvalid::Duplicate { .. }) => "coverage",
                Err(_) => "route",
            };
            *kinds.entry(kind).or_insert(0) += 1;
        }
    }
    // Each kind of verdict came up.
    assert_eq!(kinds.len(), 4, "{kinds:?}");
}

/// Two GPUs in nodes of one (every hop a NIC hop), one demand 0 -> 1 of
/// `chunks` chunks.
fn pair(chunks: u64) -> Instance {
    let demands = vec![Demand {
        src: 0,
        dst: 1,
        bits: 8 * chunks,
    }];
    Instance::new(Model::Read1Write1, 2, 8, demands, &Limits::default()).unwrap()
}

/// Runs of demand 0 over the NIC from GPU 0 to GPU 1: `(chunk, count, tick)`.
fn nic_runs(runs: &[(u64, u64, u64)], ticks: u64) -> RelaySchedule {
    let runs = runs
        .iter()
        .map(|&(chunk, count, tick)| {
            let hop = Hop {
                tick,
                from: 0,
                to: 1,
            };
            RelayRun::new(0, chunk, count, &[hop]).unwrap()
        })
        .collect();
    RelaySchedule { ticks, runs }
}

#[test]
fn the_first_bad_run_in_run_order_is_reported_whichever_part_holds_it() {
    let (inst, tt) = (moe(64, 7), machine(8, 4));
    let s = plan_relay(&inst, tt).unwrap().schedule;
    let n = s.runs.len();
    let unknown = |s: &mut RelaySchedule, at: usize| s.runs[at].demand = u32::MAX;
    // Only in the second half; in both halves; in all three thirds.
    for bad in [
        vec![n - 2],
        vec![n / 2 + 3, n / 4],
        vec![n - 1, n / 3 + 1, 5],
    ] {
        let mut s = s.clone();
        for &at in &bad {
            unknown(&mut s, at);
        }
        let first = *bad.iter().min().unwrap();
        for parts in [1, 2, 3] {
            match validate_in_parts(&inst, tt, &s, parts) {
                Err(RelayInvalid::UnknownDemand { at, .. }) => {
                    assert_eq!(at, first, "{parts} parts")
                }
                other => panic!("{parts} parts: {other:?}"),
            }
        }
    }
    // A route error after a coverage error still comes first.
    let mut s = s.clone();
    s.runs.swap_remove(1);
    s.runs[n - 3].hops_mut()[0].from = inst.slots;
    assert!(matches!(
        validate_in_parts(&inst, tt, &s, 2),
        Err(RelayInvalid::Route { at, .. }) if at == n - 3
    ));
}

#[test]
fn a_hold_across_the_sweeps_cut_counts_on_both_sides() {
    let inst = pair(4);
    let tt = machine(1, 2);
    // Chunks 0..2 hold the NIC in ticks 0 and 1; chunks 2..4 from tick 1
    // (the second part's runs and sweep): an overload seen only through
    // the hold carried across the cut at tick 1.
    let s = nic_runs(&[(0, 2, 0), (2, 2, 1)], 4);
    let want = Err(RelayInvalid::Port {
        tick: 1,
        gpu: 0,
        port: "NIC out",
        count: 2,
        cap: 1,
    });
    assert_eq!(validate_in_parts(&inst, tt, &s, 2), want);
    assert_eq!(verdict(&inst, tt, &s), want);
    // Ending where the cut is: no overload.
    let s = nic_runs(&[(0, 2, 0), (2, 2, 2)], 4);
    assert_eq!(verdict(&inst, tt, &s), Ok(()));
    // The ticks cut into more parts than there are starts.
    let s = nic_runs(&[(0, 1, 0), (1, 1, 1), (2, 1, 2), (3, 1, 2)], 3);
    assert!(matches!(
        validate_in_parts(&inst, tt, &s, 3),
        Err(RelayInvalid::Port { tick: 2, .. })
    ));
    assert_eq!(verdict(&inst, tt, &s), validate_in_parts(&inst, tt, &s, 3));
}

#[test]
fn the_coverage_error_comes_before_a_port_error_in_parts() {
    let inst = pair(4);
    let tt = machine(1, 2);
    // Chunk 1 twice (the second part) and every run in tick 0.
    let s = nic_runs(&[(0, 2, 0), (1, 3, 0)], 4);
    assert!(matches!(
        verdict(&inst, tt, &s),
        Err(RelayInvalid::Duplicate {
            at: 1,
            chunk: 1,
            ..
        })
    ));
    // Chunk 3 missing.
    let s = nic_runs(&[(0, 1, 0), (1, 2, 0)], 4);
    assert!(matches!(
        verdict(&inst, tt, &s),
        Err(RelayInvalid::Coverage { sent: 3, .. })
    ));
}

#[test]
fn chunks_too_many_for_a_bitmap_are_sorted_instead() {
    let chunks = 1 << 20;
    let inst = pair(chunks);
    let tt = machine(1, 2);
    assert!(demand_table(&inst, 2).is_none());
    assert!(demand_table(&pair(100), 2).is_some());
    let s = nic_runs(
        &[(0, chunks / 2, 0), (chunks / 2, chunks / 2, chunks / 2)],
        chunks,
    );
    assert_eq!(verdict(&inst, tt, &s), Ok(()));
    let s = nic_runs(
        &[
            (0, chunks / 2, 0),
            (chunks / 2 + 1, chunks / 2 - 1, chunks / 2 + 1),
        ],
        chunks,
    );
    assert!(matches!(
        verdict(&inst, tt, &s),
        Err(RelayInvalid::Coverage { sent, .. }) if sent == chunks / 2
    ));
    let s = nic_runs(
        &[
            (0, chunks / 2, 0),
            (chunks / 2 - 1, chunks / 2 + 1, chunks / 2 - 1),
        ],
        chunks,
    );
    assert!(matches!(
        verdict(&inst, tt, &s),
        Err(RelayInvalid::Duplicate { at: 1, .. })
    ));
}

#[test]
fn marking_chunks_matches_a_bit_at_a_time() {
    let mut x = 7u64;
    let mut bits = vec![0u64; 5];
    let mut naive = vec![false; 320];
    for _ in 0..200 {
        let from = next(&mut x) % 300;
        let len = 1 + next(&mut x) % (320 - from).min(140);
        let was = (from..from + len).any(|b| naive[b as usize]);
        (from..from + len).for_each(|b| naive[b as usize] = true);
        assert_eq!(mark_chunks(&mut bits, from, len), was);
        for b in 0..320 {
            assert_eq!(bits[b / 64] >> (b % 64) & 1 == 1, naive[b], "bit {b}");
        }
        if next(&mut x) % 8 == 0 {
            bits.fill(0);
            naive.fill(false);
        }
    }
    // Two parts' bitmaps tile 100 chunks only when they split them.
    let (mut a, mut b) = (vec![0u64; 2], vec![0u64; 2]);
    mark_chunks(&mut a, 0, 40);
    mark_chunks(&mut b, 40, 60);
    assert!(bitmaps_tile(
        100,
        [(&a[..], false), (&b[..], false)].into_iter()
    ));
    assert!(!bitmaps_tile(
        101,
        [(&a[..], false), (&b[..], false)].into_iter()
    ));
    assert!(!bitmaps_tile(
        100,
        [(&a[..], false), (&b[..], true)].into_iter()
    ));
    mark_chunks(&mut b, 39, 1);
    assert!(!bitmaps_tile(
        100,
        [(&a[..], false), (&b[..], false)].into_iter()
    ));
}

#[test]
fn ports_past_16_bits_are_bucketed_in_wide_entries() {
    // GPU 19,999's ports need more than 16 bits.
    let demands = vec![Demand {
        src: 0,
        dst: 19_999,
        bits: 8 * 4,
    }];
    let inst = Instance::new(Model::Read1Write1, 20_000, 8, demands, &Limits::default()).unwrap();
    let tt = machine(1, 2);
    let run = |chunk, count, tick| {
        let hop = Hop {
            tick,
            from: 0,
            to: 19_999,
        };
        RelayRun::new(0, chunk, count, &[hop]).unwrap()
    };
    let s = RelaySchedule {
        ticks: 4,
        runs: vec![run(0, 2, 0), run(2, 2, 2)],
    };
    assert_eq!(verdict(&inst, tt, &s), Ok(()));
    let s = RelaySchedule {
        ticks: 4,
        runs: vec![run(0, 2, 0), run(2, 2, 1)],
    };
    assert_eq!(
        verdict(&inst, tt, &s),
        Err(RelayInvalid::Port {
            tick: 1,
            gpu: 0,
            port: "NIC out",
            count: 2,
            cap: 1,
        })
    );
}

#[test]
fn small_schedules_stay_on_one_thread() {
    assert_eq!(parts_for(PARALLEL_RUNS - 1, PARALLEL_RUNS), 1);
    assert_eq!(parts_for(0, 1 << 15), 1);
    let many = parts_for(10, 4);
    assert!((1..=MAX_PARTS).contains(&many), "{many}");
}

#[test]
fn the_grid_sees_an_overload_exactly_where_the_buckets_name_one() {
    // Doctored small schedules whose routes and chunks are right: the
    // grid's verdict on the ports against the buckets' (the grid is only
    // asked when the rest passed, and falls back to the buckets to name
    // an overload, so `verdict` alone would not see a false alarm).
    let mut x = 0x9a1d_u64;
    let (mut overloads, mut fits) = (0, 0);
    for (inst, tt) in [(random(8, 3), machine(4, 2)), (moe(64, 5), machine(8, 4))] {
        let s = plan_relay(&inst, tt).unwrap().schedule;
        for _ in 0..400 {
            let mut bad = s.clone();
            doctor(&mut bad, inst.slots, inst.demands().len() as u32, &mut x);
            let buckets = validate_with(&inst, tt, &bad, 1, false);
            match buckets {
                Ok(()) => fits += 1,
                Err(RelayInvalid::Port { .. }) => overloads += 1,
                Err(_) => continue,
            }
            let nodes = Nodes::new(tt.gpus_per_node);
            let on_grid = ports::fit_on_grid(&bad, nodes, inst.slots, tt.nvlink_speedup);
            assert_eq!(on_grid, buckets.is_ok(), "{buckets:?}");
            assert_eq!(validate_in_parts(&inst, tt, &bad, 1), buckets);
        }
    }
    assert!(
        overloads > 20 && fits > 20,
        "{overloads} overloads, {fits} fits"
    );
}
