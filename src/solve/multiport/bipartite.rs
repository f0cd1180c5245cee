//! STRICT1 on a bipartite support: König, with any ports.
//!
//! When the slots split into two sides with every demand between them, a
//! STRICT1 edge `{a,b}` (both directions together) can be read as the arc
//! from `a`'s side to `b`'s: each slot only sends or only receives, so the
//! STRICT1 and READ1_WRITE1 degrees agree and König's theorem gives
//! `max_v ceil(d(v)/ports(v))` ticks, the port-degree bound — odd ports
//! included, where the general STRICT1 problem is NP-hard. The arcs go to
//! [`super::port_split::koenig_over_ports`] (grouped König or the port
//! split) and back to demands through the pool mapper (an edge's pool is
//! its `a->b` demand, then its `b->a`).
//!
//! The multi-port solver uses it for odd ports (instead of the split and
//! the f-colouring MIP). Elsewhere the greedy already meets Delta on
//! bipartite supports, often with far fewer rounds: König's peeling ends a
//! round whenever any pair runs out, so a support made of many equal
//! components (resharding between data-parallel replicas) gets as many
//! rounds as pairs. Heavy one-port traffic keeps the binary split for that
//! reason (a 70B checkpoint from 32,768 to 16,384 GPUs: 22 GiB of compact
//! König schedule against 1.0024 x the bound by the split).

use super::port_split::{koenig_over_ports, ArcCount, PoolMapper};
use crate::graph::{Adjacency, DemandGraph};
use crate::instance::Instance;
use crate::schedule::Schedule;

/// The side (`false`/`true`) of every slot when the support of `g`'s
/// STRICT1 edges is bipartite (isolated slots on side `false`); `None`
/// when some cycle is odd. O(slots + edges).
pub fn sides(slots: usize, g: &DemandGraph) -> Option<Vec<bool>> {
    let nbr: Adjacency<u32> = Adjacency::from_entries(
        slots,
        (g.undirected().iter()).flat_map(|e| [(e.a, e.b), (e.b, e.a)]),
    );
    let mut side: Vec<Option<bool>> = vec![None; slots];
    let mut stack = Vec::new();
    for root in 0..slots {
        if side[root].is_some() {
            continue;
        }
        side[root] = Some(false);
        stack.push(root);
        while let Some(v) = stack.pop() {
            let s = side[v].expect("stacked slots have a side");
            for &w in nbr.row(v) {
                match side[w as usize] {
                    None => {
                        side[w as usize] = Some(!s);
                        stack.push(w as usize);
                    }
                    Some(t) if t == s => return None,
                    Some(_) => {}
                }
            }
        }
    }
    Some(side.into_iter().map(|s| s.unwrap_or(false)).collect())
}

/// The optimal STRICT1 schedule of `inst` when its support is bipartite
/// (module docs): `max_v ceil(d(v)/ports(v))` ticks. `None` when it is not
/// bipartite (or not STRICT1).
pub fn strict1_bipartite(inst: &Instance, g: &DemandGraph) -> Option<Schedule> {
    if inst.model != crate::instance::Model::Strict1 {
        return None;
    }
    let side = sides(inst.slots as usize, g)?;
    let arcs: Vec<ArcCount> = g
        .undirected()
        .iter()
        .enumerate()
        .map(|(ei, e)| {
            let (src, dst) = if side[e.a as usize] {
                (e.b, e.a)
            } else {
                (e.a, e.b)
            };
            ArcCount {
                src,
                dst,
                count: e.mult,
                pool: ei as u32,
            }
        })
        .collect();
    let port = |v: usize| inst.port(v);
    let rounds = koenig_over_ports(inst.slots as usize, &arcs, &port);
    let pools = g.undirected().iter().map(|e| &e.demands[..]);
    Some(PoolMapper::new(pools).map(&rounds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits, Model, Ports};
    use crate::validate::validate_compact;

    fn inst(slots: u32, ports: u32, d: &[(u32, u32, u64)]) -> Instance {
        Instance::new_multiport(
            Model::Strict1,
            slots,
            1,
            d.iter()
                .map(|&(src, dst, bits)| (Demand { src, dst, bits }, None)),
            Ports::Uniform(ports),
            &Limits::default(),
        )
        .unwrap()
    }

    #[test]
    fn odd_cycles_are_not_bipartite() {
        let t = inst(3, 1, &[(0, 1, 1), (1, 2, 1), (2, 0, 1)]);
        assert!(strict1_bipartite(&t, &DemandGraph::new(&t)).is_none());
    }

    #[test]
    fn both_directions_and_odd_ports_meet_the_port_degree() {
        // K_{3,3} with traffic both ways on some edges, 3 ports: slot 0
        // has 3*5 + 2 = 17 chunks -> ceil(17/3) = 6 ticks.
        let mut d = Vec::new();
        for a in 0..3 {
            for b in 3..6 {
                d.push((a, b, 5));
            }
        }
        d.push((3, 0, 2));
        d.sort();
        for ports in [1, 2, 3] {
            let t = inst(6, ports, &d);
            let g = DemandGraph::new(&t);
            let s = strict1_bipartite(&t, &g).unwrap();
            let r = validate_compact(&t, &s);
            assert!(r.passed(), "{}", r.one_line());
            let max_d = (0..6).map(|v| g.degree(v)).max().unwrap();
            assert_eq!(s.ticks(), max_d.div_ceil(ports as u64), "ports {ports}");
        }
    }
}
