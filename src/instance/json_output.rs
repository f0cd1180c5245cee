//! Instance JSON out, streamed: the bytes `serde_json::to_string_pretty`
//! gives for [`instance_to_json`](super::instance_to_json) (two-space
//! indent, keys in sorted order, as serde_json's default map sorts them),
//! plus a final newline, written demand by demand into the caller's writer.
//!
//! Why not the tree: at 4.2 M demands the `Value` tree and the pretty text
//! took 3.6 GB and most of `gen`'s time; here memory is one small buffer
//! whatever the instance size, and `itoa` formats the integers. The tree
//! form stays as the reference the tests compare against byte for byte.

use super::{Instance, Ports};
use std::io::{self, Write};

/// Bytes gathered before one write to the (possibly dynamic) writer.
const FLUSH_AT: usize = 1 << 16;

/// Writes `inst` as copyspace-guard instance JSON v0 (DESIGN.md §5, with
/// §11's `ports` and per-demand `copy_bw_bits_per_tick` where they are not
/// the v0 defaults), pretty-printed exactly as the tree writer prints it,
/// followed by a newline. Memory: a 64 KiB buffer; time: linear in the
/// number of demands.
pub fn write_instance_json<W: Write + ?Sized>(inst: &Instance, w: &mut W) -> io::Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(FLUSH_AT + 256);
    let mut num = itoa::Buffer::new();
    buf.extend_from_slice(b"{\n  \"copy_bw_bits_per_tick\": ");
    buf.extend_from_slice(num.format(inst.bw).as_bytes());
    if let Some(c) = &inst.cost {
        buf.extend_from_slice(b",\n  \"cost\": {\n    \"alpha_us\": ");
        serde_json::to_writer(&mut buf, &c.alpha_us)?;
        buf.extend_from_slice(b",\n    \"link_gbps\": ");
        serde_json::to_writer(&mut buf, &c.link_gbps)?;
        buf.extend_from_slice(b"\n  }");
    }
    buf.extend_from_slice(b",\n  \"demands\": [");
    write_demands(inst, &mut buf, w)?;
    if let Some(id) = &inst.id {
        buf.extend_from_slice(b",\n  \"id\": ");
        serde_json::to_writer(&mut buf, id)?;
    }
    buf.extend_from_slice(b",\n  \"model\": ");
    serde_json::to_writer(&mut buf, inst.model.as_str())?;
    if let Some(notes) = &inst.notes {
        buf.extend_from_slice(b",\n  \"notes\": ");
        serde_json::to_writer(&mut buf, notes)?;
    }
    if !inst.ports().all_one() {
        buf.extend_from_slice(b",\n  \"ports\": ");
        write_ports(inst.ports(), &mut buf, w)?;
    }
    buf.extend_from_slice(b",\n  \"slots\": ");
    buf.extend_from_slice(num.format(inst.slots).as_bytes());
    buf.extend_from_slice(b",\n  \"version\": 0\n}\n");
    w.write_all(&buf)
}

/// The demands array's body and its closing bracket (`[]` when empty),
/// flushing `buf` into `w` every [`FLUSH_AT`] bytes.
fn write_demands<W: Write + ?Sized>(
    inst: &Instance,
    buf: &mut Vec<u8>,
    w: &mut W,
) -> io::Result<()> {
    let demands = inst.demands();
    if demands.is_empty() {
        buf.push(b']');
        return Ok(());
    }
    let mut num = itoa::Buffer::new();
    for (i, d) in demands.iter().enumerate() {
        buf.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
        buf.extend_from_slice(b"    {\n      \"bits_total\": ");
        buf.extend_from_slice(num.format(d.bits).as_bytes());
        let bw = inst.demand_bw(i);
        if bw != inst.bw {
            buf.extend_from_slice(b",\n      \"copy_bw_bits_per_tick\": ");
            buf.extend_from_slice(num.format(bw).as_bytes());
        }
        buf.extend_from_slice(b",\n      \"dst_slot\": ");
        buf.extend_from_slice(num.format(d.dst).as_bytes());
        buf.extend_from_slice(b",\n      \"src_slot\": ");
        buf.extend_from_slice(num.format(d.src).as_bytes());
        buf.extend_from_slice(b"\n    }");
        if buf.len() >= FLUSH_AT {
            w.write_all(buf)?;
            buf.clear();
        }
    }
    buf.extend_from_slice(b"\n  ]");
    Ok(())
}

