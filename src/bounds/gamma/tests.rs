//! Tests of the odd-set search against brute force (module docs of `super`).

use super::flow::Cap;
use super::*;
use proptest::prelude::*;

fn degrees(n: usize, edges: &[(u32, u32, u64)]) -> Vec<u128> {
    let mut d = vec![0u128; n];
    for &(a, b, m) in edges {
        if a != b && (a as usize) < n && (b as usize) < n {
            d[a as usize] += u128::from(m);
            d[b as usize] += u128::from(m);
        }
    }
    d
}

fn max_deg(n: usize, edges: &[(u32, u32, u64)]) -> u64 {
    degrees(n, edges).into_iter().max().unwrap_or(0) as u64
}

fn inside_of(set: &[u32], edges: &[(u32, u32, u64)]) -> u128 {
    edges
        .iter()
        .filter(|&&(a, b, _)| a != b && set.contains(&a) && set.contains(&b))
        .map(|&(_, _, m)| u128::from(m))
        .sum()
}

/// Checks `max_odd_density` against brute force for one instance and
/// one `delta >= Delta`; returns whether a set was expected.
fn check(n: usize, edges: &[(u32, u32, u64)], delta: u64) -> bool {
    check_with(n, edges, delta, Tuning::FULL)
}

fn tuning(bits: u64) -> Tuning {
    Tuning {
        greedy_start: bits & 1 != 0,
        prune: bits & 2 != 0,
        shortcut: bits & 4 != 0,
        components: bits & 8 != 0,
        reduce: bits & 16 != 0,
    }
}

fn check_with(n: usize, edges: &[(u32, u32, u64)], delta: u64, tuning: Tuning) -> bool {
    let got = search(n, edges, delta, tuning, None).best;
    let (bset, be) = brute_force_gamma(n, edges).expect("n in 3..=20");
    let bs = bset.len() as u128;
    let be = u128::from(be);
    // Gamma > delta  <=>  2E > delta (|S| - 1)
    let expect = 2 * be > u128::from(delta) * (bs - 1);
    match got {
        None => assert!(
            !expect,
            "missed odd set {bset:?} (E={be}) n={n} edges={edges:?} delta={delta} {tuning:?}"
        ),
        Some(r) => {
            assert!(
                expect,
                "returned {r:?} but brute force Gamma <= delta; n={n} edges={edges:?}"
            );
            let s = &r.slots;
            assert!(s.len() >= 3 && s.len() % 2 == 1, "bad size {s:?}");
            assert!(
                s.windows(2).all(|w| w[0] < w[1]),
                "not sorted/distinct {s:?}"
            );
            assert!(s.iter().all(|&v| (v as usize) < n));
            let e = inside_of(s, edges);
            assert_eq!(e, u128::from(r.inside), "inside mismatch for {s:?}");
            let ss = s.len() as u128;
            assert_eq!(
                2 * e * (bs - 1),
                2 * be * (ss - 1),
                "density differs: got {r:?}, brute {bset:?} E={be}; n={n} edges={edges:?} {tuning:?}"
            );
        }
    }
    expect
}

fn complete(n: u32, m: u64) -> Vec<(u32, u32, u64)> {
    let mut e = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            e.push((a, b, m));
        }
    }
    e
}

#[test]
fn k5_multiplicity_m() {
    for m in [1u64, 2, 7, 1000, 1 << 40] {
        let e = complete(5, m);
        let r = max_odd_density(5, &e, 4 * m).expect("Gamma = 5m > 4m");
        assert_eq!(r.slots, vec![0, 1, 2, 3, 4]);
        assert_eq!(r.inside, 10 * m);
    }
}

#[test]
fn complete_graphs() {
    for n in 3u32..=15 {
        let e = complete(n, 1);
        let r = max_odd_density(n as usize, &e, u64::from(n - 1));
        if n % 2 == 1 {
            let r = r.expect("odd K_n: Gamma = n > n-1");
            assert_eq!(r.slots, (0..n).collect::<Vec<_>>());
            assert_eq!(r.inside, u64::from(n * (n - 1) / 2));
        } else {
            // Best odd set is K_{n-1}: Gamma = n-1 = Delta.
            assert_eq!(r, None, "K_{n}");
        }
    }
}

