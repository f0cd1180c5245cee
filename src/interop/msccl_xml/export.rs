//! A validated schedule as an MSCCL algorithm, built on the one lowering
//! ([`crate::lower::p2p`]): the same walk over ticks, the same order of
//! demands in the buffers, counted in chunks (MSCCL chunks have one size,
//! `bw` bits; a demand's last chunk is padded).
//!
//! - gpu s's input buffer holds the chunks of its demands in order of
//!   destination, gpu t's output buffer those of its incoming demands in
//!   order of source; chunk k of a demand is `srcoff`/`dstoff` + k.
//! - One threadblock per connection and direction (send-only or
//!   receive-only); when a connection carries j > 1 chunks in one tick
//!   (multi-port), the j-th goes on its own channel, so chunks of one tick
//!   never queue behind each other. Channels are given first fit, at most
//!   32 threadblocks sending (and 32 receiving) per gpu and channel, as the
//!   executor allows.
//! - Steps follow tick order. The tick's resource model becomes lanes:
//!   each gpu has `ports` lanes (STRICT1: shared by sends and receives;
//!   READ1_WRITE1: `ports` for sends and `ports` for receives); in every
//!   tick a gpu's operations take distinct lanes, and each operation
//!   depends (`depid`/`deps`, `hasdep` on the target) on the previous
//!   operation of its lane. So no gpu ever has more operations in flight
//!   than the model allows in one tick, and every dependency points to an
//!   earlier tick (no deadlock). Dependencies inside one threadblock, or
//!   implied by an earlier one of the same threadblock, are left out, as
//!   msccl-tools does.
//! - `<algo coll="alltoall" proto="Simple" inplace="0" outofplace="1">`;
//!   `minBytes` = `maxBytes` = `nchunksperloop x bw/8`: the buffer size at
//!   which one MSCCL chunk is one tick's `bw` bits.

use super::levels::import;
use super::{Buf, Gpu, Program, Step, StepKind, Threadblock};
use crate::instance::{Instance, Model};
use crate::interop::InteropError;
use crate::lower::p2p::{ByteTicks, Layout};
use crate::schedule::Schedule;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Most steps (two per chunk) an export writes: a runtime takes far fewer,
/// and the bound keeps memory in check on huge schedules.
pub const MAX_STEPS: u64 = 1 << 24;

/// Threadblocks per gpu and channel that may send (and receive): the
/// executor's `MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL`.
const TBS_PER_CHANNEL: u32 = 32;

/// Channels NCCL has (`MAXCHANNELS`).
const MAX_CHANNELS: u32 = 32;

/// An export: the program, its text, and what the re-read found.
pub struct Exported {
    pub program: Program,
    pub text: String,
    /// The re-read program (levels, transfers, notes for the runtime).
    pub reread: super::Imported,
}

/// A threadblock of one gpu while it is built: (receives?, peer, j).
type Key = (bool, u32, u32);

struct Draft {
    kind: StepKind,
    srcoff: i64,
    dstoff: i64,
    dep: Option<(Key, usize)>,
}

fn bad(msg: String) -> InteropError {
    InteropError::Invalid(msg)
}

/// Lowers a (validated) schedule of `inst` to an MSCCL algorithm, writes
/// it, reads the text back with [`super::parse`] and [`super::import`] and
/// checks it: the same chunks per pair, every demand's chunks in its place
/// in the receiver's output buffer, as many ticks as the schedule, and the
/// levels valid under `inst`'s model.
pub fn export(inst: &Instance, schedule: &Schedule) -> Result<Exported, InteropError> {
    if inst.has_demand_bw() {
        return Err(bad(
            "demands with their own bandwidth: MSCCL chunks all have one size".into(),
        ));
    }
    let steps = inst.total_chunks().saturating_mul(2);
    if steps > MAX_STEPS {
        return Err(bad(format!(
            "an MSCCL program of {steps} steps (two per chunk) is over the {MAX_STEPS} the exporter writes"
        )));
    }
    let layout = Layout::in_chunks(inst);
    let (tbs, chan_of) = draft(inst, schedule, &layout)?;
    let mut gpus = Vec::with_capacity(tbs.len());
    let mut nchannels = 0;
    for (g, drafts) in tbs.into_iter().enumerate() {
        let g32 = g as u32;
        gpus.push(Gpu {
            id: g32,
            i_chunks: layout.send_buffer_bytes(g32),
            o_chunks: layout.recv_buffer_bytes(g32),
            s_chunks: 0,
            tbs: threadblocks(g32, &drafts, &chan_of, &mut nchannels),
            at: (0, 0),
        });
    }
    let nchunksperloop = gpus
        .iter()
        .map(|g| g.i_chunks.max(g.o_chunks))
        .max()
        .unwrap_or(0);
    let size = nchunksperloop.saturating_mul(inst.bw / 8);
    let program = Program {
        name: format!(
            "tickopt_{}_{}gpus_{}ticks",
            inst.model,
            inst.slots,
            schedule.ticks()
        ),
        proto: "Simple".into(),
        coll: "alltoall".into(),
        nchannels,
        nchunksperloop,
        inplace: false,
        outofplace: Some(true),
        min_bytes: Some(size),
        max_bytes: Some(size),
        gpus,
    };
    let text = program.to_xml();
    let reread = check(inst, schedule.ticks(), &text)?;
    Ok(Exported {
        program,
        text,
        reread,
    })
}

