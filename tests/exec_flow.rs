//! The device modes' algorithm without a GPU: the dataflow arrays of a plan
//! (`exec::flow`) executed by the CPU emulation move every byte the host
//! replay moves (same data check, same checksum), and the emulated runs
//! keep each port's transfers in order and one at a time, checked from the
//! plan's ticks alone (not from the arrays under test). Instances:
//! instances/gpu, a skewed MoE plan, both one-port models, a multi-port
//! instance and all at once.

mod common;

use std::collections::HashMap;
use tickopt::exec::data::{initial_arenas, verify};
use tickopt::exec::flow::{emulate, Flow, Sync, NONE};
use tickopt::exec::{CpuExecutor, ExecMode, ExecOptions, Executor, Plan, PlanKind};
use tickopt::gen::{generate, Family, GenSpec};
use tickopt::instance::{read_instance_file, Instance, Limits, Model, Overrides};
use tickopt::solve::greedy::greedy_schedule;
use tickopt::{solve_instance, SolveRequest};

fn gpu_instance(name: &str) -> Instance {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/gpu")
        .join(format!("{name}.json"));
    read_instance_file(&path, &Overrides::default(), &Limits::default()).unwrap()
}

/// A skewed MoE dispatch over `n` ranks (Zipf 1.2 expert popularity).
fn moe(n: u32, model: Model) -> Instance {
    let g = generate(&GenSpec {
        family: Family::Moe {
            n,
            experts_per_rank: 1,
            tokens: 256,
            topk: 2,
            zipf: 1.2,
            token_bits: 4096 * 8,
        },
        mult: 1,
        bw: 64 * 1024 * 8,
        seed: 3,
    })
    .unwrap();
    Instance::new(model, g.slots, g.bw, g.demands, &Limits::default()).unwrap()
}

/// Checks, from the plan's ticks only, that in `trace` each port (a slot's
/// send side and receive side under READ1_WRITE1, the slot under STRICT1,
/// one port per slot) ran its transfers one at a time in tick order.
fn ports_in_order(plan: &Plan, started: &[u64], finished: &[u64]) {
    let shared = plan.kind() == PlanKind::Scheduled(Model::Strict1);
    let mut port: HashMap<(u32, bool), Vec<usize>> = HashMap::new();
    let mut i = 0;
    for tick in plan.ticks() {
        for c in tick {
            port.entry((c.src_slot, true)).or_default().push(i);
            port.entry((c.dst_slot, shared)).or_default().push(i);
            i += 1;
        }
    }
    for (key, seq) in port {
        for w in seq.windows(2) {
            assert!(
                started[w[1]] > finished[w[0]],
                "port {key:?}: transfer {} started before transfer {} finished",
                w[1],
                w[0]
            );
        }
    }
}

/// Emulates `plan` in both device modes with several queue and piece
/// counts; each run passes the data check with the host replay's checksum
/// and keeps port order.
fn check_emulation(name: &str, plan: &Plan) {
    let host = CpuExecutor
        .execute(
            plan,
            &ExecOptions {
                warmup: 0,
                repeat: 1,
                ..ExecOptions::default()
            },
        )
        .unwrap();
    assert!(host.verification.passed, "{name}");
    for queues in [1, 3, 16] {
        let flow = Flow::new(plan, queues).unwrap();
        assert_eq!(flow.transfers(), plan.copies(), "{name}");
        assert_eq!(flow.ticks(), plan.ticks().len(), "{name}");
        for sync in [Sync::Dataflow, Sync::Barrier] {
            for parts in [1, 2] {
                let mut arenas = initial_arenas(plan.layout());
                let trace = emulate(&flow, &mut arenas[0], sync, parts);
                trace.check(&flow).unwrap();
                if plan.kind() != PlanKind::Unscheduled {
                    ports_in_order(plan, &trace.started, &trace.finished);
                }
                let v = verify(plan.layout(), &arenas);
                assert!(
                    v.passed,
                    "{name} {sync:?} q{queues} p{parts}: {:?}",
                    v.faults
                );
                assert_eq!(v.checksum, host.verification.checksum, "{name}");
            }
        }
    }
}

#[test]
fn emulated_device_modes_match_the_host_replay_on_the_gpu_instances() {
    for (name, scale) in [
        ("a2a_n8_m64", 256),
        ("ring_n16_m64", 4096),
        ("skew_n8_m1000", 64),
    ] {
        let inst = gpu_instance(name);
        let sched = greedy_schedule(&inst);
        let plan = Plan::from_schedule(&inst, &sched, scale, 1).unwrap();
        check_emulation(name, &plan);
    }
}

