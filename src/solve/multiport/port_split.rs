//! Port splitting and König over ports, and the pool mapper: what the
//! multi-port solver ([`super::solver`], whose docs give the method)
//! and STRICT1 König on a bipartite support ([`super::bipartite`]) share.
//!
//! Arcs of chunk counts ([`ArcCount`]) are split over `ports(v)` copies of
//! each slot ([`split_over_ports`]) or grouped `q` ticks at a time when all
//! slots have `q` ports, and coloured by König ([`koenig_over_ports`]);
//! the rounds come back over pools, which [`PoolMapper`] turns into rounds
//! over demands.

use super::port_grouping::group_schedule;
use crate::instance::{Demand, Instance, Limits, Model};
use crate::schedule::Schedule;
use crate::solve::one_port::koenig::delta_schedule;

/// A directed chunk edge to split over ports: `count` chunks from `src` to
/// `dst`, drawn from pool `pool` (see [`PoolMapper`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct ArcCount {
    pub(super) src: u32,
    pub(super) dst: u32,
    pub(super) count: u64,
    pub(super) pool: u32,
}

/// Per-copy counts of chunks `[a, a+m)` laid out round-robin over `p` copies.
fn round_robin(a: u64, m: u64, p: u32) -> Vec<(u32, u64)> {
    let p64 = p as u128;
    // Number of k in [0, x) with k = i (mod p).
    let cnt = |x: u128, i: u128| (x + p64 - 1 - i) / p64;
    let (a, e) = (a as u128, a as u128 + m as u128);
    (0..p)
        .filter_map(|i| {
            let c = (cnt(e, i as u128) - cnt(a, i as u128)) as u64;
            (c > 0).then_some((i, c))
        })
        .collect()
}

/// North-west corner rule: a non-negative matrix with row sums `rows` and
/// column sums `cols` (equal totals), as `(row, col, count)` entries.
fn north_west(rows: &[(u32, u64)], cols: &[(u32, u64)]) -> Vec<(u32, u32, u64)> {
    let (mut i, mut j) = (0, 0);
    let (mut ri, mut cj) = (
        rows.first().map_or(0, |r| r.1),
        cols.first().map_or(0, |c| c.1),
    );
    let mut out = Vec::new();
    while i < rows.len() && j < cols.len() {
        let take = ri.min(cj);
        if take > 0 {
            out.push((rows[i].0, cols[j].0, take));
        }
        ri -= take;
        cj -= take;
        if ri == 0 {
            i += 1;
            ri = rows.get(i).map_or(0, |r| r.1);
        }
        if cj == 0 {
            j += 1;
            cj = cols.get(j).map_or(0, |c| c.1);
        }
    }
    out
}

/// How a slot's chunks are counted out over its copies: the counter
/// policy of [`split_over_ports`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Counters {
    /// Directed (READ1_WRITE1, and STRICT1 after the Euler orientation): a
    /// slot's sent chunks and its received chunks are laid out over its
    /// copies separately, so copy `i` of `v` sends `floor` or `ceil` of
    /// `out(v)/ports(v)` and receives `floor` or `ceil` of `in(v)/ports(v)`.
    PerDirection,
    /// Undirected (STRICT1 with odd ports): a slot's chunks, as sender and
    /// as receiver together, are laid out over its copies once, so each
    /// copy takes part in `floor` or `ceil` of `d(v)/ports(v)` transfers.
    Shared,
}

/// The one-port instance a port split makes: copy-level arcs (`src`, `dst`
/// are copy ids, `pool` the arc's pool) over `copies` copy ids.
pub(super) struct PortSplit {
    pub(super) pieces: Vec<ArcCount>,
    copies: u64,
}

