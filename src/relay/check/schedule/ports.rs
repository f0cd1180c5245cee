//! Step 3 of the validator (module docs): per tick, no port above its
//! capacity.

use super::routes::Tally;
use super::{each, Nodes, RelayInvalid};
use crate::relay::schedule::{Hop, RelaySchedule};

/// Port kinds, in the order of their index in a port key.
const PORTS: [(&str, bool); 4] = [
    ("NIC out", true),
    ("NIC in", true),
    ("NVLink out", false),
    ("NVLink in", false),
];

/// The ports a hop holds, `gpu * 4 + kind` (kind: the index in
/// [`PORTS`]): its sender's out and its receiver's in.
#[inline]
fn hop_ports(hop: &Hop, nodes: Nodes) -> (u32, u32) {
    let kind = if nodes.apart(hop.from, hop.to) { 0 } else { 2 };
    (hop.from * 4 + kind, hop.to * 4 + kind + 1)
}

/// A hop's two ports packed into one bucket entry: a u32 where every port
/// fits in 16 bits (up to 16,384 GPUs), else a u64.
trait Key: Copy + Default + Send + Sync {
    fn pack(out: u32, inn: u32) -> Self;
    fn ports(self) -> (usize, usize);
}

impl Key for u32 {
    #[inline]
    fn pack(out: u32, inn: u32) -> u32 {
        out | inn << 16
    }
    #[inline]
    fn ports(self) -> (usize, usize) {
        ((self & 0xffff) as usize, (self >> 16) as usize)
    }
}

impl Key for u64 {
    #[inline]
    fn pack(out: u32, inn: u32) -> u64 {
        out as u64 | (inn as u64) << 32
    }
    #[inline]
    fn ports(self) -> (usize, usize) {
        (self as u32 as usize, (self >> 32) as usize)
    }
}

/// One part's hops bucketed by tick: their ports packed ([`Key`]) in run
/// order per tick, where they start (`starts`) and where they
/// end (`ends`); bucket `t` is `at[t - 1]..at[t]` (from 0 for `t` = 0) of
/// `start_at` and `end_at`. `carry[j]` holds, per port, the hops that
/// start before the sweep's cut `j` and have not ended there.
struct Events<K> {
    starts: Vec<K>,
    ends: Vec<K>,
    start_at: Vec<u32>,
    end_at: Vec<u32>,
    carry: Vec<Vec<u32>>,
}

/// Counts each port's holds tick by tick and refuses any count above its
/// capacity (1 for a NIC, `rho` for NVLink): each part's hops bucketed by
/// tick (a counting sort over its [`Tally`]), then the ticks swept in as
/// many parts, cut where the starts balance; each tick's ends before its
/// starts, the starts in run order (part by part). Linear in hops and
/// ticks; ports as u32 (the caller checked they fit).
pub(super) fn check_ports_bucketed(
    s: &RelaySchedule,
    nodes: Nodes,
    tallies: Vec<Tally>,
    slots: u32,
    rho: u32,
) -> Result<(), RelayInvalid> {
    if slots <= 1 << 14 {
        bucketed::<u32>(s, nodes, tallies, slots, rho)
    } else {
        bucketed::<u64>(s, nodes, tallies, slots, rho)
    }
}

/// [`check_ports_bucketed`] with bucket entries of type `K`.
fn bucketed<K: Key>(
    s: &RelaySchedule,
    nodes: Nodes,
    tallies: Vec<Tally>,
    slots: u32,
    rho: u32,
) -> Result<(), RelayInvalid> {
    let parts = tallies.len();
    let cuts = cut_ticks(&tallies);
    let ports = slots as usize * 4;
    let events = each(tallies, |_, t| {
        bucket_hops::<K>(s, nodes, t, &cuts[1..parts], ports)
    });
    let caps = [1, 1, rho, rho];
    let sweeps: Vec<usize> = (0..parts).collect();
    each(sweeps, |j, _| {
        sweep_ticks(&events, j, cuts[j]..cuts[j + 1], caps, ports)
    })
    .into_iter()
    .collect()
}

