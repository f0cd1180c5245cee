//! Criterion benchmarks of dense skewed two-tier traffic with the same
//! ports on every GPU (issue 53), from two generators (the instances of
//! tests/common/two_tier.rs: `tickopt gen moe_two_tier`, and a log-normal
//! matrix with every pair present), 1,024 GPUs x 2 ports and 2,048 x 4,
//! about ten chunks a demand, under both models. Two groups:
//! `dense_two_tier`, `solve_instance` in process (bounds, solve,
//! validation; no parse or write), and `dense_two_tier_process`, the whole
//! process as a user runs it (`tickopt solve FILE.json --format compact
//! --out OUT`: parse, solve, validation, write), on the instance written
//! once as JSON. Each instance is checked proven optimal before it is
//! timed. The goal, whole process: 1,024 x 2 in 2 s, 2,048 x 4 in
//! 4 s.
//!
//! `cargo bench --bench dense_two_tier -- 'gpus1024'` runs the small half.

#[path = "../tests/common/two_tier.rs"]
mod two_tier;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::process::{Command, Stdio};
use std::time::Duration;
use tickopt::instance::{write_instance_json, Model};
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

/// The whole process on each instance written as JSON: `tickopt solve
/// FILE.json --format compact --out OUT --summary S`, its summary checked
/// `optimal` once before the timing.
fn dense_two_tier_process(c: &mut Criterion) {
    let mut g = c.benchmark_group("dense_two_tier_process");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(30));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (out, summary) = (dir.path().join("out.json"), dir.path().join("summary.json"));
    for (gpus, ports) in [(1024, 2), (2048, 4)] {
        for model in [Model::Strict1, Model::Read1Write1] {
            for source in ["gen", "lognormal"] {
                let inst = match source {
                    "gen" => generated(gpus, ports, model, 1),
                    _ => lognormal(gpus, ports, model, 1, 1.0, 10.0),
                };
                let file = dir
                    .path()
                    .join(format!("{source}_{gpus}x{ports}_{model}.json"));
                let mut w = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
                write_instance_json(&inst, &mut w).unwrap();
                std::io::Write::flush(&mut w).unwrap();
                drop((w, inst));
                let solve = || {
                    let status = Command::new(env!("CARGO_BIN_EXE_tickopt"))
                        .arg("solve")
                        .arg(&file)
                        .args(["--format", "compact", "--out"])
                        .arg(&out)
                        .arg("--summary")
                        .arg(&summary)
                        .stdout(Stdio::null())
                        .status()
                        .expect("tickopt runs");
                    assert!(status.success(), "{}", file.display());
                };
                solve();
                let s: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
                assert_eq!(s["status"], "optimal", "{}", file.display());
                let name = format!("{source}_gpus{gpus}_ports{ports}");
                g.bench_function(BenchmarkId::new(name, model), |b| b.iter(solve));
                std::fs::remove_file(&file).unwrap();
            }
        }
    }
    g.finish();
}

criterion_group!(benches, dense_two_tier, dense_two_tier_process);
criterion_main!(benches);