fn petersen() -> Vec<(u32, u32, u64)> {
    let mut e = Vec::new();
    for i in 0..5u32 {
        e.push((i, (i + 1) % 5, 1));
        e.push((i, i + 5, 1));
        e.push((i + 5, (i + 2) % 5 + 5, 1));
    }
    e
}

#[test]
fn petersen_is_none() {
    let e = petersen();
    assert_eq!(max_deg(10, &e), 3);
    assert_eq!(max_odd_density(10, &e, 3), None);
    let (s, inside) = brute_force_gamma(10, &e).unwrap();
    // Gamma = 3 (e.g. the whole... odd sets only: 9 vertices, 12 edges -> 3)
    assert_eq!(2 * u128::from(inside), 3 * (s.len() as u128 - 1));
    // Heavier Petersen: still Gamma = Delta.
    let e5: Vec<_> = e.iter().map(|&(a, b, _)| (a, b, 5)).collect();
    assert_eq!(max_odd_density(10, &e5, 15), None);
}

#[test]
fn triangles() {
    let r = max_odd_density(3, &[(0, 1, 1), (1, 2, 2), (2, 0, 3)], 5).unwrap();
    assert_eq!(
        r,
        OddSetDensity {
            slots: vec![0, 1, 2],
            inside: 6
        }
    );
    // Path: Gamma = 3 = Delta.
    assert_eq!(max_odd_density(3, &[(0, 1, 1), (1, 2, 2)], 3), None);
    // Duplicated pairs add up, direction does not matter.
    let r = max_odd_density(
        3,
        &[(0, 1, 1), (1, 0, 1), (1, 2, 2), (0, 2, 1), (2, 0, 1)],
        4,
    )
    .unwrap();
    assert_eq!(r.inside, 6);
    // Huge multiplicities.
    let m = 1u64 << 62;
    let r = max_odd_density(3, &[(0, 1, m), (1, 2, m), (0, 2, m)], 2 * m).unwrap();
    assert_eq!(r.inside, 3 * m);
    // Delta = 2^65 - 2 exceeds u64, the caller's delta is raised to it; the
    // triangle is denser, but its E(S) = 3 (2^64 - 1) passes u64 too: no
    // set is returned with a saturated count (DESIGN.md §10), and the
    // search says it is incomplete.
    let huge = [(0, 1, u64::MAX), (1, 2, u64::MAX), (0, 2, u64::MAX)];
    assert_eq!(max_odd_density(3, &huge, u64::MAX), None);
    let r = max_odd_density_until(3, &huge, u64::MAX, None);
    assert_eq!((r.best, r.complete), (None, false));
    assert_eq!(quick_odd_density(3, &huge, 0), None);
    // Just inside u64: E(S) = 3 x (2^64 - 1) / 3.
    let m = u64::MAX / 3;
    let r = max_odd_density(3, &[(0, 1, m), (1, 2, m), (0, 2, m)], 2 * m).unwrap();
    assert_eq!(r.inside, 3 * m);
}

#[test]
fn disconnected_and_degenerate() {
    assert_eq!(max_odd_density(0, &[], 0), None);
    assert_eq!(max_odd_density(1, &[], 0), None);
    assert_eq!(max_odd_density(2, &[(0, 1, 5)], 5), None);
    assert_eq!(max_odd_density(10, &[], 0), None);
    // Invalid entries ignored: self-loop, out of range, zero multiplicity.
    assert_eq!(
        max_odd_density(3, &[(0, 0, 9), (0, 7, 9), (0, 1, 0), (1, 2, 1)], 1),
        None
    );
    // Two disjoint triangles plus isolated vertices: Gamma = 3 > 2.
    let e = [
        (0, 1, 1),
        (1, 2, 1),
        (0, 2, 1),
        (5, 6, 1),
        (6, 7, 1),
        (5, 7, 1),
    ];
    let r = max_odd_density(9, &e, 2).unwrap();
    assert_eq!(r.inside, 3);
    assert!(r.slots == vec![0, 1, 2] || r.slots == vec![5, 6, 7]);
    // Different densities in two components.
    let mut e = complete(5, 2);
    e.extend([(5, 6, 5), (6, 7, 5), (5, 7, 5)]);
    let r = max_odd_density(8, &e, 10).unwrap();
    assert_eq!(
        r,
        OddSetDensity {
            slots: vec![5, 6, 7],
            inside: 15
        }
    );
    check(8, &e, 10);
}