/// `ports` as serde_json prints it: an integer, or one integer per line.
fn write_ports<W: Write + ?Sized>(ports: &Ports, buf: &mut Vec<u8>, w: &mut W) -> io::Result<()> {
    let mut num = itoa::Buffer::new();
    match ports {
        Ports::Uniform(p) => buf.extend_from_slice(num.format(*p).as_bytes()),
        Ports::PerSlot(ps) if ps.is_empty() => buf.extend_from_slice(b"[]"),
        Ports::PerSlot(ps) => {
            buf.push(b'[');
            for (i, p) in ps.iter().enumerate() {
                buf.extend_from_slice(if i == 0 { b"\n    " } else { b",\n    " });
                buf.extend_from_slice(num.format(*p).as_bytes());
                if buf.len() >= FLUSH_AT {
                    w.write_all(buf)?;
                    buf.clear();
                }
            }
            buf.extend_from_slice(b"\n  ]");
        }
    }
    Ok(())
}

/// The instance JSON text in memory (tests and small instances; files go
/// through [`write_instance_json`]).
pub fn instance_json_text(inst: &Instance) -> String {
    let mut out = Vec::new();
    write_instance_json(inst, &mut out).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("instance JSON is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::CostModel;
    use crate::instance::{instance_to_json, Demand, Limits, Model};

    /// The reference: the tree, pretty-printed, plus the newline every
    /// caller added.
    fn tree_text(inst: &Instance) -> String {
        serde_json::to_string_pretty(&instance_to_json(inst)).unwrap() + "\n"
    }

    fn demands(n: u32) -> Vec<(Demand, Option<u64>)> {
        (0..n)
            .flat_map(|s| (0..n).filter(move |&d| d != s).map(move |d| (s, d)))
            .map(|(src, dst)| {
                let bits = 1 + (src as u64 * 7919 + dst as u64 * 104_729) % 100_000;
                let bw = (src % 3 == 0).then_some(64 + dst as u64);
                (Demand { src, dst, bits }, bw)
            })
            .collect()
    }

    #[test]
    fn streamed_bytes_equal_the_pretty_tree_in_every_optional_shape() {
        for (ports, per_bw, extras) in [
            (Ports::Uniform(1), false, false),
            (Ports::Uniform(4), true, true),
            (Ports::PerSlot(vec![1, 2, 3, 1, 2, 2, 1]), true, false),
            (Ports::PerSlot(vec![2; 7]), false, true),
        ] {
            let raw = demands(7)
                .into_iter()
                .map(|(d, b)| (d, b.filter(|_| per_bw)));
            let mut inst =
                Instance::new_multiport(Model::Read1Write1, 7, 64, raw, ports, &Limits::default())
                    .unwrap();
            if extras {
                inst.id = Some("id \"quoted\"\n\u{1} é".into());
                inst.notes = Some("tickopt gen x=1\tback\\slash".into());
                inst.cost = Some(CostModel::new(1.5, 400.0).unwrap());
            }
            assert_eq!(instance_json_text(&inst), tree_text(&inst));
        }
    }

    #[test]
    fn an_instance_without_demands_prints_an_empty_array() {
        let inst = Instance::new(Model::Strict1, 3, 8, Vec::new(), &Limits::default()).unwrap();
        let text = instance_json_text(&inst);
        assert!(text.contains("\"demands\": [],"), "{text}");
        assert_eq!(text, tree_text(&inst));
    }

    #[test]
    fn large_instances_cross_the_flush_threshold_unchanged() {
        let raw = demands(60).into_iter().map(|(d, _)| d);
        let inst = Instance::new(Model::Strict1, 60, 1024, raw, &Limits::default()).unwrap();
        let text = instance_json_text(&inst);
        assert!(text.len() > 3 * FLUSH_AT);
        assert_eq!(text, tree_text(&inst));
    }
}
