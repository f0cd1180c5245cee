//! Generators: every family parses, is deterministic by seed, and the
//! snarks and known optima are what the manifests claim.

use tickopt::gen::moe_shift::Shape;
use tickopt::gen::{self, Family, GenSpec, TransformerReshard, TreeDirection};
use tickopt::instance::{Instance, Limits, Model};
use tickopt::{solve_instance, SolveRequest};

fn families() -> Vec<Family> {
    vec![
        Family::Ring { n: 7 },
        Family::BidirRing { n: 6 },
        Family::RingSkip { n: 9, skip: 3 },
        Family::Alltoall { n: 5 },
        Family::Moe {
            n: 6,
            experts_per_rank: 2,
            tokens: 64,
            topk: 2,
            zipf: 1.1,
            token_bits: 3000,
        },
        Family::Pipeline {
            stages: 4,
            microbatches: 3,
        },
        Family::PipelineInterleaved {
            stages: 3,
            microbatches: 2,
            virtual_stages: 3,
        },
        Family::Reshard {
            from: 4,
            to: 6,
            in_place: false,
        },
        Family::Reshard {
            from: 5,
            to: 3,
            in_place: true,
        },
        Family::ReshardModel(TransformerReshard {
            from: 12,
            from_tp: 3,
            from_pp: 2,
            to: 8,
            to_tp: 2,
            to_pp: 1,
            layers: 4,
            hidden: 48,
            ffn: 100,
            heads: 6,
            kv_heads: 6,
            vocab: 500,
            dtype_bits: 16,
        }),
        Family::Tree {
            n: 10,
            arity: 3,
            direction: TreeDirection::Allreduce,
        },
        Family::Star {
            clients: 9,
            targets: 2,
            jitter: 3,
        },
        Family::Random {
            n: 12,
            p: 0.4,
            max_chunks: 5,
        },
        Family::Clique { n: 7 },
        Family::Clique { n: 6 },
        Family::Petersen,
        Family::Blanusa,
        Family::FlowerSnark { k: 5 },
        Family::Planted {
            n: 40,
            k: 5,
            cliques: 2,
            clique_mult: 3,
            degree: 3,
        },
        moe_shift(Shape::HotExpert, 0),
        moe_shift(Shape::HotRank, 1),
        moe_shift(Shape::Rotating, 2),
        moe_shift(Shape::Burst, 4),
    ]
}

fn moe_shift(shape: Shape, step: u64) -> Family {
    Family::MoeShift {
        n: 8,
        shape,
        step,
        mean_chunks: 3.0,
        sigma: 1.2,
        hot_x: 6,
        burst_every: 5,
        burst_x: 4,
    }
}

fn spec(family: Family, mult: u64, seed: u64) -> GenSpec {
    GenSpec {
        family,
        mult,
        bw: 1000,
        seed,
    }
}

fn csv_of(s: &GenSpec) -> Vec<u8> {
    let g = gen::generate(s).unwrap();
    let mut buf = Vec::new();
    gen::write_demands_csv(&g, &mut buf).unwrap();
    buf
}

