//! The reference executor of a relay program: every rank's byte arrays in
//! one process, each rank following its list (as
//! `python/tests/test_relay.py`'s executor does). It shares no code with
//! the program builder (`relay::program`): it reads only the program and
//! the instance.
//!
//! Rank `s`'s input is filled with a byte pattern of `(s, offset)`; the
//! expected output of rank `t` is, by source in rank order, the bytes
//! each source holds for `t` (torch's `all_to_all_single` layout, from the
//! demands: `ceil(bits/8)` bytes each). A rank runs its operations in
//! order: a send copies its bytes into the queue from it to its peer at
//! once (buffered); a receive waits until the queue from its peer has a
//! message, takes the oldest and checks its size. A send from `stage` may
//! only read bytes a receive has written. Ranks whose next receive has no
//! message wait until one is sent; when every unfinished rank waits, the
//! program deadlocks. At the end every message has been received and
//! every output byte written exactly once, with the expected byte.
//! Linear in the operations and bytes.

use super::{Buf, Op, RelayP2pProgram, FORMAT};
use crate::instance::{Instance, Model};
use crate::interop::p2p_json::demands_of;
use crate::relay::TwoTier;
use std::collections::{HashMap, VecDeque};

/// What a successful run moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Executed {
    pub ops: u64,
    /// Bytes delivered into outputs (the all-to-all's bytes).
    pub output_bytes: u64,
    /// Bytes received into staging buffers (relayed on).
    pub staged_bytes: u64,
}

/// Why a program does not deliver the all-to-all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    #[error("{field}: the program has {found}, the instance {expected}")]
    Header {
        field: &'static str,
        found: String,
        expected: String,
    },
    #[error("ranks[{at}]: rank {rank} {why}")]
    Rank { at: usize, rank: u32, why: String },
    #[error("rank {rank}: {field} is {found} bytes, {expected} expected")]
    BufferSize {
        rank: u32,
        field: &'static str,
        found: u64,
        expected: u64,
    },
    #[error("rank {rank} ops[{op}]: {why}")]
    Op { rank: u32, op: usize, why: String },
    #[error(
        "rank {rank} ops[{op}]: a receive from {peer} of {expected} bytes gets a message of {got}"
    )]
    Size {
        rank: u32,
        op: usize,
        peer: u32,
        expected: u64,
        got: u64,
    },
    #[error("deadlock: rank {rank} waits at ops[{op}] for a message from {peer} that no rank sends ({waiting} ranks wait)")]
    Deadlock {
        rank: u32,
        op: usize,
        peer: u32,
        waiting: usize,
    },
    #[error("{count} message(s) from rank {from} to rank {to} are never received")]
    Unreceived { from: u32, to: u32, count: usize },
    #[error("rank {rank} output byte {offset} (demand {src} -> {rank}) is written {writes} times")]
    Writes {
        rank: u32,
        offset: u64,
        src: u32,
        writes: u8,
    },
    #[error("rank {rank} output byte {offset} (demand {src} -> {rank}) holds the wrong byte: another chunk's data, or a stage read before it was filled")]
    WrongByte { rank: u32, offset: u64, src: u32 },
}

/// The byte source `src` holds at `offset` of its input (a mix of both,
/// so a chunk delivered to the wrong place, or one byte off, shows).
fn pattern(src: u32, offset: u64) -> u8 {
    let mut x = ((src as u64) << 40) ^ offset ^ 0x9E37_79B9_7F4A_7C15;
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    (x ^ (x >> 33)) as u8
}

/// Where each demand's bytes lie: `(src, dst, bytes, input offset at src,
/// output offset at dst)`, from the demands alone.
type Placed = Vec<(u32, u32, u64, u64, u64)>;

/// Lays out `inst`'s demands (module docs), with each rank's input and
/// output size.
fn layout(inst: &Instance) -> (Placed, Vec<u64>, Vec<u64>) {
    let n = inst.slots as usize;
    let mut ds: Vec<(u32, u32, u64)> = inst
        .demands()
        .iter()
        .map(|d| (d.src, d.dst, d.bits.div_ceil(8)))
        .collect();
    let (mut inp, mut out) = (vec![0u64; n], vec![0u64; n]);
    // Inputs by destination, outputs by source: two orders of one list.
    ds.sort_unstable_by_key(|&(s, t, _)| (s, t));
    let mut placed: Placed = Vec::with_capacity(ds.len());
    for &(s, t, b) in &ds {
        placed.push((s, t, b, inp[s as usize], 0));
        inp[s as usize] += b;
    }
    placed.sort_unstable_by_key(|&(s, t, ..)| (t, s));
    for p in &mut placed {
        p.4 = out[p.1 as usize];
        out[p.1 as usize] += p.2;
    }
    (placed, inp, out)
}

