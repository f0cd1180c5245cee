//! Reads MSCCL algorithm XML into a [`Program`], checking what the
//! executor's parser checks (required attributes, peers, buffer bounds,
//! threadblock ids, step numbers) plus the rule that makes sends and
//! receives pair up: on one gpu and channel, one threadblock per send peer
//! and one per receive peer. Every error names the line and column and the
//! gpu, threadblock and step.
//!
//! The file is read as a stream of tags (quick-xml): each element is
//! checked as it comes and only the [`Program`] is kept, with an index of
//! line starts for the messages (memory: the program and about 8 bytes a
//! line, never a tree of the file; time linear in its size).

use super::{Buf, Gpu, Program, Step, StepKind, Threadblock, REFUSED_TYPES};
use crate::interop::InteropError;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::collections::HashSet;

/// Most elements (gpus, threadblocks, steps) a file may hold: far above
/// what the executor loads (4096 per rank), low enough to bound memory.
const MAX_NODES: usize = 1 << 24;

struct Ctx<'a> {
    text: &'a str,
    lines: LineStarts,
}

/// Byte offsets where the lines of a text start: a position's line is
/// found by binary search, so naming every element's line costs
/// O(log n) (a rescan of the text from its start for each, as roxmltree's
/// `text_pos_at` does, is quadratic over a file's steps).
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
        let mut pos = pos.min(text.len());
        while !text.is_char_boundary(pos) {
            pos -= 1;
        }
        let line = self.0.partition_point(|&s| s <= pos) - 1;
        let col = text[self.0[line]..pos].chars().count() + 1;
        (line as u32 + 1, col as u32)
    }
}

/// One element's start tag, read from the stream: its local name, its
/// attributes (values unescaped) and where it starts. Held only while the
/// element is checked: the file is never held as a tree.
struct El {
    name: String,
    attrs: Vec<(String, String)>,
    at: (u32, u32),
}

impl El {
    fn attribute(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

impl Ctx<'_> {
    fn el(&self, e: &BytesStart, pos: usize) -> Result<El, InteropError> {
        let at = self.lines.at(self.text, pos);
        let bad = |e: &dyn std::fmt::Display| {
            InteropError::Invalid(format!("line {}, column {}: not XML: {e}", at.0, at.1))
        };
        let name = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
        let mut attrs = Vec::new();
        for a in e.attributes() {
            let a = a.map_err(|e| bad(&e))?;
            let key = String::from_utf8_lossy(a.key.local_name().as_ref()).into_owned();
            let value = a.unescape_value().map_err(|e| bad(&e))?.into_owned();
            attrs.push((key, value));
        }
        Ok(El { name, attrs, at })
    }

    fn err(&self, n: &El, what: &str, msg: impl std::fmt::Display) -> InteropError {
        let (l, c) = n.at;
        InteropError::Invalid(format!("line {l}, column {c}: {what}{msg}"))
    }

    fn attr<'b>(&self, n: &'b El, what: &str, key: &str) -> Result<&'b str, InteropError> {
        n.attribute(key)
            .ok_or_else(|| self.err(n, what, format!("<{}> has no {key:?} attribute", n.name)))
    }

    fn int(&self, n: &El, what: &str, key: &str) -> Result<i64, InteropError> {
        let v = self.attr(n, what, key)?;
        v.trim()
            .parse::<i64>()
            .map_err(|_| self.err(n, what, format!("{key}={v:?} is not an integer")))
    }

    fn uint(&self, n: &El, what: &str, key: &str) -> Result<u64, InteropError> {
        let v = self.int(n, what, key)?;
        u64::try_from(v).map_err(|_| self.err(n, what, format!("{key}={v} is negative")))
    }

    fn flag(&self, n: &El, what: &str, key: &str) -> Result<bool, InteropError> {
        match self.int(n, what, key)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(self.err(n, what, format!("{key}={v}, expected 0 or 1"))),
        }
    }

    fn opt_uint(&self, n: &El, what: &str, key: &str) -> Result<Option<u64>, InteropError> {
        if n.attribute(key).is_none() {
            return Ok(None);
        }
        self.uint(n, what, key).map(Some)
    }
}

fn buf(ctx: &Ctx, n: &El, what: &str, key: &str) -> Result<Buf, InteropError> {
    match ctx.attr(n, what, key)? {
        "i" => Ok(Buf::Input),
        "o" => Ok(Buf::Output),
        "s" => Ok(Buf::Scratch),
        v => Err(ctx.err(n, what, format!("{key}={v:?} is not a buffer (i, o or s)"))),
    }
}

/// What the stream has built so far: the program (from `<algo>`), the gpu
/// and threadblock being read, and how deep the reader is.
struct State {
    program: Option<Program>,
    ngpus: u64,
    algo: Option<El>,
    seen_gpu: HashSet<u64>,
    gpu: Option<(Gpu, Peers, HashSet<u64>)>,
    tb: Option<Threadblock>,
    depth: usize,
    nodes: usize,
}

