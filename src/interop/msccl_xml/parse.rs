//! Reads MSCCL algorithm XML into a [`Program`], checking what the
//! executor's parser checks (required attributes, peers, buffer bounds,
//! threadblock ids, step numbers) plus the rule that makes sends and
//! receives pair up: on one gpu and channel, one threadblock per send peer
//! and one per receive peer. Every error names the line and column and the
//! gpu, threadblock and step.

use super::{Buf, Gpu, Program, Step, StepKind, Threadblock, REFUSED_TYPES};
use crate::interop::InteropError;
use roxmltree::{Document, Node};
use std::collections::HashSet;

/// Most nodes (gpus, threadblocks, steps) a file may hold: far above what
/// the executor loads (4096 per rank), low enough to bound memory.
const MAX_NODES: usize = 1 << 24;

struct Ctx<'a> {
    text: &'a str,
    lines: LineStarts,
}

/// Byte offsets where the lines of a text start: a position's line is
/// found by binary search, so naming every node's line costs O(log n)
/// (roxmltree's `text_pos_at` rescans the text from its start: quadratic
/// over a file's steps).
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn new(text: &str) -> Self {
        let breaks = text.bytes().enumerate().filter(|&(_, b)| b == b'\n');
        LineStarts(
            std::iter::once(0)
                .chain(breaks.map(|(i, _)| i + 1))
                .collect(),
        )
    }

    /// Line and column (both from 1, the column in characters) of byte
    /// `pos` of `text`, as roxmltree counts them.
    fn at(&self, text: &str, pos: usize) -> (u32, u32) {
        let pos = pos.min(text.len());
        let line = self.0.partition_point(|&s| s <= pos) - 1;
        let col = text[self.0[line]..pos].chars().count() + 1;
        (line as u32 + 1, col as u32)
    }
}

impl Ctx<'_> {
    fn at(&self, n: Node) -> (u32, u32) {
        self.lines.at(self.text, n.range().start)
    }

    fn err(&self, n: Node, what: &str, msg: impl std::fmt::Display) -> InteropError {
        let (l, c) = self.at(n);
        InteropError::Invalid(format!("line {l}, column {c}: {what}{msg}"))
    }

    fn attr<'b>(&self, n: Node<'b, 'b>, what: &str, key: &str) -> Result<&'b str, InteropError> {
        n.attribute(key).ok_or_else(|| {
            self.err(
                n,
                what,
                format!("<{}> has no {key:?} attribute", n.tag_name().name()),
            )
        })
    }

    fn int(&self, n: Node, what: &str, key: &str) -> Result<i64, InteropError> {
        let v = self.attr(n, what, key)?;
        v.trim()
            .parse::<i64>()
            .map_err(|_| self.err(n, what, format!("{key}={v:?} is not an integer")))
    }

    fn uint(&self, n: Node, what: &str, key: &str) -> Result<u64, InteropError> {
        let v = self.int(n, what, key)?;
        u64::try_from(v).map_err(|_| self.err(n, what, format!("{key}={v} is negative")))
    }

    fn flag(&self, n: Node, what: &str, key: &str) -> Result<bool, InteropError> {
        match self.int(n, what, key)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(self.err(n, what, format!("{key}={v}, expected 0 or 1"))),
        }
    }

    fn opt_uint(&self, n: Node, what: &str, key: &str) -> Result<Option<u64>, InteropError> {
        if n.attribute(key).is_none() {
            return Ok(None);
        }
        self.uint(n, what, key).map(Some)
    }
}

fn elements<'a>(n: Node<'a, 'a>) -> impl Iterator<Item = Node<'a, 'a>> {
    n.children().filter(|c| c.is_element())
}

fn buf(ctx: &Ctx, n: Node, what: &str, key: &str) -> Result<Buf, InteropError> {
    match ctx.attr(n, what, key)? {
        "i" => Ok(Buf::Input),
        "o" => Ok(Buf::Output),
        "s" => Ok(Buf::Scratch),
        v => Err(ctx.err(n, what, format!("{key}={v:?} is not a buffer (i, o or s)"))),
    }
}

