//! Relay plans (issue 52): every plan validates, the validator and the
//! certificate checker refuse doctored data, and on hot-column MoE
//! traffic the plans sit at the proven bound and well under the direct
//! optimum.

use tickopt::gen::skew::Skew;
use tickopt::instance::{Demand, Instance, Limits, Model};
use tickopt::relay::check::{check_certificate, validate_relay, CertificateError, RelayInvalid};
use tickopt::relay::program::relay_program;
use tickopt::relay::{plan_relay, BoundKind, RelayError, RelayRun, RelaySchedule, TwoTier};

fn machine(g: u32, rho: u32) -> TwoTier {
    TwoTier {
        gpus_per_node: g,
        nvlink_speedup: rho,
    }
}

/// Hot-column MoE all-to-all: log-normal sizes, 1/16 of the columns hot.
fn moe(n: u32, k: u64, hot_factor: u64, sigma: f64, seed: u64) -> Instance {
    let skew = Skew {
        mean_bits: (64 * k) as f64,
        sigma,
        hot: (n / 16).max(1),
        hot_factor,
    };
    let demands = skew.all_to_all(n, seed).unwrap();
    Instance::new(Model::Read1Write1, n, 64, demands, &Limits::default()).unwrap()
}

/// A pseudo-random sparse instance with intra- and inter-node demands.
fn random(n: u32, seed: u64) -> Instance {
    let mut x = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
    let mut demands = Vec::new();
    for src in 0..n {
        for dst in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if src != dst && x % 3 != 0 {
                demands.push(Demand {
                    src,
                    dst,
                    bits: 8 * (1 + x % 97),
                });
            }
        }
    }
    Instance::new(Model::Read1Write1, n, 64, demands, &Limits::default()).unwrap()
}

#[test]
fn plans_validate_and_sit_above_their_certified_bound() {
    for (n, g, rho, seed) in [
        (8, 2, 1, 1),
        (8, 4, 2, 2),
        (12, 3, 8, 3),
        (16, 4, 1, 4),
        (16, 8, 4, 5),
        (6, 1, 1, 6),
    ] {
        let inst = random(n, seed);
        let tt = machine(g, rho);
        let sol = plan_relay(&inst, tt).unwrap();
        validate_relay(&inst, tt, &sol.schedule).unwrap();
        assert_eq!(
            check_certificate(&inst, tt, &sol.certificate),
            Ok(sol.lower_bound)
        );
        assert!(sol.lower_bound >= sol.node_bound.max(sol.nvlink_bound));
        assert!(
            sol.ticks >= sol.lower_bound,
            "n {n} g {g}: {} < {}",
            sol.ticks,
            sol.lower_bound
        );
        assert!(sol.nic_ticks >= sol.node_bound);
        assert_eq!(hop_span(&sol.schedule), (0, sol.ticks - 1), "n {n} g {g}");
        // Deterministic.
        assert_eq!(plan_relay(&inst, tt).unwrap().schedule, sol.schedule);
    }
}

/// The ticks from the schedule's first hop to its last, inclusive.
fn hop_span(s: &RelaySchedule) -> (u64, u64) {
    let first = s.runs.iter().map(|r| r.hops()[0].tick).min().unwrap();
    let last = s
        .runs
        .iter()
        .map(|r| r.hops()[r.hops().len() - 1].tick + r.count - 1)
        .max()
        .unwrap();
    (first, last)
}

/// 256 ranks make a NIC layer long enough to be swept in two halves on
/// the thread pool (`relay::plan::sweep`): the plan must not depend on the
/// threads, and its length is exactly its hops' span, from tick 0.
#[test]
fn large_plans_are_the_same_on_any_number_of_threads_and_span_their_ticks() {
    let inst = moe(256, 4, 4, 1.2, 5);
    for rho in [1u32, 2, 4, 8] {
        let tt = machine(8, rho);
        let plans: Vec<_> = [1usize, 2, 4]
            .iter()
            .map(|&threads| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| plan_relay(&inst, tt).unwrap())
            })
            .collect();
        for p in &plans[1..] {
            assert!(
                p.schedule == plans[0].schedule,
                "rho {rho}: threads changed the plan"
            );
        }
        let s = &plans[0].schedule;
        assert!(
            s.ticks >= 1024,
            "rho {rho}: {} ticks, too short to split",
            s.ticks
        );
        assert_eq!(hop_span(s), (0, s.ticks - 1), "rho {rho}");
    }
}

