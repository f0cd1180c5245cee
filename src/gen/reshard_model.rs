//! Resharding a transformer checkpoint from a training mesh to an inference
//! mesh on disjoint GPUs: the `reshard_model` family.
//!
//! This module owns the family's parameters ([`TransformerReshard`]), the
//! layout of the weights on a mesh and the demands that move them.
//!
//! **The model.** A decoder-only transformer in the LLaMA shape: `layers`
//! blocks of hidden size `hidden` with `heads` query heads and `kv_heads`
//! key/value heads (grouped-query attention when fewer; head size `hidden /
//! heads`), a gated MLP of size `ffn`, RMS norms, and untied input
//! embedding and output head over `vocab` tokens; every parameter is
//! `dtype_bits` bits. Per block: Q (`heads x head_dim` by `hidden`), K and
//! V (`kv_heads x head_dim` by `hidden`), the attention output, the MLP
//! gate, up and down projections, and two norms of `hidden` each. The
//! defaults (LLaMA-2 7B) hold 6,738,415,616 parameters.
//!
//! **The layout** (Megatron-LM). A mesh of `gpus = tp x pp x dp` GPUs,
//! rank `tp_rank + tp (dp_rank + dp pp_rank)`. Pipeline stage `p` holds the
//! blocks `l` with `floor(l pp / layers) = p`; the embedding is on the first
//! stage, the final norm and the output head on the last. Tensor
//! parallelism splits every matrix along one dimension into `tp` contiguous
//! ranges (rank `i` of a dimension `D`: `[i D / tp, (i+1) D / tp)`): Q, K, V,
//! gate and up are column-parallel (split along their output, so by heads
//! for attention), the attention output and down are row-parallel (split
//! along their input), the embedding and the output head are
//! vocab-parallel; norms are replicated on every tensor-parallel rank. The
//! `dp` data-parallel replicas hold identical copies.
//!
//! **The transfers.** The training mesh is slots `0..from`, the inference
//! mesh `from..from+to`. Each inference GPU receives, for every tensor of
//! its stage, the overlap of its range with each training shard of that
//! tensor: `overlap x (other dimension) x dtype_bits` bits, summed per
//! (sender, receiver) pair. A replicated norm comes from training
//! tensor-parallel rank `i mod tp_from` for inference rank `i`. Replicas:
//! with at least as many training replicas as inference replicas,
//! inference replica `r` is served by the training replicas `s` with `s mod
//! dp_to = r`, each sending an equal share of every overlap (element counts
//! `e (k+1) / n - e k / n`), so no training replica idles; with fewer,
//! inference replica `r` is served by training replica `r mod dp_from`.
//! Deterministic; no randomness and no seed.
//!
//! Every transfer goes from a training GPU to an inference GPU, so the
//! support is bipartite under both models and the optimum is the maximum
//! chunk degree (König), which `super::known` records.

use super::Builder;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Parameters of `reshard_model`: the transformer's shape and the two
/// meshes (see the module docs for the layout).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransformerReshard {
    /// GPUs of the training mesh (slots `0..from`).
    pub from: u32,
    /// Tensor-parallel degree of the training mesh.
    pub from_tp: u32,
    /// Pipeline-parallel degree of the training mesh.
    pub from_pp: u32,
    /// GPUs of the inference mesh (slots `from..from+to`).
    pub to: u32,
    /// Tensor-parallel degree of the inference mesh.
    pub to_tp: u32,
    /// Pipeline-parallel degree of the inference mesh.
    pub to_pp: u32,
    /// Transformer blocks.
    pub layers: u32,
    /// Hidden size.
    pub hidden: u64,
    /// MLP intermediate size (gate, up and down projections).
    pub ffn: u64,
    /// Query heads.
    pub heads: u32,
    /// Key/value heads (`heads` for multi-head attention).
    pub kv_heads: u32,
    /// Vocabulary size (embedding and output head rows).
    pub vocab: u64,
    /// Bits per parameter (16 for bf16).
    pub dtype_bits: u64,
}