/// Parses and checks an MSCCL algorithm XML (see the module docs): the
/// `<algo>` header, every gpu with its threadblocks and steps, then the
/// dependencies across threadblocks.
pub fn parse(text: &str) -> Result<Program, InteropError> {
    let doc = Document::parse(text).map_err(|e| InteropError::Invalid(format!("not XML: {e}")))?;
    let ctx = Ctx {
        text,
        lines: LineStarts::new(text),
    };
    let algo = doc.root_element();
    if algo.tag_name().name() != "algo" {
        return Err(ctx.err(
            algo,
            "",
            format!(
                "the root element is <{}>, expected <algo>",
                algo.tag_name().name()
            ),
        ));
    }
    if doc.descendants().count() > MAX_NODES {
        return Err(InteropError::Invalid(format!(
            "more than {MAX_NODES} XML nodes"
        )));
    }
    let ngpus = ctx.uint(algo, "", "ngpus")?;
    let mut program = header(&ctx, algo)?;
    let mut seen_gpu = HashSet::new();
    for g in elements(algo) {
        expect_tag(&ctx, g, "", "gpu", "algo")?;
        let id = ctx.uint(g, "", "id")?;
        let gw = format!("gpu {id}: ");
        if id >= ngpus {
            return Err(ctx.err(g, &gw, format!("id is not below ngpus={ngpus}")));
        }
        if !seen_gpu.insert(id) {
            return Err(ctx.err(g, &gw, "a second <gpu> with this id"));
        }
        program
            .gpus
            .push(gpu(&ctx, g, id, ngpus, program.nchannels)?);
    }
    if program.gpus.len() as u64 != ngpus {
        let missing = (0..ngpus).find(|g| !seen_gpu.contains(g)).unwrap_or(0);
        return Err(ctx.err(
            algo,
            "",
            format!("ngpus={ngpus} but gpu {missing} has no <gpu> element"),
        ));
    }
    program.gpus.sort_by_key(|g| g.id);
    for g in &program.gpus {
        check_deps(g)?;
    }
    Ok(program)
}

/// An element that must be `<want>` inside `<parent>`.
fn expect_tag(
    ctx: &Ctx,
    n: Node,
    what: &str,
    want: &str,
    parent: &str,
) -> Result<(), InteropError> {
    if n.tag_name().name() == want {
        return Ok(());
    }
    Err(ctx.err(
        n,
        what,
        format!("unexpected <{}> in <{parent}>", n.tag_name().name()),
    ))
}

/// The `<algo>` attributes (no gpus yet).
fn header(ctx: &Ctx, algo: Node) -> Result<Program, InteropError> {
    Ok(Program {
        name: algo.attribute("name").unwrap_or("").to_string(),
        proto: ctx.attr(algo, "", "proto")?.to_string(),
        coll: ctx.attr(algo, "", "coll")?.to_string(),
        nchannels: u32::try_from(ctx.uint(algo, "", "nchannels")?)
            .map_err(|_| ctx.err(algo, "", "nchannels is too large"))?,
        nchunksperloop: ctx.uint(algo, "", "nchunksperloop")?,
        inplace: ctx.flag(algo, "", "inplace")?,
        outofplace: if algo.attribute("outofplace").is_some() {
            Some(ctx.flag(algo, "", "outofplace")?)
        } else {
            None
        },
        min_bytes: ctx.opt_uint(algo, "", "minBytes")?,
        max_bytes: ctx.opt_uint(algo, "", "maxBytes")?,
        gpus: Vec::new(),
    })
}

/// One `<gpu>`: its buffers and threadblocks (one per send peer and
/// channel, one per receive peer and channel, ids 0..n without gaps).
fn gpu(ctx: &Ctx, g: Node, id: u64, ngpus: u64, nchannels: u32) -> Result<Gpu, InteropError> {
    let gw = format!("gpu {id}: ");
    let mut gpu = Gpu {
        id: id as u32,
        i_chunks: ctx.uint(g, &gw, "i_chunks")?,
        o_chunks: ctx.uint(g, &gw, "o_chunks")?,
        s_chunks: ctx.uint(g, &gw, "s_chunks")?,
        tbs: Vec::new(),
        at: ctx.at(g),
    };
    let mut tb_ids = HashSet::new();
    let mut peers = (HashSet::new(), HashSet::new());
    for t in elements(g) {
        expect_tag(ctx, t, &gw, "tb", "gpu")?;
        let tid = ctx.uint(t, &gw, "id")?;
        let tw = format!("gpu {id}, tb {tid}: ");
        if !tb_ids.insert(tid) {
            return Err(ctx.err(t, &tw, "a second <tb> with this id on the gpu"));
        }
        let mut tb = threadblock(ctx, t, &tw, id, (ngpus, nchannels), &mut peers)?;
        for (k, st) in elements(t).enumerate() {
            let step = step(ctx, st, id, tid, k, &tb)?;
            check_bounds(
                ctx,
                st,
                &format!("gpu {id}, tb {tid}, step {k}: "),
                &gpu,
                &step,
            )?;
            tb.steps.push(step);
        }
        gpu.tbs.push(tb);
    }
    // The executor wants threadblock ids 0..n without holes.
    let n = gpu.tbs.len() as u64;
    if let Some(t) = gpu.tbs.iter().find(|t| t.id as u64 >= n) {
        return Err(InteropError::Invalid(format!(
            "line {}, column {}: gpu {id}, tb {}: threadblock ids must be 0..{} without gaps",
            t.at.0, t.at.1, t.id, n
        )));
    }
    gpu.tbs.sort_by_key(|t| t.id);
    Ok(gpu)
}

