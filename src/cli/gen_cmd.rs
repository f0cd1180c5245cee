//! `tickopt gen FAMILY [params] --seed S --out FILE.csv [--manifest M]`.

use super::common::parse_bits_arg;
use crate::bench::upsert_entry;
use crate::gen::multiport::{
    generate_multiport, known_multiport_optimum, multiport_file_name, MultiportFamily,
};
use crate::gen::{self, Family, GenSpec, TransformerReshard, TreeDirection};
use crate::instance::{write_instance_json, Model};
use crate::schedule::writers::write_atomically;
use anyhow::Context;
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct GenArgs {
    #[command(subcommand)]
    pub family: FamilyCmd,
    /// Multiply every demand's bits by M (the high-multiplicity variant).
    #[arg(long, global = true, default_value_t = 1, value_name = "M")]
    pub mult: u64,
    /// Bits per chunk the sizes are made for (copy_bw_bits_per_tick).
    /// Units: a plain integer is bits; K, M, G (x1000 bits), Ki, Mi, Gi
    /// (x1024 bits), KB, MB, GB, KiB, MiB, GiB (bytes).
    #[arg(long, global = true, default_value_t = 1024, value_name = "BITS", value_parser = parse_bits_arg, allow_negative_numbers = true)]
    pub bw: u64,
    /// Seed of the random families (same seed, same file).
    #[arg(long, global = true, default_value_t = 0, value_name = "SEED")]
    pub seed: u64,
    /// Write the instance here ("-" for stdout): a demands CSV (FILE.csv)
    /// for the one-port families, an instance JSON (FILE.json) for rails,
    /// two_tier, moe_nics and moe_two_tier; the other extension is refused.
    #[arg(long, short, global = true, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write into this directory (created if needed) under the standard
    /// name <family>_n<slots>[_tags]_m<mult>_s<seed>.csv (.json for the
    /// multi-port families).
    #[arg(long, global = true, value_name = "DIR", conflicts_with = "out")]
    pub out_dir: Option<PathBuf>,
    /// Add (or replace) the instance's entry in this manifest.json, with its
    /// known optima; the CSV must be in the manifest's directory tree.
    #[arg(long, global = true, value_name = "manifest.json")]
    pub manifest: Option<PathBuf>,
    /// Models listed in the manifest entry.
    #[arg(
        long,
        global = true,
        value_delimiter = ',',
        default_value = "STRICT1,READ1_WRITE1"
    )]
    pub models: Vec<Model>,
}

