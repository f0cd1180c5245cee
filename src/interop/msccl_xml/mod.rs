//! `msccl-xml`: MSCCL algorithm XML, as msccl-tools' IR writes it and the
//! MSCCL executor (Azure/msccl-executor-nccl, `msccl_parser.cc`) reads it.
//!
//! ```xml
//! <algo name="tickopt" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="alltoall" inplace="0" outofplace="1" minBytes="16" maxBytes="16">
//!   <gpu id="0" i_chunks="2" o_chunks="0" s_chunks="0">
//!     <tb id="0" send="1" recv="-1" chan="0">
//!       <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
//!       <step s="1" type="s" srcbuf="i" srcoff="1" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
//!     </tb>
//!   </gpu>
//!   ...
//! </algo>
//! ```
//!
//! What the runtime does with it (read from its source, not guessed): every
//! threadblock (`tb`) runs its steps in order; it has at most one send peer
//! (`send`) and one receive peer (`recv`), and on one gpu at most one
//! threadblock sends to a given peer on a given channel (`chan`), likewise
//! for receiving, so the k-th send from a to b on channel c meets the k-th
//! receive at b from a on channel c. A step with `depid`/`deps` waits until
//! threadblock `depid` of the same gpu has finished its step `deps`, which
//! must carry `hasdep="1"` (it then raises a flag). A send writes into
//! the connection's buffer (a few chunks, [`buffer_depth`]) and goes on;
//! only a receive waits (the importer's runner, `run.rs`, says how that
//! becomes dependency levels). Buffers are counted in
//! chunks of one size: `i` input, `o` output, `s` scratch; `cnt` chunks
//! move from `srcoff` (or into `dstoff`). The executor refuses a file
//! without `minBytes`/`maxBytes` (Azure/msccl#26: it is then silently
//! unused) or `outofplace`; a default build runs at most 64 steps per
//! threadblock (`MSCCL_MAX_NUM_STEPS`).
//!
//! Export ([`export`]) and import ([`import`]) are in their own files;
//! [`Program`] is the one in-memory form both use, [`Program::to_xml`] its
//! one writer and [`parse`] its one reader. Import goes parse -> pair
//! (`pairing.rs`: which receive each send meets) -> run (`run.rs`:
//! dependency levels with buffered sends) -> replay (`levels.rs`: where
//! every chunk ends up, the hop and end-to-end instances, [`Demands`]).

mod export;
mod levels;
mod pairing;
mod parse;
mod run;

pub use export::{export, Exported};
pub use levels::{import, Demands, Imported, Transfer};
pub use parse::parse;
pub use run::{buffer_depth, MSCCL_CHUNKSTEPS, NCCL_STEPS};

/// A buffer of a gpu.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Buf {
    Input,
    Output,
    Scratch,
}

impl Buf {
    fn as_str(self) -> &'static str {
        match self {
            Buf::Input => "i",
            Buf::Output => "o",
            Buf::Scratch => "s",
        }
    }
}

/// A step type (`type` attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// `s`: send `cnt` chunks from the local source to the send peer.
    Send,
    /// `r`: receive `cnt` chunks from the receive peer into the local
    /// destination.
    Recv,
    /// `rcs`: receive into the local destination and send the same chunks
    /// on to the send peer (a relay).
    RecvCopySend,
    /// `cpy`: a local copy (no transfer).
    Copy,
    /// `nop`: carries a dependency only.
    Nop,
}

/// Step types that reduce: tickopt moves data and does not add it up, so
/// a program using them is refused by name.
pub const REFUSED_TYPES: [&str; 4] = ["rrc", "rrs", "rrcs", "re"];

impl StepKind {
    fn as_str(self) -> &'static str {
        match self {
            StepKind::Send => "s",
            StepKind::Recv => "r",
            StepKind::RecvCopySend => "rcs",
            StepKind::Copy => "cpy",
            StepKind::Nop => "nop",
        }
    }

    fn sends(self) -> bool {
        matches!(self, StepKind::Send | StepKind::RecvCopySend)
    }

    fn receives(self) -> bool {
        matches!(self, StepKind::Recv | StepKind::RecvCopySend)
    }
}