/// Per gpu, its threadblocks' draft steps (by key), and the channel of
/// every connection's j-th chunk of a tick (src, dst, j).
type Drafts = (
    Vec<BTreeMap<Key, Vec<Draft>>>,
    HashMap<(u32, u32, u32), u32>,
);

/// The schedule's chunks, tick by tick, as draft steps of their
/// threadblocks (one send, one receive per chunk; offsets in chunks from
/// `layout`), each with its dependency on the previous operation of its
/// lane, and channels given first fit (see the module docs).
fn draft(inst: &Instance, schedule: &Schedule, layout: &Layout) -> Result<Drafts, InteropError> {
    let bytes = Layout::new(inst)?;
    let n = inst.slots as usize;
    let mut tbs: Vec<BTreeMap<Key, Vec<Draft>>> = (0..n).map(|_| BTreeMap::new()).collect();
    let mut lane_last: Vec<HashMap<(bool, u32), (Key, usize)>> = vec![HashMap::new(); n];
    let mut channels = Channels::default();
    let strict = inst.model == Model::Strict1;
    let mut walk = ByteTicks::new(inst, schedule, &bytes);
    while let Some(tick) = walk.next_tick()? {
        let mut used: HashMap<(u32, bool), u32> = HashMap::new(); // lanes taken this tick
        let mut nth: HashMap<(u32, u32), u32> = HashMap::new();
        for c in tick {
            let j = {
                let e = nth.entry((c.src, c.dst)).or_insert(0);
                *e += 1;
                *e - 1
            };
            channels.give(c.src, c.dst, j)?;
            let i = c.demand as usize;
            let srcoff = (layout.send_offset(i) + c.chunk) as i64;
            let dstoff = (layout.recv_offset(i) + c.chunk) as i64;
            for (gpu, receives, peer) in [(c.src, false, c.dst), (c.dst, true, c.src)] {
                let dir = receives && !strict;
                let lane = {
                    let e = used.entry((gpu, dir)).or_insert(0);
                    *e += 1;
                    *e - 1
                };
                let key: Key = (receives, peer, j);
                let list = tbs[gpu as usize].entry(key).or_default();
                list.push(Draft {
                    kind: if receives {
                        StepKind::Recv
                    } else {
                        StepKind::Send
                    },
                    srcoff,
                    dstoff,
                    dep: lane_last[gpu as usize].get(&(dir, lane)).copied(),
                });
                lane_last[gpu as usize].insert((dir, lane), (key, list.len() - 1));
            }
        }
    }
    Ok((tbs, channels.chan_of))
}

/// Channels given so far: first fit, a connection's chunks of one tick on
/// distinct channels, at most `TBS_PER_CHANNEL` threadblocks sending (and
/// receiving) per gpu and channel.
#[derive(Default)]
struct Channels {
    /// (src, dst, j) -> channel.
    chan_of: HashMap<(u32, u32, u32), u32>,
    /// (src, dst) -> the channels it uses.
    chans_of_conn: HashMap<(u32, u32), HashSet<u32>>,
    /// (gpu, chan) -> sending threadblocks.
    send_tbs: HashMap<(u32, u32), u32>,
    /// (gpu, chan) -> receiving threadblocks.
    recv_tbs: HashMap<(u32, u32), u32>,
}

impl Channels {
    /// Gives connection `src -> dst`'s `j`-th chunk of a tick its channel,
    /// unless it has one.
    fn give(&mut self, src: u32, dst: u32, j: u32) -> Result<(), InteropError> {
        let std::collections::hash_map::Entry::Vacant(v) = self.chan_of.entry((src, dst, j)) else {
            return Ok(());
        };
        let taken = self.chans_of_conn.entry((src, dst)).or_default();
        let (send_tbs, recv_tbs) = (&mut self.send_tbs, &mut self.recv_tbs);
        let ch = (0..MAX_CHANNELS)
            .find(|&ch| {
                !taken.contains(&ch)
                    && send_tbs.get(&(src, ch)).copied().unwrap_or(0) < TBS_PER_CHANNEL
                    && recv_tbs.get(&(dst, ch)).copied().unwrap_or(0) < TBS_PER_CHANNEL
            })
            .ok_or_else(|| {
                bad(format!(
                    "connection {} -> {} finds no channel: more than {} peers per gpu on {MAX_CHANNELS} channels",
                    src, dst, TBS_PER_CHANNEL * MAX_CHANNELS
                ))
            })?;
        taken.insert(ch);
        *send_tbs.entry((src, ch)).or_default() += 1;
        *recv_tbs.entry((dst, ch)).or_default() += 1;
        v.insert(ch);
        Ok(())
    }
}

