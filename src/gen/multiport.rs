//! Multi-port families (DESIGN.md §11): GPUs with several NICs or rails,
//! and links of different speeds.
//!
//! - [`MultiportFamily::Rails`]: all-to-all among `n` GPUs with `rails`
//!   ports each (a multi-rail fabric), `mult` chunks per pair.
//! - [`MultiportFamily::TwoTier`]: `nodes` nodes of `gpus_per_node` GPUs
//!   with `nics` ports each; every GPU sends the same bits to every other
//!   GPU, inside its node over a link `fast` times the network bandwidth
//!   (a per-demand `copy_bw_bits_per_tick`), to other nodes at the network
//!   bandwidth and rail-aligned (GPU i of one node to GPU i of the others).
//! - [`MultiportFamily::MoeNics`]: mixture-of-experts dispatch (the
//!   one-port `moe` family's routing) between nodes with `nics` ports each.
//! - [`MultiportFamily::MoeTwoTier`]: a skewed MoE all-to-all on a two-tier
//!   cluster: every GPU sends to every other GPU, sizes log-normal
//!   ([`super::skew`]) and `hot_factor` times larger into `hot` hot-expert
//!   GPUs, intra-node demands at `fast` times the network bandwidth.
//!
//! The result is an [`Instance`] (ports and per-demand bandwidths do not fit
//! a demands CSV); [`known_multiport_optimum`] gives the optimum wherever a
//! theorem fixes it (READ1_WRITE1; STRICT1 with even ports).

use super::{generate, Family, GenError, GenSpec};
use crate::instance::{Demand, Instance, Limits, Model, Ports};

/// A multi-port family and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum MultiportFamily {
    Rails {
        n: u32,
        rails: u32,
    },
    TwoTier {
        nodes: u32,
        gpus_per_node: u32,
        nics: u32,
        /// Intra-node bandwidth as a multiple of the network's.
        fast: u64,
    },
    MoeNics {
        nodes: u32,
        nics: u32,
        tokens: u64,
        topk: u32,
        zipf: f64,
    },
    MoeTwoTier {
        nodes: u32,
        gpus_per_node: u32,
        nics: u32,
        /// Intra-node bandwidth as a multiple of the network's.
        fast: u64,
        /// Shape of the log-normal sizes (the standard deviation of ln bits).
        sigma: f64,
        /// Number of hot-expert GPUs (seeded choice).
        hot: u32,
        /// How many times more every GPU sends to a hot expert.
        hot_factor: u64,
    },
}

impl MultiportFamily {
    pub fn name(&self) -> &'static str {
        match self {
            MultiportFamily::Rails { .. } => "rails",
            MultiportFamily::TwoTier { .. } => "two_tier",
            MultiportFamily::MoeNics { .. } => "moe_nics",
            MultiportFamily::MoeTwoTier { .. } => "moe_two_tier",
        }
    }

    /// Parameters as `(name, value)`, for file names and manifests.
    pub fn params(&self) -> Vec<(&'static str, String)> {
        match self {
            MultiportFamily::Rails { n, rails } => {
                vec![("n", n.to_string()), ("rails", rails.to_string())]
            }
            MultiportFamily::TwoTier {
                nodes,
                gpus_per_node,
                nics,
                fast,
            } => vec![
                ("nodes", nodes.to_string()),
                ("gpus_per_node", gpus_per_node.to_string()),
                ("nics", nics.to_string()),
                ("fast", fast.to_string()),
            ],
            MultiportFamily::MoeNics {
                nodes,
                nics,
                tokens,
                topk,
                zipf,
            } => vec![
                ("nodes", nodes.to_string()),
                ("nics", nics.to_string()),
                ("tokens", tokens.to_string()),
                ("topk", topk.to_string()),
                ("zipf", zipf.to_string()),
            ],
            MultiportFamily::MoeTwoTier {
                nodes,
                gpus_per_node,
                nics,
                fast,
                sigma,
                hot,
                hot_factor,
            } => vec![
                ("nodes", nodes.to_string()),
                ("gpus_per_node", gpus_per_node.to_string()),
                ("nics", nics.to_string()),
                ("fast", fast.to_string()),
                ("sigma", sigma.to_string()),
                ("hot", hot.to_string()),
                ("hot_factor", hot_factor.to_string()),
            ],
        }
    }
}

