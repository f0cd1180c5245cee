//! Dataflow lowering: a schedule as each rank's *order* of sends and of
//! receives, for runners that start a transfer as soon as its own two ends
//! are free instead of at a global tick (DESIGN.md §14).
//!
//! A rank's sends are listed in tick order, and so are its receives; the
//! k-th send from r to p and the k-th receive at p from r are one message
//! (same bytes). Because every list follows the ticks, the transfers form
//! an acyclic order: the pending transfer with the earliest tick always has
//! both ends ready, so a runner that posts each list in order (any window
//! of outstanding operations, one or more) never deadlocks, and it finishes
//! within the schedule's ticks, sooner where transfers are uneven.
//!
//! Consecutive chunks of one demand become one message when they are next
//! to each other in *both* lists (the sender sends nothing else between
//! them and the receiver receives nothing else): a round repeated k times,
//! the compact form's unit, is then one message per demand, so the message
//! count grows with rounds, never with chunks. Merging on one side only
//! would make the two ends disagree on message sizes, so the rule looks at
//! both.
//!
//! Byte offsets follow [`super::p2p::Layout`] (no self part), as the
//! per-tick lowering does.

use super::p2p::{demand_bytes, Layout, LowerError};
use crate::instance::Instance;
use crate::schedule::Schedule;

/// One message: a run of consecutive chunks of one demand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    /// The other rank.
    pub peer: u32,
    /// Byte offset in this rank's send buffer (a send) or receive buffer (a receive).
    pub offset: u64,
    pub bytes: u64,
    /// The tick of the message's first chunk.
    pub first_tick: u64,
    /// Index of the demand (into [`Instance::demands`]).
    pub demand: u32,
}

/// One rank's sends and receives, each in tick order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RankFlow {
    pub sends: Vec<Message>,
    pub recvs: Vec<Message>,
}

/// Every rank's flow (`flows[r]` for rank r).
pub fn lower_dataflow(
    inst: &Instance,
    schedule: &Schedule,
    layout: &Layout,
) -> Result<Vec<RankFlow>, LowerError> {
    let mut flows = vec![RankFlow::default(); inst.slots as usize];
    walk(inst, schedule, layout, |r| Some(r as usize), &mut flows)?;
    Ok(flows)
}

/// Rank `rank`'s flow alone (the whole schedule is still walked: whether
/// two chunks merge depends on the other end's order too).
pub fn lower_dataflow_rank(
    inst: &Instance,
    schedule: &Schedule,
    layout: &Layout,
    rank: u32,
) -> Result<RankFlow, LowerError> {
    if rank >= inst.slots {
        return Err(LowerError::NoSuchRank {
            rank,
            slots: inst.slots,
        });
    }
    let mut flows = vec![RankFlow::default()];
    walk(
        inst,
        schedule,
        layout,
        |r| (r == rank).then_some(0),
        &mut flows,
    )?;
    Ok(flows.pop().unwrap_or_default())
}

/// The demand whose message is last in a rank's list, if any.
const NONE: u32 = u32::MAX;