/// Splits `arcs` over `ports(v)` copies of each slot `v` (copy ids of slot
/// `v` start at the sum of the ports of the slots before it); `counters`
/// says how a slot's chunks are spread over its copies. A chunk arc's
/// pieces are matched by the north-west corner rule. Every arc must have a
/// distinct `(src, dst)`.
pub(super) fn split_over_ports(
    slots: usize,
    arcs: &[ArcCount],
    ports: &dyn Fn(usize) -> u32,
    counters: Counters,
) -> PortSplit {
    let mut offset = vec![0u64; slots + 1];
    for v in 0..slots {
        offset[v + 1] = offset[v] + ports(v) as u64;
    }
    // Chunks laid out so far: `at[v]` as sender (or as either, `Shared`),
    // `at[slots + v]` as receiver (`PerDirection`).
    let mut at = vec![0u64; 2 * slots];
    let receiver = |v: usize| match counters {
        Counters::PerDirection => slots + v,
        Counters::Shared => v,
    };
    let mut pieces = Vec::new();
    for arc in arcs {
        let (s, d) = (arc.src as usize, arc.dst as usize);
        let rows = round_robin(at[s], arc.count, ports(s));
        let cols = round_robin(at[receiver(d)], arc.count, ports(d));
        at[s] += arc.count;
        at[receiver(d)] += arc.count;
        for (i, j, c) in north_west(&rows, &cols) {
            pieces.push(ArcCount {
                src: (offset[s] + i as u64) as u32,
                dst: (offset[d] + j as u64) as u32,
                count: c,
                pool: arc.pool,
            });
        }
    }
    PortSplit {
        pieces,
        copies: offset[slots],
    }
}

impl PortSplit {
    /// The copy-level one-port instance under `model`, one demand per piece.
    pub(super) fn instance(&self, model: Model) -> Instance {
        let limits = Limits {
            max_slots: u32::MAX,
            max_demands: u64::MAX,
        };
        Instance::new(
            model,
            self.copies.max(1) as u32,
            1,
            self.pieces.iter().map(|p| Demand {
                src: p.src,
                dst: p.dst,
                bits: p.count,
            }),
            &limits,
        )
        .expect("copy-level instance of a valid instance is valid")
    }

    /// A schedule of [`Self::instance`] as rounds of pool ids (a pool id
    /// once per chunk sent from it in the tick).
    pub(super) fn pool_rounds(
        &self,
        copy_inst: &Instance,
        schedule: &Schedule,
    ) -> Vec<(u64, Vec<u32>)> {
        let mut pool_of = vec![0u32; copy_inst.demands().len()];
        for p in &self.pieces {
            let i = copy_inst
                .demand_index(p.src, p.dst)
                .expect("every piece is a copy-level demand");
            pool_of[i] = p.pool;
        }
        schedule
            .rounds
            .iter()
            .map(|r| {
                (
                    r.repeat,
                    r.demands.iter().map(|&i| pool_of[i as usize]).collect(),
                )
            })
            .collect()
    }
}

/// Solves a directed problem given as arcs with per-slot ports (sends and
/// receives each), by König: on the arcs themselves with `q` consecutive
/// ticks per tick where every slot has the same `q` ports
/// ([`super::port_grouping`]), else on the port split. Returns rounds of
/// pool ids.
pub(super) fn koenig_over_ports(
    slots: usize,
    arcs: &[ArcCount],
    ports: &dyn Fn(usize) -> u32,
) -> Vec<(u64, Vec<u32>)> {
    let q = ports(0);
    if arcs.is_empty() {
        return Vec::new();
    }
    if (1..slots).all(|v| ports(v) == q) {
        return koenig_grouped(slots, arcs, q);
    }
    let split = split_over_ports(slots, arcs, ports, Counters::PerDirection);
    if split.pieces.is_empty() {
        return Vec::new();
    }
    let copy_inst = split.instance(Model::Read1Write1);
    let (schedule, _) = delta_schedule(&copy_inst);
    split.pool_rounds(&copy_inst, &schedule)
}

