//! Instance generators: the communication patterns of GPU clusters, and a
//! few graphs that are hard for edge colouring.
//!
//! This module owns the families ([`Family`]), their parameters, the
//! deterministic generation ([`generate`]: same [`GenSpec`] and seed, same
//! demands, byte for byte, on every platform), the demands CSV they are
//! written as ([`write_demands_csv`]), their file names ([`file_name`]) and
//! the optima that are known without running a solver ([`known_optimum`]).
//! `doc/instances.md` says which real pattern each family models.
//!
//! Every family takes a multiplicity `mult`: each demand's bits are
//! multiplied by it, which gives the high-multiplicity variant of the same
//! pattern (the chunk multigraph keeps its shape, multiplicities grow).
//!
//! Submodules: `rng` (SplitMix64), `collectives` (rings, all-to-all, MoE,
//! pipelines, resharding, trees, stars), `graphs` (random, cliques, snarks),
//! `known` (independently proven optima), `multiport` (multi-NIC and
//! two-speed families, DESIGN.md §11, generated as instances with ports),
//! `reshard_model` (a transformer checkpoint from a training mesh to an
//! inference mesh), `skew` (log-normal sizes with hot experts), `moe_shift`
//! (MoE traffic as it shifts from step to step: hot expert, hot rank,
//! rotating, burst).

mod collectives;
mod graphs;
mod known;
pub mod moe_shift;
pub mod multiport;
pub mod planted;
mod reshard_model;
pub mod rng;
pub mod skew;

pub use known::{known_optimum, KnownOptimum};
pub use reshard_model::TransformerReshard;

use crate::instance::{Demand, Slot};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// Direction of the transfers of a tree collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TreeDirection {
    /// Parent to children.
    Broadcast,
    /// Children to parent.
    Reduce,
    /// Both (a tree all-reduce: reduce up, broadcast down).
    Allreduce,
}

impl std::str::FromStr for TreeDirection {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "broadcast" => Ok(TreeDirection::Broadcast),
            "reduce" => Ok(TreeDirection::Reduce),
            "allreduce" => Ok(TreeDirection::Allreduce),
            _ => Err(format!(
                "unknown direction {s:?} (expected broadcast, reduce or allreduce)"
            )),
        }
    }
}

impl TreeDirection {
    pub fn as_str(self) -> &'static str {
        match self {
            TreeDirection::Broadcast => "broadcast",
            TreeDirection::Reduce => "reduce",
            TreeDirection::Allreduce => "allreduce",
        }
    }
}