impl TransformerReshard {
    /// LLaMA-2 7B (32 blocks, hidden 4096, MLP 11008, 32 heads, vocab
    /// 32000, bf16) from `from` GPUs (TP 8 x PP 4) to `to` GPUs (TP 4 x
    /// PP 1), the defaults of `tickopt gen reshard_model`.
    pub fn llama2_7b(from: u32, to: u32) -> Self {
        TransformerReshard {
            from,
            from_tp: 8,
            from_pp: 4,
            to,
            to_tp: 4,
            to_pp: 1,
            layers: 32,
            hidden: 4096,
            ffn: 11008,
            heads: 32,
            kv_heads: 32,
            vocab: 32000,
            dtype_bits: 16,
        }
    }

    /// Parameters as `(key, value)` in a fixed order.
    pub(super) fn params(&self) -> Vec<(&'static str, String)> {
        let s = |v: &dyn ToString| v.to_string();
        vec![
            ("from", s(&self.from)),
            ("from_tp", s(&self.from_tp)),
            ("from_pp", s(&self.from_pp)),
            ("to", s(&self.to)),
            ("to_tp", s(&self.to_tp)),
            ("to_pp", s(&self.to_pp)),
            ("layers", s(&self.layers)),
            ("hidden", s(&self.hidden)),
            ("ffn", s(&self.ffn)),
            ("heads", s(&self.heads)),
            ("kv_heads", s(&self.kv_heads)),
            ("vocab", s(&self.vocab)),
            ("dtype_bits", s(&self.dtype_bits)),
        ]
    }

    /// File-name tags: `256to128`, `t8p4-t4p1`, `l32h4096f11008[kv8]`.
    pub(super) fn name_tags(&self) -> Vec<String> {
        let mut shape = format!("l{}h{}f{}", self.layers, self.hidden, self.ffn);
        if self.kv_heads != self.heads {
            shape.push_str(&format!("kv{}", self.kv_heads));
        }
        vec![
            format!("{}to{}", self.from, self.to),
            format!(
                "t{}p{}-t{}p{}",
                self.from_tp, self.from_pp, self.to_tp, self.to_pp
            ),
            shape,
        ]
    }

    /// Parameters in one block.
    fn block_params(&self) -> u128 {
        let head_dim = (self.hidden / self.heads as u64) as u128;
        let (h, f) = (self.hidden as u128, self.ffn as u128);
        let (q, kv) = (
            self.heads as u128 * head_dim,
            self.kv_heads as u128 * head_dim,
        );
        2 * q * h + 2 * kv * h + 3 * f * h + 2 * h
    }

    /// Parameters of the whole model (blocks, embedding, final norm and
    /// output head).
    pub fn parameters(&self) -> u128 {
        let (h, v) = (self.hidden as u128, self.vocab as u128);
        self.layers as u128 * self.block_params() + 2 * v * h + h
    }
}

/// One tensor: split by tensor parallelism along a dimension of `len`
/// (each index a row or column of `width` elements), or replicated on
/// every tensor-parallel rank.
#[derive(Clone, Copy)]
enum Tensor {
    Split { len: u64, width: u64 },
    Replicated { elements: u64 },
}

/// Where a group of tensors lives in the pipeline.
#[derive(Clone, Copy)]
enum Place {
    Block(u32),
    First,
    Last,
}

/// A `tp x pp x dp` mesh whose rank 0 is slot `first_slot`.
struct Mesh {
    tp: u32,
    pp: u32,
    dp: u32,
    first_slot: u32,
}

impl Mesh {
    fn new(
        name: &str,
        gpus: u32,
        tp: u32,
        pp: u32,
        first_slot: u32,
        m: &TransformerReshard,
    ) -> Result<Mesh, String> {
        if gpus == 0 || tp == 0 || pp == 0 {
            return Err(format!(
                "{name}={gpus}, {name}_tp={tp} and {name}_pp={pp} must be >= 1"
            ));
        }
        let cell = tp as u64 * pp as u64;
        if gpus as u64 % cell != 0 {
            return Err(format!(
                "{name}={gpus} GPUs is not a multiple of {name}_tp x {name}_pp = {cell}"
            ));
        }
        if m.heads % tp != 0 || m.kv_heads % tp != 0 {
            return Err(format!(
                "{name}_tp={tp} must divide heads={} and kv_heads={} (tensor parallelism splits by heads)",
                m.heads, m.kv_heads
            ));
        }
        if pp > m.layers {
            return Err(format!(
                "{name}_pp={pp} exceeds layers={} (a stage would hold no block)",
                m.layers
            ));
        }
        Ok(Mesh {
            tp,
            pp,
            dp: (gpus as u64 / cell) as u32,
            first_slot,
        })
    }