#[test]
fn every_family_parses_and_matches_its_generation() {
    for f in families() {
        for mult in [1, 1000] {
            let s = spec(f.clone(), mult, 3);
            let g = gen::generate(&s).unwrap();
            let bytes = csv_of(&s);
            let text = String::from_utf8(bytes.clone()).unwrap();
            assert!(text.starts_with("# tickopt gen "), "{text}");
            let bw_line = format!("# copy_bw_bits_per_tick={}", s.bw);
            assert!(text.lines().nth(1) == Some(bw_line.as_str()), "{text}");
            assert!(text.lines().nth(2) == Some("src_slot,dst_slot,bits_total"));
            let inst = Instance::from_csv_bytes(
                &bytes,
                Model::Strict1,
                s.bw,
                Some(g.slots),
                &Limits::default(),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", f.name()));
            assert_eq!(inst.demands(), &g.demands[..], "{}", f.name());
            assert!(!g.demands.is_empty(), "{}", f.name());
        }
    }
}

#[test]
fn generators_are_deterministic_by_seed() {
    for f in families() {
        let a = csv_of(&spec(f.clone(), 1, 42));
        let b = csv_of(&spec(f.clone(), 1, 42));
        assert_eq!(a, b, "{}", f.name());
    }
    // The random families do depend on the seed.
    for f in [
        Family::Random {
            n: 30,
            p: 0.3,
            max_chunks: 4,
        },
        Family::Moe {
            n: 8,
            experts_per_rank: 1,
            tokens: 100,
            topk: 2,
            zipf: 1.0,
            token_bits: 1000,
        },
    ] {
        let a = gen::generate(&spec(f.clone(), 1, 1)).unwrap().demands;
        let b = gen::generate(&spec(f.clone(), 1, 2)).unwrap().demands;
        assert_ne!(a, b, "{}", f.name());
    }
}

#[test]
fn multiplicity_scales_every_demand() {
    for f in families() {
        let one = gen::generate(&spec(f.clone(), 1, 5)).unwrap();
        let many = gen::generate(&spec(f.clone(), 1000, 5)).unwrap();
        assert_eq!(one.demands.len(), many.demands.len());
        for (a, b) in one.demands.iter().zip(&many.demands) {
            assert_eq!((a.src, a.dst, a.bits * 1000), (b.src, b.dst, b.bits));
        }
    }
}

#[test]
fn bad_parameters_are_errors_not_panics() {
    for f in [
        Family::Ring { n: 1 },
        Family::RingSkip { n: 5, skip: 5 },
        Family::Random {
            n: 5,
            p: 1.5,
            max_chunks: 1,
        },
        Family::Moe {
            n: 2,
            experts_per_rank: 1,
            tokens: 10,
            topk: 3,
            zipf: 1.0,
            token_bits: 8,
        },
        Family::Alltoall { n: 1 << 20 },
        Family::MoeShift {
            n: 1,
            shape: Shape::Rotating,
            step: 0,
            mean_chunks: 3.0,
            sigma: 1.2,
            hot_x: 6,
            burst_every: 5,
            burst_x: 4,
        },
        Family::MoeShift {
            n: 8,
            shape: Shape::Burst,
            step: 0,
            mean_chunks: -1.0,
            sigma: 1.2,
            hot_x: 6,
            burst_every: 5,
            burst_x: 4,
        },
        Family::FlowerSnark { k: 2 },
        Family::ReshardModel(TransformerReshard {
            to_tp: 3,
            ..TransformerReshard::llama2_7b(256, 128)
        }),
        Family::Planted {
            n: 20,
            k: 4,
            cliques: 1,
            clique_mult: 2,
            degree: 2,
        },
        Family::Planted {
            n: 9,
            k: 5,
            cliques: 2,
            clique_mult: 2,
            degree: 2,
        },
        Family::Planted {
            n: 100,
            k: 5,
            cliques: 1,
            clique_mult: 100_000,
            degree: 2,
        },
    ] {
        let e = gen::generate(&spec(f.clone(), 1, 0)).unwrap_err();
        assert!(e.to_string().starts_with(f.name()), "{e}");
    }
    let e = gen::generate(&spec(Family::Ring { n: 4 }, 0, 0)).unwrap_err();
    assert!(e.to_string().contains("mult"));
    let e = gen::generate(&spec(Family::Ring { n: 4 }, u64::MAX, 0)).unwrap_err();
    assert!(e.to_string().contains("overflow"));
}

/// Whether a simple graph has a proper 3-edge-colouring (backtracking).
fn three_edge_colourable(n: usize, edges: &[(u32, u32)]) -> bool {
    fn go(i: usize, edges: &[(u32, u32)], used: &mut Vec<[bool; 3]>) -> bool {
        if i == edges.len() {
            return true;
        }
        let (u, v) = (edges[i].0 as usize, edges[i].1 as usize);
        for c in 0..3 {
            if !used[u][c] && !used[v][c] {
                used[u][c] = true;
                used[v][c] = true;
                if go(i + 1, edges, used) {
                    return true;
                }
                used[u][c] = false;
                used[v][c] = false;
            }
        }
        false
    }
    go(0, edges, &mut vec![[false; 3]; n])
}

#[test]
fn snarks_are_cubic_and_not_three_edge_colourable() {
    for f in [
        Family::Petersen,
        Family::Blanusa,
        Family::FlowerSnark { k: 5 },
    ] {
        let g = gen::generate(&spec(f.clone(), 1, 0)).unwrap();
        let n = g.slots as usize;
        let mut deg = vec![0; n];
        let mut edges = Vec::new();
        for d in &g.demands {
            deg[d.src as usize] += 1;
            deg[d.dst as usize] += 1;
            edges.push((d.src, d.dst));
        }
        assert!(
            deg.iter().all(|&d| d == 3),
            "{} not cubic: {deg:?}",
            f.name()
        );
        let mut pairs: Vec<_> = edges.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
        pairs.sort();
        pairs.dedup();
        assert_eq!(pairs.len(), edges.len(), "{} has parallel edges", f.name());
        assert!(
            !three_edge_colourable(n, &edges),
            "{} is 3-edge-colourable",
            f.name()
        );
    }
    // Control: a cubic graph that is 3-edge-colourable (J_4 is not a snark).
    let g = gen::generate(&spec(Family::FlowerSnark { k: 4 }, 1, 0)).unwrap();
    let edges: Vec<_> = g.demands.iter().map(|d| (d.src, d.dst)).collect();
    assert!(three_edge_colourable(g.slots as usize, &edges));
}

#[test]
fn known_optima_agree_with_the_engine() {
    let cases = [
        (Family::Clique { n: 7 }, 3, Model::Strict1, Some(21)),
        (Family::Clique { n: 8 }, 2, Model::Strict1, Some(14)),
        (Family::Alltoall { n: 5 }, 1, Model::Strict1, Some(10)),
        (Family::Alltoall { n: 6 }, 1, Model::Read1Write1, Some(5)),
        (Family::Petersen, 1, Model::Strict1, Some(4)),
        (Family::Petersen, 2, Model::Strict1, Some(6)),
        (Family::Petersen, 3, Model::Strict1, None),
        (Family::Ring { n: 8 }, 5, Model::Strict1, Some(10)),
        (Family::Ring { n: 9 }, 1, Model::Strict1, Some(3)),
        (Family::Ring { n: 9 }, 4, Model::Strict1, Some(9)),
        (Family::Blanusa, 1, Model::Strict1, Some(4)),
    ];
    for (f, mult, model, want) in cases {
        let s = spec(f.clone(), mult, 0);
        let g = gen::generate(&s).unwrap();
        let got = gen::known_optimum(&f, &g, model).map(|k| k.ticks);
        assert_eq!(got, want, "{} mult {mult} {model}", f.name());
        let inst =
            Instance::new(model, g.slots, g.bw, g.demands.clone(), &Limits::default()).unwrap();
        let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
        if let Some(k) = got {
            assert!(
                sol.lower_bound.ticks <= k && k <= sol.ticks,
                "{} {model}",
                f.name()
            );
            if model == Model::Read1Write1 {
                assert_eq!(sol.ticks, k);
            }
        }
    }
}

#[test]
fn file_names_sort_by_family_and_size() {
    let s = spec(
        Family::Reshard {
            from: 8,
            to: 3,
            in_place: true,
        },
        512,
        3,
    );
    let g = gen::generate(&s).unwrap();
    assert_eq!(
        gen::file_name(&s, g.slots),
        "reshard_n8_8to3_inplace_m512_s3.csv"
    );
    let s = spec(Family::Alltoall { n: 64 }, 512, 3);
    assert_eq!(gen::file_name(&s, 64), "alltoall_n64_m512_s3.csv");
}

fn planted(n: u32, k: u32, cliques: u32, clique_mult: u64, degree: u32) -> Family {
    Family::Planted {
        n,
        k,
        cliques,
        clique_mult,
        degree,
    }
}

/// Planted odd cliques: the manifest's optimum is `k * clique_mult * mult`
/// (the clique's odd set), strictly above Delta, and the solve proves it.
#[test]
fn planted_cliques_have_their_odd_set_optimum_and_are_solved() {
    for (family, mult, seed) in [
        (planted(2000, 5, 20, 4, 4), 1, 0),
        (planted(2000, 3, 100, 7, 12), 1, 1),
        (planted(2000, 9, 5, 3, 6), 1000, 2),
    ] {
        let Family::Planted { k, clique_mult, .. } = family else {
            unreachable!()
        };
        let s = spec(family.clone(), mult, seed);
        let g = gen::generate(&s).unwrap();
        let known = gen::known_optimum(&family, &g, Model::Strict1).expect("planted optimum");
        assert_eq!(known.ticks, k as u64 * clique_mult * mult);
        let inst = Instance::new(
            Model::Strict1,
            g.slots,
            g.bw,
            g.demands.iter().cloned(),
            &Limits::default(),
        )
        .unwrap();
        let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
        assert!(
            sol.lower_bound.ticks > sol.bounds.degree.ticks,
            "{family:?}"
        );
        assert_eq!(sol.ticks, known.ticks, "{family:?}");
        assert_eq!(sol.status.to_string(), "optimal", "{family:?}");
    }
}

/// The planted colouring is re-checked, not trusted: a doctored one (two
/// chunks of a slot in one colour, or a chunk the instance lacks) gives no
/// known optimum.
#[test]
fn doctored_planted_colourings_give_no_known_optimum() {
    let family = planted(200, 5, 3, 3, 3);
    let g = gen::generate(&spec(family.clone(), 1, 4)).unwrap();
    assert!(gen::known_optimum(&family, &g, Model::Strict1).is_some());
    let mut clash = g.clone();
    let p = clash.planted.as_mut().unwrap();
    let c = p.chunks[0].2;
    let other = p
        .chunks
        .iter()
        .position(|x| x.2 != c && (x.0 == p.chunks[0].0 || x.1 == p.chunks[0].0))
        .unwrap();
    p.chunks[other].2 = c;
    assert!(gen::known_optimum(&family, &clash, Model::Strict1).is_none());
    let mut extra = g.clone();
    extra.planted.as_mut().unwrap().chunks.push((150, 151, 0));
    assert!(gen::known_optimum(&family, &extra, Model::Strict1).is_none());
}

#[test]
fn moe_shift_steps_move_the_hot_rank_and_burst() {
    // The hot rank of `rotating` is (seed + step) mod n: it sends and
    // receives the most; a `burst` step carries burst_x times the others'.
    let busiest = |f: Family, seed: u64| {
        let g = gen::generate(&spec(f, 1, seed)).unwrap();
        let mut load = vec![0u64; g.slots as usize];
        for d in &g.demands {
            load[d.src as usize] += d.bits;
            load[d.dst as usize] += d.bits;
        }
        let top = (0..load.len()).max_by_key(|&r| load[r]).unwrap();
        (top as u64, load.iter().sum::<u64>())
    };
    for step in 0..8 {
        assert_eq!(
            busiest(moe_shift(Shape::Rotating, step), 5).0,
            (5 + step) % 8,
            "step {step}"
        );
    }
    let (_, quiet) = busiest(moe_shift(Shape::Burst, 3), 1);
    let (_, burst) = busiest(moe_shift(Shape::Burst, 4), 1);
    assert!(burst > 2 * quiet, "burst {burst} vs {quiet}");
}