fn err(family: &MultiportFamily, m: impl Into<String>) -> GenError {
    GenError {
        family: family.name().to_string(),
        message: m.into(),
    }
}

/// Generates the family's instance under `model`: `bw` bits per tick on the
/// network, `mult` multiplying every demand's bits (for `moe_two_tier`: the
/// mean chunks of a demand at the network bandwidth), `seed` for the random
/// families. Deterministic.
pub fn generate_multiport(
    family: &MultiportFamily,
    model: Model,
    mult: u64,
    bw: u64,
    seed: u64,
) -> Result<Instance, GenError> {
    if mult == 0 || bw == 0 {
        return Err(err(family, "mult and bw must be >= 1"));
    }
    let bits = mult
        .checked_mul(bw)
        .ok_or_else(|| err(family, "mult * bw overflows u64"))?;
    let at_least = |name: &str, v: u64, min: u64| at_least(family, name, v, min);
    let (slots, ports, demands): Parts = match *family {
        MultiportFamily::Rails { n, rails } => {
            at_least("n", n as u64, 2)?;
            at_least("rails", rails as u64, 1)?;
            let d = (0..n)
                .flat_map(|s| (0..n).filter(move |&t| t != s).map(move |t| (s, t)))
                .map(|(src, dst)| (Demand { src, dst, bits }, None))
                .collect();
            (n, Ports::Uniform(rails), d)
        }
        MultiportFamily::TwoTier {
            nodes,
            gpus_per_node,
            nics,
            fast,
        } => two_tier(family, bw, bits, nodes, gpus_per_node, nics, fast)?,
        MultiportFamily::MoeNics {
            nodes,
            nics,
            tokens,
            topk,
            zipf,
        } => {
            at_least("nics", nics as u64, 1)?;
            let spec = GenSpec {
                family: Family::Moe {
                    n: nodes,
                    experts_per_rank: 1,
                    tokens,
                    topk,
                    zipf,
                    token_bits: bw,
                },
                mult,
                bw,
                seed,
            };
            let g = generate(&spec).map_err(|e| err(family, e.message))?;
            (
                g.slots,
                Ports::Uniform(nics),
                g.demands.into_iter().map(|d| (d, None)).collect(),
            )
        }
        MultiportFamily::MoeTwoTier {
            nodes,
            gpus_per_node,
            nics,
            fast,
            sigma,
            hot,
            hot_factor,
        } => {
            let cluster = (nodes, gpus_per_node, nics, fast);
            moe_two_tier(family, bw, bits, cluster, (sigma, hot, hot_factor), seed)?
        }
    };
    let mut inst = Instance::new_multiport(model, slots, bw, demands, ports, &Limits::default())
        .map_err(|e| err(family, e.to_string()))?;
    let params: Vec<String> = family
        .params()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    inst.notes = Some(format!(
        "tickopt gen {} {} mult={mult} bw={bw} seed={seed}",
        family.name(),
        params.join(" ")
    ));
    Ok(inst)
}

/// A generated multi-port instance's slots, ports, and demands (each with
/// its own bandwidth, if any).
type Parts = (u32, Ports, Vec<(Demand, Option<u64>)>);

/// `v >= min`, or the family's error naming the parameter.
fn at_least(family: &MultiportFamily, name: &str, v: u64, min: u64) -> Result<(), GenError> {
    if v < min {
        Err(err(family, format!("{name} must be >= {min}, got {v}")))
    } else {
        Ok(())
    }
}