/// A family of instances with its parameters. Sizes are in slots; chunk
/// counts are per unit of `mult` (see [`GenSpec`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "snake_case")]
pub enum Family {
    /// Ring collective step: `i -> i+1 (mod n)`, one chunk each.
    Ring { n: u32 },
    /// Bidirectional ring: `i -> i+1` and `i+1 -> i`.
    BidirRing { n: u32 },
    /// Ring plus skip links `i -> i+skip (mod n)`.
    RingSkip { n: u32, skip: u32 },
    /// Uniform all-to-all: every ordered pair, one chunk.
    Alltoall { n: u32 },
    /// Mixture-of-experts dispatch: each of `tokens` tokens per rank goes to
    /// `topk` distinct experts drawn with Zipf(`zipf`) popularity;
    /// `experts_per_rank` experts live on each rank; a token is
    /// `token_bits` bits (so demands are ragged, not multiples of `bw`).
    Moe {
        n: u32,
        experts_per_rank: u32,
        tokens: u64,
        topk: u32,
        zipf: f64,
        token_bits: u64,
    },
    /// Pipeline parallelism: activations `s -> s+1` and gradients
    /// `s+1 -> s`, one chunk per microbatch.
    Pipeline { stages: u32, microbatches: u64 },
    /// Interleaved pipeline (virtual stages): model chunk `j` lives on
    /// stage `j mod stages`, so transfers also wrap from the last stage to
    /// the first.
    PipelineInterleaved {
        stages: u32,
        microbatches: u64,
        virtual_stages: u32,
    },
    /// Resharding a tensor from `from` equal shards to `to` equal shards.
    /// `in_place`: the same ranks hold both layouts (local overlaps need no
    /// transfer); otherwise the `to` ranks are new slots.
    Reshard { from: u32, to: u32, in_place: bool },
    /// A transformer checkpoint resharded from a training mesh to an
    /// inference mesh on disjoint GPUs (see [`TransformerReshard`]).
    ReshardModel(TransformerReshard),
    /// `arity`-ary tree on `n` slots in heap order (root 0).
    Tree {
        n: u32,
        arity: u32,
        direction: TreeDirection,
    },
    /// Checkpoint: `clients` slots write to `targets` storage slots
    /// (client `i` to target `i mod targets`); sizes vary by up to
    /// `1 + jitter` times.
    Star {
        clients: u32,
        targets: u32,
        jitter: u64,
    },
    /// Erdos–Renyi: each slot pair is joined with probability `p`, in a
    /// random direction, with `1..=max_chunks` chunks.
    Random { n: u32, p: f64, max_chunks: u64 },
    /// [`Family::Random`] whose pairs carry sizes uniform in
    /// `min_bits..=max_bits` bits instead of whole chunks (heavy arbitrary
    /// traffic: sizes that are not multiples of the bandwidth).
    RandomSized {
        n: u32,
        p: f64,
        min_bits: u64,
        max_bits: u64,
    },
    /// Complete graph on `n` slots, one demand per pair (a regular
    /// tournament when `n` is odd). Odd `n` is the STRICT1 case where the
    /// odd-set bound beats the degree bound.
    Clique { n: u32 },
    /// The Petersen graph (10 slots, cubic, not 3-edge-colourable).
    Petersen,
    /// The Blanuša snark (18 slots): the dot product of two Petersen graphs.
    Blanusa,
    /// Flower snark J_k (4k slots; a snark for odd k >= 5).
    FlowerSnark { k: u32 },
    /// One step of MoE traffic as it shifts from step to step (see
    /// [`moe_shift`]): log-normal sizes with mean `mean_chunks` chunks and
    /// `sigma`, a fresh draw per step, shaped by `shape` (a hot expert, a
    /// hot rank, a hot rank that moves every step, or a burst every
    /// `burst_every` steps).
    MoeShift {
        n: u32,
        shape: moe_shift::Shape,
        step: u64,
        mean_chunks: f64,
        sigma: f64,
        hot_x: u64,
        burst_every: u64,
        burst_x: u64,
    },
    /// `cliques` copies of `K_k` (odd `k`, `clique_mult` chunks per pair) in
    /// a sparse random graph of about `degree` single chunks per slot, built
    /// from a planted colouring with `k * clique_mult` colours (see
    /// [`planted`]): the optimum is the cliques' odd-set bound.
    Planted {
        n: u32,
        k: u32,
        cliques: u32,
        clique_mult: u64,
        degree: u32,
    },
}

/// Everything that determines a generated instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenSpec {
    pub family: Family,
    /// Multiplier of every demand's bits (>= 1).
    pub mult: u64,
    /// Bits per chunk (`copy_bw_bits_per_tick`) the sizes are made for.
    pub bw: u64,
    pub seed: u64,
}

/// A generated instance: demands merged and sorted by `(src, dst)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    pub slots: u32,
    pub bw: u64,
    pub demands: Vec<Demand>,
    /// One line (no `#`) naming the family, its parameters and the seed.
    pub description: String,
    /// The colouring a planted instance was built from (see [`planted`]).
    pub planted: Option<planted::Planted>,
}

/// Why parameters cannot generate an instance.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{family}: {message}")]
pub struct GenError {
    pub family: String,
    pub message: String,
}

/// Largest slot count a generator accepts (keeps all-to-all and cliques,
/// which are quadratic, within memory).
pub const MAX_GEN_SLOTS: u32 = 1 << 16;

/// Largest slot count of the generators whose demands grow linearly with
/// the slots (`reshard_model`: 100,000-GPU checkpoints): the default
/// instance limit.
pub const MAX_LINEAR_GEN_SLOTS: u32 = 1 << 20;

