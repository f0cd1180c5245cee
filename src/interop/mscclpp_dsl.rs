//! `mscclpp-dsl`: a validated schedule as a Python program in MSCCL++'s
//! DSL (microsoft/mscclpp, `python/mscclpp/language`), which the DSL turns
//! into MSCCL++'s execution-plan JSON (`python3 FILE > plan.json`).
//!
//! Built on the one lowering ([`crate::lower::p2p`]), counted in chunks as
//! for MSCCL XML (one chunk = `bw` bits, a demand's last chunk padded):
//!
//! - Buffers: rank s's input holds the chunks of its demands in order of
//!   destination, rank t's output those of its incoming demands in order
//!   of source. Every rank's input and output hold the same number of
//!   chunks (the largest buffer), since MSCCL++'s executor sizes a chunk
//!   from the local rank's buffer and uses that size for remote offsets.
//! - Lanes are threadblocks: each rank has `ports` lanes (STRICT1: shared
//!   by sends and receives, threadblocks `0..ports`; READ1_WRITE1: sends on
//!   `0..ports`, receives on `ports..2 ports`); in every tick a rank's
//!   transfers take distinct lanes, and a threadblock runs its lane's
//!   operations in tick order.
//! - A transfer of one chunk from s (lane a) to t (lane b): t's threadblock
//!   signals that its lane is free, s's waits for that, puts the chunk into
//!   t's output buffer over a memory channel and signals; t's threadblock
//!   waits for that signal. One channel pair per pair of endpoints
//!   ((s, a), (t, b)), created in one order on both ranks (the executor
//!   connects the k-th channel from s to t with the k-th from t to s), so
//!   the k-th signal on a channel meets the k-th wait: semaphores count.
//!
//! The program is data (the channel pairs and, per tick, its transfers)
//! and a short loop that makes the DSL calls. Before the text is handed
//! over, the tables are checked: every demand's chunks in their place in
//! the receiver's output, written once, and the ticks valid under the
//! instance's model.

use crate::instance::{Instance, Model};
use crate::interop::InteropError;
use crate::lower::p2p::{ByteTicks, Layout};
use crate::schedule::Schedule;
use std::collections::HashMap;
use std::fmt::Write;

/// Most chunk transfers an export writes (each a line of Python data and
/// five DSL calls; the DSL runs far fewer in reasonable time).
pub const MAX_TRANSFERS: u64 = 1 << 22;

/// One chunk moved in one tick: from rank `src`'s threadblock `stb`,
/// input chunk `si`, to rank `dst`'s threadblock `dtb`, output chunk `di`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Put {
    pub src: u32,
    pub stb: u32,
    pub si: u64,
    pub dst: u32,
    pub dtb: u32,
    pub di: u64,
}

impl Put {
    /// The channel pair it uses: its two endpoints, the smaller first.
    fn link(&self) -> (u32, u32, u32, u32) {
        let (a, b) = ((self.src, self.stb), (self.dst, self.dtb));
        let (x, y) = if a < b { (a, b) } else { (b, a) };
        (x.0, x.1, y.0, y.1)
    }
}

/// A schedule as the DSL program's tables.
#[derive(Clone, Debug)]
pub struct DslProgram {
    pub name: String,
    pub nranks: u32,
    /// Chunks in every rank's input and output buffer.
    pub chunks: u64,
    pub chunk_bytes: u64,
    /// Channel pairs `(rank a, threadblock on a, rank b, threadblock on
    /// b)`, in order of first use.
    pub links: Vec<(u32, u32, u32, u32)>,
    pub ticks: Vec<Vec<Put>>,
}

fn bad(msg: String) -> InteropError {
    InteropError::Invalid(msg)
}