#[test]
fn two_odd_cliques_joined() {
    // K5 x3 (Gamma 15) and K3 x4 (Gamma 12), joined by one edge.
    let mut e = complete(5, 3);
    e.extend([(5, 6, 4), (6, 7, 4), (5, 7, 4), (4, 5, 1)]);
    let d = max_deg(8, &e);
    assert_eq!(d, 13);
    let r = max_odd_density(8, &e, d).unwrap();
    assert_eq!(
        r,
        OddSetDensity {
            slots: vec![0, 1, 2, 3, 4],
            inside: 30
        }
    );
    check(8, &e, d);
    // K7 x1 (Gamma 7) and K3 x3 (Gamma 9) sharing nothing, a path between.
    let mut e = complete(7, 1);
    e.extend([(7, 8, 3), (8, 9, 3), (7, 9, 3), (6, 7, 1)]);
    let d = max_deg(10, &e);
    let r = max_odd_density(10, &e, d).unwrap();
    assert_eq!(
        r,
        OddSetDensity {
            slots: vec![7, 8, 9],
            inside: 9
        }
    );
    check(10, &e, d);
}

#[test]
fn delta_above_and_below_true_degree() {
    let e = complete(5, 1); // Gamma 5, Delta 4
    assert!(max_odd_density(5, &e, 4).is_some());
    assert_eq!(max_odd_density(5, &e, 5), None);
    assert_eq!(max_odd_density(5, &e, u64::MAX), None);
    // delta below the true degree is raised to it.
    assert!(max_odd_density(5, &e, 0).is_some());
    assert_eq!(max_odd_density(4, &complete(4, 1), 0), None);
}

#[test]
fn brute_force_tie_breaks() {
    // Two equal triangles: the lexicographically smaller wins.
    let e = [
        (3, 4, 1),
        (4, 5, 1),
        (3, 5, 1),
        (0, 1, 1),
        (1, 2, 1),
        (0, 2, 1),
    ];
    assert_eq!(brute_force_gamma(6, &e), Some((vec![0, 1, 2], 3)));
    // K5: the whole set (density 5) beats every triangle (3).
    assert_eq!(
        brute_force_gamma(5, &complete(5, 1)),
        Some((vec![0, 1, 2, 3, 4], 10))
    );
    // No edges: smallest triple, E = 0.
    assert_eq!(brute_force_gamma(4, &[]), Some((vec![0, 1, 2], 0)));
    assert_eq!(brute_force_gamma(2, &[]), None);
    assert_eq!(brute_force_gamma(21, &[]), None);
}

/// Small deterministic PRNG (splitmix64) for the non-proptest checks.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn random_graph(rng: &mut Rng, n: usize) -> Vec<(u32, u32, u64)> {
    let count = rng.below(3 * n as u64 + 1) as usize;
    let heavy = rng.below(4) == 0;
    let mut e = Vec::new();
    for _ in 0..count {
        let a = rng.below(n as u64) as u32;
        let b = ((u64::from(a) + 1 + rng.below(n as u64 - 1)) % n as u64) as u32;
        let m = if heavy && rng.below(3) == 0 {
            1 + rng.below(1_000_000)
        } else {
            1 + rng.below(5)
        };
        e.push((a, b, m));
    }
    // Sometimes plant a dense odd set.
    if rng.below(3) == 0 {
        let size = 3 + 2 * rng.below(((n as u64) - 1) / 2) as usize;
        let size = size.min(n - (1 - n % 2));
        let m = 1 + rng.below(4);
        let off = rng.below(n as u64) as u32;
        for i in 0..size as u32 {
            for j in i + 1..size as u32 {
                e.push(((i + off) % n as u32, (j + off) % n as u32, m));
            }
        }
    }
    e
}

