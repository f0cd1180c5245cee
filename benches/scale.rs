//! Criterion benchmarks at cluster scale (issue 15): the structural
//! colouring (uniform all-to-all up to 2048 slots, odd rings up to 10,001
//! slots at multiplicity 1e6) end to end through `solve_instance`, the
//! odd-set bound on odd rings (one of 20,001 slots with 100 chords:
//! blocks and chain contraction, issue 39), demands-CSV and instance-JSON
//! parsing, and a ring at multiplicity 1e2 vs 1e5; the backbone colouring (an odd ring with light
//! chords) and planted odd cliques in 20,000-slot sparse graphs; a
//! transformer checkpoint resharded from training to inference GPUs
//! (`gen reshard_model`, issue 29) under both models; skewed MoE
//! all-to-all on two-tier clusters with several ports per GPU (`gen
//! moe_two_tier`, issue 29) under both models.
//! doc/performance.md has the figures and the
//! command that reproduces them.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;
use tickopt::bounds::exact_bounds;
use tickopt::gen::multiport::{generate_multiport, MultiportFamily};
use tickopt::gen::{generate, write_demands_csv, Family, GenSpec, TransformerReshard};
use tickopt::graph::DemandGraph;
use tickopt::instance::{
    parse_instance_json, write_instance_json, Demand, Instance, Limits, Model, Overrides,
};
use tickopt::solve::Status;
use tickopt::{solve_instance, SolveRequest};

fn strict1(n: u32, demands: impl IntoIterator<Item = (u32, u32, u64)>) -> Instance {
    let raw = demands
        .into_iter()
        .map(|(src, dst, bits)| Demand { src, dst, bits });
    Instance::new(Model::Strict1, n, 1, raw, &Limits::default()).unwrap()
}

fn alltoall(n: u32) -> Instance {
    strict1(
        n,
        (0..n).flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b, 1))),
    )
}

fn ring(n: u32, m: u64) -> Instance {
    strict1(n, (0..n).map(|i| (i, (i + 1) % n, m)))
}

/// An odd ring with `c` one-chunk chords (the backbone case).
fn ring_chords(n: u32, m: u64, c: u32) -> Instance {
    strict1(
        n,
        (0..n)
            .map(|i| (i, (i + 1) % n, m))
            .chain((0..c).map(|i| (i, i + n / 2, 1))),
    )
}

/// A planted-clique instance from the library's generator.
fn planted(n: u32, k: u32, cliques: u32, clique_mult: u64, degree: u32, mult: u64) -> Instance {
    let spec = GenSpec {
        family: Family::Planted {
            n,
            k,
            cliques,
            clique_mult,
            degree,
        },
        mult,
        bw: 1,
        seed: 0,
    };
    let g = generate(&spec).unwrap();
    Instance::new(Model::Strict1, g.slots, 1, g.demands, &Limits::default()).unwrap()
}

/// Heavy arbitrary traffic (issue 29): Erdos-Renyi on `n` slots, sizes
/// uniform in 1..=max_bits at bw 1 (so chunks = bits), taken by the binary
/// split.
fn heavy_random(n: u32, p: f64, max_bits: u64) -> Instance {
    let spec = GenSpec {
        family: Family::RandomSized {
            n,
            p,
            min_bits: 1,
            max_bits,
        },
        mult: 1,
        bw: 1,
        seed: 1,
    };
    let g = generate(&spec).unwrap();
    Instance::new(Model::Strict1, g.slots, 1, g.demands, &Limits::default()).unwrap()
}

