//! What several benches build the same way.

use tickopt::gen::{Family, GenSpec};

/// The MoE all-to-all of issue 15: 1024 slots, uniform experts, 8192 tokens
/// per rank (1,047,552 demands), as `tickopt gen moe --n 1024 --zipf 0
/// --tokens 8192` writes it.
pub fn moe_n1024_spec() -> GenSpec {
    GenSpec {
        family: Family::Moe {
            n: 1024,
            experts_per_rank: 1,
            tokens: 8192,
            topk: 2,
            zipf: 0.0,
            token_bits: 12000,
        },
        mult: 1,
        bw: 1024,
        seed: 0,
    }
}