/// The families (doc/instances.md describes each).
#[derive(Subcommand, Debug, Clone)]
pub enum FamilyCmd {
    /// Ring step: i -> i+1 (mod n).
    Ring {
        /// Number of slots on the ring (>= 2).
        #[arg(long)]
        n: u32,
    },
    /// Bidirectional ring: i -> i+1 and i+1 -> i.
    #[command(name = "bidir_ring", alias = "bidir-ring")]
    BidirRing {
        /// Number of slots on the ring (>= 2).
        #[arg(long)]
        n: u32,
    },
    /// Ring with skip links i -> i+skip.
    #[command(name = "ring_skip", alias = "ring-skip")]
    RingSkip {
        /// Number of slots on the ring (>= 2).
        #[arg(long)]
        n: u32,
        /// Distance of the skip links (slot i also sends to i+skip mod n).
        #[arg(long)]
        skip: u32,
    },
    /// Uniform all-to-all.
    Alltoall {
        /// Number of slots (every ordered pair exchanges one demand).
        #[arg(long)]
        n: u32,
    },
    /// Mixture-of-experts all-to-all with Zipf-skewed expert popularity.
    Moe {
        /// Number of ranks (slots).
        #[arg(long)]
        n: u32,
        /// Experts hosted on each rank.
        #[arg(long, default_value_t = 1)]
        experts_per_rank: u32,
        /// Tokens per rank.
        #[arg(long, default_value_t = 1024)]
        tokens: u64,
        /// Distinct experts each token is routed to.
        #[arg(long, default_value_t = 2)]
        topk: u32,
        /// Zipf exponent of expert popularity (0 = uniform).
        #[arg(long, default_value_t = 1.0)]
        zipf: f64,
        /// Bits per token (the hidden state one token carries). Units as
        /// for --bw: 12000, 1500B, 12K.
        #[arg(long, default_value_t = 12000, value_name = "BITS", value_parser = parse_bits_arg, allow_negative_numbers = true)]
        token_bits: u64,
    },
    /// One step of MoE traffic as it shifts from step to step: log-normal sizes (a fresh draw per step) with a hot expert, a hot rank, a hot rank that moves every step, or a burst every few steps (the shapes of python/tickopt/workloads.py)
    #[command(name = "moe_shift", alias = "moe-shift")]
    MoeShift {
        /// Number of ranks (slots, >= 2).
        #[arg(long)]
        n: u32,
        /// hot_expert (one destination --hot-x larger), hot_rank (one rank
        /// sends and receives --hot-x more), rotating (hot_rank whose hot
        /// rank is (seed + step) mod n) or burst (every --burst-every-th
        /// step --burst-x larger).
        #[arg(long)]
        shape: gen::moe_shift::Shape,
        /// The step of the sequence (0, 1, ...): sizes are drawn afresh per step.
        #[arg(long, default_value_t = 0)]
        step: u64,
        /// Mean size of a demand, in chunks of --bw bits (before the hot factors).
        #[arg(long, default_value_t = 4.0)]
        mean_chunks: f64,
        /// Log-normal shape of the sizes (0: all equal).
        #[arg(long, default_value_t = 1.2)]
        sigma: f64,
        /// How much more the hot expert or rank carries.
        #[arg(long, default_value_t = 6)]
        hot_x: u64,
        /// burst: every this many steps one is heavier.
        #[arg(long, default_value_t = 5)]
        burst_every: u64,
        /// burst: how much heavier.
        #[arg(long, default_value_t = 4)]
        burst_x: u64,
    },
    /// Pipeline parallelism: activations forward, gradients backward.
    Pipeline {
        /// Number of pipeline stages (slots).
        #[arg(long)]
        stages: u32,
        /// Microbatches per step.
        #[arg(long, default_value_t = 8)]
        microbatches: u64,
    },
    /// Interleaved pipeline (virtual stages wrap last -> first).
    #[command(name = "pipeline_interleaved", alias = "pipeline-interleaved")]
    PipelineInterleaved {
        /// Number of pipeline stages (slots).
        #[arg(long)]
        stages: u32,
        /// Microbatches per step.
        #[arg(long, default_value_t = 8)]
        microbatches: u64,
        /// Virtual stages (model chunks) per slot.
        #[arg(long, default_value_t = 2)]
        virtual_stages: u32,
    },
    /// Resharding from M equal shards to N equal shards.
    Reshard {
        /// Number of shards in the old layout (M).
        #[arg(long)]
        from: u32,
        /// Number of shards in the new layout (N).
        #[arg(long)]
        to: u32,
        /// Both layouts on the same ranks.
        #[arg(long)]
        in_place: bool,
    },
    /// A transformer checkpoint resharded from a training mesh (TP x PP x DP
    /// on slots 0..FROM) to an inference mesh on disjoint GPUs (slots
    /// FROM..FROM+TO), Megatron layout; defaults: LLaMA-2 7B in bf16.
    #[command(name = "reshard_model", alias = "reshard-model")]
    ReshardModel {
        /// GPUs of the training mesh (a multiple of --from-tp x --from-pp;
        /// the rest are data-parallel replicas).
        #[arg(long)]
        from: u32,
        /// Tensor-parallel degree of the training mesh.
        #[arg(long, default_value_t = 8)]
        from_tp: u32,
        /// Pipeline-parallel degree of the training mesh.
        #[arg(long, default_value_t = 4)]
        from_pp: u32,
        /// GPUs of the inference mesh (a multiple of --to-tp x --to-pp).
        #[arg(long)]
        to: u32,
        /// Tensor-parallel degree of the inference mesh.
        #[arg(long, default_value_t = 4)]
        to_tp: u32,
        /// Pipeline-parallel degree of the inference mesh.
        #[arg(long, default_value_t = 1)]
        to_pp: u32,
        /// Transformer blocks.
        #[arg(long, default_value_t = 32)]
        layers: u32,
        /// Hidden size.
        #[arg(long, default_value_t = 4096)]
        hidden: u64,
        /// MLP intermediate size (gate, up and down projections).
        #[arg(long, default_value_t = 11008)]
        ffn: u64,
        /// Query heads (a multiple of both tensor-parallel degrees).
        #[arg(long, default_value_t = 32)]
        heads: u32,
        /// Key/value heads (grouped-query attention); default: --heads.
        #[arg(long)]
        kv_heads: Option<u32>,
        /// Vocabulary size (rows of the embedding and of the output head).
        #[arg(long, default_value_t = 32000)]
        vocab: u64,
        /// Bits per parameter (16 for bf16 or fp16, 8 for fp8, 32 for fp32).
        #[arg(long, default_value_t = 16)]
        dtype_bits: u64,
    },
    /// Tree broadcast / reduce / allreduce (heap order, root 0).
    Tree {
        /// Number of slots in the tree (root 0).
        #[arg(long)]
        n: u32,
        /// Children per tree node.
        #[arg(long, default_value_t = 2)]
        arity: u32,
        /// broadcast, reduce or allreduce.
        #[arg(long, default_value = "broadcast")]
        direction: TreeDirection,
    },
    /// Checkpoint: clients write to storage targets.
    Star {
        /// Number of client ranks writing shards.
        #[arg(long)]
        clients: u32,
        /// Number of storage targets they write to.
        #[arg(long, default_value_t = 1)]
        targets: u32,
        /// Shard sizes vary by up to (1 + jitter) times.
        #[arg(long, default_value_t = 0)]
        jitter: u64,
    },
    /// Erdos-Renyi random graph.
    Random {
        /// Number of slots.
        #[arg(long)]
        n: u32,
        /// Probability that a slot pair is joined (0..=1).
        #[arg(long)]
        p: f64,
        /// Each joined pair carries 1..=W chunks.
        #[arg(long, default_value_t = 1, conflicts_with_all = ["min_bits", "max_bits"])]
        max_chunks: u64,
        /// Sizes uniform in MIN..=MAX bits instead of whole chunks (with
        /// --max-bits; heavy arbitrary traffic). Units as for --bw.
        #[arg(long, value_name = "MIN", requires = "max_bits", value_parser = parse_bits_arg, allow_negative_numbers = true)]
        min_bits: Option<u64>,
        /// Largest size in bits (with --min-bits). Units as for --bw.
        #[arg(long, value_name = "MAX", requires = "min_bits", value_parser = parse_bits_arg, allow_negative_numbers = true)]
        max_bits: Option<u64>,
    },
    /// Complete graph K_n (odd n: the odd-set bound case).
    Clique {
        /// Number of slots (odd n: the odd-set bound case).
        #[arg(long)]
        n: u32,
    },
    /// The Petersen graph.
    Petersen,
    /// The Blanuša snark (18 slots).
    Blanusa,
    /// Flower snark J_k (4k slots).
    #[command(name = "flower_snark", alias = "flower-snark")]
    FlowerSnark {
        /// Order k of J_k (odd, >= 5, for a snark).
        #[arg(long, default_value_t = 5)]
        k: u32,
    },
    /// Planted odd cliques in a sparse random graph, built from a colouring
    /// with k x clique_mult colours: the optimum (in the manifest) is the
    /// cliques' odd-set bound, above the degree bound.
    Planted {
        /// Number of slots.
        #[arg(long)]
        n: u32,
        /// Clique size (odd, >= 3).
        #[arg(long, default_value_t = 5)]
        k: u32,
        /// Number of disjoint planted cliques (on slots 0..cliques*k).
        #[arg(long, default_value_t = 1)]
        cliques: u32,
        /// Chunks on every clique pair.
        #[arg(long, default_value_t = 4)]
        clique_mult: u64,
        /// Sparse single-chunk edges per slot, about (capped below the
        /// clique bound so that the degree bound is never the optimum).
        #[arg(long, default_value_t = 3)]
        degree: u32,
    },
    /// Multi-rail all-to-all: n GPUs with RAILS ports each, mult chunks per
    /// pair (instance JSON with "ports"; model: the first of --models).
    Rails {
        /// Number of GPUs (slots).
        #[arg(long)]
        n: u32,
        /// Rails (NIC ports) per GPU.
        #[arg(long)]
        rails: u32,
    },
    /// Two-tier cluster: nodes of GPUs with NICS ports; all-to-all inside a
    /// node at FAST x bw (per-demand bandwidth), rail-aligned between nodes
    /// at bw (instance JSON).
    #[command(name = "two_tier", alias = "two-tier")]
    TwoTier {
        /// Number of nodes.
        #[arg(long)]
        nodes: u32,
        /// GPUs (slots) per node.
        #[arg(long, default_value_t = 8)]
        gpus_per_node: u32,
        /// NIC ports per GPU.
        #[arg(long, default_value_t = 2)]
        nics: u32,
        /// Speed-up of transfers inside a node (their bandwidth is FAST x --bw).
        #[arg(long, default_value_t = 8)]
        fast: u64,
    },
    /// MoE dispatch between nodes with NICS ports each (instance JSON).
    #[command(name = "moe_nics", alias = "moe-nics")]
    MoeNics {
        /// Number of nodes (slots).
        #[arg(long)]
        nodes: u32,
        /// NIC ports per node.
        #[arg(long, default_value_t = 4)]
        nics: u32,
        /// Tokens per node.
        #[arg(long, default_value_t = 1024)]
        tokens: u64,
        /// Distinct experts each token is routed to.
        #[arg(long, default_value_t = 2)]
        topk: u32,
        /// Zipf exponent of expert popularity (0 = uniform).
        #[arg(long, default_value_t = 1.0)]
        zipf: f64,
    },
    /// Skewed MoE all-to-all on a two-tier cluster: every GPU sends to every
    /// other, sizes log-normal with mean --mult x --bw bits, HOT_FACTOR x
    /// larger into HOT hot-expert GPUs; inside a node at FAST x bw
    /// (per-demand bandwidth), NICS ports per GPU (instance JSON).
    #[command(name = "moe_two_tier", alias = "moe-two-tier")]
    MoeTwoTier {
        /// Number of nodes.
        #[arg(long)]
        nodes: u32,
        /// GPUs (slots) per node.
        #[arg(long, default_value_t = 8)]
        gpus_per_node: u32,
        /// NIC ports per GPU.
        #[arg(long, default_value_t = 2)]
        nics: u32,
        /// Speed-up of transfers inside a node (their bandwidth is FAST x --bw).
        #[arg(long, default_value_t = 8)]
        fast: u64,
        /// Log-normal shape: the standard deviation of ln(bits) (0 = equal sizes).
        #[arg(long, default_value_t = 1.0)]
        sigma: f64,
        /// Number of hot-expert GPUs (chosen by --seed).
        #[arg(long, default_value_t = 8)]
        hot: u32,
        /// How many times more every GPU sends to a hot expert.
        #[arg(long, default_value_t = 4)]
        hot_factor: u64,
    },
}

