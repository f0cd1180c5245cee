//! First fit for uniform ports: with `q` ports on every slot, dense
//! traffic coloured first fit in one-port ticks (module `first_fit`), `q`
//! consecutive ticks grouped into one (module `port_grouping`'s argument:
//! each slot side is in at most one transfer per one-port tick, so in at
//! most `q` per group).
//!
//! Under READ1_WRITE1 (a send and a receive side per slot, `Delta` the
//! largest side degree) first fit plus König's alternating paths always fit
//! in `Delta` one-port ticks, so the groups number `ceil(Delta / q)`, the
//! port-degree bound. Under STRICT1 (one side per slot) they fit often on
//! skewed traffic but not always (odd cycles), and then there is no
//! schedule here. The multi-port solvers (module `multiport`) give the
//! arcs: the demands, or STRICT1's pieces of its Euler orientation
//! (Hakimi–Kariv, READ1_WRITE1 with `q/2` ports per side). On a skewed
//! two-tier MoE at 2,048 GPUs x 4 ports (19 M chunks) first fit takes
//! 0.7-1 s where König's peeling took 4 s (doc/performance.md).
//!
//! Where traffic is sparse, too large, tight (many arcs, every slot side
//! near `Delta`: `tight`), or first fit leaves more chunks than the
//! paths should repair (uniform traffic in arc order can leave a large
//! share, each path `O(slots)`), [`grouped_ticks`] says `None` and the
//! caller peels.

use super::port_grouping::merge;
use crate::solve::first_fit::fit::{fit_in_order, in_order, Arcs};

/// Most slots for the grouped first fit (its bitsets: `2 x slots x Delta`
/// bits).
pub const MAX_SLOTS: usize = 1 << 16;

/// Most chunks for the grouped first fit: 12 bytes each while it runs
/// (the placements, then the tick lists).
pub const MAX_CHUNKS: u64 = 1 << 27;

/// The repair budget: chunks left for the alternating paths per slot of
/// the chunks placed (`left x slots <= 8 x chunks`: the paths, `O(slots)`
/// each, cost at most a few times the placing).
pub const REPAIR_CHUNKS_PER_SLOT: u64 = 8;

/// Whether [`grouped_ticks`] is tried on `arcs` arcs carrying `chunks` over
/// `slots` slots: at least half of all ordered pairs present (the
/// all-to-all of MoE dispatch), within [`MAX_SLOTS`] and [`MAX_CHUNKS`].
pub fn applies(slots: usize, arcs: usize, chunks: u64) -> bool {
    let n = slots as u64;
    (2..=MAX_SLOTS as u64).contains(&n) && arcs as u64 * 2 >= n * (n - 1) && chunks <= MAX_CHUNKS
}

/// Whether [`grouped_ticks`] gets as far as first fit on `arcs` arcs
/// carrying `chunks` whose slot sides have `degree` (as it counts them:
/// one entry per slot when `strict`, else the sends then the receives):
/// [`applies`] holds and the traffic is not [`tight`]. Callers that build
/// the arcs for it ask first, so traffic it refuses costs one pass and no
/// allocation.
pub fn tried(slots: usize, arcs: usize, chunks: u64, degree: &[u64]) -> bool {
    let delta = degree.iter().copied().max().unwrap_or(0);
    applies(slots, arcs, chunks) && !tight(arcs, degree, delta)
}

/// The arcs `(src, dst)` with `counts` chunks on `slots` slots (one side
/// per slot when `strict`, else READ1_WRITE1's two) coloured first fit in
/// `Delta` one-port ticks, taken in arc order, and grouped `q` ticks at a
/// time: `ceil(Delta / q)` lists of arc ids, each sorted, an arc once per
/// chunk it sends in the group. `None` where [`applies`] does not hold,
/// first fit leaves more chunks than the repair budget
/// ([`REPAIR_CHUNKS_PER_SLOT`]), or (`strict`) the paths do not fit.
pub fn grouped_ticks(
    slots: usize,
    strict: bool,
    ends: &[(u32, u32)],
    counts: &[u64],
    q: u64,
) -> Option<Vec<Vec<u32>>> {
    assert!(q >= 1, "grouped_ticks needs q >= 1");
    let chunks: u64 = counts.iter().sum();
    if !applies(slots, ends.len(), chunks) {
        return None;
    }
    let max_left = chunks / slots as u64 * REPAIR_CHUNKS_PER_SLOT;
    grouped_within(slots, strict, ends, counts, q, max_left)
}