/// Where the sweep's parts start, one per tally, and its end (the
/// buckets): each part with about as many starts as the next.
fn cut_ticks(tallies: &[Tally]) -> Vec<usize> {
    let (parts, buckets) = (tallies.len(), tallies[0].starts.len());
    let hops: usize = tallies.iter().map(|t| t.hops).sum();
    let mut cuts = vec![0];
    let mut below = 0usize;
    for tick in 0..buckets {
        while cuts.len() < parts && below >= hops * cuts.len() / parts {
            cuts.push(tick);
        }
        below += tallies
            .iter()
            .map(|t| t.starts[tick] as usize)
            .sum::<usize>();
    }
    cuts.resize(parts, buckets);
    cuts.push(buckets);
    cuts
}

/// Turns per-bucket counts into bucket ends as they will be once filled:
/// `at[b]` becomes where bucket `b` starts; filling a bucket's entries at
/// `at[b]`, one after the other, leaves it where bucket `b + 1` starts.
fn bucket_starts(at: &mut [u32]) {
    let mut acc = 0u32;
    for x in at.iter_mut() {
        (*x, acc) = (acc, acc + *x);
    }
}

/// Bucket `b` once filled ([`bucket_starts`]).
fn bucket(at: &[u32], b: usize) -> std::ops::Range<usize> {
    (if b == 0 { 0 } else { at[b - 1] as usize })..at[b] as usize
}

/// Buckets the hops of one part's runs by tick ([`Events`]); `cuts`: the
/// sweep's cuts after its first.
fn bucket_hops<K: Key>(
    s: &RelaySchedule,
    nodes: Nodes,
    t: Tally,
    cuts: &[usize],
    ports: usize,
) -> Events<K> {
    let (mut start_at, mut end_at) = (t.starts, t.ends);
    bucket_starts(&mut start_at);
    bucket_starts(&mut end_at);
    let (mut starts, mut ends) = (vec![K::default(); t.hops], vec![K::default(); t.hops]);
    let mut carry = vec![vec![0u32; ports]; cuts.len()];
    for c in &s.runs[t.runs] {
        for hop in c.hops() {
            // Below the buckets: the route checks saw tick + count <= ticks.
            let (a, e) = (hop.tick as usize, (hop.tick + c.count) as usize);
            let (out, inn) = hop_ports(hop, nodes);
            let key = K::pack(out, inn);
            starts[start_at[a] as usize] = key;
            start_at[a] += 1;
            ends[end_at[e] as usize] = key;
            end_at[e] += 1;
            for (j, &cut) in cuts.iter().enumerate() {
                if a < cut && cut <= e {
                    carry[j][out as usize] += 1;
                    carry[j][inn as usize] += 1;
                }
            }
        }
    }
    Events {
        starts,
        ends,
        start_at,
        end_at,
        carry,
    }
}

/// Part `j` of the sweep, over `ticks`: from the holds that cross its
/// first tick, the parts' ends then starts tick by tick (module docs).
fn sweep_ticks<K: Key>(
    events: &[Events<K>],
    j: usize,
    ticks: std::ops::Range<usize>,
    caps: [u32; 4],
    ports: usize,
) -> Result<(), RelayInvalid> {
    let mut count = vec![0u32; ports];
    if j > 0 {
        for ev in events {
            for (c, x) in count.iter_mut().zip(&ev.carry[j - 1]) {
                *c += x;
            }
        }
    }
    for tick in ticks {
        for ev in events {
            for &k in &ev.ends[bucket(&ev.end_at, tick)] {
                let (out, inn) = k.ports();
                count[out] -= 1;
                count[inn] -= 1;
            }
        }
        for ev in events {
            for &k in &ev.starts[bucket(&ev.start_at, tick)] {
                let (out, inn) = k.ports();
                take(&mut count, out, tick, caps)?;
                take(&mut count, inn, tick, caps)?;
            }
        }
    }
    Ok(())
}

/// A hold of `port` starts in `tick`: refused at the port's capacity.
#[inline]
fn take(count: &mut [u32], port: usize, tick: usize, caps: [u32; 4]) -> Result<(), RelayInvalid> {
    let c = &mut count[port];
    let cap = caps[port & 3];
    if *c >= cap {
        return Err(overload(
            port as u64,
            tick as u64,
            *c as u64 + 1,
            cap as u64,
        ));
    }
    *c += 1;
    Ok(())
}