/// The two-tier families' cluster: the GPU count and the intra-node
/// bandwidth, parameters checked.
fn cluster(
    family: &MultiportFamily,
    bw: u64,
    nodes: u32,
    gpus_per_node: u32,
    nics: u32,
    fast: u64,
) -> Result<(u32, u64), GenError> {
    at_least(family, "nodes", nodes as u64, 1)?;
    at_least(family, "gpus_per_node", gpus_per_node as u64, 1)?;
    at_least(family, "nics", nics as u64, 1)?;
    at_least(family, "fast", fast, 1)?;
    let n = nodes
        .checked_mul(gpus_per_node)
        .filter(|&n| n >= 2)
        .ok_or_else(|| err(family, "needs at least 2 GPUs and fewer than 2^32"))?;
    let fast_bw = bw
        .checked_mul(fast)
        .ok_or_else(|| err(family, "bw * fast overflows u64"))?;
    Ok((n, fast_bw))
}

/// `two_tier`: all-to-all inside a node at the fast bandwidth,
/// rail-aligned between nodes at the network bandwidth, `bits` each.
fn two_tier(
    family: &MultiportFamily,
    bw: u64,
    bits: u64,
    nodes: u32,
    gpus_per_node: u32,
    nics: u32,
    fast: u64,
) -> Result<Parts, GenError> {
    let (n, fast_bw) = cluster(family, bw, nodes, gpus_per_node, nics, fast)?;
    let mut d = Vec::new();
    for src in 0..n {
        let (node, gpu) = (src / gpus_per_node, src % gpus_per_node);
        for dst in 0..n {
            if dst == src {
                continue;
            }
            if dst / gpus_per_node == node {
                // Inside the node: the same bits at the fast bandwidth.
                d.push((Demand { src, dst, bits }, Some(fast_bw)));
            } else if dst % gpus_per_node == gpu {
                // Rail-aligned between nodes, at the network bandwidth.
                d.push((Demand { src, dst, bits }, None));
            }
        }
    }
    Ok((n, Ports::Uniform(nics), d))
}

/// `moe_two_tier`: a skewed all-to-all (log-normal sizes of mean `bits`,
/// hot GPUs `hot_factor` times larger) on a two-tier cluster (nodes,
/// gpus_per_node, nics, fast); the skew is (sigma, hot, hot_factor).
fn moe_two_tier(
    family: &MultiportFamily,
    bw: u64,
    bits: u64,
    (nodes, gpus_per_node, nics, fast): (u32, u32, u32, u64),
    (sigma, hot, hot_factor): (f64, u32, u64),
    seed: u64,
) -> Result<Parts, GenError> {
    let (n, fast_bw) = cluster(family, bw, nodes, gpus_per_node, nics, fast)?;
    at_least(family, "hot_factor", hot_factor, 1)?;
    if !(sigma.is_finite() && (0.0..=4.0).contains(&sigma)) {
        return Err(err(family, format!("sigma must be in 0..=4, got {sigma}")));
    }
    if hot > n {
        return Err(err(
            family,
            format!("hot must be <= the {n} GPUs, got {hot}"),
        ));
    }
    let skew = super::skew::Skew {
        mean_bits: bits as f64,
        sigma,
        hot,
        hot_factor,
    };
    let d = skew
        .all_to_all(n, seed)
        .map_err(|m| err(family, m))?
        .into_iter()
        .map(|dem| {
            let intra = dem.src / gpus_per_node == dem.dst / gpus_per_node;
            (dem, intra.then_some(fast_bw))
        })
        .collect();
    Ok((n, Ports::Uniform(nics), d))
}