/// Walks the rounds once; `slot_of(r)` says where rank r's lists go
/// (None: not kept). O(the compact rounds' entries + slots).
fn walk(
    inst: &Instance,
    schedule: &Schedule,
    layout: &Layout,
    slot_of: impl Fn(u32) -> Option<usize>,
    flows: &mut [RankFlow],
) -> Result<(), LowerError> {
    let schedule = schedule.flat();
    let demands = inst.demands();
    let n = inst.slots as usize;
    // The demand of the last message in each rank's send and receive list.
    let mut last_send = vec![NONE; n];
    let mut last_recv = vec![NONE; n];
    let mut sent = vec![0u64; demands.len()];
    let mut tick = 0u64;
    for round in &schedule.rounds {
        for &di in &round.demands {
            let i = di as usize;
            let d = demands
                .get(i)
                .ok_or(LowerError::UnknownDemand { demand: i })?;
            let chunks = inst.chunks(i);
            let from = sent[i];
            if round.repeat > chunks - from.min(chunks) {
                return Err(LowerError::OverCovered {
                    demand: i,
                    src: d.src,
                    dst: d.dst,
                    chunks,
                });
            }
            sent[i] = from + round.repeat;
            let step = inst.demand_bw(i) / 8;
            let start = from * step;
            let end = (sent[i] * step).min(demand_bytes(d.bits));
            let (s, t) = (d.src as usize, d.dst as usize);
            let merges = last_send[s] == di && last_recv[t] == di;
            last_send[s] = di;
            last_recv[t] = di;
            for (rank, peer, offset, recv) in [
                (d.src, d.dst, layout.send_offset(i), false),
                (d.dst, d.src, layout.recv_offset(i), true),
            ] {
                let Some(k) = slot_of(rank) else { continue };
                let list = if recv {
                    &mut flows[k].recvs
                } else {
                    &mut flows[k].sends
                };
                match list.last_mut() {
                    Some(m) if merges => m.bytes += end - start,
                    _ => list.push(Message {
                        peer,
                        offset: offset + start,
                        bytes: end - start,
                        first_tick: tick,
                        demand: di,
                    }),
                }
            }
        }
        tick += round.repeat;
    }
    for (i, d) in demands.iter().enumerate() {
        let chunks = inst.chunks(i);
        if sent[i] != chunks {
            return Err(LowerError::UnderCovered {
                demand: i,
                src: d.src,
                dst: d.dst,
                sent: sent[i],
                chunks,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::p2p::lower_all;
    use super::*;
    use crate::rounds::Round;

    fn instance(bw: u64, demands: &[(u32, u32, u64)]) -> Instance {
        super::super::p2p::tests::instance_on(4, bw, demands)
    }

    /// Per rank, the per-tick lowering's sends (receives) flattened in tick
    /// order, as (peer, offset, bytes) runs merged where contiguous.
    fn flattened(
        programs: &[Vec<Vec<super::super::p2p::RankOp>>],
        r: usize,
        recv: bool,
    ) -> Vec<(u32, u64, u64)> {
        let mut out: Vec<(u32, u64, u64)> = Vec::new();
        for tick in &programs[r] {
            for o in tick {
                if (o.op == super::super::p2p::OpKind::Recv) != recv {
                    continue;
                }
                out.push((o.peer, o.offset, o.bytes));
            }
        }
        out
    }

    #[test]
    fn messages_cover_the_per_tick_program_byte_for_byte() {
        // Demands 0: 0->1 (5 chunks), 1: 0->2 (2), 2: 3->1 (3), 3: 2->1 (1).
        let inst = instance(64, &[(0, 1, 300), (0, 2, 100), (2, 1, 10), (3, 1, 150)]);
        let s = Schedule::from_rounds(vec![
            Round {
                repeat: 2,
                demands: vec![0],
            }, // 0->1 twice
            Round {
                repeat: 2,
                demands: vec![1, 3],
            }, // 0->2, 3->1
            Round {
                repeat: 1,
                demands: vec![0],
            }, // 0->1 again: 0 sent to 2 between
            Round {
                repeat: 1,
                demands: vec![3, 2],
            }, // 3->1, 2->1
            Round {
                repeat: 2,
                demands: vec![0],
            },
        ]);
        let layout = Layout::new(&inst).unwrap();
        let flows = lower_dataflow(&inst, &s, &layout).unwrap();
        let programs = lower_all(&inst, &s, &layout).unwrap();
        assert_eq!(flows.len(), 4);
        for (r, flow) in flows.iter().enumerate() {
            for recv in [false, true] {
                let list = if recv { &flow.recvs } else { &flow.sends };
                // Expanding each message back into the per-tick chunks'
                // bytes gives the flattened per-tick program's bytes.
                let mut covered: Vec<(u32, u64, u64)> = Vec::new();
                for m in list {
                    covered.push((m.peer, m.offset, m.bytes));
                }
                let per_tick = flattened(&programs, r, recv);
                let total = |v: &[(u32, u64, u64)]| v.iter().map(|x| x.2).sum::<u64>();
                assert_eq!(total(&covered), total(&per_tick), "rank {r} recv {recv}");
                // Each message starts where a per-tick op starts, in order.
                let mut k = 0;
                for &(peer, off, bytes) in &covered {
                    assert_eq!((per_tick[k].0, per_tick[k].1), (peer, off));
                    let mut left = bytes;
                    while left > 0 {
                        assert_eq!(per_tick[k].0, peer);
                        left -= per_tick[k].2;
                        k += 1;
                    }
                }
                assert_eq!(k, per_tick.len());
            }
        }
        // 0->1: chunks 0-1 one message, chunk 2 alone (0 sent to 2 between),
        // chunks 3-4 one message: three sends to 1, and the receiver agrees.
        let to1: Vec<u64> = flows[0]
            .sends
            .iter()
            .filter(|m| m.peer == 1)
            .map(|m| m.bytes)
            .collect();
        assert_eq!(to1, vec![16, 8, 14]);
        let from0: Vec<u64> = flows[1]
            .recvs
            .iter()
            .filter(|m| m.peer == 0)
            .map(|m| m.bytes)
            .collect();
        assert_eq!(from0, to1);
    }

    #[test]
    fn a_chunk_merges_only_when_both_ends_saw_nothing_between() {
        // 0->1 in ticks 0 and 2; at tick 1 the receiver 1 gets 2->1, the
        // sender 0 is idle: the sender's list has the two next to each
        // other, the receiver's does not, so they stay two messages.
        let inst = instance(64, &[(0, 1, 128), (2, 1, 64)]);
        let s = Schedule::from_rounds(vec![
            Round {
                repeat: 1,
                demands: vec![0],
            },
            Round {
                repeat: 1,
                demands: vec![1],
            },
            Round {
                repeat: 1,
                demands: vec![0],
            },
        ]);
        let layout = Layout::new(&inst).unwrap();
        let flows = lower_dataflow(&inst, &s, &layout).unwrap();
        assert_eq!(flows[0].sends.len(), 2);
        assert_eq!(flows[1].recvs.len(), 3);
        assert_eq!(flows[0].sends[1].first_tick, 2);
        let one = lower_dataflow_rank(&inst, &s, &layout, 1).unwrap();
        assert_eq!(one, flows[1]);
    }

    #[test]
    fn refuses_what_does_not_move_every_byte_once() {
        let inst = instance(64, &[(0, 1, 128)]);
        let layout = Layout::new(&inst).unwrap();
        let over = Schedule::from_rounds(vec![Round {
            repeat: 3,
            demands: vec![0],
        }]);
        assert!(matches!(
            lower_dataflow(&inst, &over, &layout),
            Err(LowerError::OverCovered { .. })
        ));
        let under = Schedule::from_rounds(vec![Round {
            repeat: 1,
            demands: vec![0],
        }]);
        assert!(matches!(
            lower_dataflow(&inst, &under, &layout),
            Err(LowerError::UnderCovered { .. })
        ));
        assert!(matches!(
            lower_dataflow_rank(&inst, &under, &layout, 9),
            Err(LowerError::NoSuchRank { .. })
        ));
    }
}