/// One step of a threadblock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub kind: StepKind,
    pub srcbuf: Buf,
    pub srcoff: i64,
    pub dstbuf: Buf,
    pub dstoff: i64,
    pub cnt: u32,
    /// `(depid, deps)`: the threadblock and step this one waits for.
    pub dep: Option<(u32, u32)>,
    pub hasdep: bool,
    /// Line and column in the file it was read from (0 when built here).
    pub at: (u32, u32),
}

/// One threadblock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Threadblock {
    pub id: u32,
    /// Send peer, or -1.
    pub send: i64,
    /// Receive peer, or -1.
    pub recv: i64,
    pub chan: u32,
    pub steps: Vec<Step>,
    pub at: (u32, u32),
}

/// One gpu: its buffer sizes (in chunks) and threadblocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gpu {
    pub id: u32,
    pub i_chunks: u64,
    pub o_chunks: u64,
    pub s_chunks: u64,
    pub tbs: Vec<Threadblock>,
    pub at: (u32, u32),
}

/// A whole algorithm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub name: String,
    pub proto: String,
    pub coll: String,
    pub nchannels: u32,
    pub nchunksperloop: u64,
    pub inplace: bool,
    /// `outofplace`, `minBytes`, `maxBytes`: msccl-tools does not always
    /// write them; the executor needs them (kept to say so on import).
    pub outofplace: Option<bool>,
    pub min_bytes: Option<u64>,
    pub max_bytes: Option<u64>,
    pub gpus: Vec<Gpu>,
}

impl Program {
    /// The XML text, laid out as msccl-tools writes it (lxml, two-space
    /// indent, attributes in its order) with the executor's required
    /// `outofplace`, `minBytes` and `maxBytes` after `inplace`.
    pub fn to_xml(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = write!(
            s,
            "<algo name=\"{}\" proto=\"{}\" nchannels=\"{}\" nchunksperloop=\"{}\" ngpus=\"{}\" coll=\"{}\" inplace=\"{}\"",
            crate::html_text::escape(&self.name),
            crate::html_text::escape(&self.proto),
            self.nchannels,
            self.nchunksperloop,
            self.gpus.len(),
            crate::html_text::escape(&self.coll),
            u8::from(self.inplace)
        );
        if let Some(o) = self.outofplace {
            let _ = write!(s, " outofplace=\"{}\"", u8::from(o));
        }
        if let Some(b) = self.min_bytes {
            let _ = write!(s, " minBytes=\"{b}\"");
        }
        if let Some(b) = self.max_bytes {
            let _ = write!(s, " maxBytes=\"{b}\"");
        }
        s.push_str(">\n");
        for g in &self.gpus {
            let _ = write!(
                s,
                "  <gpu id=\"{}\" i_chunks=\"{}\" o_chunks=\"{}\" s_chunks=\"{}\"",
                g.id, g.i_chunks, g.o_chunks, g.s_chunks
            );
            if g.tbs.is_empty() {
                s.push_str("/>\n");
                continue;
            }
            s.push_str(">\n");
            for tb in &g.tbs {
                let _ = write!(
                    s,
                    "    <tb id=\"{}\" send=\"{}\" recv=\"{}\" chan=\"{}\"",
                    tb.id, tb.send, tb.recv, tb.chan
                );
                if tb.steps.is_empty() {
                    s.push_str("/>\n");
                    continue;
                }
                s.push_str(">\n");
                for (i, st) in tb.steps.iter().enumerate() {
                    let (depid, deps) = st.dep.map_or((-1, -1), |(a, b)| (a as i64, b as i64));
                    let _ = writeln!(
                        s,
                        "      <step s=\"{i}\" type=\"{}\" srcbuf=\"{}\" srcoff=\"{}\" dstbuf=\"{}\" dstoff=\"{}\" cnt=\"{}\" depid=\"{depid}\" deps=\"{deps}\" hasdep=\"{}\"/>",
                        st.kind.as_str(),
                        st.srcbuf.as_str(),
                        st.srcoff,
                        st.dstbuf.as_str(),
                        st.dstoff,
                        st.cnt,
                        u8::from(st.hasdep)
                    );
                }
                s.push_str("    </tb>\n");
            }
            s.push_str("  </gpu>\n");
        }
        s.push_str("</algo>\n");
        s
    }
}