#[test]
fn with_rho_at_least_g_and_no_intra_traffic_the_plan_is_the_node_bound_plus_two() {
    let inst = moe(32, 3, 4, 1.2, 7);
    let inter: Vec<Demand> = inst
        .demands()
        .iter()
        .filter(|d| d.src / 4 != d.dst / 4)
        .copied()
        .collect();
    let inst = Instance::new(Model::Read1Write1, 32, 64, inter, &Limits::default()).unwrap();
    let sol = plan_relay(&inst, machine(4, 4)).unwrap();
    assert_eq!(
        sol.nic_ticks, sol.node_bound,
        "rails balance every NIC to the node bound"
    );
    assert!(
        sol.ticks <= sol.node_bound + 2,
        "{} > {} + 2",
        sol.ticks,
        sol.node_bound
    );
}

#[test]
fn hot_column_moe_is_at_the_bound_and_beats_the_direct_optimum() {
    for n in [64u32, 256] {
        for rho in [4u32, 8] {
            for (seed, sigma) in [(1u64, 0.8), (2, 1.6)] {
                let inst = moe(n, 4, 4, sigma, seed);
                let tt = machine(8, rho);
                let sol = plan_relay(&inst, tt).unwrap();
                let lb = sol.lower_bound;
                let slack = (lb as f64 * 0.02).floor() as u64;
                assert!(
                    sol.ticks <= lb + slack.max(2),
                    "n {n} rho {rho} seed {seed}: {} ticks, bound {lb} ({:?})",
                    sol.ticks,
                    sol.binding()
                );
                assert!(
                    sol.direct_ticks as f64 >= 1.5 * sol.ticks as f64,
                    "n {n} rho {rho} seed {seed}: direct {} vs relayed {}",
                    sol.direct_ticks,
                    sol.ticks
                );
                assert_eq!(check_certificate(&inst, tt, &sol.certificate), Ok(lb));
            }
        }
    }
}

#[test]
fn tight_nvlink_ports_at_rho_4_are_planned_within_2_percent_of_the_bound() {
    // Hot columns where one GPU's NVLink port is nearly full at rho 4 (its
    // chunks relayed over the other rails, and the hops relayed through
    // it): each of these was 2-24% over its bound before the rails took a
    // tight GPU's chunks first and its first hops took their ticks before
    // the last hops (e.g. 64 ranks x6 sigma 1.2 seed 0: 497 against 425;
    // sigma 1.6 seed 21, NVLink binding: 782 against 645); the last three
    // were still 5-6% over until the rails' shares favoured the tight GPU
    // (455 against 428, 578 against 550, 533 against 507).
    for (n, hot, sigma, seed) in [
        (64u32, 4u64, 1.2, 6u64),
        (64, 6, 1.2, 0),
        (64, 6, 1.2, 11),
        (64, 6, 1.6, 14),
        (64, 6, 1.6, 21),
        (256, 4, 1.6, 5),
        (64, 6, 1.6, 0),
        (64, 6, 1.6, 11),
        (64, 6, 1.6, 12),
    ] {
        let inst = moe(n, 4, hot, sigma, seed);
        let tt = machine(8, 4);
        let sol = plan_relay(&inst, tt).unwrap();
        let lb = sol.lower_bound;
        let slack = ((lb as f64 * 0.02).floor() as u64).max(2);
        assert!(
            sol.ticks <= lb + slack,
            "n {n} x{hot} sigma {sigma} seed {seed}: {} ticks, bound {lb} ({:?})",
            sol.ticks,
            sol.binding()
        );
        validate_relay(&inst, tt, &sol.schedule).unwrap();
    }
}