impl FamilyCmd {
    /// The multi-port families (generated as instance JSON).
    fn to_multiport(&self) -> Option<MultiportFamily> {
        Some(match self.clone() {
            FamilyCmd::Rails { n, rails } => MultiportFamily::Rails { n, rails },
            FamilyCmd::TwoTier {
                nodes,
                gpus_per_node,
                nics,
                fast,
            } => MultiportFamily::TwoTier {
                nodes,
                gpus_per_node,
                nics,
                fast,
            },
            FamilyCmd::MoeNics {
                nodes,
                nics,
                tokens,
                topk,
                zipf,
            } => MultiportFamily::MoeNics {
                nodes,
                nics,
                tokens,
                topk,
                zipf,
            },
            FamilyCmd::MoeTwoTier {
                nodes,
                gpus_per_node,
                nics,
                fast,
                sigma,
                hot,
                hot_factor,
            } => MultiportFamily::MoeTwoTier {
                nodes,
                gpus_per_node,
                nics,
                fast,
                sigma,
                hot,
                hot_factor,
            },
            _ => return None,
        })
    }

    /// The one-port families (`None` for the multi-port ones).
    fn to_family(&self) -> Option<Family> {
        Some(match self.clone() {
            FamilyCmd::Ring { n } => Family::Ring { n },
            FamilyCmd::BidirRing { n } => Family::BidirRing { n },
            FamilyCmd::RingSkip { n, skip } => Family::RingSkip { n, skip },
            FamilyCmd::Alltoall { n } => Family::Alltoall { n },
            FamilyCmd::Moe {
                n,
                experts_per_rank,
                tokens,
                topk,
                zipf,
                token_bits,
            } => Family::Moe {
                n,
                experts_per_rank,
                tokens,
                topk,
                zipf,
                token_bits,
            },
            FamilyCmd::MoeShift {
                n,
                shape,
                step,
                mean_chunks,
                sigma,
                hot_x,
                burst_every,
                burst_x,
            } => Family::MoeShift {
                n,
                shape,
                step,
                mean_chunks,
                sigma,
                hot_x,
                burst_every,
                burst_x,
            },
            FamilyCmd::Pipeline {
                stages,
                microbatches,
            } => Family::Pipeline {
                stages,
                microbatches,
            },
            FamilyCmd::PipelineInterleaved {
                stages,
                microbatches,
                virtual_stages,
            } => Family::PipelineInterleaved {
                stages,
                microbatches,
                virtual_stages,
            },
            FamilyCmd::Reshard { from, to, in_place } => Family::Reshard { from, to, in_place },
            FamilyCmd::ReshardModel {
                from,
                from_tp,
                from_pp,
                to,
                to_tp,
                to_pp,
                layers,
                hidden,
                ffn,
                heads,
                kv_heads,
                vocab,
                dtype_bits,
            } => Family::ReshardModel(TransformerReshard {
                from,
                from_tp,
                from_pp,
                to,
                to_tp,
                to_pp,
                layers,
                hidden,
                ffn,
                heads,
                kv_heads: kv_heads.unwrap_or(heads),
                vocab,
                dtype_bits,
            }),
            FamilyCmd::Tree {
                n,
                arity,
                direction,
            } => Family::Tree {
                n,
                arity,
                direction,
            },
            FamilyCmd::Star {
                clients,
                targets,
                jitter,
            } => Family::Star {
                clients,
                targets,
                jitter,
            },
            FamilyCmd::Random {
                n,
                p,
                max_chunks,
                min_bits,
                max_bits,
            } => match (min_bits, max_bits) {
                (Some(min_bits), Some(max_bits)) => Family::RandomSized {
                    n,
                    p,
                    min_bits,
                    max_bits,
                },
                _ => Family::Random { n, p, max_chunks },
            },
            FamilyCmd::Clique { n } => Family::Clique { n },
            FamilyCmd::Petersen => Family::Petersen,
            FamilyCmd::Blanusa => Family::Blanusa,
            FamilyCmd::FlowerSnark { k } => Family::FlowerSnark { k },
            FamilyCmd::Planted {
                n,
                k,
                cliques,
                clique_mult,
                degree,
            } => Family::Planted {
                n,
                k,
                cliques,
                clique_mult,
                degree,
            },
            FamilyCmd::Rails { .. }
            | FamilyCmd::TwoTier { .. }
            | FamilyCmd::MoeNics { .. }
            | FamilyCmd::MoeTwoTier { .. } => return None,
        })
    }
}

