//! Which receive each send meets: the k-th sending step from a to b on
//! channel c pairs with the k-th receiving step at b from a on channel c
//! (one connection), with the same `cnt`. Steps get global ids here
//! ([`Flat`]) so the runner can keep its state in flat vectors.

use super::{Program, Step};
use crate::interop::InteropError;
use std::collections::HashMap;

/// Every step of a program under one global id, threadblock by threadblock.
pub(super) struct Flat<'a> {
    pub p: &'a Program,
    /// Global id of step 0 of (gpu index, tb index).
    pub base: Vec<Vec<usize>>,
    /// (gpu index, tb index, step) of every global id.
    pub of: Vec<(usize, usize, usize)>,
}

impl<'a> Flat<'a> {
    pub fn new(p: &'a Program) -> Flat<'a> {
        let mut base = Vec::with_capacity(p.gpus.len());
        let mut of = Vec::new();
        for (g, gpu) in p.gpus.iter().enumerate() {
            let mut b = Vec::with_capacity(gpu.tbs.len());
            for (t, tb) in gpu.tbs.iter().enumerate() {
                b.push(of.len());
                of.extend((0..tb.steps.len()).map(|k| (g, t, k)));
            }
            base.push(b);
        }
        Flat { p, base, of }
    }

    pub fn len(&self) -> usize {
        self.of.len()
    }

    pub fn step(&self, id: usize) -> &'a Step {
        let (g, t, k) = self.of[id];
        &self.p.gpus[g].tbs[t].steps[k]
    }

    /// `line L, column C: gpu G, tb T, step K`: where errors point.
    pub fn place(&self, id: usize) -> String {
        let (g, t, k) = self.of[id];
        let st = self.step(id);
        format!(
            "line {}, column {}: gpu {}, tb {}, step {k}",
            st.at.0, st.at.1, self.p.gpus[g].id, self.p.gpus[g].tbs[t].id
        )
    }

    /// The gpu id of a step.
    pub fn gpu(&self, id: usize) -> u32 {
        self.p.gpus[self.of[id].0].id
    }
}

/// One connection: sends from `src` to `dst` on channel `chan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Conn {
    pub src: u32,
    pub dst: u32,
    pub chan: u32,
}

/// The pairing of a whole program.
pub(super) struct Pairing {
    /// For a step that sends: the receiving step it meets (else `usize::MAX`).
    pub recv_of: Vec<usize>,
    /// For a step that receives: the sending step it meets (else `usize::MAX`).
    pub send_of: Vec<usize>,
    /// For a step that sends: its connection's index in `conns`.
    pub conn_of: Vec<usize>,
    pub conns: Vec<Conn>,
    /// For every connection, its sending steps in order.
    pub sends: Vec<Vec<usize>>,
}

/// Pairs every send with its receive; `Err` names a send without a
/// receive (or the reverse) or a `cnt` that differs.
pub(super) fn pair(f: &Flat) -> Result<Pairing, InteropError> {
    let n = f.len();
    let mut out = Pairing {
        recv_of: vec![usize::MAX; n],
        send_of: vec![usize::MAX; n],
        conn_of: vec![usize::MAX; n],
        conns: Vec::new(),
        sends: Vec::new(),
    };
    let mut recv_lists = receive_lists(f);
    for (g, gpu) in f.p.gpus.iter().enumerate() {
        for (t, tb) in gpu.tbs.iter().enumerate() {
            if tb.send < 0 {
                continue;
            }
            let conn = Conn {
                src: gpu.id,
                dst: tb.send as u32,
                chan: tb.chan,
            };
            let sends: Vec<usize> = (0..tb.steps.len())
                .filter(|&k| tb.steps[k].kind.sends())
                .map(|k| f.base[g][t] + k)
                .collect();
            let recvs = recv_lists
                .remove(&(conn.src, conn.dst, conn.chan))
                .unwrap_or_default();
            pair_connection(f, conn, &sends, &recvs, &mut out)?;
            out.conns.push(conn);
            out.sends.push(sends);
        }
    }
    if let Some(&r) = recv_lists.values().flatten().min() {
        let (g, t, _) = f.of[r];
        let (gpu, tb) = (&f.p.gpus[g], &f.p.gpus[g].tbs[t]);
        return Err(InteropError::Invalid(format!(
            "{}: receives from {}, which has no threadblock sending to gpu {} on channel {}",
            f.place(r),
            tb.recv,
            gpu.id,
            tb.chan
        )));
    }
    Ok(out)
}

/// The receiving steps of every connection (src, dst, chan), in order.
fn receive_lists(f: &Flat) -> HashMap<(u32, u32, u32), Vec<usize>> {
    let mut lists = HashMap::new();
    for (g, gpu) in f.p.gpus.iter().enumerate() {
        for (t, tb) in gpu.tbs.iter().enumerate() {
            if tb.recv >= 0 {
                let ids = (0..tb.steps.len())
                    .filter(|&k| tb.steps[k].kind.receives())
                    .map(|k| f.base[g][t] + k)
                    .collect();
                lists.insert((tb.recv as u32, gpu.id, tb.chan), ids);
            }
        }
    }
    lists
}

fn pair_connection(
    f: &Flat,
    conn: Conn,
    sends: &[usize],
    recvs: &[usize],
    out: &mut Pairing,
) -> Result<(), InteropError> {
    let c = out.conns.len();
    for (j, &s) in sends.iter().enumerate() {
        let Some(&r) = recvs.get(j) else {
            return Err(InteropError::Invalid(format!(
                "{}: send {j} from {} to {} on channel {} has no receive (gpu {} receives {} times from {} on that channel)",
                f.place(s), conn.src, conn.dst, conn.chan, conn.dst, recvs.len(), conn.src
            )));
        };
        if f.step(s).cnt != f.step(r).cnt {
            return Err(InteropError::Invalid(format!(
                "{}: sends {} chunks, but the receive it pairs with ({}) takes {}",
                f.place(s),
                f.step(s).cnt,
                f.place(r),
                f.step(r).cnt
            )));
        }
        out.recv_of[s] = r;
        out.send_of[r] = s;
        out.conn_of[s] = c;
    }
    if let Some(&r) = recvs.get(sends.len()) {
        return Err(InteropError::Invalid(format!(
            "{}: receive {} from {} has no send (gpu {} sends {} times to {} on channel {})",
            f.place(r),
            sends.len(),
            conn.src,
            conn.src,
            sends.len(),
            conn.dst,
            conn.chan
        )));
    }
    Ok(())
}