#[test]
fn random_against_brute_force_both_outcomes() {
    let mut rng = Rng(12345);
    let (mut yes, mut no) = (0, 0);
    for _ in 0..3000 {
        let n = 3 + rng.below(12) as usize;
        let e = random_graph(&mut rng, n);
        let d = max_deg(n, &e);
        if check(n, &e, d) {
            yes += 1;
        } else {
            no += 1;
        }
        // Also with a larger delta, and with the speed-ups switched off.
        check(n, &e, d + rng.below(1 + d / 4));
        for bits in 0..31 {
            check_with(n, &e, d, tuning(bits));
        }
    }
    assert!(
        yes > 300 && no > 300,
        "coverage: {yes} with Gamma > Delta, {no} without"
    );
}

/// Stress run: 40 000 instances of up to 16 slots, every combination of
/// speed-ups (7 s in a release build: part of every test run).
#[test]
fn stress_against_brute_force() {
    let mut rng = Rng(987_654_321);
    for _ in 0..40_000 {
        let n = 3 + rng.below(14) as usize;
        let e = random_graph(&mut rng, n);
        let d = max_deg(n, &e);
        check(n, &e, d);
        check_with(n, &e, d, tuning(rng.below(32)));
    }
}

/// Brute-force minimum cut between a and b in a small flow network.
fn brute_min_cut(nn: usize, edges: &[(u32, u32, u128)], a: usize, b: usize) -> u128 {
    let mut best = u128::MAX;
    for mask in 0usize..(1 << nn) {
        if mask & (1 << a) == 0 || mask & (1 << b) != 0 {
            continue;
        }
        let c = edges
            .iter()
            .filter(|&&(x, y, _)| ((mask >> x) & 1) != ((mask >> y) & 1))
            .map(|&(_, _, c)| c)
            .sum();
        best = best.min(c);
    }
    best
}

fn check_cut_tree<C: Cap>(seed: u64) {
    let mut rng = Rng(seed);
    for round in 0..1200 {
        let nn = 2 + rng.below(9) as usize;
        let mut edges = Vec::new();
        for _ in 0..rng.below(3 * nn as u64) {
            let a = rng.below(nn as u64) as u32;
            let b = ((u64::from(a) + 1 + rng.below(nn as u64 - 1)) % nn as u64) as u32;
            edges.push((a, b, u128::from(1 + rng.below(6))));
        }
        let mut net = FlowNet::<C>::new(nn, &edges);
        // Plain Gusfield, and with the union-find shortcut at assorted
        // thresholds (including ones below some node capacities).
        let theta = match round % 3 {
            0 => None,
            1 => Some(u128::from(rng.below(12))),
            _ => net.node_cap.iter().map(|c| c.widen()).max(),
        };
        let (par, fl, _) = gusfield(&mut net, theta);
        for i in 1..nn {
            // The fundamental cut of tree edge (i, par[i]) is a minimum
            // i - par[i] cut of value fl[i].
            let mut below = vec![false; nn];
            for (v, slot) in below.iter_mut().enumerate() {
                let mut x = v;
                let mut steps = 0;
                while x != 0 && x != i && steps <= nn {
                    x = par[x];
                    steps += 1;
                }
                *slot = x == i;
            }
            assert!(!below[par[i]]);
            let cut: u128 = edges
                .iter()
                .filter(|&&(x, y, _)| below[x as usize] != below[y as usize])
                .map(|&(_, _, c)| c)
                .sum();
            assert_eq!(cut, fl[i], "fundamental cut value");
            assert_eq!(
                brute_min_cut(nn, &edges, i, par[i]),
                fl[i],
                "tree weight is the min cut"
            );
        }
    }
}