/// [`grouped_ticks`] without the size checks, giving up when first fit
/// leaves more than `max_left` chunks for the alternating paths.
fn grouped_within(
    slots: usize,
    strict: bool,
    ends: &[(u32, u32)],
    counts: &[u64],
    q: u64,
    max_left: u64,
) -> Option<Vec<Vec<u32>>> {
    let receive = if strict { 0 } else { slots };
    let mut degree = vec![0u64; 2 * slots];
    for (&(src, dst), &c) in ends.iter().zip(counts) {
        degree[src as usize] += c;
        degree[receive + dst as usize] += c;
    }
    let delta = degree.iter().copied().max().unwrap_or(0);
    if tight(ends.len(), &degree[..slots + receive], delta) {
        return None;
    }
    let arcs = Arcs {
        slots,
        strict,
        ends: |i: usize| ends[i],
        counts,
    };
    let ticks = fit_in_order(
        arcs,
        usize::try_from(delta).ok()?,
        in_order(counts),
        max_left,
    )?;
    Some(group(ticks, q as usize))
}

/// Fewest arcs for which [`tight`] traffic is left to the peeling.
pub const TIGHT_MIN_ARCS: usize = 1 << 18;

/// Whether first fit is not tried on `arcs` arcs whose slot sides have
/// `degree`, the largest `delta`: many arcs (at least [`TIGHT_MIN_ARCS`])
/// and slot sides filled to at least 3/4 of `delta` on average. First fit
/// in arc order leaves the last arcs of such traffic without a common free
/// tick (a dense log-normal matrix fills its sides to about 0.9 and first
/// fit leaves its budget behind after 40-90% of the arcs, a skewed MoE
/// with hot experts to about 0.4 and fits), and placing them costs as much
/// as the peeling saves.
fn tight(arcs: usize, degree: &[u64], delta: u64) -> bool {
    let sum: u128 = degree.iter().map(|&d| u128::from(d)).sum();
    arcs >= TIGHT_MIN_ARCS && 4 * sum >= 3 * u128::from(delta) * degree.len() as u128
}