fn solve(c: &mut Criterion) {
    let cases = [
        (
            "heavy_random_n400_p0.9_b1-4000",
            heavy_random(400, 0.9, 4000),
        ),
        ("ring_chords_n2001_m1000_c10", ring_chords(2001, 1000, 10)),
        (
            "planted_n20000_k5x4c100d4",
            planted(20_000, 5, 100, 4, 4, 1),
        ),
        (
            "planted_n20000_k5x4c100d4_m1000",
            planted(20_000, 5, 100, 4, 4, 1000),
        ),
        ("alltoall_n999", alltoall(999)),
        ("alltoall_n1000", alltoall(1000)),
        ("alltoall_n2048", alltoall(2048)),
        ("ring_n2001_m1000", ring(2001, 1000)),
        ("ring_n10001_m1e6", ring(10_001, 1_000_000)),
        ("ring_n16_m1e2", ring(16, 100)),
        ("ring_n16_m1e5", ring(16, 100_000)),
    ];
    let mut g = c.benchmark_group("scale_solve");
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

fn bounds(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale_bounds");
    g.sample_size(10);
    for (name, inst) in [
        ("ring_n2001_m1000", ring(2001, 1000)),
        ("ring_n10001_m1e6", ring(10_001, 1_000_000)),
        // Issue 39: one block of 200 branch slots and 200 chains once
        // contracted (78 s before blocks and chains, by 20,000 flows).
        (
            "ring_chords_n20001_m1000_c100",
            ring_chords(20_001, 1000, 100),
        ),
    ] {
        let dg = DemandGraph::new(&inst);
        g.bench_function(name, |b| b.iter(|| black_box(exact_bounds(&inst, &dg))));
    }
    g.finish();
}

/// The demands CSV of the MoE all-to-all of issue 15 (1024 slots, uniform
/// experts, 8192 tokens per rank: 1,047,552 rows, 15.5 MB), as `tickopt
/// gen moe --n 1024 --zipf 0 --tokens 8192` writes it.
fn moe_n1024_csv() -> Vec<u8> {
    let spec = common::moe_n1024_spec();
    let mut csv = Vec::new();
    write_demands_csv(&generate(&spec).unwrap(), &mut csv).unwrap();
    csv
}

fn parse(c: &mut Criterion) {
    let n = 1000u32;
    let mut alltoall = String::from("src_slot,dst_slot,bits_total\n");
    for a in 0..n {
        for b in (0..n).filter(|&b| b != a) {
            alltoall.push_str(&format!("{a},{b},{}\n", 1024 * (1 + (a + b) % 7)));
        }
    }
    let mut g = c.benchmark_group("scale_parse");
    g.sample_size(10);
    for (name, csv, bw) in [
        ("alltoall_n1000_csv", alltoall.into_bytes(), 1024),
        ("moe_n1024_csv", moe_n1024_csv(), 65536),
    ] {
        g.throughput(Throughput::Bytes(csv.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                black_box(
                    Instance::from_csv_bytes(&csv, Model::Strict1, bw, None, &Limits::default())
                        .unwrap(),
                )
            })
        });
    }
    g.finish();
}

/// `tickopt gen reshard_model` with these parameters, under `model`.
fn reshard_model(m: TransformerReshard, model: Model) -> Instance {
    let spec = GenSpec {
        family: Family::ReshardModel(m),
        mult: 1,
        bw: 1024,
        seed: 0,
    };
    let g = generate(&spec).unwrap();
    Instance::new(model, g.slots, 1024, g.demands, &Limits::default()).unwrap()
}

/// Resharding checkpoints from training to inference GPUs (issue 29):
/// LLaMA-2 7B from 256 GPUs (TP 8 x PP 4) to 128 (TP 4 x PP 1), and
/// LLaMA-3 70B from 4096 GPUs (TP 8 x PP 8) to 2048 (TP 8 x PP 2), both
/// proven optimal (König) under each model.
fn reshard(c: &mut Criterion) {
    let llama3_70b = |from, to| TransformerReshard {
        from_pp: 8,
        to_tp: 8,
        to_pp: 2,
        layers: 80,
        hidden: 8192,
        ffn: 28672,
        heads: 64,
        kv_heads: 8,
        vocab: 128256,
        ..TransformerReshard::llama2_7b(from, to)
    };
    let mut g = c.benchmark_group("scale_reshard");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for model in [Model::Strict1, Model::Read1Write1] {
        for (name, m) in [
            (
                "llama2_7b_256to128",
                TransformerReshard::llama2_7b(256, 128),
            ),
            ("llama3_70b_4096to2048", llama3_70b(4096, 2048)),
        ] {
            let inst = reshard_model(m, model);
            let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
            assert_eq!(sol.status, Status::Optimal, "{name} {model}");
            g.bench_with_input(BenchmarkId::new(name, model), &inst, |b, inst| {
                b.iter(|| black_box(solve_instance(inst, &SolveRequest::default()).unwrap()))
            });
        }
    }
    g.finish();
}