/// Lowers a (validated) schedule of `inst` to the DSL program's tables
/// and checks them (see the module docs).
pub fn lower(inst: &Instance, schedule: &Schedule) -> Result<DslProgram, InteropError> {
    if inst.has_demand_bw() {
        return Err(bad(
            "demands with their own bandwidth: the DSL program's chunks all have one size".into(),
        ));
    }
    if inst.total_chunks() > MAX_TRANSFERS {
        return Err(bad(format!(
            "{} chunks: over the {MAX_TRANSFERS} transfers an MSCCL++ DSL export writes",
            inst.total_chunks()
        )));
    }
    let bytes = Layout::new(inst)?;
    let layout = Layout::in_chunks(inst);
    let strict = inst.model == Model::Strict1;
    let mut link_of: HashMap<(u32, u32, u32, u32), usize> = HashMap::new();
    let mut links = Vec::new();
    let mut ticks = Vec::with_capacity(schedule.ticks() as usize);
    let mut walk = ByteTicks::new(inst, schedule, &bytes);
    while let Some(tick) = walk.next_tick()? {
        let mut used: HashMap<(u32, bool), u32> = HashMap::new(); // lanes taken
        let mut lane = |rank: u32, receives: bool| {
            let dir = receives && !strict;
            let e = used.entry((rank, dir)).or_insert(0);
            *e += 1;
            (*e - 1) + if dir { inst.port(rank as usize) } else { 0 }
        };
        let mut puts = Vec::with_capacity(tick.len());
        for c in tick {
            let i = c.demand as usize;
            let put = Put {
                src: c.src,
                stb: lane(c.src, false),
                si: layout.send_offset(i) + c.chunk,
                dst: c.dst,
                dtb: lane(c.dst, true),
                di: layout.recv_offset(i) + c.chunk,
            };
            link_of.entry(put.link()).or_insert_with(|| {
                links.push(put.link());
                links.len() - 1
            });
            puts.push(put);
        }
        ticks.push(puts);
    }
    let chunks = (0..inst.slots)
        .map(|s| layout.send_buffer_bytes(s).max(layout.recv_buffer_bytes(s)))
        .max()
        .unwrap_or(0)
        .max(1);
    let program = DslProgram {
        name: format!(
            "tickopt_{}_{}gpus_{}ticks",
            inst.model,
            inst.slots,
            schedule.ticks()
        ),
        nranks: inst.slots,
        chunks,
        chunk_bytes: inst.bw / 8,
        links,
        ticks,
    };
    program.check(inst, &layout)?;
    Ok(program)
}

/// The DSL program of a (validated) schedule of `inst`, as Python text.
pub fn export(inst: &Instance, schedule: &Schedule) -> Result<String, InteropError> {
    Ok(lower(inst, schedule)?.to_python())
}

impl DslProgram {
    /// Every demand's chunks land once, in their place; the ticks are valid
    /// under `inst`'s model; no threadblock serves two transfers in a tick.
    fn check(&self, inst: &Instance, layout: &Layout) -> Result<(), InteropError> {
        let wrong = |m: String| bad(format!("the DSL program does not carry the schedule: {m}"));
        let mut out: Vec<Vec<Option<(u32, u64)>>> = (0..inst.slots)
            .map(|t| vec![None; layout.recv_buffer_bytes(t) as usize])
            .collect();
        for (k, tick) in self.ticks.iter().enumerate() {
            let mut busy = std::collections::HashSet::new();
            for p in tick {
                if !busy.insert((p.src, p.stb)) || !busy.insert((p.dst, p.dtb)) {
                    return Err(wrong(format!(
                        "tick {k}: a threadblock of rank {} or {} serves two transfers",
                        p.src, p.dst
                    )));
                }
                let slot = out[p.dst as usize].get_mut(p.di as usize);
                match slot {
                    Some(s @ None) => *s = Some((p.src, p.si)),
                    _ => {
                        return Err(wrong(format!(
                        "tick {k}: output chunk {} of rank {} written twice or outside its buffer",
                        p.di, p.dst
                    )))
                    }
                }
            }
        }
        for (i, d) in inst.demands().iter().enumerate() {
            for c in 0..inst.chunks(i) {
                let got = out[d.dst as usize][(layout.recv_offset(i) + c) as usize];
                if got != Some((d.src, layout.send_offset(i) + c)) {
                    return Err(wrong(format!(
                        "chunk {c} of demand {i} ({} -> {}) is not in its place (found {got:?})",
                        d.src, d.dst
                    )));
                }
            }
        }
        let pairs: Vec<Vec<(u64, u64)>> = self
            .ticks
            .iter()
            .map(|t| t.iter().map(|p| (p.src as u64, p.dst as u64)).collect())
            .collect();
        let report = super::levels_report(inst, &pairs);
        if !report.passed() {
            return Err(wrong(format!(
                "its ticks do not validate: {}",
                report.one_line()
            )));
        }
        Ok(())
    }