/// Send and receive peers, each with its channel, of a gpu's threadblocks.
type Peers = (HashSet<(i64, u64)>, HashSet<(i64, u64)>);

/// A `<tb>`'s attributes (no steps yet): peers are -1 or another gpu below
/// `ngpus`, one threadblock per send peer and channel (likewise for
/// receiving, `peers` holds those seen), the channel below `nchannels`.
fn threadblock(
    ctx: &Ctx,
    t: Node,
    tw: &str,
    gpu: u64,
    (ngpus, nchannels): (u64, u32),
    peers: &mut Peers,
) -> Result<Threadblock, InteropError> {
    let tid = ctx.uint(t, tw, "id")?;
    let send = ctx.int(t, tw, "send")?;
    let recv = ctx.int(t, tw, "recv")?;
    let chan = ctx.uint(t, tw, "chan")?;
    for (key, p) in [("send", send), ("recv", recv)] {
        if p < -1 || p >= ngpus as i64 || p == gpu as i64 {
            return Err(ctx.err(
                t,
                tw,
                format!("{key}={p} is not a peer (-1 or another gpu below ngpus={ngpus})"),
            ));
        }
    }
    if send >= 0 && !peers.0.insert((send, chan)) {
        return Err(ctx.err(t, tw, format!("a second threadblock sending to {send} on channel {chan} (sends to one peer on one channel must be in one threadblock)")));
    }
    if recv >= 0 && !peers.1.insert((recv, chan)) {
        return Err(ctx.err(
            t,
            tw,
            format!("a second threadblock receiving from {recv} on channel {chan}"),
        ));
    }
    if chan >= nchannels as u64 {
        return Err(ctx.err(
            t,
            tw,
            format!("chan={chan} is not below nchannels={nchannels}"),
        ));
    }
    Ok(Threadblock {
        id: tid as u32,
        send,
        recv,
        chan: chan as u32,
        steps: Vec::new(),
        at: ctx.at(t),
    })
}

/// The step type of a `type` attribute; the reducing types are refused by
/// name.
fn step_kind(ctx: &Ctx, st: Node, sw: &str, ty: &str) -> Result<StepKind, InteropError> {
    Ok(match ty {
        "s" => StepKind::Send,
        "r" => StepKind::Recv,
        "rcs" => StepKind::RecvCopySend,
        "cpy" => StepKind::Copy,
        "nop" => StepKind::Nop,
        t if REFUSED_TYPES.contains(&t) => {
            return Err(ctx.err(st, sw, format!("type {t:?} reduces; tickopt imports programs that move data (s, r, rcs, cpy, nop) and refuses the reducing types rrc, rrs, rrcs and re")));
        }
        t => return Err(ctx.err(st, sw, format!("type {t:?} is not an MSCCL step type"))),
    })
}