/// `tickopt gen moe_two_tier --nodes NODES --nics NICS --mult 4 --seed 1`
/// (8 GPUs a node, intra-node links 8x, 8 hot experts at 4x) under `model`.
fn moe_two_tier(nodes: u32, nics: u32, model: Model) -> Instance {
    let family = MultiportFamily::MoeTwoTier {
        nodes,
        gpus_per_node: 8,
        nics,
        fast: 8,
        sigma: 1.0,
        hot: 8,
        hot_factor: 4,
    };
    generate_multiport(&family, model, 4, 1024, 1).unwrap()
}

/// Skewed MoE all-to-all on two-tier clusters (issue 29), solve and
/// validation in-process (no parse or write): 512 GPUs x 2 ports (both
/// models), 512 x 3 (STRICT1, odd ports), 1,024 x 2 (both models); every
/// one proven optimal.
fn two_tier(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale_two_tier");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    for (nodes, nics, model) in [
        (64, 2, Model::Strict1),
        (64, 2, Model::Read1Write1),
        (64, 3, Model::Strict1),
        (128, 2, Model::Strict1),
        (128, 2, Model::Read1Write1),
    ] {
        let inst = moe_two_tier(nodes, nics, model);
        let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
        assert_eq!(sol.status, Status::Optimal, "{nodes}x{nics} {model}");
        let name = format!("moe_gpus{}_ports{nics}", nodes * 8);
        g.bench_with_input(BenchmarkId::new(name, model), &inst, |b, inst| {
            b.iter(|| black_box(solve_instance(inst, &SolveRequest::default()).unwrap()))
        });
    }
    g.finish();
}

/// The instance JSON `tickopt gen moe_two_tier --nodes NODES --nics NICS
/// --mult 4 --seed 1 --out X.json` writes (pretty-printed, per-demand
/// bandwidth on the fast intra-node demands, `"ports": NICS`): nodes 128,
/// nics 2 is 1,047,552 demands in 88 MB; nodes 256, nics 4 is 4,192,256
/// demands in 356 MB.
fn moe_two_tier_json(nodes: u32, nics: u32) -> Vec<u8> {
    let inst = moe_two_tier(nodes, nics, Model::Strict1);
    let mut text = Vec::new();
    write_instance_json(&inst, &mut text).unwrap();
    text
}

/// The one-port MoE all-to-all of [`moe_n1024_csv`] as `tickopt convert`
/// writes it: an instance JSON without ports or per-demand bandwidth
/// (1,047,552 demands, 90 MB).
fn moe_n1024_json() -> Vec<u8> {
    let g = generate(&common::moe_n1024_spec()).unwrap();
    let inst = Instance::new(Model::Strict1, g.slots, 1024, g.demands, &Limits::default()).unwrap();
    let mut text = Vec::new();
    write_instance_json(&inst, &mut text).unwrap();
    text
}

/// Instance JSON to `Instance` (issue 29: at least 300 MB/s; the 356 MB
/// document is written as `tickopt gen` writes it, streamed).
fn parse_json(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale_parse_json");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for (name, json) in [
        ("moe_two_tier_n128_nics2", moe_two_tier_json(128, 2)),
        ("moe_two_tier_n256_nics4", moe_two_tier_json(256, 4)),
        ("moe_n1024_one_port", moe_n1024_json()),
    ] {
        g.throughput(Throughput::Bytes(json.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                black_box(
                    parse_instance_json(&json, &Overrides::default(), &Limits::default()).unwrap(),
                )
            })
        });
    }
    g.finish();
}

criterion_group!(scale, solve, bounds, parse, reshard, two_tier, parse_json);
criterion_main!(scale);
