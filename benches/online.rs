//! Planning inside the step (issue 37, DESIGN.md §13): one plan per
//! traffic matrix, in process, as `tickopt.solve(matrix)` and
//! `tickopt.Planner.solve` run it (matrix -> instance -> bounds ->
//! schedule -> validation). Skewed MoE matrices: log-normal sizes (sigma
//! 1.2, the mean kept), 1/16 of the ranks hot experts receiving 4x, chunk
//! = mean demand / k, for k in {1, 4}; both models.
//!
//! `online_replan`: a sequence of the same matrices changed a little (each
//! the one before with a tenth of the entries changed by up to 20%, eight
//! steps, walked forward and back so every step is one change), planned
//! step after step by a `Planner` (`edit`, through `Planner::plan_matrix`
//! as Python's `Planner.solve`, the caller holding each plan until the
//! next) and from scratch (`scratch`): issue 37's re-planning ratio, each
//! side in its steady state.
//!
//! Before timing, each case's plan is checked: READ1_WRITE1 optimal (Delta
//! ticks); STRICT1 at most 1.01 x its lower bound. `scripts/plan_latency.py`
//! times the same from Python; doc/performance.md "Planning inside the
//! step" has the figures.

/// The Python module's allocator (python/src/lib.rs): plans reuse freed
/// pages instead of faulting them in again every call.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::{Duration, Instant};
use tickopt::gen::skew::Skew;
use tickopt::instance::dense::{instance_from_matrix, Cells};
use tickopt::instance::Model;
use tickopt::solve::replan::{PlanKind, Planner};
use tickopt::solve::Status;
use tickopt::{solve_instance, SolveRequest};

/// Bits per chunk.
const BW: u64 = 8192;
/// Steps of the re-planning sequence (walked forward and back).
const WALK: u64 = 8;

/// The `n x n` matrix of bits of seed 0 (row-major, zero diagonal).
fn matrix(n: u32, k: u64) -> Vec<i64> {
    let skew = Skew {
        mean_bits: (BW * k) as f64,
        sigma: 1.2,
        hot: (n / 16).max(1),
        hot_factor: 4,
    };
    let mut m = vec![0i64; n as usize * n as usize];
    for d in skew.all_to_all(n, 0).expect("valid skew") {
        m[d.src as usize * n as usize + d.dst as usize] = d.bits as i64;
    }
    m
}

/// `m` with about a tenth of its entries scaled by 0.8-1.2 (xorshift of
/// `seed`: deterministic).
fn perturbed(m: &[i64], seed: u64) -> Vec<i64> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    m.iter()
        .map(|&b| {
            if b > 0 && next() % 10 == 0 {
                let f = 80 + (next() % 41) as i64;
                (b * f / 100).max(1)
            } else {
                b
            }
        })
        .collect()
}

fn plan(model: Model, n: u32, m: &[i64]) -> tickopt::solve::Solution {
    let inst = instance_from_matrix(model, n, BW, m).expect("valid matrix");
    solve_instance(&inst, &SolveRequest::default()).expect("valid plan")
}

/// The rank counts of `TICKOPT_ONLINE_RANKS` (comma-separated), else
/// `default`.
fn ranks_or(default: &[u32]) -> Vec<u32> {
    match std::env::var("TICKOPT_ONLINE_RANKS") {
        Ok(list) => list
            .split(',')
            .map(|r| r.parse().expect("rank count"))
            .collect(),
        Err(_) => default.to_vec(),
    }
}

fn online(c: &mut Criterion) {
    let ranks = ranks_or(&[8, 64, 256, 1024]);
    let mut g = c.benchmark_group("online");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for &n in &ranks {
        for k in [1u64, 4] {
            let m = matrix(n, k);
            for model in [Model::Read1Write1, Model::Strict1] {
                let sol = plan(model, n, &m);
                match model {
                    Model::Read1Write1 => assert_eq!(sol.status, Status::Optimal),
                    Model::Strict1 => assert!(sol.ticks * 100 <= sol.lower_bound.ticks * 101),
                }
                let id = format!("{}_n{n}_k{k}", model.as_str());
                g.bench_with_input(BenchmarkId::from_parameter(id), &m, |b, m| {
                    b.iter(|| black_box(plan(model, n, m)))
                });
            }
        }
    }
    g.finish();
}

fn online_replan(c: &mut Criterion) {
    let ranks = ranks_or(&[64, 256]);
    let mut g = c.benchmark_group("online_replan");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for &n in &ranks {
        for k in [1u64, 4] {
            // A sequence of matrices, each the one before changed a little,
            // walked forward and back (every step one change).
            let mut seq = vec![matrix(n, k)];
            for seed in 1..=WALK {
                seq.push(perturbed(&seq[seed as usize - 1], seed));
            }
            let walk: Vec<&[i64]> = seq[1..]
                .iter()
                .chain(seq[..seq.len() - 1].iter().rev())
                .map(Vec::as_slice)
                .collect();
            for model in [Model::Read1Write1, Model::Strict1] {
                // The planner's matrix path, as Python's `Planner.solve`
                // takes it (the instance comes from the matrix on both
                // sides); the caller holds each plan until the next.
                let mut planner = Planner::new(SolveRequest::default());
                let mut held = planner
                    .plan_matrix(model, n, BW, Cells::Ints(&seq[0]))
                    .expect("valid plan");
                for m in &walk {
                    held = planner
                        .plan_matrix(model, n, BW, Cells::Ints(m))
                        .expect("valid plan");
                    assert_eq!(held.2, PlanKind::Edited, "{model} n={n} k={k}");
                    assert_eq!(held.1.status, Status::Optimal);
                }
                let id = format!("{}_n{n}_k{k}", model.as_str());
                // Edits that fell back to a plan from scratch (a STRICT1
                // edit whose alternating paths all close on the sender),
                // timed with the edits as a caller sees them: at most one
                // in twenty, or this is not an edit's time.
                let (mut edits, mut fallbacks) = (0u64, 0u64);
                g.bench_function(BenchmarkId::new("edit", &id), |b| {
                    let mut at = 0;
                    b.iter_custom(|iters| {
                        let t = Instant::now();
                        for _ in 0..iters {
                            held = planner
                                .plan_matrix(model, n, BW, Cells::Ints(walk[at]))
                                .expect("valid plan");
                            fallbacks += u64::from(held.2 != PlanKind::Edited);
                            at = (at + 1) % walk.len();
                        }
                        edits += iters;
                        t.elapsed()
                    })
                });
                assert!(
                    fallbacks * 20 <= edits,
                    "{id}: {fallbacks} of {edits} edits fell back"
                );
                g.bench_function(BenchmarkId::new("scratch", &id), |b| {
                    let mut at = 0;
                    b.iter(|| {
                        at = (at + 1) % walk.len();
                        black_box(plan(model, n, walk[at]))
                    })
                });
                drop(held);
            }
        }
    }
    g.finish();
}

criterion_group!(benches, online, online_replan);
criterion_main!(benches);