/// Step `k` of threadblock `tb` (`tid`) of gpu `gpu`: its number, type,
/// count and dependency, and a peer for what it sends or receives.
fn step(
    ctx: &Ctx,
    st: Node,
    gpu: u64,
    tid: u64,
    k: usize,
    tb: &Threadblock,
) -> Result<Step, InteropError> {
    expect_tag(ctx, st, &format!("gpu {gpu}, tb {tid}: "), "step", "tb")?;
    let tw = format!("gpu {gpu}, tb {tid}: ");
    let s = ctx.int(st, &tw, "s")?;
    let sw = format!("gpu {gpu}, tb {tid}, step {s}: ");
    if s != k as i64 {
        return Err(ctx.err(
            st,
            &sw,
            format!("s={s}, but it is step {k} of the threadblock"),
        ));
    }
    let ty = ctx.attr(st, &sw, "type")?;
    let kind = step_kind(ctx, st, &sw, ty)?;
    let cnt = ctx.uint(st, &sw, "cnt")?;
    let cnt = u32::try_from(cnt).map_err(|_| ctx.err(st, &sw, "cnt is too large"))?;
    let depid = ctx.int(st, &sw, "depid")?;
    let deps = ctx.int(st, &sw, "deps")?;
    let dep = if depid >= 0 {
        let deps = u32::try_from(deps)
            .map_err(|_| ctx.err(st, &sw, format!("depid={depid} with deps={deps}")))?;
        Some((depid as u32, deps))
    } else {
        None
    };
    let step = Step {
        kind,
        srcbuf: buf(ctx, st, &sw, "srcbuf")?,
        srcoff: ctx.int(st, &sw, "srcoff")?,
        dstbuf: buf(ctx, st, &sw, "dstbuf")?,
        dstoff: ctx.int(st, &sw, "dstoff")?,
        cnt,
        dep,
        hasdep: ctx.flag(st, &sw, "hasdep")?,
        at: ctx.at(st),
    };
    if kind.sends() && tb.send < 0 {
        return Err(ctx.err(
            st,
            &sw,
            format!("a {ty:?} step in a threadblock without a send peer"),
        ));
    }
    if kind.receives() && tb.recv < 0 {
        return Err(ctx.err(
            st,
            &sw,
            format!("a {ty:?} step in a threadblock without a receive peer"),
        ));
    }
    if kind != StepKind::Nop && cnt == 0 {
        return Err(ctx.err(st, &sw, "cnt=0 moves nothing"));
    }
    Ok(step)
}

/// The local side of a step (what it reads or writes on its own gpu) lies
/// inside its buffer.
fn check_bounds(ctx: &Ctx, st: Node, sw: &str, gpu: &Gpu, step: &Step) -> Result<(), InteropError> {
    let size = |b: Buf| match b {
        Buf::Input => gpu.i_chunks,
        Buf::Output => gpu.o_chunks,
        Buf::Scratch => gpu.s_chunks,
    };
    let local_src = matches!(step.kind, StepKind::Send | StepKind::Copy);
    let local_dst = matches!(
        step.kind,
        StepKind::Recv | StepKind::RecvCopySend | StepKind::Copy
    );
    let cnt = step.cnt;
    for (is_local, b, off, key) in [
        (local_src, step.srcbuf, step.srcoff, "srcoff"),
        (local_dst, step.dstbuf, step.dstoff, "dstoff"),
    ] {
        if is_local && (off < 0 || off as u64 + cnt as u64 > size(b)) {
            return Err(ctx.err(
                st,
                sw,
                format!(
                    "{key}={off} cnt={cnt} is outside buffer {:?} of {} chunks",
                    b.as_str(),
                    size(b)
                ),
            ));
        }
    }
    Ok(())
}

/// Dependencies name a step of another threadblock of the same gpu, and
/// that step raises its flag (`hasdep="1"`).
fn check_deps(g: &Gpu) -> Result<(), InteropError> {
    for t in &g.tbs {
        for (k, st) in t.steps.iter().enumerate() {
            let Some((depid, deps)) = st.dep else {
                continue;
            };
            let target = g
                .tbs
                .get(depid as usize)
                .and_then(|d| d.steps.get(deps as usize));
            let Some(target) = target else {
                return Err(InteropError::Invalid(format!(
                    "line {}, column {}: gpu {}, tb {}, step {k}: depends on tb {depid} step {deps}, which gpu {} does not have",
                    st.at.0, st.at.1, g.id, t.id, g.id
                )));
            };
            if !target.hasdep {
                return Err(InteropError::Invalid(format!(
                    "line {}, column {}: gpu {}, tb {}, step {k}: depends on tb {depid} step {deps}, which has hasdep=\"0\" (the executor raises the flag a dependency waits for only at hasdep=\"1\" steps)",
                    st.at.0, st.at.1, g.id, t.id
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::LineStarts;

    /// The index names the same line and column as roxmltree's own
    /// (linear) count, at every byte of a text with multi-byte characters
    /// and empty lines.
    #[test]
    fn line_starts_agree_with_roxmltree() {
        let text = "<algo name=\"é\">\n\n  <gpu id=\"0\"/> <!-- ü -->\r\n</algo>\n";
        let doc = roxmltree::Document::parse(text).unwrap();
        let lines = LineStarts::new(text);
        for pos in (0..=text.len()).filter(|&p| text.is_char_boundary(p)) {
            let p = doc.text_pos_at(pos);
            assert_eq!(lines.at(text, pos), (p.row, p.col), "byte {pos}");
        }
    }
}