/// `file` relative to the manifest's directory.
fn relative_to_manifest(file: &Path, manifest: &Path) -> anyhow::Result<String> {
    let dir = manifest.parent().unwrap_or(Path::new(""));
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let rel = abs(file)
        .strip_prefix(abs(dir))
        .map(Path::to_path_buf)
        .map_err(|_| {
            anyhow::anyhow!(
                "--manifest {}: the instance {} is not inside the manifest's directory",
                manifest.display(),
                file.display()
            )
        })?;
    Ok(rel.to_string_lossy().replace('\\', "/"))
}

pub fn run(a: GenArgs) -> anyhow::Result<u8> {
    let Some(family) = a.family.to_family() else {
        return run_multiport(&a);
    };
    let spec = GenSpec {
        family,
        mult: a.mult,
        bw: a.bw,
        seed: a.seed,
    };
    let g = gen::generate(&spec)?;
    let out = match (&a.out, &a.out_dir) {
        (Some(o), _) => o.clone(),
        (None, Some(dir)) => dir.join(gen::file_name(&spec, g.slots)),
        (None, None) => anyhow::bail!("give --out FILE.csv (or - for stdout) or --out-dir DIR"),
    };
    check_extension(&out, "csv", spec.family.name())?;
    create_out_dir(a.out_dir.as_deref())?;
    if out == Path::new("-") {
        if a.manifest.is_some() {
            anyhow::bail!("--manifest needs a file --out, not stdout");
        }
        let mut w = std::io::BufWriter::new(std::io::stdout().lock());
        gen::write_demands_csv(&g, &mut w)?;
        w.flush()?;
        return Ok(0);
    }
    super::common::check_output_dir(&out)?;
    write_atomically(&out, |w| gen::write_demands_csv(&g, w))
        .with_context(|| format!("cannot write {}", out.display()))?;
    if let Some(manifest) = &a.manifest {
        let file = relative_to_manifest(&out, manifest)?;
        let set = set_name_of(manifest);
        upsert_entry(
            manifest,
            &set,
            gen::manifest_entry(&spec, &g, &file, &a.models),
        )?;
    }
    eprintln!(
        "wrote {} ({} slots, {} demands)",
        out.display(),
        g.slots,
        g.demands.len()
    );
    Ok(0)
}