/// The optimum where a theorem fixes it without a solver: READ1_WRITE1
/// (port splitting + König) and STRICT1 with every port count even
/// (Hakimi–Kariv) both reach `max_v ceil(d(v)/ports(v))`. Returns the
/// ticks and the reason.
pub fn known_multiport_optimum(inst: &Instance) -> Option<(u64, &'static str)> {
    let reason = match inst.model {
        Model::Read1Write1 => "port splitting + König: max ceil(d(v)/ports(v)) per direction",
        Model::Strict1 if inst.ports().all_even() => {
            "Hakimi-Kariv (even ports): max ceil(d(v)/ports(v))"
        }
        Model::Strict1 => return None,
    };
    let n = inst.slots as usize;
    let (mut out, mut inn) = (vec![0u64; n], vec![0u64; n]);
    for (i, d) in inst.demands().iter().enumerate() {
        out[d.src as usize] += inst.chunks(i);
        inn[d.dst as usize] += inst.chunks(i);
    }
    let ticks = (0..n)
        .map(|v| {
            let d = match inst.model {
                Model::Strict1 => out[v] + inn[v],
                Model::Read1Write1 => out[v].max(inn[v]),
            };
            d.div_ceil(inst.port(v) as u64)
        })
        .max()
        .unwrap_or(0);
    Some((ticks, reason))
}

/// Standard file name: `<family>_<param><value>..._m<mult>_s<seed>.json`.
pub fn multiport_file_name(family: &MultiportFamily, mult: u64, seed: u64) -> String {
    let short = |k: &str| {
        match k {
            "gpus_per_node" => "g",
            "nodes" => "nodes",
            other => other,
        }
        .to_string()
    };
    let params: String = family
        .params()
        .iter()
        .filter(|(k, _)| !matches!(*k, "zipf" | "tokens" | "topk" | "sigma" | "hot_factor"))
        .map(|(k, v)| format!("_{}{v}", short(k)))
        .collect();
    format!("{}{params}_m{mult}_s{seed}.json", family.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_tier_uses_the_fast_bandwidth_inside_nodes_only() {
        let f = MultiportFamily::TwoTier {
            nodes: 2,
            gpus_per_node: 4,
            nics: 2,
            fast: 8,
        };
        let inst = generate_multiport(&f, Model::Read1Write1, 16, 100, 0).unwrap();
        // Each GPU: 3 intra-node peers (2 chunks each: 1600 bits at 800) and
        // 1 rail peer (16 chunks).
        let g0: Vec<(u32, u64)> = inst
            .demands()
            .iter()
            .enumerate()
            .filter(|(_, d)| d.src == 0)
            .map(|(i, d)| (d.dst, inst.chunks(i)))
            .collect();
        assert_eq!(g0, vec![(1, 2), (2, 2), (3, 2), (4, 16)]);
        assert_eq!(
            known_multiport_optimum(&inst),
            Some((11, known_multiport_optimum(&inst).unwrap().1))
        );
    }

    #[test]
    fn moe_two_tier_is_a_skewed_all_to_all_with_fast_links_inside_nodes() {
        let f = MultiportFamily::MoeTwoTier {
            nodes: 4,
            gpus_per_node: 4,
            nics: 2,
            fast: 8,
            sigma: 1.0,
            hot: 2,
            hot_factor: 8,
        };
        let inst = generate_multiport(&f, Model::Strict1, 4, 1000, 7).unwrap();
        assert_eq!(inst.demands().len(), 16 * 15);
        for (i, d) in inst.demands().iter().enumerate() {
            let intra = d.src / 4 == d.dst / 4;
            assert_eq!(inst.demand_bw(i), if intra { 8000 } else { 1000 });
        }
        // Deterministic for a seed, different for another.
        let again = generate_multiport(&f, Model::Strict1, 4, 1000, 7).unwrap();
        assert_eq!(inst.demands(), again.demands());
        let other = generate_multiport(&f, Model::Strict1, 4, 1000, 8).unwrap();
        assert_ne!(inst.demands(), other.demands());
        // Even ports: the optimum is known for both models.
        assert!(known_multiport_optimum(&inst).is_some());
    }

    #[test]
    fn bad_parameters_are_refused() {
        let f = MultiportFamily::Rails { n: 4, rails: 0 };
        assert!(generate_multiport(&f, Model::Strict1, 1, 8, 0)
            .unwrap_err()
            .to_string()
            .contains("rails must be >= 1"));
    }
}
