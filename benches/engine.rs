//! Criterion benchmarks of the core engine (doc/performance.md has the
//! figures and the command that reproduces them).
//!
//! Instances are built in-process, deterministic by seed:
//! - dense all-to-all, 256 slots, random multiplicities 1..=1000 chunks;
//! - the same support at multiplicity 1 and 10^6;
//! - a sparse random graph, 1024 slots, ~4000 chunks, for the exact Gamma.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;
use tickopt::gen::rng::SplitMix64;
use tickopt::graph::DemandGraph;
use tickopt::instance::{Demand, Instance, Limits, Model, Overrides};

const BW: u64 = 1 << 20;

/// Dense all-to-all demands: `chunks(a, b)` chunks of `BW` bits per pair.
fn all_to_all(n: u32, mut chunks: impl FnMut() -> u64) -> Vec<Demand> {
    let mut d = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a != b {
                d.push(Demand {
                    src: a,
                    dst: b,
                    bits: chunks() * BW,
                });
            }
        }
    }
    d
}

fn instance(model: Model, n: u32, demands: Vec<Demand>) -> Instance {
    Instance::new(model, n, BW, demands, &Limits::default()).unwrap()
}

fn csv_of(demands: &[Demand]) -> Vec<u8> {
    let mut s = String::from("src_slot,dst_slot,bits_total\n");
    for d in demands {
        s.push_str(&format!("{},{},{}\n", d.src, d.dst, d.bits));
    }
    s.into_bytes()
}

fn benches(c: &mut Criterion) {
    let mut rng = SplitMix64::new(42, 0);
    let random = all_to_all(256, || 1 + rng.next_u64() % 1000);
    let ones = all_to_all(256, || 1);
    let million = all_to_all(256, || 1_000_000);

    let mut g = c.benchmark_group("read1_write1_koenig_a2a256");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    for (name, d) in [
        ("random_1_1000", &random),
        ("mult_1", &ones),
        ("mult_1e6", &million),
    ] {
        let inst = instance(Model::Read1Write1, 256, d.clone());
        g.bench_with_input(BenchmarkId::from_parameter(name), &inst, |b, inst| {
            b.iter(|| black_box(tickopt::solve::koenig::koenig_schedule(inst)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("parse_csv_a2a256");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let bytes = csv_of(&random);
    let o = Overrides {
        model: Some(Model::Read1Write1),
        bw: Some(BW),
        slots: None,
        ports: None,
    };
    g.bench_function("random_1_1000", |b| {
        b.iter(|| {
            black_box(
                tickopt::instance::read_instance_bytes(&bytes, "a2a.csv", &o, &Limits::default())
                    .unwrap(),
            )
        })
    });
    g.finish();

    let mut g = c.benchmark_group("strict1_greedy_a2a256");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    for (name, d) in [("mult_1", &ones), ("random_1_1000", &random)] {
        let inst = instance(Model::Strict1, 256, d.clone());
        g.bench_with_input(BenchmarkId::from_parameter(name), &inst, |b, inst| {
            b.iter(|| black_box(tickopt::solve::greedy::greedy_schedule(inst)))
        });
    }
    g.finish();

    // Sparse random graph: 1024 slots, ~4000 chunks, plus a planted K9 at
    // multiplicity 1000 (so Gamma > Delta and the odd-set search must work).
    let mut rng = SplitMix64::new(7, 0);
    let mut d = Vec::new();
    while d.len() < 2000 {
        let (a, b) = (
            (rng.next_u64() % 1024) as u32,
            (rng.next_u64() % 1024) as u32,
        );
        if a != b {
            d.push(Demand {
                src: a,
                dst: b,
                bits: (1 + rng.next_u64() % 3) * BW,
            });
        }
    }
    let plain = instance(Model::Strict1, 1024, d.clone());
    for a in 0..9u32 {
        for b in a + 1..9 {
            d.push(Demand {
                src: 100 + a,
                dst: 100 + b,
                bits: 1000 * BW,
            });
        }
    }
    let planted = instance(Model::Strict1, 1024, d);
    let mut g = c.benchmark_group("strict1_exact_bounds_random1024");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, inst) in [("plain", &plain), ("planted_k9_x1000", &planted)] {
        g.bench_with_input(BenchmarkId::from_parameter(name), inst, |b, inst| {
            b.iter(|| black_box(tickopt::bounds::exact_bounds(inst, &DemandGraph::new(inst))))
        });
    }
    g.finish();
}

criterion_group!(engine, benches);
criterion_main!(engine);