    /// The Python program (see the module docs): a header saying what it
    /// is, the tables, and the loop that makes the DSL calls.
    pub fn to_python(&self) -> String {
        let mut s = String::new();
        let transfers: usize = self.ticks.iter().map(Vec::len).sum();
        let _ = write!(
            s,
            "{HEADER}\
             # {} ranks, {} ticks, {transfers} transfers of one chunk, {} channel pairs.\n\
             \n{IMPORTS}\n\
             NAME = \"{}\"\nNRANKS = {}\nCHUNKS = {}\nCHUNK_BYTES = {}\n\
             # Bytes that divide a chunk (MSCCL++'s default is 16).\n\
             BUFFER_ALIGNMENT = {}\n\n",
            self.nranks,
            self.ticks.len(),
            self.links.len(),
            self.name,
            self.nranks,
            self.chunks,
            self.chunk_bytes,
            alignment(self.chunk_bytes)
        );
        s.push_str(
            "# Channel pairs: (rank a, threadblock on a, rank b, threadblock on b).\nLINKS = [\n",
        );
        for (a, ta, b, tb) in &self.links {
            let _ = writeln!(s, "    ({a}, {ta}, {b}, {tb}),");
        }
        s.push_str(
            "]\n\n# Per tick, its transfers of one chunk: (src rank, src threadblock,\n\
             # input chunk, dst rank, dst threadblock, output chunk).\nTICKS = [\n",
        );
        for tick in &self.ticks {
            s.push_str("    [");
            for (k, p) in tick.iter().enumerate() {
                let sep = if k == 0 { "" } else { ", " };
                let _ = write!(
                    s,
                    "{sep}({}, {}, {}, {}, {}, {})",
                    p.src, p.stb, p.si, p.dst, p.dtb, p.di
                );
            }
            s.push_str("],\n");
        }
        s.push_str("]\n");
        s.push_str(BODY);
        s
    }
}

/// The largest power of two up to 16 (MSCCL++'s default buffer
/// alignment) that divides a chunk of `bytes`: the executor splits buffers
/// into chunks in units of the alignment.
fn alignment(bytes: u64) -> u64 {
    (bytes & bytes.wrapping_neg()).clamp(1, 16)
}

const HEADER: &str = "\
# MSCCL++ DSL program written by `tickopt export --to mscclpp-dsl`
# (doc/formats.md, \"mscclpp-dsl\"). Where MSCCL++'s Python package is
# installed, `python3 THIS_FILE > plan.json` prints its execution plan.
#
# Every rank's input and output buffer holds CHUNKS chunks of CHUNK_BYTES
# bytes: rank s's input its demands in order of destination, rank t's
# output its incoming demands in order of source. A lane of the tick model
# is a threadblock; per transfer in a tick, the receiver's threadblock
# signals that its lane is free, the sender's waits for that, puts the
# chunk into the receiver's output and signals, and the receiver's waits.
";

const IMPORTS: &str = "\
from mscclpp.language.channel import MemoryChannel
from mscclpp.language.collectives import Collective
from mscclpp.language.general import JSON
from mscclpp.language.internal.types import BufferType
from mscclpp.language.program import CollectiveProgram
from mscclpp.language.rank import BaseBuffer, Rank
";

const BODY: &str = r#"

class TickoptCollective(Collective):
    """Every rank's input and output buffer: CHUNKS chunks."""

    def __init__(self):
        Collective.__init__(self, NRANKS, 1, False)
        self.name = "alltoall"

    def init_buffers(self):
        return [
            {
                BufferType.input: BaseBuffer(r, BufferType.input, 0, CHUNKS),
                BufferType.output: BaseBuffer(r, BufferType.output, 0, CHUNKS),
            }
            for r in range(NRANKS)
        ]


