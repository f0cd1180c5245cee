//! The CPU executor moves real bytes for every kind of schedule, and a
//! schedule or plan that does not move every byte exactly once is caught.

mod common;

use tickopt::exec::{CpuExecutor, ExecError, ExecOptions, Executor, Plan, PlanError, PlanKind};
use tickopt::instance::Model;
use tickopt::schedule::{Round, Schedule};
use tickopt::solve::greedy::greedy_schedule;
use tickopt::{solve_instance, SolveRequest};

fn opts(scale_bits: u64) -> ExecOptions {
    ExecOptions {
        scale_bits,
        warmup: 1,
        repeat: 2,
        ..ExecOptions::default()
    }
}

#[test]
fn every_schedule_moves_every_byte_for_both_models() {
    for (name, inst) in common::suite() {
        let exact = solve_instance(&inst, &SolveRequest::default())
            .unwrap()
            .schedule;
        let greedy = greedy_schedule(&inst);
        let mut checksums = Vec::new();
        for sched in [&exact, &greedy] {
            let r = CpuExecutor.replay(&inst, sched, &opts(1)).unwrap();
            assert!(r.verification.passed, "{name}: {:?}", r.verification.faults);
            assert_eq!(r.ticks, sched.ticks(), "{name}");
            assert_eq!(r.copies, inst.total_chunks(), "{name}");
            let expect: u64 = inst.demands().iter().map(|d| d.bits.div_ceil(8)).sum();
            assert_eq!(r.bytes, expect, "{name}");
            assert_eq!(r.per_tick.len() as u64, r.ticks);
            assert_eq!(r.repeat, 2);
            checksums.push(r.verification.checksum.clone());
        }
        let all = CpuExecutor.replay_all_at_once(&inst, &opts(1)).unwrap();
        assert!(all.verification.passed, "{name}");
        assert_eq!((all.ticks, all.copies), (1, inst.demands().len() as u64));
        assert_eq!(all.kind, PlanKind::Unscheduled);
        checksums.push(all.verification.checksum);
        checksums.dedup();
        assert_eq!(checksums.len(), 1, "{name}: same bytes, same checksum");
    }
}

#[test]
fn scaled_and_multi_device_layouts_still_move_every_byte() {
    let inst = common::all_to_all(Model::Read1Write1, 6, 10_000, 512);
    let sched = greedy_schedule(&inst);
    for scale in [1, 3, 64, 5000, 100_000] {
        let r = CpuExecutor.replay(&inst, &sched, &opts(scale)).unwrap();
        assert!(r.verification.passed, "scale {scale}");
        assert_eq!(r.scale_bits, scale);
        let expect: u64 = inst
            .demands()
            .iter()
            .map(|d| d.bits.div_ceil(8 * scale))
            .sum();
        assert_eq!(r.bytes, expect, "scale {scale}");
    }
    for devices in [2, 3] {
        let plan = Plan::from_schedule(&inst, &sched, 1, devices).unwrap();
        let r = CpuExecutor.execute(&plan, &opts(1)).unwrap();
        assert!(r.verification.passed);
        assert_eq!(r.devices, devices);
    }
}

fn plan_err(r: Result<tickopt::exec::ExecutionReport, ExecError>) -> PlanError {
    match r {
        Err(ExecError::Plan(e)) => e,
        other => panic!("expected a plan error, got {other:?}"),
    }
}

#[test]
fn schedules_that_miss_or_repeat_chunks_are_refused() {
    let inst = common::ring(Model::Strict1, 5, 1000, 96);
    let good = greedy_schedule(&inst);

    let mut short = good.clone();
    short.rounds.last_mut().unwrap().repeat -= 1;
    let e = plan_err(CpuExecutor.replay(&inst, &short, &opts(1)));
    assert!(matches!(e, PlanError::ChunkCount { .. }), "{e}");
    assert!(e.to_string().contains("exactly once"));

    let mut long = good.clone();
    long.rounds[0].repeat += 1;
    let e = plan_err(CpuExecutor.replay(&inst, &long, &opts(1)));
    assert!(matches!(e, PlanError::ChunkCount { .. }), "{e}");

    let mut unknown = good.clone();
    unknown.rounds[0].demands.push(99);
    let e = plan_err(CpuExecutor.replay(&inst, &unknown, &opts(1)));
    assert!(
        matches!(e, PlanError::UnknownDemand { index: 99, .. }),
        "{e}"
    );

    // The same demand twice in one tick: chunk counts can still add up,
    // but two copies would write at once and the model is broken.
    let mut twice = Schedule::new();
    let a = 0u32;
    let m = inst.chunks(0);
    twice.rounds.push(Round {
        repeat: m / 2,
        demands: vec![a, a],
    });
    if m % 2 == 1 {
        twice.rounds.push(Round {
            repeat: 1,
            demands: vec![a],
        });
    }
    for i in 1..inst.demands().len() as u32 {
        twice.rounds.push(Round {
            repeat: inst.chunks(i as usize),
            demands: vec![i],
        });
    }
    let e = plan_err(CpuExecutor.replay(&inst, &twice, &opts(1)));
    assert!(matches!(e, PlanError::BadTick { .. }), "{e}");
}