/// The bytes of one rank.
struct Rank {
    input: Vec<u8>,
    output: Vec<u8>,
    writes: Vec<u8>,
    stage: Vec<u8>,
    filled: Vec<bool>,
}

/// Runs `p` (read back from its text) for `inst` on `tt` (module docs).
pub fn execute(p: &RelayP2pProgram, inst: &Instance, tt: TwoTier) -> Result<Executed, ExecError> {
    check_header(p, inst, tt)?;
    let (placed, inp, out) = layout(inst);
    let mut ranks = Vec::with_capacity(p.ranks.len());
    for (at, r) in p.ranks.iter().enumerate() {
        if r.rank as usize != at {
            return Err(ExecError::Rank {
                at,
                rank: r.rank,
                why: "is out of order (ranks are listed 0, 1, ...)".into(),
            });
        }
        let staged: u64 = r
            .ops
            .iter()
            .filter(|o| o.op == Op::Recv && o.buffer == Buf::Stage)
            .map(|o| o.bytes)
            .sum();
        for (field, found, expected) in [
            ("input_bytes", r.input_bytes, inp[at]),
            ("output_bytes", r.output_bytes, out[at]),
        ] {
            if found != expected {
                return Err(ExecError::BufferSize {
                    rank: r.rank,
                    field,
                    found,
                    expected,
                });
            }
        }
        if r.stage_bytes > staged {
            return Err(ExecError::Rank {
                at,
                rank: r.rank,
                why: format!(
                    "asks for {} stage bytes and receives {staged} into its stage",
                    r.stage_bytes
                ),
            });
        }
        ranks.push(Rank {
            input: (0..inp[at]).map(|o| pattern(r.rank, o)).collect(),
            output: vec![0; out[at] as usize],
            writes: vec![0; out[at] as usize],
            stage: vec![0; r.stage_bytes as usize],
            filled: vec![false; r.stage_bytes as usize],
        });
    }
    let done = run(p, &mut ranks)?;
    check_outputs(&placed, &ranks)?;
    Ok(done)
}

/// The program's header against the instance and the machine.
fn check_header(p: &RelayP2pProgram, inst: &Instance, tt: TwoTier) -> Result<(), ExecError> {
    let header = |field: &'static str, found: String, expected: String| {
        if found == expected {
            Ok(())
        } else {
            Err(ExecError::Header {
                field,
                found,
                expected,
            })
        }
    };
    header("format", p.format.clone(), FORMAT.to_string())?;
    header("model", p.model.to_string(), Model::Read1Write1.to_string())?;
    header("slots", p.slots.to_string(), inst.slots.to_string())?;
    header("ranks", p.ranks.len().to_string(), inst.slots.to_string())?;
    header(
        "gpus_per_node",
        p.gpus_per_node.to_string(),
        tt.gpus_per_node.to_string(),
    )?;
    header(
        "nvlink_speedup",
        p.nvlink_speedup.to_string(),
        tt.nvlink_speedup.to_string(),
    )?;
    header(
        "copy_bw_bits_per_tick",
        p.copy_bw_bits_per_tick.to_string(),
        inst.bw.to_string(),
    )?;
    let want = demands_of(inst);
    if p.demands != want {
        let at = p
            .demands
            .iter()
            .zip(&want)
            .position(|(a, b)| a != b)
            .unwrap_or(p.demands.len().min(want.len()));
        return Err(ExecError::Header {
            field: "demands",
            found: format!("{} demands, differing at [{at}]", p.demands.len()),
            expected: format!("{} demands", want.len()),
        });
    }
    Ok(())
}