impl Family {
    /// The family's name, as in `tickopt gen NAME` and manifests.
    pub fn name(&self) -> &'static str {
        match self {
            Family::Ring { .. } => "ring",
            Family::BidirRing { .. } => "bidir_ring",
            Family::RingSkip { .. } => "ring_skip",
            Family::Alltoall { .. } => "alltoall",
            Family::Moe { .. } => "moe",
            Family::MoeShift { .. } => "moe_shift",
            Family::Pipeline { .. } => "pipeline",
            Family::PipelineInterleaved { .. } => "pipeline_interleaved",
            Family::Reshard { .. } => "reshard",
            Family::ReshardModel(_) => "reshard_model",
            Family::Tree { .. } => "tree",
            Family::Star { .. } => "star",
            Family::Random { .. } | Family::RandomSized { .. } => "random",
            Family::Clique { .. } => "clique",
            Family::Petersen => "petersen",
            Family::Blanusa => "blanusa",
            Family::FlowerSnark { .. } => "flower_snark",
            Family::Planted { .. } => "planted",
        }
    }

    /// Parameters as `(key, value)` in a fixed order, for comments and names.
    pub fn params(&self) -> Vec<(&'static str, String)> {
        let s = |v: &dyn ToString| v.to_string();
        match self {
            Family::Ring { n } | Family::BidirRing { n } | Family::Alltoall { n } => {
                vec![("n", s(n))]
            }
            Family::Clique { n } => vec![("n", s(n))],
            Family::RingSkip { n, skip } => vec![("n", s(n)), ("skip", s(skip))],
            Family::Moe {
                n,
                experts_per_rank,
                tokens,
                topk,
                zipf,
                token_bits,
            } => vec![
                ("n", s(n)),
                ("experts_per_rank", s(experts_per_rank)),
                ("tokens", s(tokens)),
                ("topk", s(topk)),
                ("zipf", s(zipf)),
                ("token_bits", s(token_bits)),
            ],
            Family::MoeShift {
                n,
                shape,
                step,
                mean_chunks,
                sigma,
                hot_x,
                burst_every,
                burst_x,
            } => vec![
                ("n", s(n)),
                ("shape", shape.as_str().to_string()),
                ("step", s(step)),
                ("mean_chunks", s(mean_chunks)),
                ("sigma", s(sigma)),
                ("hot_x", s(hot_x)),
                ("burst_every", s(burst_every)),
                ("burst_x", s(burst_x)),
            ],
            Family::Pipeline {
                stages,
                microbatches,
            } => vec![("stages", s(stages)), ("microbatches", s(microbatches))],
            Family::PipelineInterleaved {
                stages,
                microbatches,
                virtual_stages,
            } => vec![
                ("stages", s(stages)),
                ("microbatches", s(microbatches)),
                ("virtual_stages", s(virtual_stages)),
            ],
            Family::Reshard { from, to, in_place } => {
                vec![("from", s(from)), ("to", s(to)), ("in_place", s(in_place))]
            }
            Family::ReshardModel(m) => m.params(),
            Family::Tree {
                n,
                arity,
                direction,
            } => vec![
                ("n", s(n)),
                ("arity", s(arity)),
                ("direction", direction.as_str().to_string()),
            ],
            Family::Star {
                clients,
                targets,
                jitter,
            } => vec![
                ("clients", s(clients)),
                ("targets", s(targets)),
                ("jitter", s(jitter)),
            ],
            Family::Random { n, p, max_chunks } => {
                vec![("n", s(n)), ("p", s(p)), ("max_chunks", s(max_chunks))]
            }
            Family::RandomSized {
                n,
                p,
                min_bits,
                max_bits,
            } => vec![
                ("n", s(n)),
                ("p", s(p)),
                ("min_bits", s(min_bits)),
                ("max_bits", s(max_bits)),
            ],
            Family::Petersen | Family::Blanusa => vec![],
            Family::FlowerSnark { k } => vec![("k", s(k))],
            Family::Planted {
                n,
                k,
                cliques,
                clique_mult,
                degree,
            } => vec![
                ("n", s(n)),
                ("k", s(k)),
                ("cliques", s(cliques)),
                ("clique_mult", s(clique_mult)),
                ("degree", s(degree)),
            ],
        }
    }

    /// Short tags that tell apart instances of the same family and size in
    /// a file name (the size itself is `n<slots>`).
    fn name_tags(&self) -> Vec<String> {
        match self {
            Family::RingSkip { skip, .. } => vec![format!("k{skip}")],
            Family::Moe {
                experts_per_rank,
                topk,
                zipf,
                ..
            } => vec![format!("e{experts_per_rank}k{topk}z{zipf}")],
            Family::MoeShift { shape, step, .. } => vec![format!("{}_t{step}", shape.as_str())],
            Family::Pipeline { microbatches, .. } => vec![format!("b{microbatches}")],
            Family::PipelineInterleaved {
                microbatches,
                virtual_stages,
                ..
            } => vec![format!("b{microbatches}v{virtual_stages}")],
            Family::Reshard { from, to, in_place } => {
                let mut t = vec![format!("{from}to{to}")];
                if *in_place {
                    t.push("inplace".into());
                }
                t
            }
            Family::ReshardModel(m) => m.name_tags(),
            Family::Tree {
                arity, direction, ..
            } => vec![format!("a{arity}"), direction.as_str().to_string()],
            Family::Star { targets, .. } => vec![format!("t{targets}")],
            Family::Random { p, .. } => vec![format!("p{p}")],
            Family::RandomSized {
                p,
                min_bits,
                max_bits,
                ..
            } => vec![format!("p{p}"), format!("b{min_bits}-{max_bits}")],
            Family::Planted {
                k,
                cliques,
                clique_mult,
                degree,
                ..
            } => vec![format!("k{k}x{clique_mult}c{cliques}d{degree}")],
            _ => vec![],
        }
    }

    /// Whether the family is a snark (cubic, not 3-edge-colourable) with the
    /// parameters given.
    pub fn is_snark(&self) -> bool {
        match self {
            Family::Petersen | Family::Blanusa => true,
            Family::FlowerSnark { k } => *k >= 5 && k % 2 == 1,
            _ => false,
        }
    }
}