/// Parses and checks an MSCCL algorithm XML (see the module docs) as it
/// streams by: the `<algo>` header, every gpu with its threadblocks and
/// steps, then the dependencies across threadblocks. Memory: the program
/// read so far and an index of line starts, never a tree of the file.
pub fn parse(text: &str) -> Result<Program, InteropError> {
    let ctx = Ctx {
        text,
        lines: LineStarts::new(text),
    };
    let mut r = Reader::from_str(text);
    let mut st = State {
        program: None,
        ngpus: 0,
        algo: None,
        seen_gpu: HashSet::new(),
        gpu: None,
        tb: None,
        depth: 0,
        nodes: 0,
    };
    loop {
        let pos = r.buffer_position() as usize;
        let ev = r.read_event().map_err(|e| {
            let (l, c) = ctx.lines.at(text, r.error_position() as usize);
            InteropError::Invalid(format!("line {l}, column {c}: not XML: {e}"))
        })?;
        match ev {
            Event::Start(e) => {
                st.open(&ctx, ctx.el(&e, pos)?)?;
                st.depth += 1;
            }
            Event::Empty(e) => {
                st.open(&ctx, ctx.el(&e, pos)?)?;
                st.close()?;
            }
            Event::End(_) => {
                st.depth -= 1;
                st.close()?;
            }
            Event::Text(t) if st.depth == 0 && !t.iter().all(u8::is_ascii_whitespace) => {
                let (l, c) = ctx.lines.at(text, pos);
                return Err(InteropError::Invalid(format!(
                    "line {l}, column {c}: not XML: text outside the root element"
                )));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    st.finish(&ctx)
}

impl State {
    /// A start tag at `self.depth` (0 `<algo>`, 1 `<gpu>`, 2 `<tb>`, 3
    /// `<step>`; deeper elements are not read, as the executor does not).
    fn open(&mut self, ctx: &Ctx, n: El) -> Result<(), InteropError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(InteropError::Invalid(format!(
                "more than {MAX_NODES} XML elements"
            )));
        }
        match self.depth {
            0 => {
                if self.program.is_some() {
                    return Err(ctx.err(&n, "", "not XML: a second root element"));
                }
                if n.name != "algo" {
                    return Err(ctx.err(
                        &n,
                        "",
                        format!("the root element is <{}>, expected <algo>", n.name),
                    ));
                }
                self.ngpus = ctx.uint(&n, "", "ngpus")?;
                self.program = Some(header(ctx, &n)?);
                self.algo = Some(n);
            }
            1 => {
                expect_tag(ctx, &n, "", "gpu", "algo")?;
                let id = ctx.uint(&n, "", "id")?;
                let gw = format!("gpu {id}: ");
                if id >= self.ngpus {
                    return Err(ctx.err(&n, &gw, format!("id is not below ngpus={}", self.ngpus)));
                }
                if !self.seen_gpu.insert(id) {
                    return Err(ctx.err(&n, &gw, "a second <gpu> with this id"));
                }
                self.gpu = Some((gpu(ctx, &n, id)?, Default::default(), HashSet::new()));
            }
            2 => {
                let nch = self.program.as_ref().map_or(0, |p| p.nchannels);
                let ngpus = self.ngpus;
                let (g, peers, tb_ids) = self.gpu.as_mut().expect("inside a <gpu>");
                let gw = format!("gpu {}: ", g.id);
                expect_tag(ctx, &n, &gw, "tb", "gpu")?;
                let tid = ctx.uint(&n, &gw, "id")?;
                let tw = format!("gpu {}, tb {tid}: ", g.id);
                if !tb_ids.insert(tid) {
                    return Err(ctx.err(&n, &tw, "a second <tb> with this id on the gpu"));
                }
                self.tb = Some(threadblock(ctx, &n, &tw, g.id as u64, (ngpus, nch), peers)?);
            }
            3 => {
                let (g, _, _) = self.gpu.as_ref().expect("inside a <gpu>");
                let tb = self.tb.as_mut().expect("inside a <tb>");
                let (gid, tid, k) = (g.id as u64, tb.id as u64, tb.steps.len());
                let s = step(ctx, &n, gid, tid, k, tb)?;
                check_bounds(ctx, &n, &format!("gpu {gid}, tb {tid}, step {k}: "), g, &s)?;
                tb.steps.push(s);
            }
            _ => {}
        }
        Ok(())
    }

    /// The end of the element at `self.depth`: a threadblock joins its
    /// gpu, a gpu (its threadblock ids checked) the program.
    fn close(&mut self) -> Result<(), InteropError> {
        match self.depth {
            2 => {
                let tb = self.tb.take().expect("a <tb> was opened");
                self.gpu.as_mut().expect("inside a <gpu>").0.tbs.push(tb);
            }
            1 => {
                let (g, _, _) = self.gpu.take().expect("a <gpu> was opened");
                let g = finish_gpu(g)?;
                self.program.as_mut().expect("inside <algo>").gpus.push(g);
            }
            _ => {}
        }
        Ok(())
    }

    /// After the last event: every gpu present, dependencies in place.
    fn finish(self, ctx: &Ctx) -> Result<Program, InteropError> {
        let (Some(mut program), Some(algo)) = (self.program, self.algo) else {
            return Err(InteropError::Invalid("not XML: no root element".into()));
        };
        if self.depth != 0 {
            return Err(InteropError::Invalid(format!(
                "line {}: not XML: the file ends inside an element",
                ctx.lines.0.len()
            )));
        }
        if program.gpus.len() as u64 != self.ngpus {
            let missing = (0..self.ngpus)
                .find(|g| !self.seen_gpu.contains(g))
                .unwrap_or(0);
            return Err(ctx.err(
                &algo,
                "",
                format!(
                    "ngpus={} but gpu {missing} has no <gpu> element",
                    self.ngpus
                ),
            ));
        }
        program.gpus.sort_by_key(|g| g.id);
        for g in &program.gpus {
            check_deps(g)?;
        }
        Ok(program)
    }
}

/// An element that must be `<want>` inside `<parent>`.
fn expect_tag(ctx: &Ctx, n: &El, what: &str, want: &str, parent: &str) -> Result<(), InteropError> {
    if n.name == want {
        return Ok(());
    }
    Err(ctx.err(n, what, format!("unexpected <{}> in <{parent}>", n.name)))
}

/// The `<algo>` attributes (no gpus yet).
fn header(ctx: &Ctx, algo: &El) -> Result<Program, InteropError> {
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

/// A `<gpu>`'s buffers (threadblocks follow: one per send peer and
/// channel, one per receive peer and channel).
fn gpu(ctx: &Ctx, g: &El, id: u64) -> Result<Gpu, InteropError> {
    let gw = format!("gpu {id}: ");
    Ok(Gpu {
        id: id as u32,
        i_chunks: ctx.uint(g, &gw, "i_chunks")?,
        o_chunks: ctx.uint(g, &gw, "o_chunks")?,
        s_chunks: ctx.uint(g, &gw, "s_chunks")?,
        tbs: Vec::new(),
        at: g.at,
    })
}

/// A gpu read whole: threadblock ids 0..n without holes (the executor
/// wants them so), in order of id.
fn finish_gpu(mut gpu: Gpu) -> Result<Gpu, InteropError> {
    let n = gpu.tbs.len() as u64;
    if let Some(t) = gpu.tbs.iter().find(|t| t.id as u64 >= n) {
        return Err(InteropError::Invalid(format!(
            "line {}, column {}: gpu {}, tb {}: threadblock ids must be 0..{} without gaps",
            t.at.0, t.at.1, gpu.id, t.id, n
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
    t: &El,
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
        at: t.at,
    })
}

/// The step type of a `type` attribute; the reducing types are refused by
/// name.
fn step_kind(ctx: &Ctx, st: &El, sw: &str, ty: &str) -> Result<StepKind, InteropError> {
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
    st: &El,
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
        at: st.at,
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
fn check_bounds(ctx: &Ctx, st: &El, sw: &str, gpu: &Gpu, step: &Step) -> Result<(), InteropError> {
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

    /// The stream names each element where roxmltree's tree starts it,
    /// with a declaration, a comment and a multi-byte name before it.
    #[test]
    fn elements_start_where_roxmltree_puts_them() {
        let text = include_str!("../../../tests/data/msccl_alltoall_4.xml");
        let text = format!("<?xml version=\"1.0\"?>\n<!-- é -->\n{text}");
        let p = super::parse(&text).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let at = |n: roxmltree::Node| {
            let t = doc.text_pos_at(n.range().start);
            (t.row, t.col)
        };
        let gpus: Vec<_> = doc
            .root_element()
            .children()
            .filter(|n| n.is_element())
            .collect();
        for (g, n) in p.gpus.iter().zip(&gpus) {
            assert_eq!(g.at, at(*n));
            let tbs = n.children().filter(|n| n.is_element());
            let mut got: Vec<_> = g.tbs.iter().map(|t| t.at).collect();
            let mut want: Vec<_> = tbs.map(at).collect();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want);
        }
    }

    /// Malformed files are refused with a line, not read in part.
    #[test]
    fn malformed_xml_is_refused_with_its_line() {
        let good = include_str!("../../../tests/data/msccl_alltoall_4.xml");
        for (text, want) in [
            (good.replacen("</tb>", "</gpu>", 1), "not XML"),
            (good.replace("</algo>", ""), "ends inside an element"),
            (format!("{good}<algo/>"), "a second root element"),
            (format!("{good}junk"), "text outside the root element"),
            (good.replacen("<tb ", "<tb id=\"9\" ", 1), "not XML"),
        ] {
            let e = super::parse(&text).unwrap_err().to_string();
            assert!(e.contains(want) && e.starts_with("line "), "{want}: {e}");
        }
    }
}