#[test]
fn emulated_device_modes_match_on_skewed_moe_and_both_models() {
    for model in [Model::Read1Write1, Model::Strict1] {
        let inst = moe(16, model);
        let exact = solve_instance(&inst, &SolveRequest::default())
            .unwrap()
            .schedule;
        let plan = Plan::from_schedule(&inst, &exact, 8, 1).unwrap();
        check_emulation(&format!("moe16 {model}"), &plan);
    }
    let inst = moe(16, Model::Read1Write1);
    check_emulation(
        "moe16 all at once",
        &Plan::all_at_once(&inst, 8, 1).unwrap(),
    );
    for (name, inst) in common::suite() {
        let plan = Plan::from_schedule(&inst, &greedy_schedule(&inst), 1, 1).unwrap();
        check_emulation(&name, &plan);
    }
}

#[test]
fn dependencies_link_consecutive_transfers_of_each_port() {
    let inst = moe(32, Model::Read1Write1);
    let plan = Plan::from_schedule(&inst, &greedy_schedule(&inst), 64, 1).unwrap();
    let flow = Flow::new(&plan, 1 << 20).unwrap();
    // Rebuild each port's sequence from the ticks and compare.
    let mut last_send: HashMap<u32, u32> = HashMap::new();
    let mut last_recv: HashMap<u32, u32> = HashMap::new();
    let mut i = 0u32;
    for tick in plan.ticks() {
        for c in tick {
            let ps = last_send.insert(c.src_slot, i).unwrap_or(NONE);
            let pr = last_recv.insert(c.dst_slot, i).unwrap_or(NONE);
            assert_eq!(flow.prev_send()[i as usize], ps);
            assert_eq!(flow.prev_recv()[i as usize], pr);
            i += 1;
        }
    }
    // One queue per sender, not folded.
    assert_eq!(flow.queues() as u32, flow.sender_ports());
    assert_eq!(flow.sender_ports(), last_send.len() as u32);
}

#[test]
fn multiport_plans_use_each_lane_in_order() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/multiport/rails_n8_rails2_m4_s0.json");
    let inst = read_instance_file(&path, &Overrides::default(), &Limits::default()).unwrap();
    let sched = solve_instance(&inst, &SolveRequest::default())
        .unwrap()
        .schedule;
    let plan = Plan::from_schedule(&inst, &sched, 1, 1).unwrap();
    let flow = Flow::new(&plan, 64).unwrap();
    let mut arenas = initial_arenas(plan.layout());
    let trace = emulate(&flow, &mut arenas[0], Sync::Dataflow, 1);
    trace.check(&flow).unwrap();
    assert!(verify(plan.layout(), &arenas).passed);
    // More sender ports than slots: some slots send on two lanes.
    assert!(flow.sender_ports() as usize >= inst.slots as usize);
}

#[test]
fn the_cpu_executor_runs_the_device_modes_and_refuses_graph() {
    let inst = moe(16, Model::Read1Write1);
    let sched = greedy_schedule(&inst);
    let mut sums = Vec::new();
    for mode in [
        ExecMode::Host,
        ExecMode::DeviceBarrier,
        ExecMode::DeviceDataflow,
    ] {
        let o = ExecOptions {
            scale_bits: 8,
            warmup: 1,
            repeat: 2,
            mode,
            ..ExecOptions::default()
        };
        let r = CpuExecutor.replay(&inst, &sched, &o).unwrap();
        assert!(r.verification.passed, "{mode}: {:?}", r.verification.faults);
        assert_eq!(r.mode, mode);
        assert!(r.us_per_tick > 0.0);
        sums.push(r.verification.checksum);
    }
    sums.dedup();
    assert_eq!(sums.len(), 1);
    let o = ExecOptions {
        mode: ExecMode::Graph,
        ..ExecOptions::default()
    };
    assert!(matches!(
        CpuExecutor.replay(&inst, &sched, &o),
        Err(tickopt::exec::ExecError::Unavailable(_))
    ));
    // Device modes run on one device.
    let plan = Plan::from_schedule(&inst, &sched, 8, 2).unwrap();
    let o = ExecOptions {
        mode: ExecMode::DeviceDataflow,
        ..ExecOptions::default()
    };
    assert!(matches!(
        CpuExecutor.execute(&plan, &o),
        Err(tickopt::exec::ExecError::Flow(_))
    ));
}
