//! The CUDA executor on a real GPU. CI has none, so these tests are
//! ignored there; scripts/external_checks.sh runs them (with
//! `TICKOPT_CUDA_TESTS=1` and a `--features cuda` build) where
//! `nvidia-smi` lists a GPU. Run without a usable GPU they fail and say
//! why. The constructor test runs everywhere.

mod common;

use tickopt::exec::{
    CpuExecutor, CudaExecutor, ExecError, ExecMode, ExecOptions, Executor, Plan, PlanKind,
};
use tickopt::instance::Model;
use tickopt::solve::greedy::greedy_schedule;
use tickopt::{solve_instance, SolveRequest};

/// The executor under test; panics, saying why, without a usable GPU.
fn gpu() -> CudaExecutor {
    if !cfg!(feature = "cuda") {
        panic!("the CUDA executor tests need a build with --features cuda");
    }
    CudaExecutor::new(&[]).expect("no usable CUDA device")
}

fn opts() -> ExecOptions {
    ExecOptions {
        warmup: 1,
        repeat: 3,
        ..ExecOptions::default()
    }
}

#[test]
fn constructor_fails_cleanly_or_opens_a_device() {
    // Never a panic: either a device opens or the error says why not.
    match CudaExecutor::new(&[]) {
        Ok(e) => assert_eq!(e.devices(), 1),
        Err(ExecError::Unavailable(msg)) => {
            assert!(msg.contains("CUDA") || msg.contains("cuda"), "{msg}");
            eprintln!("no CUDA here: {msg}");
        }
        Err(e) => panic!("unexpected error {e}"),
    }
    assert!(CudaExecutor::new(&[0, 0]).is_err(), "a device listed twice");
    if cfg!(not(feature = "cuda")) {
        let e = CudaExecutor::new(&[]).unwrap_err();
        assert!(e.to_string().contains("not enabled in this build"));
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU and --features cuda: scripts/external_checks.sh"]
fn gpu_replays_match_the_cpu_byte_for_byte() {
    let mut gpu = gpu();
    for (name, inst) in common::suite() {
        let exact = solve_instance(&inst, &SolveRequest::default())
            .unwrap()
            .schedule;
        for sched in [&exact, &greedy_schedule(&inst)] {
            let g = gpu.replay(&inst, sched, &opts()).unwrap();
            let c = CpuExecutor.replay(&inst, sched, &opts()).unwrap();
            assert!(g.verification.passed, "{name}: {:?}", g.verification.faults);
            assert_eq!(g.verification.checksum, c.verification.checksum, "{name}");
            assert_eq!((g.ticks, g.copies, g.bytes), (c.ticks, c.copies, c.bytes));
            assert_eq!(g.executor, "cuda");
            assert!(g.tick.median_us > 0.0 && g.total.median_us > 0.0, "{name}");
            assert!(g.per_tick.iter().all(|t| t.median_us > 0.0), "{name}");
        }
        let all = gpu.replay_all_at_once(&inst, &opts()).unwrap();
        assert!(all.verification.passed, "{name}");
        assert_eq!(all.kind, PlanKind::Unscheduled);
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU and --features cuda: scripts/external_checks.sh"]
fn gpu_handles_many_lanes_scaling_and_large_copies() {
    let mut gpu = gpu();
    // 20 slots all-to-all at once: 380 concurrent copies, more than the
    // lane pool, so lanes are shared round-robin.
    let inst = common::all_to_all(Model::Read1Write1, 20, 1 << 20, 1 << 16);
    let r = gpu.replay_all_at_once(&inst, &opts()).unwrap();
    assert!(r.verification.passed);
    assert_eq!(r.copies, 380);
    for scale in [1, 7, 4096] {
        let r = gpu
            .replay(
                &inst,
                &greedy_schedule(&inst),
                &ExecOptions {
                    scale_bits: scale,
                    ..opts()
                },
            )
            .unwrap();
        assert!(r.verification.passed, "scale {scale}");
    }
    // Tens of MiB per copy.
    let inst = common::ring(Model::Strict1, 4, 1 << 30, 1 << 28);
    let r = gpu.replay(&inst, &greedy_schedule(&inst), &opts()).unwrap();
    assert!(r.verification.passed);
    assert!(r.effective_gbps > 1.0, "{}", r.effective_gbps);
    let p = gpu.peak_copy(256 << 20, &opts()).unwrap();
    assert!(p.gbps > 10.0, "{}", p.gbps);
}

#[test]
#[ignore = "needs an NVIDIA GPU and --features cuda: scripts/external_checks.sh"]
fn gpu_refuses_bad_devices_and_mismatched_plans() {
    let mut gpu = gpu();
    assert!(matches!(
        CudaExecutor::new(&[4096]),
        Err(ExecError::Options(_))
    ));
    let inst = common::ring(Model::Strict1, 4, 1000, 100);
    let plan = Plan::from_schedule(&inst, &greedy_schedule(&inst), 1, 2).unwrap();
    assert!(matches!(
        gpu.execute(&plan, &opts()),
        Err(ExecError::Options(_))
    ));
}

#[test]
#[ignore = "needs two NVIDIA GPUs and --features cuda: scripts/external_checks.sh"]
fn gpu_spreads_slots_over_several_devices() {
    gpu();
    let mut two = CudaExecutor::new(&[0, 1]).expect("two CUDA devices");
    let inst = common::all_to_all(Model::Read1Write1, 6, 1 << 16, 1 << 12);
    let r = two.replay(&inst, &greedy_schedule(&inst), &opts()).unwrap();
    assert!(r.verification.passed);
    assert_eq!(r.devices, 2);
}

/// Every mode on `inst` with `sched`: data check passed, the CPU's checksum,
/// the same ticks, copies and bytes, a positive time.
fn every_mode_matches_the_cpu(
    gpu: &mut CudaExecutor,
    name: &str,
    inst: &tickopt::instance::Instance,
    sched: &tickopt::schedule::Schedule,
    scale_bits: u64,
) {
    let base = ExecOptions {
        scale_bits,
        ..opts()
    };
    let c = CpuExecutor.replay(inst, sched, &base).unwrap();
    for mode in ExecMode::ALL {
        let o = ExecOptions {
            mode,
            ..base.clone()
        };
        let g = gpu
            .replay(inst, sched, &o)
            .unwrap_or_else(|e| panic!("{name} {mode}: {e}"));
        assert!(
            g.verification.passed,
            "{name} {mode}: {:?}",
            g.verification.faults
        );
        assert_eq!(
            g.verification.checksum, c.verification.checksum,
            "{name} {mode}"
        );
        assert_eq!(
            (g.ticks, g.copies, g.bytes),
            (c.ticks, c.copies, c.bytes),
            "{name} {mode}"
        );
        assert_eq!(g.mode, mode);
        assert!(g.total.median_us > 0.0, "{name} {mode}");
    }
}

/// NVRTC alone (no GPU): PyTorch's wheels or `pip install nvidia-cuda-nvrtc`
/// provide it; point TICKOPT_NVRTC at libnvrtc.so.13 if it is not found.
#[test]
#[ignore = "needs NVRTC (libnvrtc, no GPU) and --features cuda: scripts/external_checks.sh, scripts/gpu_measure.sh"]
fn device_kernels_compile_with_nvrtc() {
    if !cfg!(feature = "cuda") {
        panic!("needs a build with --features cuda");
    }
    for cc in ["80", "90"] {
        let ptx = CudaExecutor::kernels_ptx(cc).unwrap_or_else(|e| panic!("compute_{cc}: {e}"));
        for needle in [
            ".entry tickopt_dataflow",
            ".entry tickopt_barrier",
            "ld.acquire.gpu.global.u32",
            "red.release.gpu.global.add.u32",
        ] {
            assert!(ptx.contains(needle), "compute_{cc}: no {needle} in the PTX");
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU, NVRTC and --features cuda: scripts/external_checks.sh, scripts/gpu_measure.sh"]
fn gpu_every_mode_matches_the_cpu_byte_for_byte() {
    let mut gpu = gpu();
    for (name, inst) in common::suite() {
        let exact = solve_instance(&inst, &SolveRequest::default())
            .unwrap()
            .schedule;
        every_mode_matches_the_cpu(&mut gpu, &name, &inst, &exact, 1);
        every_mode_matches_the_cpu(&mut gpu, &name, &inst, &greedy_schedule(&inst), 7);
    }
    // More transfers per tick than resident blocks, and large copies split
    // over many blocks.
    let inst = common::all_to_all(Model::Read1Write1, 40, 1 << 16, 1 << 12);
    every_mode_matches_the_cpu(&mut gpu, "a2a40", &inst, &greedy_schedule(&inst), 1);
    let inst = common::ring(Model::Strict1, 4, 1 << 30, 1 << 28);
    every_mode_matches_the_cpu(&mut gpu, "ring4 large", &inst, &greedy_schedule(&inst), 1);
    for mode in [ExecMode::DeviceBarrier, ExecMode::DeviceDataflow] {
        let o = ExecOptions { mode, ..opts() };
        let all = gpu.replay_all_at_once(&inst, &o).unwrap();
        assert!(all.verification.passed, "all at once {mode}");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU, NVRTC and --features cuda: scripts/external_checks.sh, scripts/gpu_measure.sh"]
fn gpu_device_modes_run_thousands_of_small_ticks() {
    let mut gpu = gpu();
    // The repository this was built in, else the current directory (the
    // GPU machine runs the copied binary from its own checkout's root).
    let rel = "instances/gpu/skew_n8_m1000.json";
    let built = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let path = if built.exists() { built } else { rel.into() };
    let inst =
        tickopt::instance::read_instance_file(&path, &Default::default(), &Default::default())
            .unwrap();
    let sched = greedy_schedule(&inst);
    every_mode_matches_the_cpu(&mut gpu, "skew_n8_m1000", &inst, &sched, 64);
}