impl GenSpec {
    /// The `#` comment line (without `#`) of the CSV: family, parameters,
    /// multiplicity, bandwidth and seed.
    pub fn describe(&self) -> String {
        let mut s = format!("tickopt gen {}", self.family.name());
        for (k, v) in self.family.params() {
            s.push_str(&format!(" {k}={v}"));
        }
        s.push_str(&format!(
            " mult={} bw={} seed={}",
            self.mult, self.bw, self.seed
        ));
        s
    }
}

/// Generates the instance of `spec`. Deterministic: depends on `spec` only.
pub fn generate(spec: &GenSpec) -> Result<Generated, GenError> {
    let err = |m: String| GenError {
        family: spec.family.name().to_string(),
        message: m,
    };
    if spec.mult == 0 {
        return Err(err("mult must be >= 1".into()));
    }
    if spec.bw == 0 {
        return Err(err("bw must be >= 1".into()));
    }
    let mut b = Builder::new(spec);
    match &spec.family {
        Family::Ring { .. }
        | Family::BidirRing { .. }
        | Family::RingSkip { .. }
        | Family::Alltoall { .. }
        | Family::Moe { .. }
        | Family::Pipeline { .. }
        | Family::PipelineInterleaved { .. }
        | Family::Reshard { .. }
        | Family::Tree { .. }
        | Family::Star { .. } => collectives::build(&spec.family, spec.seed, &mut b),
        Family::Random { .. }
        | Family::RandomSized { .. }
        | Family::Clique { .. }
        | Family::Petersen
        | Family::Blanusa
        | Family::FlowerSnark { .. } => graphs::build(&spec.family, spec.seed, &mut b),
        Family::ReshardModel(m) => reshard_model::build(m, &mut b),
        Family::MoeShift {
            n,
            shape,
            step,
            mean_chunks,
            sigma,
            hot_x,
            burst_every,
            burst_x,
        } => moe_shift::build(
            *n,
            moe_shift::MoeShift {
                shape: *shape,
                step: *step,
                mean_bits: mean_chunks * spec.bw as f64,
                sigma: *sigma,
                hot_x: *hot_x,
                burst_every: *burst_every,
                burst_x: *burst_x,
            },
            spec.seed,
            &mut b,
        ),
        Family::Planted {
            n,
            k,
            cliques,
            clique_mult,
            degree,
        } => {
            let params = planted::PlantedParams {
                n: *n,
                k: *k,
                cliques: *cliques,
                mu: *clique_mult,
                degree: *degree,
            };
            planted::build(params, spec.seed, &mut b).map(|p| b.planted = Some(p))
        }
    }
    .map_err(err)?;
    b.finish(spec).map_err(err)
}

/// Collects demands for a generator: sums duplicates, scales by `mult`,
/// checks sizes and overflow.
pub(crate) struct Builder {
    slots: u32,
    mult: u64,
    bw: u64,
    bits: BTreeMap<(Slot, Slot), u64>,
    overflow: bool,
    planted: Option<planted::Planted>,
}

impl Builder {
    fn new(spec: &GenSpec) -> Self {
        Builder {
            slots: 0,
            mult: spec.mult,
            bw: spec.bw,
            bits: BTreeMap::new(),
            overflow: false,
            planted: None,
        }
    }

    /// Declares the slot count (checked against [`MAX_GEN_SLOTS`]).
    pub(crate) fn slots(&mut self, n: u64) -> Result<(), String> {
        self.slots_within(n, MAX_GEN_SLOTS)
    }

