//! Criterion benchmarks of the MoE all-to-all at 1024 slots (issue 15
//! item 4): the instance `tickopt gen moe --n 1024 --zipf 0 --tokens 8192`
//! built in process by the library's generator (seed 0, as the CLI), solved
//! at `--bw 65536` (about 3.4 chunks per ordered pair, 3,612,506 chunks)
//! under both models through `solve_instance`, which includes the bounds
//! and the validation of the schedule. READ1_WRITE1 runs the Euler-split
//! colouring, STRICT1 the load greedy (which meets Delta, so it is proven
//! optimal by the degree witness). doc/performance.md has the figures and
//! the whole-process timings.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;
use tickopt::gen::generate;
use tickopt::instance::{Instance, Limits, Model};
use tickopt::solve::Status;
use tickopt::{solve_instance, SolveRequest};

/// The MoE all-to-all of issue 15 under `model`.
fn moe1024(model: Model) -> Instance {
    let spec = common::moe_n1024_spec();
    let g = generate(&spec).expect("moe parameters are valid");
    Instance::new(model, g.slots, 65536, g.demands, &Limits::default()).expect("valid instance")
}

fn solve(c: &mut Criterion) {
    let mut g = c.benchmark_group("moe_n1024_bw65536");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(25));
    for (name, model) in [
        ("READ1_WRITE1", Model::Read1Write1),
        ("STRICT1", Model::Strict1),
    ] {
        let inst = moe1024(model);
        // The claim the bench times: Delta ticks, proven optimal.
        let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
        assert_eq!(sol.status, Status::Optimal, "{name}");
        g.bench_with_input(BenchmarkId::from_parameter(name), &inst, |b, inst| {
            b.iter(|| black_box(solve_instance(inst, &SolveRequest::default()).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, solve);
criterion_main!(benches);