#[test]
fn at_rho_1_a_hot_gpus_nvlink_port_idles_less_once_its_hops_are_placed_again() {
    // Hot columns at rho 1 (NVLink as slow as a NIC): the hot GPU must
    // receive over NVLink in every tick of the bound. Placed in the NIC
    // layer's order its last hops and intra-node chunks left its port idle
    // in 114 ticks and the plan took 776 ticks against the bound 662
    // (64 ranks x4 sigma 1.2 seed 0), 817 against 689 (sigma 1.6 seed 0)
    // and 1,118 against 1,028 (x6 sigma 1.6 seed 0); placed again by the
    // ports' work left (relay/plan/repack.rs): 684, 740 and 1,055.
    for (hot, sigma, most) in [(4u64, 1.2, 1.04), (4, 1.6, 1.08), (6, 1.6, 1.03)] {
        let inst = moe(64, 4, hot, sigma, 0);
        let tt = machine(8, 1);
        let sol = plan_relay(&inst, tt).unwrap();
        let lb = sol.lower_bound;
        assert!(
            (sol.ticks as f64) <= lb as f64 * most,
            "x{hot} sigma {sigma}: {} ticks, bound {lb}",
            sol.ticks
        );
        validate_relay(&inst, tt, &sol.schedule).unwrap();
        // The runs cut where chunks were moved apart still make a program
        // (what the torch runner and `export` run).
        relay_program(&inst, &sol.schedule).unwrap();
    }
}

#[test]
fn a_peeled_layer_outside_its_target_is_planned_again_with_koenigs() {
    // 64 ranks x4 sigma 1.2 seed 12 at rho 4, no port tight: the peeled
    // NIC layer (relay/plan/peel.rs) plans it in 419 ticks against the
    // bound 410 (outside 2% + 2), König's layer in 413: the planner keeps
    // the second.
    let inst = moe(64, 4, 4, 1.2, 12);
    let tt = machine(8, 4);
    let sol = plan_relay(&inst, tt).unwrap();
    let lb = sol.lower_bound;
    assert!(
        sol.ticks <= lb + (lb / 50).max(2),
        "{} ticks, bound {lb}",
        sol.ticks
    );
    validate_relay(&inst, tt, &sol.schedule).unwrap();
}

#[test]
fn a_busy_source_does_not_push_first_hops_before_the_plan() {
    // The relay bench's 64 ranks: one GPU's chunks fill several rails from
    // the start, so its NVLink send side is full there; its first hops take
    // their ticks before any last hop of the same window, and the plan is
    // the NIC layer plus two ticks (it was 369 against 362 when last hops
    // took those ticks first and the first hops queued before tick -1).
    let inst = moe(64, 4, 4, 1.2, 1);
    for rho in [4u32, 8] {
        let tt = machine(8, rho);
        let sol = plan_relay(&inst, tt).unwrap();
        validate_relay(&inst, tt, &sol.schedule).unwrap();
        assert!(
            sol.ticks <= sol.nic_ticks + 2,
            "rho {rho}: {} ticks, NIC layer {} (bound {})",
            sol.ticks,
            sol.nic_ticks,
            sol.lower_bound
        );
    }
}

#[test]
fn slow_nvlink_makes_the_lp_bind_and_its_certificate_checks() {
    // One GPU per node receives everything: rho = 1 cannot spread it.
    let n = 16u32;
    let mut demands = Vec::new();
    for src in 0..n {
        for dst in [0u32, 4, 8, 12] {
            if src / 4 != dst / 4 {
                demands.push(Demand {
                    src,
                    dst,
                    bits: 64 * 20,
                });
            }
        }
    }
    let inst = Instance::new(Model::Read1Write1, n, 64, demands, &Limits::default()).unwrap();
    let tt = machine(4, 1);
    let sol = plan_relay(&inst, tt).unwrap();
    assert!(
        sol.lower_bound > sol.node_bound,
        "{} vs node {}",
        sol.lower_bound,
        sol.node_bound
    );
    assert_ne!(sol.binding(), BoundKind::Node);
    assert_eq!(
        check_certificate(&inst, tt, &sol.certificate),
        Ok(sol.lower_bound)
    );
    validate_relay(&inst, tt, &sol.schedule).unwrap();
}

#[test]
fn a_doctored_certificate_is_refused() {
    let inst = moe(32, 3, 4, 1.2, 9);
    let tt = machine(4, 2);
    let sol = plan_relay(&inst, tt).unwrap();
    let mut claim = sol.certificate.clone();
    claim.bound += 1;
    assert!(matches!(
        check_certificate(&inst, tt, &claim),
        Err(CertificateError::Mismatch { .. })
    ));
    let mut weights = sol.certificate.clone();
    weights.weights[0].weight *= 1000;
    assert!(check_certificate(&inst, tt, &weights).is_err());
    let mut stranger = sol.certificate.clone();
    stranger.weights[0].gpu = 999;
    assert!(matches!(
        check_certificate(&inst, tt, &stranger),
        Err(CertificateError::UnknownGpu { .. })
    ));
}