    /// Declares the slot count of a family whose demands grow linearly
    /// with it (checked against [`MAX_LINEAR_GEN_SLOTS`]).
    pub(crate) fn linear_slots(&mut self, n: u64) -> Result<(), String> {
        self.slots_within(n, MAX_LINEAR_GEN_SLOTS)
    }

    fn slots_within(&mut self, n: u64, limit: u32) -> Result<(), String> {
        if n == 0 || n > u64::from(limit) {
            return Err(format!(
                "{n} slots is outside 1..={limit} (the generators' limit)"
            ));
        }
        self.slots = n as u32;
        Ok(())
    }

    /// Adds `chunks` full chunks (`chunks * bw` bits, times `mult`) to `src -> dst`.
    pub(crate) fn chunks(&mut self, src: u32, dst: u32, chunks: u64) {
        let bits = chunks.checked_mul(self.bw);
        self.add_bits(src, dst, bits);
    }

    /// Adds `bits` raw bits (times `mult`) to `src -> dst`.
    pub(crate) fn bits(&mut self, src: u32, dst: u32, bits: u64) {
        self.add_bits(src, dst, Some(bits));
    }

    fn add_bits(&mut self, src: u32, dst: u32, bits: Option<u64>) {
        debug_assert!(src != dst && src < self.slots && dst < self.slots);
        let Some(b) = bits.and_then(|b| b.checked_mul(self.mult)) else {
            self.overflow = true;
            return;
        };
        if b == 0 {
            return;
        }
        let e = self.bits.entry((src, dst)).or_insert(0);
        match e.checked_add(b) {
            Some(v) => *e = v,
            None => self.overflow = true,
        }
    }

    fn finish(self, spec: &GenSpec) -> Result<Generated, String> {
        if self.overflow {
            return Err("bits_total overflows u64; lower mult or bw".into());
        }
        Ok(Generated {
            slots: self.slots,
            bw: self.bw,
            demands: self
                .bits
                .into_iter()
                .map(|((src, dst), bits)| Demand { src, dst, bits })
                .collect(),
            description: spec.describe(),
            planted: self.planted,
        })
    }
}

/// The file name that sorts by family and size:
/// `<family>_n<slots>[_tags]_m<mult>_s<seed>.csv`.
pub fn file_name(spec: &GenSpec, slots: u32) -> String {
    let mut parts = vec![spec.family.name().to_string(), format!("n{slots}")];
    parts.extend(spec.family.name_tags());
    parts.push(format!("m{}", spec.mult));
    parts.push(format!("s{}", spec.seed));
    format!("{}.csv", parts.join("_"))
}

/// Writes `g` as a demands CSV: a `#` comment line with the description and
/// the sizes, the `# copy_bw_bits_per_tick=N` line readers take the
/// bandwidth from, the header, then one row per demand.
pub fn write_demands_csv(g: &Generated, w: &mut dyn Write) -> io::Result<()> {
    let chunks: u128 = g
        .demands
        .iter()
        .map(|d| d.bits.div_ceil(g.bw) as u128)
        .sum();
    writeln!(
        w,
        "# {}; slots={} demands={} chunks={}",
        g.description,
        g.slots,
        g.demands.len(),
        chunks
    )?;
    writeln!(w, "{}", crate::instance::bw_comment(g.bw))?;
    writeln!(w, "src_slot,dst_slot,bits_total")?;
    for d in &g.demands {
        writeln!(w, "{},{},{}", d.src, d.dst, d.bits)?;
    }
    Ok(())
}

/// The manifest entry of a generated instance stored as `file` (relative to
/// the manifest), with the known optimum of each model where proven.
pub fn manifest_entry(
    spec: &GenSpec,
    g: &Generated,
    file: &str,
    models: &[crate::instance::Model],
) -> crate::bench::ManifestEntry {
    let mut parameters = match serde_json::to_value(&spec.family) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    parameters.remove("family");
    parameters.insert("mult".into(), spec.mult.into());
    parameters.insert("seed".into(), spec.seed.into());
    let mut entry = crate::bench::ManifestEntry {
        file: file.to_string(),
        name: std::path::Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.to_string()),
        family: spec.family.name().to_string(),
        parameters,
        bw: Some(g.bw),
        slots: Some(g.slots),
        models: models.to_vec(),
        known_optimum: Default::default(),
        known_optimum_reason: Default::default(),
    };
    for &m in models {
        if let Some(k) = known_optimum(&spec.family, g, m) {
            entry.known_optimum.insert(m, k.ticks);
            entry.known_optimum_reason.insert(m, k.reason);
        }
    }
    entry
}