def main():
    size = CHUNKS * CHUNK_BYTES
    collective = TickoptCollective()
    with CollectiveProgram(
        NAME,
        collective,
        NRANKS,
        protocol="Simple",
        buffer_alignment=BUFFER_ALIGNMENT,
        min_message_size=size,
        max_message_size=size,
    ):
        # channel[a, ta, b, tb]: on rank a, to rank b; both ranks' channels
        # of a pair are made together, so the executor connects them.
        channel = {}
        for a, ta, b, tb in LINKS:
            channel[a, ta, b, tb] = MemoryChannel(b, a)
            channel[b, tb, a, ta] = MemoryChannel(a, b)
        for tick in TICKS:
            for s, stb, si, t, ttb, ti in tick:
                send, recv = channel[s, stb, t, ttb], channel[t, ttb, s, stb]
                recv.signal(tb=ttb)
                send.wait(tb=stb)
                dst = Rank(t).get_output_buffer()[ti : ti + 1]
                send.put(dst, Rank(s).get_input_buffer()[si : si + 1], tb=stb)
                send.signal(tb=stb)
                recv.wait(tb=ttb)
        print(JSON())


if __name__ == "__main__":
    main()
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits};

    fn instance(model: Model, demands: &[(u32, u32, u64)]) -> Instance {
        let demands = demands
            .iter()
            .map(|&(src, dst, bits)| Demand { src, dst, bits });
        Instance::new(model, 3, 16, demands, &Limits::default()).unwrap()
    }

    #[test]
    fn lanes_are_threadblocks_and_receives_have_their_own_under_read1_write1() {
        // Demands (0,1) 2 chunks, (1,2), (2,0): a ring, then 0 -> 1 again.
        let ring = [(0, 1, 32), (1, 2, 16), (2, 0, 16)];
        let mut s = Schedule::new();
        s.push(1, vec![0, 1, 2]);
        s.push(1, vec![0]);
        let p = lower(&instance(Model::Read1Write1, &ring), &s).unwrap();
        let tbs: Vec<(u32, u32)> = p.ticks[0].iter().map(|t| (t.stb, t.dtb)).collect();
        assert_eq!(tbs, [(0, 1), (0, 1), (0, 1)]);
        assert_eq!(
            p.ticks[1][0],
            Put {
                src: 0,
                stb: 0,
                si: 1,
                dst: 1,
                dtb: 1,
                di: 1
            }
        );
        assert_eq!(p.links.len(), 3, "{:?}", p.links);
        assert_eq!(
            (p.chunks, p.chunk_bytes, alignment(p.chunk_bytes)),
            (2, 2, 2)
        );
        // STRICT1: one lane for both; the ring is no valid tick there.
        let e = lower(&instance(Model::Strict1, &ring), &s).unwrap_err();
        assert!(e.to_string().contains("do not validate"), "{e}");
    }

    #[test]
    fn a_misplaced_chunk_is_caught_before_the_text_is_written() {
        let inst = instance(Model::Strict1, &[(0, 1, 32)]);
        let mut s = Schedule::new();
        s.push(2, vec![0]);
        let mut p = lower(&inst, &s).unwrap();
        p.ticks[1][0].di = 0;
        let e = p.check(&inst, &Layout::in_chunks(&inst)).unwrap_err();
        assert!(
            e.to_string()
                .contains("output chunk 0 of rank 1 written twice"),
            "{e}"
        );
        assert!(p
            .to_python()
            .contains("TICKS = [\n    [(0, 0, 0, 1, 0, 0)],\n    [(0, 0, 1, 1, 0, 0)],\n]"));
    }

    #[test]
    fn the_alignment_divides_the_chunk() {
        for (bytes, want) in [(1, 1), (2, 2), (12, 4), (16, 16), (48, 16), (1024, 16)] {
            assert_eq!(alignment(bytes), want, "{bytes}");
        }
    }
}