    fn slot(&self, dp: u32, pp: u32, tp: u32) -> u32 {
        self.first_slot + tp + self.tp * (dp + self.dp * pp)
    }

    fn stage(&self, place: Place, layers: u32) -> u32 {
        match place {
            Place::Block(l) => (l as u64 * self.pp as u64 / layers as u64) as u32,
            Place::First => 0,
            Place::Last => self.pp - 1,
        }
    }
}

/// `[i D / parts, (i+1) D / parts)`: the range of part `i` of `d`.
fn range(d: u64, parts: u32, i: u32) -> (u64, u64) {
    let at = |k: u32| (d as u128 * k as u128 / parts as u128) as u64;
    (at(i), at(i + 1))
}

/// Share `k` of `n` of `e` elements (shares differ by at most one).
fn share(e: u128, n: u32, k: u32) -> u128 {
    e * (k as u128 + 1) / n as u128 - e * k as u128 / n as u128
}

fn check_model(m: &TransformerReshard) -> Result<(), String> {
    for (name, v) in [
        ("layers", m.layers as u64),
        ("hidden", m.hidden),
        ("ffn", m.ffn),
        ("heads", m.heads as u64),
        ("kv_heads", m.kv_heads as u64),
        ("vocab", m.vocab),
        ("dtype_bits", m.dtype_bits),
    ] {
        if v == 0 {
            return Err(format!("{name} must be >= 1"));
        }
    }
    if m.hidden % m.heads as u64 != 0 {
        return Err(format!(
            "hidden={} is not a multiple of heads={}",
            m.hidden, m.heads
        ));
    }
    if m.heads % m.kv_heads != 0 {
        return Err(format!(
            "heads={} is not a multiple of kv_heads={}",
            m.heads, m.kv_heads
        ));
    }
    // Element counts below are u128 and bits u64; keep every tensor's
    // element count within u64 so only the final sums can overflow.
    let biggest = (m.hidden as u128) * (m.ffn.max(m.vocab).max(m.hidden) as u128);
    if biggest > u64::MAX as u128 {
        return Err("a weight matrix has more than 2^64 elements".into());
    }
    Ok(())
}

/// Builds the family into `b`.
pub(super) fn build(m: &TransformerReshard, b: &mut Builder) -> Result<(), String> {
    check_model(m)?;
    let src = Mesh::new("from", m.from, m.from_tp, m.from_pp, 0, m)?;
    let dst = Mesh::new("to", m.to, m.to_tp, m.to_pp, m.from, m)?;
    b.linear_slots(m.from as u64 + m.to as u64)?;

    let h = m.hidden;
    let split = |len: u64| Tensor::Split { len, width: h };
    let norm = Tensor::Replicated { elements: h };
    let (q, kv) = (h, m.kv_heads as u64 * (h / m.heads as u64));
    // Q, K, V, gate, up: column-parallel; attention out, down: row-parallel;
    // the two norms replicated.
    let block = [
        split(q),
        split(kv),
        split(kv),
        split(q),
        split(m.ffn),
        split(m.ffn),
        split(m.ffn),
        norm,
        norm,
    ];
    // Vocab-parallel embedding (first stage); final norm and vocab-parallel
    // output head (last stage).
    let embedding = [split(m.vocab)];
    let head = [norm, split(m.vocab)];

    // Blocks with the same (training stage, inference stage) move alike:
    // one of them stands for all, scaled by their count.
    let mut groups: BTreeMap<(u32, u32), (u32, u128)> = BTreeMap::new();
    for l in 0..m.layers {
        let p = Place::Block(l);
        let key = (src.stage(p, m.layers), dst.stage(p, m.layers));
        groups.entry(key).or_insert((l, 0)).1 += 1;
    }
    let mut plan = Transfers {
        src,
        dst,
        layers: m.layers,
        elements: BTreeMap::new(),
    };
    for &(l, count) in groups.values() {
        plan.add(Place::Block(l), count, &block);
    }
    plan.add(Place::First, 1, &embedding);
    plan.add(Place::Last, 1, &head);
    for ((from, to), e) in plan.elements {
        let bits = e
            .checked_mul(m.dtype_bits as u128)
            .and_then(|v| u64::try_from(v).ok())
            .ok_or("a transfer's bits overflow u64; lower dtype_bits or the model size")?;
        b.bits(from, to, bits);
    }
    Ok(())
}