#[test]
fn doctored_schedules_are_refused() {
    let inst = random(8, 11);
    let tt = machine(4, 2);
    let sol = plan_relay(&inst, tt).unwrap();
    let base = sol.schedule.clone();
    // A run dropped.
    let mut s = base.clone();
    s.runs.pop();
    assert!(matches!(
        validate_relay(&inst, tt, &s),
        Err(RelayInvalid::Coverage { .. })
    ));
    // A run twice.
    let mut s = base.clone();
    let c = s.runs[0];
    s.runs.push(c);
    assert!(matches!(
        validate_relay(&inst, tt, &s),
        Err(RelayInvalid::Duplicate { .. })
    ));
    // A relayed chunk's hops out of order.
    let mut s = base.clone();
    let at = s
        .runs
        .iter()
        .position(|c| c.hops().len() > 1)
        .expect("some chunk is relayed");
    let h = s.runs[at].hops_mut();
    h[1].tick = h[0].tick;
    assert!(matches!(
        validate_relay(&inst, tt, &s),
        Err(RelayInvalid::Route { .. })
    ));
    // Every chunk in the first tick: some port overflows.
    let mut s = base.clone();
    for c in &mut s.runs {
        for (k, h) in c.hops_mut().iter_mut().enumerate() {
            h.tick = k as u64;
        }
    }
    assert!(matches!(
        validate_relay(&inst, tt, &s),
        Err(RelayInvalid::Port { .. })
    ));
    // Too short.
    let mut s = base.clone();
    s.ticks -= 1;
    assert!(matches!(
        validate_relay(&inst, tt, &s),
        Err(RelayInvalid::Route { .. })
    ));
}

#[test]
fn runs_mean_their_chunks_one_tick_apart() {
    let inst = moe(64, 4, 4, 1.2, 3);
    let tt = machine(8, 4);
    let sol = plan_relay(&inst, tt).unwrap();
    let runs = &sol.schedule.runs;
    assert!(
        runs.len() < inst.demands().len() * 2,
        "{} runs for {} demands",
        runs.len(),
        inst.demands().len()
    );
    assert_eq!(sol.schedule.chunk_count(), inst.total_chunks());
    // Every run cut into single chunks is the same schedule.
    let single: Vec<RelayRun> = runs
        .iter()
        .flat_map(|r| {
            r.chunks()
                .map(move |(c, h, len)| RelayRun::new(r.demand, c, 1, &h[..len]).unwrap())
        })
        .collect();
    let cut = RelaySchedule {
        ticks: sol.schedule.ticks,
        runs: single,
    };
    validate_relay(&inst, tt, &cut).unwrap();
    assert_eq!(
        relay_program(&inst, &cut).unwrap(),
        relay_program(&inst, &sol.schedule).unwrap()
    );
    // The JSON form keeps the runs.
    let back = RelaySchedule::from_json(sol.schedule.to_json()).unwrap();
    assert_eq!(back, sol.schedule);
    // A run one chunk longer overlaps the next run of its demand, or
    // runs past the demand's chunks.
    let at = runs
        .iter()
        .position(|r| r.count >= 2)
        .expect("some run has two chunks");
    let mut s = sol.schedule.clone();
    s.runs[at].count += 1;
    assert!(matches!(
        validate_relay(&inst, tt, &s),
        Err(RelayInvalid::Duplicate { .. } | RelayInvalid::UnknownChunk { .. })
    ));
    // One chunk short leaves it undelivered.
    let mut s = sol.schedule.clone();
    s.runs[at].count -= 1;
    assert!(matches!(
        validate_relay(&inst, tt, &s),
        Err(RelayInvalid::Coverage { .. })
    ));
    // A run moved one tick later onto the NIC its rail uses then.
    let nic = runs
        .iter()
        .position(|r| r.hops().len() == 1 && r.hops()[0].from / 8 != r.hops()[0].to / 8)
        .expect("some chunk goes straight over its NIC");
    let mut s = sol.schedule.clone();
    let h = s.runs[nic].hops()[0];
    let clash = runs
        .iter()
        .enumerate()
        .find(|(i, r)| {
            *i != nic
                && r.hops()
                    .iter()
                    .any(|x| x.from == h.from && x.from / 8 != x.to / 8 && x.tick != h.tick)
        })
        .map(|(_, r)| {
            r.hops()
                .iter()
                .find(|x| x.from == h.from && x.from / 8 != x.to / 8)
                .unwrap()
                .tick
        })
        .expect("the NIC sends another run");
    s.runs[nic].hops_mut()[0].tick = clash;
    s.ticks = s.ticks.max(clash + s.runs[nic].count);
    assert!(matches!(
        validate_relay(&inst, tt, &s),
        Err(RelayInvalid::Port { .. })
    ));
}

