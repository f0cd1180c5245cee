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
    // Sorted by pair, the arcs keep their order as the instance's demands
    // (distinct pairs: nothing merges), so demand `i` is arc `i`.
    let mut pieces = arcs.to_vec();
    if pieces
        .windows(2)
        .any(|w| (w[0].src, w[0].dst) > (w[1].src, w[1].dst))
    {
        pieces.sort_unstable_by_key(|a| (a.src, a.dst));
    }
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
    group_schedule(&schedule, q as u64, &pool_of)
}

/// Turns rounds over pools into rounds over demands. A pool is a sequence
/// of one or two `(demand, chunks)`: a STRICT1 edge `{a,b}` is the pool
/// `a->b` then `b->a`; a READ1_WRITE1 demand is its own pool. A round may
/// draw a pool several times per tick (several ports); a round is split
/// where a pool moves on to its next demand, so the result has at most
/// `rounds + 2 * demands` rounds. Each pool's state is one record, so a
/// round touches one cache line per pool it draws.
pub(super) struct PoolMapper {
    pools: Vec<PoolState>,
}

/// A pool: its parts, the part being drawn, the chunks left in it, and the
/// draws per tick counted for the current round.
#[derive(Clone, Copy)]
struct PoolState {
    parts: [(u32, u64); 2],
    len: u8,
    part: u8,
    draws: u32,
    left: u64,
}

impl PoolState {
    /// Moves past exhausted parts while another part follows.
    fn skip_exhausted(&mut self) {
        while self.left == 0 && self.part + 1 < self.len {
            self.part += 1;
            self.left = self.parts[self.part as usize].1;
        }
    }

    /// Takes one chunk, returning its demand (None: exhausted).
    fn take_one(&mut self) -> Option<u32> {
        self.skip_exhausted();
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(self.parts[self.part as usize].0)
    }
}

impl PoolState {
    /// A pool of one or two parts, none drawn yet.
    fn of(p: &[(u32, u64)]) -> PoolState {
        assert!(p.len() <= 2, "a pool has one or two demands");
        let mut parts = [(0, 0); 2];
        parts[..p.len()].copy_from_slice(p);
        PoolState {
            parts,
            len: p.len() as u8,
            part: 0,
            draws: 0,
            left: p.first().map_or(0, |d| d.1),
        }
    }
}

impl PoolMapper {
    /// Pools of one or two parts each.
    pub(super) fn new<'a>(pools: impl IntoIterator<Item = &'a [(u32, u64)]>) -> Self {
        let pools = pools.into_iter().map(PoolState::of).collect();
        PoolMapper { pools }
    }

    /// Two mappers for two halves of the rounds drawn side by side (module
    /// `port_halves`): the first draws the first `first[p]` chunks of pool
    /// `p` (none past the end of `first`), the second the rest.
    pub(super) fn halves<'a>(
        pools: impl IntoIterator<Item = &'a [(u32, u64)]>,
        first: &[u64],
    ) -> [PoolMapper; 2] {
        let (mut a, mut b) = (
            Vec::with_capacity(first.len()),
            Vec::with_capacity(first.len()),
        );
        for (i, p) in pools.into_iter().enumerate() {
            let f = first.get(i).copied().unwrap_or(0);
            // Parts of the first `f` chunks, then of the rest.
            let (mut head, mut tail) = ([(0, 0); 2], [(0, 0); 2]);
            let (mut heads, mut tails) = (0, 0);
            let mut to_head = f;
            for &(d, c) in p {
                let h = c.min(to_head);
                to_head -= h;
                if h > 0 {
                    head[heads] = (d, h);
                    heads += 1;
                }
                if c > h {
                    tail[tails] = (d, c - h);
                    tails += 1;
                }
            }
            a.push(PoolState::of(&head[..heads]));
            b.push(PoolState::of(&tail[..tails]));
        }
        [PoolMapper { pools: a }, PoolMapper { pools: b }]
    }

    pub(super) fn map(mut self, rounds: &[(u64, Vec<u32>)]) -> Schedule {
        let mut schedule = Schedule::new();
        let mut uses: Vec<(u32, u64)> = Vec::new();
        for (repeat, round) in rounds {
            // Draws per tick of each pool in this round (counted in place;
            // the order of `uses` does not matter: `Schedule::push` sorts).
            uses.clear();
            for &p in round {
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
            let mut r = *repeat;
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
                        let d = pool.parts[pool.part as usize].0;
                        pool.left -= c * step;
                        demands.extend(std::iter::repeat(d).take(c as usize));
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
