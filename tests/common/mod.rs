//! Instances shared by the executor tests.
#![allow(dead_code)]

use tickopt::instance::{Demand, Instance, Limits, Model};

fn d(src: u32, dst: u32, bits: u64) -> Demand {
    Demand { src, dst, bits }
}

/// Deterministic pseudo-random demands (xorshift), `n` slots.
pub fn random(model: Model, n: u32, seed: u64, bw: u64) -> Instance {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut ds = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a != b && next() % 3 == 0 {
                ds.push(d(a, b, 1 + next() % (5 * bw)));
            }
        }
    }
    if ds.is_empty() {
        ds.push(d(0, 1, bw + 1));
    }
    Instance::new(model, n, bw, ds, &Limits::default()).unwrap()
}

/// Every ordered pair, `bits` each.
pub fn all_to_all(model: Model, n: u32, bits: u64, bw: u64) -> Instance {
    let ds = (0..n).flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| d(a, b, bits)));
    Instance::new(model, n, bw, ds, &Limits::default()).unwrap()
}

/// Slot i sends to i+1 (mod n).
pub fn ring(model: Model, n: u32, bits: u64, bw: u64) -> Instance {
    let ds = (0..n).map(|a| d(a, (a + 1) % n, bits));
    Instance::new(model, n, bw, ds, &Limits::default()).unwrap()
}

/// A handful of instances of both models, with ragged last chunks.
pub fn suite() -> Vec<(String, Instance)> {
    let mut v = Vec::new();
    for model in Model::ALL {
        v.push((format!("ring5 {model}"), ring(model, 5, 1000, 96)));
        v.push((format!("a2a4 {model}"), all_to_all(model, 4, 777, 64)));
        for seed in 1..=4 {
            v.push((format!("random{seed} {model}"), random(model, 6, seed, 40)));
        }
    }
    v
}