#[test]
fn gusfield_gives_a_cut_tree() {
    check_cut_tree::<u64>(777);
    check_cut_tree::<u128>(778);
}

fn check_max_flow<C: Cap>(seed: u64) {
    let mut rng = Rng(seed);
    for _ in 0..300 {
        let nn = 2 + rng.below(8) as usize;
        let mut edges = Vec::new();
        for _ in 0..rng.below(4 * nn as u64) {
            let a = rng.below(nn as u64) as u32;
            let b = ((u64::from(a) + 1 + rng.below(nn as u64 - 1)) % nn as u64) as u32;
            edges.push((a, b, u128::from(rng.below(1 << 20))));
        }
        let mut net = FlowNet::<C>::new(nn, &edges);
        // Several flows on the same network: restoring must be complete.
        for _ in 0..3 {
            let s = rng.below(nn as u64) as usize;
            let t = (s + 1 + rng.below(nn as u64 - 1) as usize) % nn;
            let f = net.max_flow(s, t).widen();
            assert_eq!(f, brute_min_cut(nn, &edges, s, t));
            // The reported source side is a cut of that value.
            let cut: u128 = edges
                .iter()
                .filter(|&&(x, y, _)| net.source_side(x as usize) != net.source_side(y as usize))
                .map(|&(_, _, c)| c)
                .sum();
            assert!(net.source_side(s) && !net.source_side(t));
            assert_eq!(cut, f);
        }
    }
}

#[test]
fn max_flow_matches_brute_force() {
    check_max_flow::<u64>(99);
    check_max_flow::<u128>(100);
}

#[test]
fn planted_clique_in_sparse_graph() {
    let mut rng = Rng(4242);
    let n = 300usize;
    let mut e = Vec::new();
    for _ in 0..1200 {
        let a = rng.below(n as u64) as u32;
        let b = ((u64::from(a) + 1 + rng.below(n as u64 - 1)) % n as u64) as u32;
        e.push((a, b, 1 + rng.below(3)));
    }
    let clique: Vec<u32> = (0..9).map(|i| 7 + 31 * i).collect();
    for (i, &a) in clique.iter().enumerate() {
        for &b in &clique[i + 1..] {
            e.push((a, b, 1000));
        }
    }
    let d = max_deg(n, &e);
    let r = max_odd_density(n, &e, d).unwrap();
    let e_s = inside_of(&r.slots, &e);
    assert_eq!(u128::from(r.inside), e_s);
    // At least the clique's density (36000 * 2 / 8 = 9000, plus noise).
    assert!(2 * e_s * 8 >= 72_000 * (r.slots.len() as u128 - 1));
    for &v in &clique {
        assert!(r.slots.contains(&v));
    }
}

fn edge_strategy(n: u32) -> impl Strategy<Value = (u32, u32, u64)> {
    (
        0..n,
        1..n,
        prop_oneof![5 => 1u64..=5, 1 => 1u64..=1_000_000],
    )
        .prop_map(move |(a, off, m)| (a, (a + off) % n, m))
}