#[test]
fn a_schedule_with_far_more_ticks_than_hops_is_checked_all_the_same() {
    let inst = random(8, 13);
    let tt = machine(4, 2);
    let sol = plan_relay(&inst, tt).unwrap();
    let mut s = sol.schedule.clone();
    s.ticks = 1 << 40;
    validate_relay(&inst, tt, &s).unwrap();
    for c in &mut s.runs {
        for (k, h) in c.hops_mut().iter_mut().enumerate() {
            h.tick = (1 << 39) + k as u64;
        }
    }
    assert!(matches!(
        validate_relay(&inst, tt, &s),
        Err(RelayInvalid::Port { .. })
    ));
}

#[test]
fn strict1_is_refused_with_a_typed_error() {
    let inst = random(8, 3).with_model(Model::Strict1);
    assert_eq!(
        plan_relay(&inst, machine(4, 4)).unwrap_err(),
        RelayError::Strict1
    );
}

#[test]
fn the_program_moves_every_byte_once() {
    let inst = random(8, 5);
    let sol = plan_relay(&inst, machine(4, 2)).unwrap();
    let p = relay_program(&inst, &sol.schedule).unwrap();
    let sends: u64 = p
        .ops
        .iter()
        .flatten()
        .filter(|o| o.op == tickopt::relay::program::OpKind::Send)
        .map(|o| o.bytes)
        .sum();
    let recvs: u64 = p
        .ops
        .iter()
        .flatten()
        .filter(|o| o.op == tickopt::relay::program::OpKind::Recv)
        .map(|o| o.bytes)
        .sum();
    assert_eq!(sends, recvs);
    let hops: u64 = sol
        .schedule
        .runs
        .iter()
        .flat_map(|r| {
            r.chunks()
                .map(move |(c, _, len)| (r.demand as usize, c, len))
        })
        .map(|(d, c, len)| inst.chunk_len(d, c).div_ceil(8) * len as u64)
        .sum();
    assert_eq!(sends, hops);
    assert_eq!(
        p.stage_bytes.iter().sum::<u64>() + p.output_bytes.iter().sum::<u64>(),
        recvs
    );
}

#[test]
fn with_slow_nvlink_the_lp_binds_and_its_dual_certificate_checks() {
    // Slot 0 sends and slot 1 receives four times more: with rho = 1 the
    // NVLink ports that relays share with intra-node traffic make the
    // concurrent-flow LP exceed both simple bounds.
    let mut lp_bound_above = 0;
    for seed in 0..8u64 {
        for (n, g) in [(4u32, 2u32), (6, 3), (8, 4)] {
            let d: Vec<Demand> = random(n, seed)
                .demands()
                .iter()
                .map(|d| Demand {
                    bits: if d.src == 0 || d.dst == 1 {
                        d.bits * 4
                    } else {
                        d.bits
                    },
                    ..*d
                })
                .collect();
            let inst = Instance::new(Model::Read1Write1, n, 64, d, &Limits::default()).unwrap();
            let tt = machine(g, 1);
            let sol = plan_relay(&inst, tt).unwrap();
            validate_relay(&inst, tt, &sol.schedule).unwrap();
            assert_eq!(
                check_certificate(&inst, tt, &sol.certificate),
                Ok(sol.lower_bound)
            );
            assert!(sol.ticks >= sol.lower_bound);
            if let Some(lp) = sol.lp_bound {
                if lp > sol.node_bound.max(sol.nvlink_bound) {
                    lp_bound_above += 1;
                    assert_eq!(sol.binding(), BoundKind::Lp);
                    assert_eq!(sol.lower_bound, lp);
                }
            }
        }
    }
    assert!(
        lp_bound_above >= 5,
        "the LP bound rose above the others {lp_bound_above} times"
    );
}

/// Chunks of 64 bits from a dense matrix of chunk counts.
fn from_chunks(rows: &[[u64; 8]; 8]) -> Instance {
    let demands = (0..8u32).flat_map(|s| {
        (0..8u32)
            .filter(move |&d| rows[s as usize][d as usize] > 0)
            .map(move |d| Demand {
                src: s,
                dst: d,
                bits: 64 * rows[s as usize][d as usize],
            })
    });
    Instance::new(Model::Read1Write1, 8, 64, demands, &Limits::default()).unwrap()
}