/// Gpu `g`'s threadblocks from its drafts, in msccl-tools' order, with
/// their steps' dependencies (those inside one threadblock, or implied by
/// an earlier one on the same threadblock, left out) and `hasdep` on the
/// targets; raises `nchannels` to cover their channels.
fn threadblocks(
    g: u32,
    drafts: &BTreeMap<Key, Vec<Draft>>,
    chan_of: &HashMap<(u32, u32, u32), u32>,
    nchannels: &mut u32,
) -> Vec<Threadblock> {
    // msccl-tools' order: by (send, recv, chan); a receive-only
    // threadblock has send = -1.
    let mut keys: Vec<(i64, i64, u32, Key)> = drafts
        .keys()
        .map(|&k| {
            let (receives, peer, j) = k;
            let ch = if receives {
                chan_of[&(peer, g, j)]
            } else {
                chan_of[&(g, peer, j)]
            };
            if receives {
                (-1, peer as i64, ch, k)
            } else {
                (peer as i64, -1, ch, k)
            }
        })
        .collect();
    keys.sort_unstable();
    let id_of: HashMap<Key, u32> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.3, i as u32))
        .collect();
    let mut out: Vec<Threadblock> = keys
        .iter()
        .map(|&(send, recv, chan, _)| {
            *nchannels = (*nchannels).max(chan + 1);
            Threadblock {
                id: 0,
                send,
                recv,
                chan,
                steps: Vec::new(),
                at: (0, 0),
            }
        })
        .collect();
    let mut hasdep: Vec<(usize, usize)> = Vec::new();
    for (key, list) in drafts {
        let me = id_of[key] as usize;
        let mut implied: HashMap<u32, usize> = HashMap::new();
        for d in list {
            let dep = d.dep.and_then(|(k, s)| {
                let t = id_of[&k];
                if t as usize == me || implied.get(&t).is_some_and(|&m| m >= s) {
                    return None;
                }
                implied.insert(t, s);
                Some((t, s as u32))
            });
            if let Some((t, s)) = dep {
                hasdep.push((t as usize, s as usize));
            }
            out[me].steps.push(Step {
                kind: d.kind,
                srcbuf: Buf::Input,
                srcoff: d.srcoff,
                dstbuf: Buf::Output,
                dstoff: d.dstoff,
                cnt: 1,
                dep,
                hasdep: false,
                at: (0, 0),
            });
        }
    }
    for (t, s) in hasdep {
        out[t].steps[s].hasdep = true;
    }
    for (i, tb) in out.iter_mut().enumerate() {
        tb.id = i as u32;
    }
    out
}

/// Reads an exported text back and checks it against `inst` (see
/// [`export`]); `Err` names the first difference.
fn check(inst: &Instance, ticks: u64, text: &str) -> Result<super::Imported, InteropError> {
    let p = super::parse(text)?;
    let back = import(&p)?;
    let again = |m: String| bad(format!("the exported program does not re-read: {m}"));
    let counts = back.chunk_counts();
    let layout = Layout::in_chunks(inst);
    for (i, d) in inst.demands().iter().enumerate() {
        let got = counts.get(&(d.src, d.dst)).copied().unwrap_or(0);
        if got != inst.chunks(i) {
            return Err(again(format!(
                "demand {i} ({} -> {}) has {} chunks, the program sends {got}",
                d.src,
                d.dst,
                inst.chunks(i)
            )));
        }
        for k in 0..inst.chunks(i) {
            let want = (d.src, layout.send_offset(i) + k);
            let got = back.output_origin(d.dst, layout.recv_offset(i) + k);
            if got != Some(want) {
                return Err(again(format!(
                    "chunk {k} of demand {i} ({} -> {}) is not in its place in gpu {}'s output (found {got:?})",
                    d.src, d.dst, d.dst
                )));
            }
        }
    }
    if counts.len() != inst.demands().len() {
        return Err(again("it sends between gpus that have no demand".into()));
    }
    // Levels run as soon as dependencies allow: never later than the
    // schedule's ticks, earlier where the schedule leaves a slot idle.
    if back.ticks > ticks {
        return Err(again(format!(
            "its dependency levels are {} ticks, the schedule {ticks}",
            back.ticks
        )));
    }
    let report = super::super::levels_report(inst, &back.levels());
    if !report.passed() {
        return Err(again(format!(
            "its levels do not validate: {}",
            report.one_line()
        )));
    }
    Ok(back)
}