fn graph_strategy() -> impl Strategy<Value = (usize, Vec<(u32, u32, u64)>)> {
    (3usize..=14).prop_flat_map(|n| {
        let max_edges = n * (n - 1);
        (
            Just(n),
            prop::collection::vec(edge_strategy(n as u32), 0..=max_edges),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn prop_matches_brute_force((n, edges) in graph_strategy(), extra in 0u64..4, bits in 0u64..32) {
        let d = max_deg(n, &edges);
        check(n, &edges, d);
        check(n, &edges, d + extra);
        check_with(n, &edges, d, tuning(bits));
    }

    /// Multiplicities near 2^56: the flows run on u128 capacities.
    #[test]
    fn prop_huge_multiplicities(
        n in 3usize..=12,
        raw in prop::collection::vec((0u32..12, 1u32..12, 1u64..=(1 << 56)), 0..=36),
        bits in 0u64..32,
    ) {
        let edges: Vec<_> = raw.into_iter().map(|(a, off, m)| (a % n as u32, (a + off) % n as u32, m)).filter(|e| e.0 != e.1).collect();
        let d = max_deg(n, &edges);
        check(n, &edges, d);
        check_with(n, &edges, d, tuning(bits));
    }

    #[test]
    fn prop_planted_odd_set((n, mut edges) in graph_strategy(), m in 1u64..=6, seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let half = (n as u64 - 1) / 2;
        let size = (3 + 2 * rng.below(half)) as usize;
        let size = size.min(if n % 2 == 1 { n } else { n - 1 });
        let mut verts: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            verts.swap(i, rng.below(i as u64 + 1) as usize);
        }
        for i in 0..size {
            for j in i + 1..size {
                edges.push((verts[i], verts[j], m));
            }
        }
        let d = max_deg(n, &edges);
        check(n, &edges, d);
    }
}

/// Unions of paths and cycles (the closed-form components) and one dense
/// part, against brute force with every speed-up combination.
#[test]
fn paths_and_cycles_against_brute_force() {
    let mut rng = Rng(99);
    for _ in 0..1500 {
        let n = 3 + rng.below(12) as usize;
        let mut edges = Vec::new();
        let mut v = 0u32;
        while (v as usize) + 2 <= n {
            let len = 2 + rng.below((n - v as usize - 1) as u64) as u32;
            let m_max = [1, 4, 1000][rng.below(3) as usize];
            for i in 0..len - 1 {
                edges.push((v + i, v + i + 1, 1 + rng.below(m_max)));
            }
            if len >= 3 && rng.below(3) != 0 {
                edges.push((v, v + len - 1, 1 + rng.below(m_max)));
            }
            // Sometimes a chord, so the component is no longer a cycle.
            if len >= 4 && rng.below(4) == 0 {
                edges.push((v, v + 2, 1 + rng.below(m_max)));
            }
            v += len;
        }
        let d = max_deg(n, &edges);
        check(n, &edges, d);
        for bits in [0, 8, 9, 11, 16, 24, 25, 27] {
            check_with(n, &edges, d, tuning(bits));
        }
    }
}

/// Random small multigraphs built from the pieces that blocks and chains
/// are about: dense cores (some sharing a vertex: cut vertices), long
/// chains between existing vertices (some closing a cycle through one
/// vertex), pendant paths, and bridges; chains heavy and cores light or the
/// other way round. At most `n` slots.
fn chained_graph(rng: &mut Rng, n: usize) -> Vec<(u32, u32, u64)> {
    let heavy_chains = rng.below(2) == 0;
    let (core_m, chain_m) = if heavy_chains { (5, 1000) } else { (1000, 5) };
    let mut e = Vec::new();
    let mut next = 0u32;
    let fresh = |next: &mut u32| {
        *next += 1;
        *next - 1
    };
    while (next as usize) < n {
        let left = n - next as usize;
        let pick = |rng: &mut Rng, next: u32| rng.below(u64::from(next)) as u32;
        match rng.below(5) {
            // A core of 2-4 slots, attached at an existing slot (a cut vertex) or not.
            0 | 1 => {
                let size = (2 + rng.below(3) as usize).min(left + usize::from(next > 0));
                let mut vs = Vec::new();
                if next > 0 && rng.below(3) != 0 {
                    vs.push(pick(rng, next));
                }
                while vs.len() < size && (next as usize) < n {
                    vs.push(fresh(&mut next));
                }
                for i in 0..vs.len() {
                    for j in i + 1..vs.len() {
                        if rng.below(4) != 0 {
                            e.push((vs[i], vs[j], 1 + rng.below(core_m)));
                        }
                    }
                }
            }
            // A chain of new slots between two existing ones (maybe the same).
            2 | 3 if next > 0 => {
                let (u, v) = (pick(rng, next), pick(rng, next));
                let len = (rng.below(6) as usize).min(left);
                let mut prev = u;
                for _ in 0..len {
                    let w = fresh(&mut next);
                    e.push((prev, w, 1 + rng.below(chain_m)));
                    prev = w;
                }
                if prev != v {
                    e.push((prev, v, 1 + rng.below(chain_m)));
                }
            }
            // A pendant path, or a lone slot.
            _ => {
                let mut prev = if next > 0 {
                    pick(rng, next)
                } else {
                    fresh(&mut next)
                };
                for _ in 0..rng.below(4).min(n as u64 - u64::from(next)) {
                    let w = fresh(&mut next);
                    e.push((prev, w, 1 + rng.below(chain_m)));
                    prev = w;
                }
            }
        }
    }
    e
}

/// Whether the slots of `mask` induce a 2-connected graph (connected, and
/// still connected without any one of its slots) in the support of `w`
/// (`n x n` multiplicities).
fn two_connected(n: usize, w: &[u128], mask: usize) -> bool {
    let connected = |mask: usize| {
        let Some(root) = (0..n).find(|&v| mask >> v & 1 == 1) else {
            return true;
        };
        let mut seen = 1usize << root;
        let mut todo = vec![root];
        while let Some(v) = todo.pop() {
            for u in 0..n {
                if mask >> u & 1 == 1 && seen >> u & 1 == 0 && w[v * n + u] > 0 {
                    seen |= 1 << u;
                    todo.push(u);
                }
            }
        }
        seen == mask
    };
    connected(mask)
        && (0..n)
            .filter(|&v| mask >> v & 1 == 1)
            .all(|v| connected(mask & !(1 << v)))
}

/// The lemma behind blocks and chains (module docs), by brute force: when
/// Gamma > Delta, every smallest odd set of density Gamma induces a
/// 2-connected subgraph. (Hence it lies in one block, and holds a slot with
/// two neighbours in its block only together with both.) Without the
/// assumption Gamma > Delta it fails: two K4s sharing a slot have Gamma = 4
/// on all 7 slots (a cut vertex) and Delta = 6.
#[test]
fn smallest_densest_odd_sets_are_two_connected() {
    let mut k4s = complete(4, 1);
    k4s.extend(
        complete(4, 1)
            .into_iter()
            .map(|(a, b, m)| (a + 3, b + 3, m)),
    );
    let (set, inside) = brute_force_gamma(7, &k4s).unwrap();
    assert_eq!((set.len(), inside), (7, 12));

    let mut rng = Rng(2024);
    let mut dense = 0;
    for round in 0..4000 {
        let n = 3 + rng.below(11) as usize;
        let e = if round % 2 == 0 {
            chained_graph(&mut rng, n)
        } else {
            random_graph(&mut rng, n)
        };
        let mut w = vec![0u128; n * n];
        for &(a, b, m) in &e {
            w[a as usize * n + b as usize] += u128::from(m);
            w[b as usize * n + a as usize] += u128::from(m);
        }
        let delta = (0..n)
            .map(|v| w[v * n..(v + 1) * n].iter().sum::<u128>())
            .max()
            .unwrap_or(0);
        let inside = |mask: usize| -> u128 {
            let mut s = 0;
            for a in 0..n {
                for b in a + 1..n {
                    if mask >> a & 1 == 1 && mask >> b & 1 == 1 {
                        s += w[a * n + b];
                    }
                }
            }
            s
        };
        // (2E, |S| - 1) of the densest odd sets, and the smallest size.
        let sets: Vec<(usize, u128, u128)> = (0..1usize << n)
            .filter(|m| m.count_ones() >= 3 && m.count_ones() % 2 == 1)
            .map(|m| (m, 2 * inside(m), u128::from(m.count_ones() - 1)))
            .collect();
        let &(_, bn, bd) = sets
            .iter()
            .max_by(|x, y| (x.1 * y.2).cmp(&(y.1 * x.2)))
            .expect("n >= 3");
        if bn <= delta * bd {
            continue; // Gamma <= Delta: nothing claimed
        }
        dense += 1;
        let best: Vec<&(usize, u128, u128)> =
            sets.iter().filter(|s| s.1 * bd == bn * s.2).collect();
        let smallest = best.iter().map(|s| s.2).min().unwrap();
        for &&(mask, _, d) in &best {
            if d == smallest {
                assert!(
                    two_connected(n, &w, mask),
                    "smallest densest set {mask:b} not 2-connected: n={n} edges={e:?}"
                );
            }
        }
    }
    assert!(dense > 300, "coverage: {dense} graphs with Gamma > Delta");
}

/// Blocks and chains against brute force on graphs made of cores, chains,
/// cut vertices and bridges, with every combination of the speed-ups.
#[test]
fn chained_graphs_against_brute_force() {
    let mut rng = Rng(31337);
    let (mut yes, mut no) = (0, 0);
    for _ in 0..3000 {
        let n = 3 + rng.below(14) as usize;
        let e = chained_graph(&mut rng, n);
        let d = max_deg(n, &e);
        if check(n, &e, d) {
            yes += 1;
        } else {
            no += 1;
        }
        check(n, &e, d + rng.below(1 + d / 8));
        check_with(n, &e, d, tuning(rng.below(32)));
    }
    assert!(
        yes > 300 && no > 300,
        "coverage: {yes} with Gamma > Delta, {no} without"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The same, generated by proptest (shrinks to a small failing case).
    #[test]
    fn prop_chained_graphs(n in 3usize..=16, seed in any::<u64>(), bits in 0u64..32) {
        let mut rng = Rng(seed);
        let edges = chained_graph(&mut rng, n);
        let d = max_deg(n, &edges);
        check(n, &edges, d);
        check_with(n, &edges, d, tuning(bits));
    }
}

/// An odd ring of `n` slots at multiplicity `m` with `chords` chords of
/// multiplicity `cm` from slot `7c` to `7c + n/2`, and a triangle of
/// multiplicity `tm` hanging off slot 1 (a cut vertex) when `tm > 0`.
fn ring_with_chords(
    n: u32,
    m: u64,
    chords: u32,
    cm: u64,
    tm: u64,
) -> (usize, Vec<(u32, u32, u64)>) {
    let mut e: Vec<(u32, u32, u64)> = (0..n).map(|i| (i, (i + 1) % n, m)).collect();
    e.extend((0..chords).map(|c| (7 * c, 7 * c + n / 2, cm)));
    let mut slots = n;
    if tm > 0 {
        e.extend([(1, n, tm), (n, n + 1, tm), (1, n + 1, tm)]);
        slots += 2;
    }
    (slots as usize, e)
}

/// Rings with chords and a hanging triangle, beyond brute force: blocks and
/// chains give the same density as the search without them.
#[test]
fn rings_with_chords_match_the_unreduced_search() {
    let cases = [
        ring_with_chords(301, 1000, 10, 1, 0),
        ring_with_chords(301, 1000, 10, 700, 0),
        ring_with_chords(301, 3, 20, 2, 0),
        ring_with_chords(301, 1000, 10, 1, 900),
        ring_with_chords(1001, 1000, 25, 1, 0),
        ring_with_chords(1001, 10, 40, 9, 6),
        ring_with_chords(303, 1000, 0, 1, 1),
    ];
    let plain = Tuning {
        reduce: false,
        ..Tuning::FULL
    };
    for (n, e) in cases {
        let d = max_deg(n, &e);
        let fast = search(n, &e, d, Tuning::FULL, None);
        let slow = search(n, &e, d, plain, None);
        assert!(fast.complete && slow.complete);
        let density = |r: &Option<OddSetDensity>| {
            r.as_ref().map(|r| {
                assert_eq!(u128::from(r.inside), inside_of(&r.slots, &e));
                assert!(r.slots.len() % 2 == 1 && r.slots.len() >= 3);
                Ratio::new(2 * u128::from(r.inside), r.slots.len() as u128 - 1)
            })
        };
        match (density(&fast.best), density(&slow.best)) {
            (Some(a), Some(b)) => assert_eq!(a.p * b.q, b.p * a.q, "n={n}"),
            (a, b) => assert_eq!(a.is_some(), b.is_some(), "n={n}"),
        }
    }
}