/// Every rank's list in order, until all are done or all that are not
/// wait (module docs).
fn run(p: &RelayP2pProgram, ranks: &mut [Rank]) -> Result<Executed, ExecError> {
    let n = ranks.len();
    let mut queues: HashMap<(u32, u32), VecDeque<Vec<u8>>> = HashMap::new();
    let mut pc = vec![0usize; n];
    let mut waiting: Vec<Option<u32>> = vec![None; n];
    let mut ready: Vec<usize> = (0..n).rev().collect();
    let mut done = Executed {
        ops: 0,
        output_bytes: 0,
        staged_bytes: 0,
    };
    while let Some(r) = ready.pop() {
        let ops = &p.ranks[r].ops;
        while let Some(o) = ops.get(pc[r]) {
            let at = pc[r];
            let bad = |why: String| ExecError::Op {
                rank: r as u32,
                op: at,
                why,
            };
            if o.peer as usize >= n || o.peer as usize == r {
                return Err(bad(format!("peer {} is not another rank", o.peer)));
            }
            if o.tick >= p.ticks || (at > 0 && o.tick < ops[at - 1].tick) {
                return Err(bad(format!(
                    "tick {} is out of order or past the program's {} ticks",
                    o.tick, p.ticks
                )));
            }
            let rank = &mut ranks[r];
            let range = |len: usize| {
                let end = o.offset.checked_add(o.bytes).filter(|&e| e <= len as u64);
                end.map(|e| o.offset as usize..e as usize).ok_or_else(|| {
                    bad(format!(
                        "{} bytes at offset {} of {} overrun its {len} bytes",
                        o.bytes,
                        o.offset,
                        o.buffer.as_str()
                    ))
                })
            };
            match o.op {
                Op::Send => {
                    let data = match o.buffer {
                        Buf::Input => rank.input[range(rank.input.len())?].to_vec(),
                        Buf::Stage => {
                            let at_stage = range(rank.stage.len())?;
                            if !rank.filled[at_stage.clone()].iter().all(|&f| f) {
                                return Err(bad(format!(
                                    "sends stage bytes {}..{} before a receive has filled them",
                                    at_stage.start, at_stage.end
                                )));
                            }
                            rank.stage[at_stage].to_vec()
                        }
                        Buf::Output => {
                            return Err(bad("a send reads input or stage, not output".into()))
                        }
                    };
                    queues
                        .entry((r as u32, o.peer))
                        .or_default()
                        .push_back(data);
                    if waiting[o.peer as usize] == Some(r as u32) {
                        waiting[o.peer as usize] = None;
                        ready.push(o.peer as usize);
                    }
                }
                Op::Recv => {
                    let Some(data) = queues
                        .get_mut(&(o.peer, r as u32))
                        .and_then(|q| q.pop_front())
                    else {
                        waiting[r] = Some(o.peer);
                        break;
                    };
                    if data.len() as u64 != o.bytes {
                        return Err(ExecError::Size {
                            rank: r as u32,
                            op: at,
                            peer: o.peer,
                            expected: o.bytes,
                            got: data.len() as u64,
                        });
                    }
                    match o.buffer {
                        Buf::Output => {
                            let span = range(rank.output.len())?;
                            rank.output[span.clone()].copy_from_slice(&data);
                            for w in &mut rank.writes[span] {
                                *w = w.saturating_add(1);
                            }
                            done.output_bytes += o.bytes;
                        }
                        Buf::Stage => {
                            let span = range(rank.stage.len())?;
                            rank.stage[span.clone()].copy_from_slice(&data);
                            rank.filled[span].fill(true);
                            done.staged_bytes += o.bytes;
                        }
                        Buf::Input => {
                            return Err(bad("a receive writes output or stage, not input".into()))
                        }
                    }
                }
            }
            pc[r] += 1;
            done.ops += 1;
        }
    }
    let stuck: Vec<usize> = (0..n).filter(|&r| pc[r] < p.ranks[r].ops.len()).collect();
    if let Some(&r) = stuck.first() {
        return Err(ExecError::Deadlock {
            rank: r as u32,
            op: pc[r],
            peer: p.ranks[r].ops[pc[r]].peer,
            waiting: stuck.len(),
        });
    }
    let mut left: Vec<_> = queues.into_iter().filter(|(_, q)| !q.is_empty()).collect();
    left.sort_unstable_by_key(|(k, _)| *k);
    if let Some(((from, to), q)) = left.into_iter().next() {
        return Err(ExecError::Unreceived {
            from,
            to,
            count: q.len(),
        });
    }
    Ok(done)
}

/// Every output byte written once, with its source's pattern byte.
fn check_outputs(placed: &Placed, ranks: &[Rank]) -> Result<(), ExecError> {
    for &(src, dst, bytes, in_off, out_off) in placed {
        let rank = &ranks[dst as usize];
        for k in 0..bytes {
            let at = (out_off + k) as usize;
            let offset = out_off + k;
            if rank.writes[at] != 1 {
                return Err(ExecError::Writes {
                    rank: dst,
                    offset,
                    src,
                    writes: rank.writes[at],
                });
            }
            if rank.output[at] != pattern(src, in_off + k) {
                return Err(ExecError::WrongByte {
                    rank: dst,
                    offset,
                    src,
                });
            }
        }
    }
    Ok(())
}