#[test]
fn a_relay_plan_never_takes_more_ticks_than_the_best_direct_plan() {
    // Hot GPUs on NVLink at one chunk a tick. Here the relayed plan is
    // longer than the direct optimum (14 ticks, the bound 7): the plan is
    // the direct one, every chunk one hop.
    let falls_back = [
        [0, 1, 0, 3, 3, 0, 1, 0],
        [1, 0, 0, 0, 0, 0, 3, 3],
        [0, 3, 0, 0, 3, 3, 3, 0],
        [0, 0, 0, 0, 1, 3, 3, 1],
        [0, 0, 3, 3, 0, 0, 0, 0],
        [0, 1, 3, 1, 0, 0, 1, 0],
        [0, 3, 0, 3, 0, 3, 0, 3],
        [3, 0, 0, 3, 0, 1, 3, 0],
    ];
    let inst = from_chunks(&falls_back);
    let sol = plan_relay(&inst, machine(4, 1)).unwrap();
    assert_eq!((sol.ticks, sol.direct_ticks), (14, 14));
    assert!(sol.schedule.runs.iter().all(|r| r.hops().len() == 1));
    validate_relay(&inst, machine(4, 1), &sol.schedule).unwrap();
    // Before the fallback (and the rails loaded by the GPUs' loads) these
    // took 25 ticks against the direct 24 (the bound: optimal) and 14
    // against 11.
    let at_the_bound = [
        [0, 18, 2, 0, 0, 0, 1, 3],
        [0, 0, 0, 2, 0, 0, 0, 2],
        [3, 6, 0, 0, 0, 0, 0, 0],
        [0, 0, 2, 0, 0, 1, 3, 2],
        [0, 0, 0, 2, 0, 0, 0, 1],
        [0, 0, 1, 3, 3, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 3],
        [0, 0, 0, 0, 3, 0, 0, 0],
    ];
    let shorter = [
        [0, 3, 0, 2, 0, 3, 0, 0],
        [1, 0, 0, 0, 0, 0, 0, 0],
        [2, 0, 0, 0, 6, 3, 0, 0],
        [0, 0, 0, 0, 0, 3, 3, 0],
        [0, 3, 0, 0, 0, 0, 0, 0],
        [1, 2, 0, 3, 0, 0, 0, 0],
        [0, 1, 0, 0, 0, 2, 0, 3],
        [0, 0, 0, 0, 0, 0, 2, 0],
    ];
    for (rows, direct) in [(at_the_bound, 24), (shorter, 11)] {
        let inst = from_chunks(&rows);
        let sol = plan_relay(&inst, machine(4, 1)).unwrap();
        assert_eq!(sol.direct_ticks, direct);
        assert!(sol.lower_bound <= sol.ticks && sol.ticks <= direct);
        validate_relay(&inst, machine(4, 1), &sol.schedule).unwrap();
    }
    // Where relays pay, the relayed plan stays.
    let inst = moe(64, 4, 4, 1.2, 1);
    let sol = plan_relay(&inst, machine(8, 4)).unwrap();
    assert!(sol.ticks < sol.direct_ticks);
    assert!(sol.schedule.runs.iter().any(|r| r.hops().len() > 1));
}

#[test]
fn where_nvlink_binds_a_hot_gpus_own_nic_carries_more_than_its_share() {
    // A hot column x6 at NVLink 1 and 2 chunks a tick: the bound is NVLink's
    // (or the LP's), above the node bound; the rails then carry unequal
    // shares. Before, this plan took the direct optimum's 1,762 ticks at
    // rho 1 (2x its bound of 881); now 1,211.
    for (rho, at_most) in [(1u32, 0.75), (2, 0.5)] {
        let inst = moe(64, 4, 6, 1.2, 1);
        let sol = plan_relay(&inst, machine(8, rho)).unwrap();
        assert!(sol.lower_bound > sol.node_bound, "rho {rho}: NVLink binds");
        assert!(
            (sol.ticks as f64) <= at_most * sol.direct_ticks as f64,
            "rho {rho}"
        );
        validate_relay(&inst, machine(8, rho), &sol.schedule).unwrap();
    }
}
