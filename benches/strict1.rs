//! Criterion benchmarks of exact STRICT1 solving, end to end (bounds,
//! solve, validation): what `tickopt solve --model STRICT1` does.
//! doc/performance.md has the figures and the command that reproduces them.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;
use tickopt::gen::{generate, Family, GenSpec};
use tickopt::instance::{Instance, Limits, Model};
use tickopt::{solve_instance, SolveRequest};

fn instance(family: Family, mult: u64, seed: u64) -> Instance {
    let g = generate(&GenSpec {
        family,
        mult,
        bw: 1024,
        seed,
    })
    .unwrap();
    Instance::new(Model::Strict1, g.slots, g.bw, g.demands, &Limits::default()).unwrap()
}

fn benches(c: &mut Criterion) {
    let cases = [
        // ~4000 chunks on 1024 slots (p chosen for ~2000 pairs of 1..3 chunks).
        (
            "random_n1024_p0.004",
            instance(
                Family::Random {
                    n: 1024,
                    p: 0.004,
                    max_chunks: 3,
                },
                1,
                1,
            ),
        ),
        ("alltoall_n256", instance(Family::Alltoall { n: 256 }, 1, 0)),
        ("petersen_m1000", instance(Family::Petersen, 1000, 0)),
        ("petersen_m1e6", instance(Family::Petersen, 1_000_000, 0)),
        (
            "clique_n9_m1000",
            instance(Family::Clique { n: 9 }, 1000, 0),
        ),
        (
            "clique_n9_m1e6",
            instance(Family::Clique { n: 9 }, 1_000_000, 0),
        ),
    ];
    let mut g = c.benchmark_group("strict1_solve_auto");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for (name, inst) in &cases {
        g.bench_with_input(BenchmarkId::from_parameter(name), inst, |b, inst| {
            b.iter(|| black_box(solve_instance(inst, &SolveRequest::default()).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(strict1, benches);
criterion_main!(strict1);