/// [`koenig_over_ports`] with `q` ports on every slot: König on the arcs
/// as a one-port instance (`Delta` ticks), grouped `q` ticks at a time:
/// `ceil(Delta / q)` ticks. Arcs must have distinct `(src, dst)`.
fn koenig_grouped(slots: usize, arcs: &[ArcCount], q: u32) -> Vec<(u64, Vec<u32>)> {
    let (schedule, pool_of) = koenig_one_port(slots, arcs);
    group_schedule(&schedule, q as u64, &pool_of)
}

/// König on `arcs` (distinct `(src, dst)`) as a one-port READ1_WRITE1
/// instance: its `Delta`-tick schedule over the instance's demands, and
/// the pool of each demand. [`koenig_over_ports`] with one port on every
/// slot side is this schedule with its ids mapped to their pools; the
/// pool mapper reads them through `pool_of` instead
/// ([`PoolMapper::map_ids`]), without a mapped copy of every round.
pub(super) fn koenig_one_port(slots: usize, arcs: &[ArcCount]) -> (Schedule, Vec<u32>) {
    if arcs.is_empty() {
        return (Schedule::new(), Vec::new());
    }
    // Sorted by pair, the arcs keep their order as the instance's demands
    // (distinct pairs: nothing merges), so demand `i` is arc `i`.
    let by_pair = |p: &[ArcCount]| {
        p.windows(2)
            .all(|w| (w[0].src, w[0].dst) <= (w[1].src, w[1].dst))
    };
    let pieces = if by_pair(arcs) {
        arcs.to_vec()
    } else {
        // Arcs by sender, in their order (one pass): STRICT1's oriented
        // arcs come in the order of their edges `{a, b}` (a < b, sorted),
        // so each sender's arcs come out sorted by receiver too; any other
        // order is sorted in full. Distinct pairs: one sorted order.
        let mut pieces = by_sender(slots, arcs);
        if !by_pair(&pieces) {
            pieces.sort_unstable_by_key(|a| (a.src, a.dst));
        }
        pieces
    };
    let split = PortSplit {
        pieces,
        copies: slots as u64,
    };
    let one_port = split.instance(Model::Read1Write1);
    debug_assert!(one_port
        .demands()
        .iter()
        .zip(&split.pieces)
        .all(|(d, a)| (d.src, d.dst) == (a.src, a.dst)));
    let pool_of: Vec<u32> = split.pieces.iter().map(|a| a.pool).collect();
    let (schedule, _) = delta_schedule(&one_port);
    (schedule, pool_of)
}

/// `arcs` ordered by sender (`src < slots`), each sender's in their order
/// (a counting sort).
fn by_sender(slots: usize, arcs: &[ArcCount]) -> Vec<ArcCount> {
    let mut start = vec![0usize; slots + 1];
    for a in arcs {
        start[a.src as usize + 1] += 1;
    }
    for v in 0..slots {
        start[v + 1] += start[v];
    }
    let mut out = vec![
        ArcCount {
            src: 0,
            dst: 0,
            count: 0,
            pool: 0,
        };
        arcs.len()
    ];
    for a in arcs {
        let at = &mut start[a.src as usize];
        out[*at] = *a;
        *at += 1;
    }
    out
}

/// Turns rounds over pools into rounds over demands. A pool is a sequence
/// of one or two `(demand, chunks)`: a STRICT1 edge `{a,b}` is the pool
/// `a->b` then `b->a`; a READ1_WRITE1 demand is its own pool. A round may
/// draw a pool several times per tick (several ports); a round is split
/// where a pool moves on to its next demand, so the result has at most
/// `rounds + 2 * demands` rounds. Each pool's state is one record of 32
/// bytes, aligned to 32, so a round touches one cache line per pool it
/// draws.
pub(super) struct PoolMapper {
    pools: Vec<PoolState>,
}

/// A pool: the demands of its parts, the chunks of the second part, the
/// part being drawn, the chunks left in it, and the draws per tick counted
/// for the current round.
#[derive(Clone, Copy)]
#[repr(align(32))]
struct PoolState {
    demands: [u32; 2],
    second: u64,
    left: u64,
    draws: u32,
    len: u8,
    part: u8,
}

