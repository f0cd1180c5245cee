//! Criterion benchmarks of relay planning (issue 52): hot-column MoE
//! all-to-all (log-normal sizes, sigma 1.2, mean 4 chunks a pair, 1/16 of
//! the columns x4) on nodes of 8 GPUs at 64, 256 and 1,024 ranks, NVLink
//! x4 and x8, through `relay::plan_relay` (bounds, the LP where it can
//! bind, the plan and its validation). The budgets of issue 37 (0.5 ms,
//! 8 ms, 150 ms) are what these are compared with; doc/performance.md
//! keeps the figures. Smoke run: `cargo bench --bench relay -- --quick`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;
use tickopt::gen::skew::Skew;
use tickopt::instance::{Instance, Limits, Model};
use tickopt::relay::{plan_relay, TwoTier};

fn moe(n: u32) -> Instance {
    let skew = Skew {
        mean_bits: 256.0,
        sigma: 1.2,
        hot: n / 16,
        hot_factor: 4,
    };
    let demands = skew.all_to_all(n, 1).expect("valid skew");
    Instance::new(Model::Read1Write1, n, 64, demands, &Limits::default()).expect("valid instance")
}

fn plan(c: &mut Criterion) {
    let mut g = c.benchmark_group("relay_hot_column_g8");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [64u32, 256, 1024] {
        let inst = moe(n);
        for rho in [4u32, 8] {
            let tt = TwoTier {
                gpus_per_node: 8,
                nvlink_speedup: rho,
            };
            // The claim the bench times: a valid plan within 2% (+2) of its bound.
            let sol = plan_relay(&inst, tt).unwrap();
            let slack = (sol.lower_bound / 50).max(2);
            assert!(sol.ticks <= sol.lower_bound + slack, "n {n} rho {rho}");
            g.bench_with_input(
                BenchmarkId::new(format!("rho{rho}"), n),
                &inst,
                |b, inst| b.iter(|| black_box(plan_relay(inst, tt).unwrap().ticks)),
            );
        }
    }
    g.finish();
}

criterion_group!(benches, plan);
criterion_main!(benches);
