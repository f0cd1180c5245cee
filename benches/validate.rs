//! Criterion benchmarks of what every written schedule goes through
//! (issue 29): validating a large multi-port compact schedule in memory,
//! writing it as compact JSON, and reading the written bytes back into a
//! validated schedule (`tickopt validate FILE` without the file system).
//! The instance is `tickopt gen moe_two_tier --nodes 128 --nics 2 --mult 4
//! --seed 1` (1,024 GPUs in nodes of 8, two ports each, intra-node demands
//! at 8x the bandwidth; 1,047,552 demands), built in process by the
//! library's generator and solved once per model. doc/performance.md has
//! the figures and the whole-process timings.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;
use tickopt::gen::multiport::{generate_multiport, MultiportFamily};
use tickopt::instance::Model;
use tickopt::schedule::readers::parse_compact;
use tickopt::schedule::{write_schedule, Format};
use tickopt::validate::validate_compact;
use tickopt::{solve_instance, SolveRequest};

fn validate(c: &mut Criterion) {
    let family = MultiportFamily::MoeTwoTier {
        nodes: 128,
        gpus_per_node: 8,
        nics: 2,
        fast: 8,
        sigma: 1.0,
        hot: 8,
        hot_factor: 4,
    };
    let mut g = c.benchmark_group("validate_moe_two_tier_n1024_k2");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for (name, model) in [
        ("READ1_WRITE1", Model::Read1Write1),
        ("STRICT1", Model::Strict1),
    ] {
        let inst = generate_multiport(&family, model, 4, 1024, 1).expect("valid parameters");
        let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
        let s = &sol.schedule;
        let mut bytes = Vec::new();
        write_schedule(&inst, s, Format::Compact, &mut bytes).unwrap();
        g.bench_function(BenchmarkId::new("validate_compact", name), |b| {
            b.iter(|| assert!(black_box(validate_compact(&inst, s)).passed()))
        });
        g.bench_function(BenchmarkId::new("write_compact", name), |b| {
            b.iter(|| {
                let mut out = Vec::with_capacity(bytes.len());
                write_schedule(&inst, s, Format::Compact, &mut out).unwrap();
                black_box(out)
            })
        });
        g.bench_function(BenchmarkId::new("read_and_validate", name), |b| {
            b.iter(|| {
                let back = parse_compact(&bytes).unwrap().to_schedule(&inst).unwrap();
                assert!(black_box(validate_compact(&inst, &back)).passed())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, validate);
criterion_main!(benches);