#[test]
fn ticks_that_break_the_model_are_refused() {
    // Ring 0->1->2->0 under STRICT1: 0->1 and 1->2 share slot 1.
    let inst = common::ring(Model::Strict1, 3, 100, 100);
    let mut s = Schedule::new();
    s.rounds.push(Round {
        repeat: 1,
        demands: vec![0, 1],
    });
    s.rounds.push(Round {
        repeat: 1,
        demands: vec![2],
    });
    let e = plan_err(CpuExecutor.replay(&inst, &s, &opts(1)));
    assert!(e.to_string().contains("STRICT1"), "{e}");
    // The same ticks are fine under READ1_WRITE1 (one send, one receive each).
    let r = CpuExecutor
        .replay(&inst.with_model(Model::Read1Write1), &s, &opts(1))
        .unwrap();
    assert!(r.verification.passed);
}

#[test]
fn tampered_plans_are_refused() {
    let inst = common::random(Model::Read1Write1, 6, 7, 40);
    let plan = Plan::from_schedule(&inst, &greedy_schedule(&inst), 1, 1).unwrap();
    let (kind, layout, ticks) = plan.into_parts();
    // The first chunk of a demand that has several.
    let (t0, j0) = ticks
        .iter()
        .enumerate()
        .flat_map(|(t, tick)| (0..tick.len()).map(move |j| (t, j)))
        .find(|&(t, j)| {
            let c = ticks[t][j];
            layout.regions.iter().any(|r| {
                r.src_offset == c.src_offset
                    && r.src_slot == c.src_slot
                    && c.len > 1
                    && c.len < r.bytes
            })
        })
        .unwrap();

    // Wrong destination offset.
    let mut bad = ticks.clone();
    bad[t0][j0].dst_offset += 1;
    let e = Plan::from_parts(kind, layout.clone(), bad).unwrap_err();
    assert!(matches!(e, PlanError::BadTransfer { .. }), "{e}");

    // Wrong chunk range: source and destination shifted together.
    let mut bad = ticks.clone();
    bad[t0][j0].src_offset += 1;
    bad[t0][j0].dst_offset += 1;
    let e = Plan::from_parts(kind, layout.clone(), bad).unwrap_err();
    assert!(matches!(e, PlanError::Coverage { .. }), "{e}");

    // A copy dropped.
    let mut bad = ticks.clone();
    bad[t0].remove(j0);
    let e = Plan::from_parts(kind, layout.clone(), bad).unwrap_err();
    assert!(e.to_string().contains("never moved"), "{e}");

    // A copy repeated in another tick (its own tick has no room).
    let mut bad = ticks.clone();
    let dup = bad[t0][j0];
    bad.push(vec![dup]);
    let e = Plan::from_parts(kind, layout.clone(), bad).unwrap_err();
    assert!(e.to_string().contains("more than once"), "{e}");

    // A copy reading outside every region.
    let mut bad = ticks.clone();
    bad[t0][j0].len = 1 << 40;
    assert!(Plan::from_parts(kind, layout.clone(), bad).is_err());

    // Reordering whole ticks is still a correct plan.
    let mut ok = ticks.clone();
    ok.reverse();
    let plan = Plan::from_parts(kind, layout, ok).unwrap();
    assert!(
        CpuExecutor
            .execute(&plan, &opts(1))
            .unwrap()
            .verification
            .passed
    );
}

#[test]
fn bad_options_and_oversized_buffers_are_errors() {
    let inst = common::ring(Model::Strict1, 4, 1 << 20, 1 << 16);
    let s = greedy_schedule(&inst);
    let o = ExecOptions {
        repeat: 0,
        ..opts(1)
    };
    assert!(matches!(
        CpuExecutor.replay(&inst, &s, &o),
        Err(ExecError::Options(_))
    ));
    let o = ExecOptions {
        scale_bits: 0,
        ..opts(1)
    };
    assert!(CpuExecutor.replay(&inst, &s, &o).is_err());
    let o = ExecOptions {
        max_bytes: 1000,
        ..opts(1)
    };
    let e = plan_err(CpuExecutor.replay(&inst, &s, &o));
    assert!(e.to_string().contains("--scale-bits"), "{e}");
}

#[test]
fn peak_copy_reports_bandwidth() {
    let p = CpuExecutor.peak_copy(1 << 20, &opts(1)).unwrap();
    assert_eq!(p.bytes, 1 << 20);
    assert!(p.gbps > 0.0 && p.copy.samples == 2);
}
