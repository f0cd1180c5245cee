//! Criterion benchmarks of dense skewed two-tier traffic with the same
//! ports on every GPU (issue 53), from two generators (the instances of
//! tests/common/two_tier.rs: `tickopt gen moe_two_tier`, and a log-normal
//! matrix with every pair present), 1,024 GPUs x 2 ports and 2,048 x 4,
//! about ten chunks a demand, under both models: `solve_instance` in
//! process (bounds, solve, validation; no parse or write). Each instance is
//! checked proven optimal before it is timed. The goal, whole
//! process: 1,024 x 2 in 2 s, 2,048 x 4 in 4 s.
//!
//! `cargo bench --bench dense_two_tier -- 'gpus1024'` runs the small half.

#[path = "../tests/common/two_tier.rs"]
mod two_tier;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;
use tickopt::instance::Model;
use tickopt::solve::Status;
use tickopt::{solve_instance, SolveRequest};
use two_tier::{generated, lognormal};

fn dense_two_tier(c: &mut Criterion) {
    let mut g = c.benchmark_group("dense_two_tier");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20));
    for (gpus, ports) in [(1024, 2), (2048, 4)] {
        for model in [Model::Strict1, Model::Read1Write1] {
            let instances = [
                ("gen", generated(gpus, ports, model, 1)),
                ("lognormal", lognormal(gpus, ports, model, 1, 1.0, 10.0)),
            ];
            for (source, inst) in instances {
                let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
                assert_eq!(
                    sol.status,
                    Status::Optimal,
                    "{source} {gpus}x{ports} {model}"
                );
                let name = format!("{source}_gpus{gpus}_ports{ports}");
                g.bench_with_input(BenchmarkId::new(name, model), &inst, |b, inst| {
                    b.iter(|| black_box(solve_instance(inst, &SolveRequest::default()).unwrap()))
                });
            }
        }
    }
    g.finish();
}

criterion_group!(benches, dense_two_tier);
criterion_main!(benches);