/// Refuses an output whose extension names the other format (`gen rails
/// --out x.csv` would otherwise write JSON into a `.csv`). Other names
/// (no extension, `-`) are written as the family's format.
fn check_extension(out: &Path, writes: &str, family: &str) -> anyhow::Result<()> {
    let ext = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let other = if writes == "csv" { "json" } else { "csv" };
    if ext.as_deref() == Some(other) {
        let what = if writes == "csv" {
            "a demands CSV (tickopt convert turns it into an instance JSON)"
        } else {
            "an instance JSON (ports and per-demand bandwidths do not fit a demands CSV)"
        };
        anyhow::bail!(
            "--out {}: {family} writes {what}; name the file .{writes}",
            out.display()
        );
    }
    Ok(())
}

/// Creates `--out-dir` (and its parents) as audit and bench do.
fn create_out_dir(dir: Option<&Path>) -> anyhow::Result<()> {
    if let Some(d) = dir {
        std::fs::create_dir_all(d)
            .with_context(|| format!("--out-dir {}: cannot create", d.display()))?;
    }
    Ok(())
}

/// The set a manifest describes: the name of the directory it lives in.
fn set_name_of(manifest: &Path) -> String {
    std::path::absolute(manifest)
        .ok()
        .and_then(|p| {
            p.parent()
                .and_then(|d| d.file_name())
                .map(|s| s.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "set".into())
}

/// `gen rails|two_tier|moe_nics|moe_two_tier`: an instance JSON (ports and per-demand
/// bandwidths do not fit a demands CSV), with a manifest entry per model.
fn run_multiport(a: &GenArgs) -> anyhow::Result<u8> {
    let family = a
        .family
        .to_multiport()
        .expect("every family is one-port or multi-port");
    let model = *a
        .models
        .first()
        .ok_or_else(|| anyhow::anyhow!("--models must name at least one model"))?;
    let inst = generate_multiport(&family, model, a.mult, a.bw, a.seed)?;
    let out = match (&a.out, &a.out_dir) {
        (Some(o), _) => o.clone(),
        (None, Some(dir)) => dir.join(multiport_file_name(&family, a.mult, a.seed)),
        (None, None) => anyhow::bail!("give --out FILE.json (or - for stdout) or --out-dir DIR"),
    };
    check_extension(&out, "json", family.name())?;
    create_out_dir(a.out_dir.as_deref())?;
    if out == Path::new("-") {
        if a.manifest.is_some() {
            anyhow::bail!("--manifest needs a file --out, not stdout");
        }
        write_atomically(&out, |w| write_instance_json(&inst, w))?;
        return Ok(0);
    }
    super::common::check_output_dir(&out)?;
    write_atomically(&out, |w| write_instance_json(&inst, w))
        .with_context(|| format!("cannot write {}", out.display()))?;
    if let Some(manifest) = &a.manifest {
        let file = relative_to_manifest(&out, manifest)?;
        let set = set_name_of(manifest);
        let mut entry = crate::bench::ManifestEntry {
            file: file.clone(),
            name: file.trim_end_matches(".json").to_string(),
            family: family.name().to_string(),
            parameters: Default::default(),
            bw: None,
            slots: None,
            models: a.models.clone(),
            known_optimum: Default::default(),
            known_optimum_reason: Default::default(),
        };
        for (k, v) in family.params() {
            entry.parameters.insert(
                k.to_string(),
                v.parse::<serde_json::Value>()
                    .unwrap_or(serde_json::Value::String(v)),
            );
        }
        for key in ["mult", "seed"] {
            let v = if key == "mult" { a.mult } else { a.seed };
            entry.parameters.insert(key.to_string(), v.into());
        }
        for &m in &a.models {
            if let Some((t, why)) = known_multiport_optimum(&inst.with_model(m)) {
                entry.known_optimum.insert(m, t);
                entry.known_optimum_reason.insert(m, why.to_string());
            }
        }
        upsert_entry(manifest, &set, entry)?;
    }
    eprintln!(
        "wrote {} ({} slots, {} demands, ports {})",
        out.display(),
        inst.slots,
        inst.demands().len(),
        serde_json::to_string(inst.ports())?
    );
    Ok(0)
}