/// `q` consecutive tick lists merged into one, sorted (lists the
/// alternating paths appended to are sorted first).
fn group(mut ticks: Vec<Vec<u32>>, q: usize) -> Vec<Vec<u32>> {
    for list in &mut ticks {
        if !list.windows(2).all(|w| w[0] <= w[1]) {
            list.sort_unstable();
        }
    }
    let mut groups = Vec::with_capacity(ticks.len().div_ceil(q));
    let mut rest = ticks.into_iter();
    loop {
        let mut group: Vec<Vec<u32>> = rest.by_ref().take(q).collect();
        if group.is_empty() {
            return groups;
        }
        // Pairwise merges, halving the lists each pass.
        while group.len() > 1 {
            group = group
                .chunks(2)
                .map(|pair| match pair {
                    [a, b] => merge(a, b),
                    [a] => a.clone(),
                    _ => unreachable!("chunks of two"),
                })
                .collect();
        }
        groups.push(group.pop().expect("one list left"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `groups` as a `q`-port READ1_WRITE1 colouring of the arcs:
    /// each sorted, each slot side in at most `q` chunks per group, every
    /// arc's chunks sent exactly, `ceil(Delta / q)` groups.
    fn check(
        slots: usize,
        strict: bool,
        ends: &[(u32, u32)],
        counts: &[u64],
        q: u64,
        groups: &[Vec<u32>],
    ) {
        let receive = if strict { 0 } else { slots };
        let mut sent = vec![0u64; ends.len()];
        let mut degree = vec![0u64; 2 * slots];
        for (&(s, d), &c) in ends.iter().zip(counts) {
            degree[s as usize] += c;
            degree[receive + d as usize] += c;
        }
        let delta = degree.into_iter().max().unwrap_or(0);
        assert_eq!(groups.len() as u64, delta.div_ceil(q));
        for g in groups {
            assert!(g.windows(2).all(|w| w[0] <= w[1]));
            let mut load = vec![0u64; 2 * slots];
            for &a in g {
                let (s, d) = ends[a as usize];
                load[s as usize] += 1;
                load[receive + d as usize] += 1;
                sent[a as usize] += 1;
            }
            assert!(load.iter().all(|&l| l <= q), "a side over {q} ports");
        }
        assert_eq!(sent, counts);
    }

    proptest::proptest! {
        /// Random dense matrices (every ordered pair, 1-6 chunks, one hot
        /// receiver x4): first fit grouped `q` at a time meets
        /// `ceil(Delta / q)`, with or without the alternating paths.
        #[test]
        fn dense_matrices_group_to_the_port_degree(
            n in 3usize..10,
            q in 1u64..5,
            cells in proptest::collection::vec(1u64..7, 81),
        ) {
            let ends: Vec<(u32, u32)> = (0..n as u32)
                .flat_map(|u| (0..n as u32).map(move |v| (u, v)))
                .filter(|&(u, v)| u != v)
                .collect();
            let counts: Vec<u64> = ends
                .iter()
                .zip(&cells)
                .map(|(&(_, v), &c)| if v == 0 { 4 * c } else { c })
                .collect();
            let groups = grouped_within(n, false, &ends, &counts, q, u64::MAX).expect("READ1_WRITE1 fits");
            check(n, false, &ends, &counts, q, &groups);
            if let Some(groups) = grouped_ticks(n, false, &ends, &counts, q) {
                check(n, false, &ends, &counts, q, &groups);
            }
            // STRICT1 (one side per slot) fits or says None.
            if let Some(groups) = grouped_ticks(n, true, &ends, &counts, q) {
                check(n, true, &ends, &counts, q, &groups);
            }
        }
    }

    /// The instance of `first_fit`'s repair test (first fit alone leaves a
    /// chunk): with no repair budget there is no schedule; with one, the
    /// paths complete it.
    #[test]
    fn the_repair_budget_is_kept() {
        let ends = [(2, 3), (0, 1), (2, 4), (0, 4)];
        let counts = [1, 1, 1, 1];
        assert!(grouped_within(5, false, &ends, &counts, 1, 0).is_none());
        let groups = grouped_within(5, false, &ends, &counts, 1, 1).expect("one chunk repaired");
        check(5, false, &ends, &counts, 1, &groups);
    }

    #[test]
    fn many_arcs_near_delta_are_left_to_the_peeling() {
        assert!(tight(TIGHT_MIN_ARCS, &[9, 10, 10, 8], 10));
        assert!(!tight(TIGHT_MIN_ARCS - 1, &[9, 10, 10, 8], 10));
        assert!(!tight(TIGHT_MIN_ARCS, &[2, 10, 3, 1], 10));
        // All-to-all on 513 slots: 262,656 arcs, every side at Delta.
        let n = 513u32;
        let ends: Vec<(u32, u32)> = (0..n)
            .flat_map(|u| (0..n).filter(move |&v| v != u).map(move |v| (u, v)))
            .collect();
        assert!(ends.len() >= TIGHT_MIN_ARCS);
        let counts = vec![2; ends.len()];
        assert!(grouped_ticks(n as usize, false, &ends, &counts, 2).is_none());
    }

    #[test]
    fn sparse_or_tiny_traffic_is_left_to_the_peeling() {
        // A ring on 8 slots: 8 of 56 ordered pairs.
        let ends: Vec<(u32, u32)> = (0..8).map(|v| (v, (v + 1) % 8)).collect();
        assert!(grouped_ticks(8, false, &ends, &[3; 8], 2).is_none());
        assert!(!applies(1, 0, 0));
        assert!(!applies(4, 12, MAX_CHUNKS + 1));
        assert!(applies(4, 12, 100));
    }
}