#[cold]
fn overload(port: u64, tick: u64, count: u64, cap: u64) -> RelayInvalid {
    RelayInvalid::Port {
        tick,
        gpu: (port / 4) as u32,
        port: PORTS[(port % 4) as usize].0,
        count,
        cap,
    }
}

/// Whether every port of `s` stays within its capacity, counted on a grid
/// of (tick, port) cells: +1 where a hold starts, -1 where it ends (the
/// tick after its last), the rows summed tick by tick. Counts wrap in 16
/// bits, which is exact while the hops are fewer than 2^16 (no count
/// exceeds them); only for runs that passed the route checks.
pub(super) fn fit_on_grid(s: &RelaySchedule, nodes: Nodes, slots: u32, rho: u32) -> bool {
    let ports = slots as usize * 4;
    let ticks = s.ticks as usize;
    let mut grid = vec![0u16; (ticks + 1) * ports];
    for c in &s.runs {
        for hop in c.hops() {
            let (out, inn) = hop_ports(hop, nodes);
            let (out, inn) = (out as usize, inn as usize);
            let (a, e) = (
                hop.tick as usize * ports,
                (hop.tick + c.count) as usize * ports,
            );
            grid[a + out] = grid[a + out].wrapping_add(1);
            grid[a + inn] = grid[a + inn].wrapping_add(1);
            grid[e + out] = grid[e + out].wrapping_sub(1);
            grid[e + inn] = grid[e + inn].wrapping_sub(1);
        }
    }
    let nvlink = rho.min(u16::MAX as u32) as u16;
    let caps: Vec<u16> = (0..ports)
        .map(|p| if PORTS[p % 4].1 { 1 } else { nvlink })
        .collect();
    let mut count = vec![0u16; ports];
    grid.chunks_exact(ports).take(ticks).all(|row| {
        let mut over = false;
        for ((c, &d), &cap) in count.iter_mut().zip(row).zip(&caps) {
            *c = c.wrapping_add(d);
            over |= *c > cap;
        }
        !over
    })
}

/// Calls `f(start, end, port)` for every port a run's hop holds, ticks
/// `start..end`. Only for runs that passed the route checks (no tick
/// overflows).
fn each_hold(s: &RelaySchedule, nodes: Nodes, mut f: impl FnMut(u64, u64, u64)) {
    for c in &s.runs {
        for hop in c.hops() {
            // In u64: the GPUs may be too many for u32 ports.
            let kind = if nodes.apart(hop.from, hop.to) { 0 } else { 2 };
            let end = hop.tick + c.count;
            f(hop.tick, end, hop.from as u64 * 4 + kind);
            f(hop.tick, end, hop.to as u64 * 4 + kind + 1);
        }
    }
}

/// The port check for a schedule with far more ticks than hops: the
/// holds' events sorted instead of bucketed, one thread.
pub(super) fn check_ports_sorted(
    s: &RelaySchedule,
    nodes: Nodes,
    hops: usize,
    slots: u32,
    rho: u64,
) -> Result<(), RelayInvalid> {
    // Events: port * 2 + 1 for a start, port * 2 for an end; ordered by
    // tick, ends before starts.
    let mut count = vec![0u64; slots as usize * 4];
    let mut events: Vec<(u64, u64)> = Vec::with_capacity(hops * 4);
    each_hold(s, nodes, |a, e, port| {
        events.push((e, port * 2));
        events.push((a, port * 2 + 1));
    });
    events.sort_unstable_by_key(|&(t, e)| (t, e & 1));
    for (tick, e) in events {
        let port = (e >> 1) as usize;
        if e & 1 == 0 {
            count[port] -= 1;
            continue;
        }
        count[port] += 1;
        let cap = if PORTS[port % 4].1 { 1 } else { rho };
        if count[port] > cap {
            return Err(overload(port as u64, tick, count[port], cap));
        }
    }
    Ok(())
}