/// Elements moved per (training slot, inference slot).
struct Transfers {
    src: Mesh,
    dst: Mesh,
    layers: u32,
    elements: BTreeMap<(u32, u32), u128>,
}

impl Transfers {
    /// Adds what moves `count` copies of `tensors` at `place` to every
    /// inference GPU that holds them.
    fn add(&mut self, place: Place, count: u128, tensors: &[Tensor]) {
        let (src, dst) = (&self.src, &self.dst);
        let (ps, pd) = (src.stage(place, self.layers), dst.stage(place, self.layers));
        let mut pieces = Vec::new();
        for r in 0..dst.dp {
            let replicas: Vec<u32> = if src.dp >= dst.dp {
                (r..src.dp).step_by(dst.dp as usize).collect()
            } else {
                vec![r % src.dp]
            };
            for t in 0..dst.tp {
                let to = dst.slot(r, pd, t);
                for tensor in tensors {
                    // (training tensor-parallel rank, elements) pieces.
                    pieces.clear();
                    match *tensor {
                        Tensor::Split { len, width } => {
                            let (lo, hi) = range(len, dst.tp, t);
                            let first = (lo as u128 * src.tp as u128 / len as u128) as u32;
                            for s in first..src.tp {
                                let (a, z) = range(len, src.tp, s);
                                if a >= hi {
                                    break;
                                }
                                let overlap = hi.min(z).saturating_sub(lo.max(a));
                                pieces.push((s, overlap as u128 * width as u128));
                            }
                        }
                        Tensor::Replicated { elements } => {
                            pieces.push((t % src.tp, elements as u128))
                        }
                    }
                    for &(s, e) in &pieces {
                        for (k, &replica) in replicas.iter().enumerate() {
                            let part = share(e, replicas.len() as u32, k as u32);
                            if part > 0 {
                                *self
                                    .elements
                                    .entry((src.slot(replica, ps, s), to))
                                    .or_insert(0) += part * count;
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{generate, Family, GenSpec, Generated};

    fn gen(m: &TransformerReshard) -> Result<Generated, String> {
        generate(&GenSpec {
            family: Family::ReshardModel(m.clone()),
            mult: 1,
            bw: 1024,
            seed: 0,
        })
        .map_err(|e| e.to_string())
    }

    /// A small model whose splits do not align: ffn 256 and vocab 1000 in
    /// thirds and halves.
    fn toy(from: (u32, u32, u32), to: (u32, u32, u32)) -> TransformerReshard {
        TransformerReshard {
            from: from.0,
            from_tp: from.1,
            from_pp: from.2,
            to: to.0,
            to_tp: to.1,
            to_pp: to.2,
            layers: 6,
            hidden: 96,
            ffn: 256,
            heads: 6,
            kv_heads: 6,
            vocab: 1000,
            dtype_bits: 16,
        }
    }

    #[test]
    fn the_default_is_llama2_7b() {
        // The published parameter count of LLaMA-2 7B.
        assert_eq!(
            TransformerReshard::llama2_7b(256, 128).parameters(),
            6_738_415_616
        );
    }

    /// Every inference replica receives the whole model once, plus the
    /// copies of the replicated norms its extra tensor-parallel ranks hold;
    /// senders are training slots, receivers inference slots.
    #[test]
    fn every_inference_replica_receives_the_model() {
        let cases = [
            toy((12, 3, 2), (8, 2, 1)),
            toy((12, 3, 2), (4, 2, 2)),
            toy((6, 3, 1), (36, 6, 3)),
            toy((24, 2, 3), (6, 3, 2)),
            TransformerReshard::llama2_7b(256, 128),
            TransformerReshard {
                kv_heads: 8,
                ..TransformerReshard::llama2_7b(64, 16)
            },
        ];
        for m in cases {
            let g = gen(&m).unwrap();
            assert_eq!(g.slots, m.from + m.to);
            let norms = (2 * m.layers as u128 + 1) * m.hidden as u128;
            let per_replica = (m.parameters() + (m.to_tp as u128 - 1) * norms) * 16;
            let dp_to = m.to / (m.to_tp * m.to_pp);
            let total: u128 = g.demands.iter().map(|d| d.bits as u128).sum();
            assert_eq!(total, per_replica * dp_to as u128, "{m:?}");
            assert!(g.demands.iter().all(|d| d.src < m.from && d.dst >= m.from));
            // Every inference GPU of a replica receives; every replica the same.
            let cell = m.to_tp * m.to_pp;
            let mut inn = vec![0u128; m.to as usize];
            for d in &g.demands {
                inn[(d.dst - m.from) as usize] += d.bits as u128;
            }
            for r in 0..dp_to as usize {
                let sum: u128 = (0..cell as usize)
                    .map(|i| {
                        inn[i % m.to_tp as usize
                            + m.to_tp as usize * (r + dp_to as usize * (i / m.to_tp as usize))]
                    })
                    .sum();
                assert_eq!(sum, per_replica, "{m:?} replica {r}");
            }
        }
    }

    /// More training replicas than inference replicas: every training GPU
    /// sends (none idles), and no one sends more than its share.
    #[test]
    fn training_replicas_share_the_sends() {
        let m = TransformerReshard {
            to_pp: 2,
            ..TransformerReshard::llama2_7b(256, 16)
        };
        let g = gen(&m).unwrap();
        let mut out = vec![0u128; m.from as usize];
        for d in &g.demands {
            out[d.src as usize] += d.bits as u128;
        }
        let (lo, hi) = (out.iter().min().unwrap(), out.iter().max().unwrap());
        assert!(*lo > 0);
        // 8 training replicas serve 2 inference replicas: each sends about
        // a quarter of its stage-and-rank shard.
        let shard = m.parameters() * 16 / (8 * 4);
        assert!(*hi <= shard / 4 + shard / 50, "{hi} vs {shard}");
    }

    /// The same layout on both meshes: each inference GPU receives from the
    /// training GPU with the same coordinates only.
    #[test]
    fn an_unchanged_layout_is_a_copy() {
        let m = toy((12, 3, 2), (12, 3, 2));
        let g = gen(&m).unwrap();
        assert_eq!(g.demands.len(), 12);
        assert!(g.demands.iter().all(|d| d.dst == d.src + 12));
    }

    /// Demands grow linearly with the GPUs, so meshes past the quadratic
    /// families' 65,536 slots are generated (up to the instance limit).
    #[test]
    fn meshes_past_65536_slots_are_generated() {
        let g = gen(&toy((65_544, 3, 2), (8, 2, 1))).expect("a linear family");
        assert_eq!(g.slots, 65_552);
        assert!(g.demands.iter().all(|d| d.src < 65_544 && d.dst >= 65_544));
        let e = gen(&toy((1 << 20, 2, 2), (8, 2, 1))).unwrap_err();
        assert!(e.contains("outside 1..=1048576"), "{e}");
    }

    #[test]
    fn bad_meshes_and_shapes_are_refused() {
        let base = toy((12, 3, 2), (8, 2, 1));
        for (m, msg) in [
            (toy((12, 3, 2), (8, 4, 1)), "to_tp=4 must divide heads=6"),
            (
                toy((10, 3, 2), (8, 2, 1)),
                "from=10 GPUs is not a multiple of from_tp x from_pp = 6",
            ),
            (toy((14, 1, 7), (8, 2, 1)), "from_pp=7 exceeds layers=6"),
            (toy((12, 3, 2), (0, 2, 1)), "to=0"),
            (
                TransformerReshard {
                    hidden: 100,
                    ..base.clone()
                },
                "hidden=100 is not a multiple of heads=6",
            ),
            (
                TransformerReshard {
                    kv_heads: 4,
                    ..base.clone()
                },
                "heads=6 is not a multiple of kv_heads=4",
            ),
            (
                TransformerReshard {
                    dtype_bits: 0,
                    ..base.clone()
                },
                "dtype_bits must be >= 1",
            ),
            (
                TransformerReshard {
                    dtype_bits: u64::MAX,
                    ..base.clone()
                },
                "overflow",
            ),
        ] {
            let e = gen(&m).unwrap_err();
            assert!(e.starts_with("reshard_model: ") && e.contains(msg), "{e}");
        }
    }
}