impl PoolState {
    /// Moves past exhausted parts while another part follows.
    fn skip_exhausted(&mut self) {
        if self.left == 0 && self.part + 1 < self.len {
            self.part = 1;
            self.left = self.second;
        }
    }

    /// Takes one chunk, returning its demand (None: exhausted).
    fn take_one(&mut self) -> Option<u32> {
        self.skip_exhausted();
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(self.demands[self.part as usize])
    }
}

impl PoolState {
    /// A pool of one or two parts, none drawn yet.
    fn of(p: &[(u32, u64)]) -> PoolState {
        assert!(p.len() <= 2, "a pool has one or two demands");
        let part = |i: usize| p.get(i).copied().unwrap_or((0, 0));
        PoolState {
            demands: [part(0).0, part(1).0],
            second: part(1).1,
            left: part(0).1,
            draws: 0,
            len: p.len() as u8,
            part: 0,
        }
    }
}

impl PoolMapper {
    /// Pools of one or two parts each.
    pub(super) fn new<'a>(pools: impl IntoIterator<Item = &'a [(u32, u64)]>) -> Self {
        let pools = pools.into_iter().map(PoolState::of).collect();
        PoolMapper { pools }
    }

    /// One of two mappers for two halves of the rounds drawn side by side
    /// (module `port_halves`): the first (`second` false) draws the first
    /// `first[p]` chunks of pool `p` (none past the end of `first`), the
    /// second the rest. The two are built apart, each on the thread that
    /// maps its half.
    pub(super) fn half<'a>(
        pools: impl IntoIterator<Item = &'a [(u32, u64)]>,
        first: &[u64],
        second: bool,
    ) -> PoolMapper {
        let mut out = Vec::with_capacity(first.len());
        for (i, p) in pools.into_iter().enumerate() {
            let f = first.get(i).copied().unwrap_or(0);
            // Parts of the first `f` chunks, or of the rest.
            let (mut parts, mut len) = ([(0, 0); 2], 0);
            let mut to_head = f;
            for &(d, c) in p {
                let h = c.min(to_head);
                to_head -= h;
                let mine = if second { c - h } else { h };
                if mine > 0 {
                    parts[len] = (d, mine);
                    len += 1;
                }
            }
            out.push(PoolState::of(&parts[..len]));
        }
        PoolMapper { pools: out }
    }

    pub(super) fn map(self, rounds: &[(u64, Vec<u32>)]) -> Schedule {
        self.map_with(rounds.iter().map(|(r, ids)| (*r, &ids[..])), |p| p)
    }

    /// [`Self::map`] of `schedule`'s rounds with each id `i` read as pool
    /// `pool_of[i]` (the rounds [`koenig_one_port`] gives).
    pub(super) fn map_ids(self, schedule: &Schedule, pool_of: &[u32]) -> Schedule {
        let rounds = schedule
            .rounds
            .iter()
            .filter(|r| r.repeat > 0)
            .map(|r| (r.repeat, &r.demands[..]));
        self.map_with(rounds, |i| pool_of[i as usize])
    }

    /// [`Self::map`] of rounds of ids, id `i` drawing pool `pool(i)`.
    fn map_with<'r>(
        mut self,
        rounds: impl Iterator<Item = (u64, &'r [u32])>,
        pool: impl Fn(u32) -> u32,
    ) -> Schedule {
        let mut schedule = Schedule::new();
        let mut uses: Vec<(u32, u64)> = Vec::new();
        let mut drawn: Vec<u32> = Vec::new();
        for (repeat, round) in rounds {
            if repeat == 1 {
                // One tick: each draw takes the pool's next chunk, which
                // is what the general steps below give a single tick (a
                // pool drawn `c` times takes `c` chunks of its current
                // demand, or crosses into the next one chunk at a time),
                // in one pass over the round.
                // The pools first, in a loop of loads only, then the
                // draws: each loop's cache misses overlap.
                drawn.clear();
                drawn.extend(round.iter().map(|&i| pool(i)));
                let demands = drawn
                    .iter()
                    .filter_map(|&p| self.pools[p as usize].take_one())
                    .collect();
                schedule.push(1, demands);
                continue;
            }
            // Draws per tick of each pool in this round (counted in place;
            // the order of `uses` does not matter: `Schedule::push` sorts).
            uses.clear();
            for &i in round {
                let p = pool(i);
                let pool = &mut self.pools[p as usize];
                if pool.draws == 0 {
                    uses.push((p, 0));
                }
                pool.draws += 1;
            }
            for (p, c) in uses.iter_mut() {
                let pool = &mut self.pools[*p as usize];
                *c = std::mem::take(&mut pool.draws) as u64;
                // Skip exhausted parts first so `left` is the live one.
                pool.skip_exhausted();
            }
            let mut r = repeat;
            while r > 0 {
                // Ticks for which every pool stays within its current demand.
                let mut step = r;
                for &(p, c) in &uses {
                    let pool = &mut self.pools[p as usize];
                    pool.skip_exhausted();
                    step = step.min((pool.left / c).max(1));
                }
                let mut demands = Vec::new();
                for &(p, c) in &uses {
                    let pool = &mut self.pools[p as usize];
                    if pool.left >= c * step {
                        let d = pool.demands[pool.part as usize];
                        pool.left -= c * step;
                        demands.extend(std::iter::repeat_n(d, c as usize));
                    } else {
                        // step == 1: the tick crosses into the next demand.
                        demands.extend((0..c).filter_map(|_| pool.take_one()));
                    }
                }
                schedule.push(step, demands);
                r -= step;
            }
        }
        schedule
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::rng::SplitMix64;

    /// Each tick of `s` as its sorted demand list.
    fn ticks(s: &Schedule) -> Vec<Vec<u32>> {
        s.rounds
            .iter()
            .flat_map(|r| std::iter::repeat_n(r.demands.clone(), r.repeat as usize))
            .collect()
    }

    /// Pools of `(demand, chunks)` parts.
    type Pools = Vec<Vec<(u32, u64)>>;

    /// Random pools of one or two parts and rounds of pool ids that draw
    /// every chunk (a pool at most twice a tick, runs of equal ticks).
    fn pools_and_rounds(seed: u64) -> (Pools, Vec<(u64, Vec<u32>)>) {
        let mut rng = SplitMix64::new(seed, 3);
        let pools: Pools = (0..20u32)
            .map(|p| {
                let parts = 1 + rng.below(2) as u32;
                (0..parts).map(|k| (2 * p + k, 1 + rng.below(9))).collect()
            })
            .collect();
        let mut left: Vec<u64> = pools.iter().map(|p| p.iter().map(|d| d.1).sum()).collect();
        let mut rounds = Vec::new();
        while left.iter().any(|&l| l > 0) {
            let repeat = 1 + rng.below(3);
            let mut ids = Vec::new();
            for (p, l) in left.iter_mut().enumerate() {
                let draws = rng.below(3).min(*l / repeat);
                *l -= draws * repeat;
                ids.extend(std::iter::repeat_n(p as u32, draws as usize));
            }
            if ids.is_empty() {
                // Whatever is left, one chunk a tick.
                for (p, l) in left.iter_mut().enumerate() {
                    if *l > 0 {
                        *l -= 1;
                        ids.push(p as u32);
                    }
                }
                rounds.push((1, ids));
            } else {
                rounds.push((repeat, ids));
            }
        }
        (pools, rounds)
    }

    /// The one-tick pass of the mapper gives what the general steps give:
    /// rounds mapped as they are and expanded to one round a tick agree
    /// tick by tick, every chunk of every demand sent.
    #[test]
    fn one_tick_rounds_map_as_the_general_steps() {
        for seed in 0..50 {
            let (pools, rounds) = pools_and_rounds(seed);
            let mapper = || PoolMapper::new(pools.iter().map(|p| &p[..]));
            let general = mapper().map(&rounds);
            let one_tick: Vec<(u64, Vec<u32>)> = rounds
                .iter()
                .flat_map(|(r, ids)| std::iter::repeat_n((1, ids.clone()), *r as usize))
                .collect();
            let single = mapper().map(&one_tick);
            assert_eq!(ticks(&general), ticks(&single), "seed {seed}");
            let mut sent = std::collections::BTreeMap::new();
            for t in ticks(&single) {
                for d in t {
                    *sent.entry(d).or_insert(0u64) += 1;
                }
            }
            let want: std::collections::BTreeMap<u32, u64> =
                pools.iter().flatten().copied().collect();
            assert_eq!(sent, want, "seed {seed}");
        }
    }

    /// Mapping the one-port schedule through `pool_of` (no copy of its
    /// rounds) gives the schedule the rounds of pools give, and the halves'
    /// mappers split each pool as one mapper's draws would.
    #[test]
    fn one_port_schedule_through_pools_maps_as_rounds_of_pools() {
        let mut rng = SplitMix64::new(11, 5);
        let n = 24u32;
        let mut arcs = Vec::new();
        let mut pools = Vec::new();
        // Pools of the edges {a, b}: a->b then b->a; both arcs draw.
        for a in 0..n {
            for b in a + 1..n {
                let (ab, ba) = (rng.below(4), rng.below(4));
                if ab + ba == 0 {
                    continue;
                }
                let pool = pools.len() as u32;
                pools.push(vec![(2 * pool, ab), (2 * pool + 1, ba)]);
                let (x, y) = (ab.div_ceil(2) + ba / 2, ab / 2 + ba.div_ceil(2));
                for (src, dst, count) in [(a, b, x), (b, a, y)] {
                    if count > 0 {
                        arcs.push(ArcCount {
                            src,
                            dst,
                            count,
                            pool,
                        });
                    }
                }
            }
        }
        let pools: Pools = pools
            .into_iter()
            .map(|p| p.into_iter().filter(|d| d.1 > 0).collect())
            .collect();
        let slices = || pools.iter().map(|p| &p[..]);
        let one = |_: usize| 1;
        let rounds = koenig_over_ports(n as usize, &arcs, &one);
        let (schedule, pool_of) = koenig_one_port(n as usize, &arcs);
        let through = PoolMapper::new(slices()).map_ids(&schedule, &pool_of);
        assert_eq!(
            PoolMapper::new(slices()).map(&rounds).rounds,
            through.rounds
        );
        // Two halves: the first draws the first chunks of each pool.
        let first: Vec<u64> = pools
            .iter()
            .map(|p| p.iter().map(|d| d.1).sum::<u64>() / 2)
            .collect();
        let (a, b) = (
            PoolMapper::half(slices(), &first, false),
            PoolMapper::half(slices(), &first, true),
        );
        for (p, pool) in pools.iter().enumerate() {
            let total: u64 = pool.iter().map(|d| d.1).sum();
            let drawn = |m: &PoolMapper| {
                let s = m.pools[p];
                s.left + s.second
            };
            assert_eq!(
                (drawn(&a), drawn(&b)),
                (first[p], total - first[p]),
                "pool {p}"
            );
        }
    }

    #[test]
    fn arcs_by_sender_keep_their_order() {
        let arc = |src, dst| ArcCount {
            src,
            dst,
            count: 1,
            pool: 0,
        };
        let arcs = [
            arc(0, 1),
            arc(1, 0),
            arc(0, 2),
            arc(2, 0),
            arc(1, 2),
            arc(2, 1),
        ];
        let got: Vec<(u32, u32)> = by_sender(3, &arcs).iter().map(|a| (a.src, a.dst)).collect();
        assert_eq!(got, [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]);
    }
}
