//! Equal components of the support (DESIGN.md §13, "Structure at scale";
//! issue 39): the connected components of the demand graph, grouped into
//! classes of components that are equal up to a relabelling of their slots
//! (the same demands with the same chunk counts), each member with the
//! explicit map of the class's demands onto its own.
//!
//! Data-parallel replicas and identical nodes make the largest instances
//! unions of a few such classes; solving one component per class and
//! sharing its rounds keeps the work (and the rounds) at the class's size.
//!
//! **Canonical invariant.** Colour refinement (one-dimensional
//! Weisfeiler-Lehman) of the directed multigraph with chunk counts: a
//! slot's colour starts as its (out-degree, in-degree) in chunks and is
//! refined by the multisets of (neighbour colour, chunks) it sends to and
//! receives from, until the partition stops growing. Isomorphic components
//! end with the same sorted colours, so components are compared only
//! within one sorted-colour key. Colours are 64-bit hashes (a fixed mixer,
//! the same on every run): a collision can only hide an isomorphism, never
//! make one, because every merge is confirmed below.
//!
//! **Explicit bijection.** A component joins a class only with a slot map
//! onto the class's first component that is checked demand by demand
//! (O(demands log degree)). Tried in order: the order-preserving map
//! (replicas numbered alike, as meshes and generators number them), then
//! the map read off the refined colours, individualising one slot of the
//! first tied colour and refining again where colours tie (the classic
//! individualisation-refinement search) within [`SEARCH_BUDGET`] tries.
//! A component whose map is not found within that budget starts a class of
//! its own: a missed merge costs time, never correctness.

use crate::instance::Instance;
use std::collections::HashMap;

/// Individualisations one pair of components may try before the
/// components are taken as different.
const SEARCH_BUDGET: u32 = 2048;
/// Classes of one invariant key a component is compared with before it
/// starts a class of its own.
const CANDIDATES_PER_KEY: usize = 8;
/// Most rounds of colour refinement (module docs).
const REFINE_ROUNDS: usize = 64;

/// A connected component of the support: slots joined by demands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Component {
    /// Its slots, ascending.
    pub slots: Vec<u32>,
    /// Its demands (indices into [`Instance::demands`]), ascending.
    pub demands: Vec<u32>,
}

/// Components equal up to relabelling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Class {
    /// Component indices, the class's first (its representative) first,
    /// ascending.
    pub members: Vec<usize>,
    /// Per member, its demand matching each demand of the representative:
    /// `maps[i][j]` is the demand of member `i` that the representative's
    /// `j`-th demand (in its ascending order) maps to. The first is the
    /// representative's own demands.
    pub maps: Vec<Vec<u32>>,
}

/// Whether the first demand's sender is a neighbour of every other slot
/// with a demand: then the support is one component, found in one pass
/// with no union-find (all-to-all matrices, where [`components`] would
/// cost a find per demand).
pub(crate) fn one_hub_reaches_all(inst: &Instance) -> bool {
    let Some(first) = inst.demands().first() else {
        return false;
    };
    let hub = first.src;
    let mut near = vec![false; inst.slots as usize];
    let mut used = vec![false; inst.slots as usize];
    near[hub as usize] = true;
    for d in inst.demands() {
        used[d.src as usize] = true;
        used[d.dst as usize] = true;
        if d.src == hub {
            near[d.dst as usize] = true;
        } else if d.dst == hub {
            near[d.src as usize] = true;
        }
    }
    used.iter().zip(&near).all(|(&u, &h)| !u || h)
}

/// The connected components of the support of `inst` (slots with no
/// demand are in none), ordered by their smallest slot. O(slots + demands).
pub(crate) fn components(inst: &Instance) -> Vec<Component> {
    let n = inst.slots as usize;
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(p: &mut [u32], mut x: u32) -> u32 {
        while p[x as usize] != x {
            p[x as usize] = p[p[x as usize] as usize];
            x = p[x as usize];
        }
        x
    }
    for d in inst.demands() {
        let (a, b) = (find(&mut parent, d.src), find(&mut parent, d.dst));
        if a != b {
            parent[a.max(b) as usize] = a.min(b);
        }
    }
    // Roots are the smallest slot of their component, so numbering the
    // components in slot order of their roots orders them by smallest slot.
    let mut used = vec![false; n];
    for d in inst.demands() {
        used[d.src as usize] = true;
        used[d.dst as usize] = true;
    }
    let mut index = vec![u32::MAX; n];
    let mut comps: Vec<Component> = Vec::new();
    for v in (0..n).filter(|&v| used[v]) {
        let root = find(&mut parent, v as u32) as usize;
        if index[root] == u32::MAX {
            index[root] = comps.len() as u32;
            comps.push(Component {
                slots: Vec::new(),
                demands: Vec::new(),
            });
        }
        comps[index[root] as usize].slots.push(v as u32);
    }
    for (i, d) in inst.demands().iter().enumerate() {
        let root = find(&mut parent, d.src) as usize;
        comps[index[root] as usize].demands.push(i as u32);
    }
    comps
}

/// The classes of equal components among `comps` (module docs), ordered by
/// their first member; every component is in exactly one.
///
/// Components are first keyed by their size and sorted (out, in) degrees;
/// within a key the order-preserving map is tried before any refinement,
/// so replicas numbered alike cost one pass over their demands.
pub(crate) fn classes(inst: &Instance, comps: &[Component]) -> Vec<Class> {
    let mut classes: Vec<Class> = Vec::new();
    // Per class: its representative's local graph and, once needed, its
    // refined colours.
    let mut reps: Vec<(Local, Option<Vec<u64>>)> = Vec::new();
    let mut by_key: HashMap<(usize, usize, u64), Vec<usize>> = HashMap::new();
    for (ci, comp) in comps.iter().enumerate() {
        let local = Local::new(inst, comp);
        let start = local.initial_colours();
        let key = (comp.slots.len(), comp.demands.len(), sorted_hash(&start));
        let candidates = by_key.entry(key).or_default();
        let candidates = &candidates[..candidates.len().min(CANDIDATES_PER_KEY)];
        let identity: Vec<u32> = (0..local.len() as u32).collect();
        let mut found = candidates
            .iter()
            .find(|&&k| local.maps_onto(&reps[k].0, &identity))
            .map(|&k| (k, identity));
        let mut refined = None;
        if found.is_none() && !candidates.is_empty() {
            let mut colours = start.clone();
            local.refine(&mut colours);
            found = candidates.iter().find_map(|&k| {
                let (rep, rep_colours) = &mut reps[k];
                let rep_colours = rep_colours.get_or_insert_with(|| {
                    let mut c = rep.initial_colours();
                    rep.refine(&mut c);
                    c
                });
                Some((k, bijection(rep, rep_colours, &local, &colours)?))
            });
            refined = Some(colours);
        }
        match found {
            Some((k, slot_map)) => {
                let rep = &comps[classes[k].members[0]];
                let demands = demand_map(inst, rep, comp, &slot_map);
                classes[k].members.push(ci);
                classes[k].maps.push(demands);
            }
            None => {
                by_key.entry(key).or_default().push(classes.len());
                classes.push(Class {
                    members: vec![ci],
                    maps: vec![comp.demands.clone()],
                });
                reps.push((local, refined));
            }
        }
    }
    classes
}

/// For each demand of `rep` (ascending), the demand of `comp` it maps to
/// under `slot_map` (`comp`'s local slot -> `rep`'s local slot, checked by
/// [`bijection`]).
fn demand_map(inst: &Instance, rep: &Component, comp: &Component, slot_map: &[u32]) -> Vec<u32> {
    let mut inverse = vec![0u32; slot_map.len()];
    for (c, &r) in slot_map.iter().enumerate() {
        inverse[r as usize] = c as u32;
    }
    let local = |slots: &[u32], v: u32| {
        slots
            .binary_search(&v)
            .expect("a demand's slots are in its component")
    };
    rep.demands
        .iter()
        .map(|&j| {
            let d = inst.demands()[j as usize];
            let src = comp.slots[inverse[local(&rep.slots, d.src)] as usize];
            let dst = comp.slots[inverse[local(&rep.slots, d.dst)] as usize];
            inst.demand_index(src, dst)
                .expect("the bijection was checked demand by demand") as u32
        })
        .collect()
}

/// A component with its slots renumbered `0..k` in ascending order: the
/// demands as out- and in-lists with their chunks, each list sorted by the
/// other end.
struct Local {
    out_start: Vec<u32>,
    out: Vec<(u32, u64)>,
    in_start: Vec<u32>,
    inn: Vec<(u32, u64)>,
}

impl Local {
    fn new(inst: &Instance, comp: &Component) -> Local {
        let k = comp.slots.len();
        let local = |v: u32| {
            comp.slots
                .binary_search(&v)
                .expect("a demand's slots are in its component") as u32
        };
        let edges: Vec<(u32, u32, u64)> = comp
            .demands
            .iter()
            .map(|&i| {
                let d = inst.demands()[i as usize];
                (local(d.src), local(d.dst), inst.chunks(i as usize))
            })
            .collect();
        // Demands ascend by (src, dst) and the renumbering keeps order, so
        // the out-lists come sorted; the in-lists by a counting sort that
        // keeps the source order.
        let mut out_start = vec![0u32; k + 1];
        let mut in_start = vec![0u32; k + 1];
        for &(a, b, _) in &edges {
            out_start[a as usize + 1] += 1;
            in_start[b as usize + 1] += 1;
        }
        for v in 0..k {
            out_start[v + 1] += out_start[v];
            in_start[v + 1] += in_start[v];
        }
        let mut fill = in_start.clone();
        let mut inn = vec![(0u32, 0u64); edges.len()];
        for &(a, b, m) in &edges {
            inn[fill[b as usize] as usize] = (a, m);
            fill[b as usize] += 1;
        }
        let out = edges.iter().map(|&(_, b, m)| (b, m)).collect();
        Local {
            out_start,
            out,
            in_start,
            inn,
        }
    }

    fn len(&self) -> usize {
        self.out_start.len() - 1
    }

    fn outs(&self, v: usize) -> &[(u32, u64)] {
        &self.out[self.out_start[v] as usize..self.out_start[v + 1] as usize]
    }

    fn ins(&self, v: usize) -> &[(u32, u64)] {
        &self.inn[self.in_start[v] as usize..self.in_start[v + 1] as usize]
    }

    /// Each slot's (chunks sent, chunks received), hashed.
    fn initial_colours(&self) -> Vec<u64> {
        (0..self.len())
            .map(|v| {
                let sent = self.outs(v).iter().map(|e| e.1).sum::<u64>();
                let got = self.ins(v).iter().map(|e| e.1).sum::<u64>();
                mix(mix(0x5eed, sent), got)
            })
            .collect()
    }

    /// Refines `colours` until the partition they induce stops growing, or
    /// for [`REFINE_ROUNDS`] rounds (a long path would otherwise take one
    /// round per slot). Depends only on the structure and the colours given
    /// (never on the numbering), so isomorphic inputs give equal sorted
    /// outputs.
    fn refine(&self, colours: &mut Vec<u64>) {
        let mut classes = distinct(colours);
        let mut scratch = Vec::new();
        for _ in 0..REFINE_ROUNDS {
            let next: Vec<u64> = (0..self.len())
                .map(|v| {
                    let mut h = mix(0x0ddba11, colours[v]);
                    for (list, tag) in [(self.outs(v), 1u64), (self.ins(v), 2)] {
                        scratch.clear();
                        scratch.extend(list.iter().map(|&(w, m)| mix(colours[w as usize], m)));
                        scratch.sort_unstable();
                        h = mix(h, tag);
                        for &x in &scratch {
                            h = mix(h, x);
                        }
                    }
                    h
                })
                .collect();
            let now = distinct(&next);
            *colours = next;
            if now == classes {
                return;
            }
            classes = now;
        }
    }

    /// Whether `map` (local slot of `self` -> local slot of `rep`) is a
    /// bijection that carries every demand of `self` onto a demand of
    /// `rep` with the same chunks. With equal demand counts (the caller's
    /// key), that makes the demands correspond one to one.
    fn maps_onto(&self, rep: &Local, map: &[u32]) -> bool {
        let mut hit = vec![false; rep.len()];
        for &r in map {
            if r as usize >= hit.len() || std::mem::replace(&mut hit[r as usize], true) {
                return false;
            }
        }
        (0..self.len()).all(|v| {
            let theirs = rep.outs(map[v] as usize);
            self.outs(v).iter().all(|&(w, m)| {
                let w = map[w as usize];
                theirs
                    .binary_search_by_key(&w, |e| e.0)
                    .is_ok_and(|at| theirs[at].1 == m)
            })
        })
    }
}

/// A slot map from `comp` onto `rep` (local numbering) read off their
/// refined colours, checked, or `None` (module docs).
fn bijection(rep: &Local, rep_colours: &[u64], comp: &Local, colours: &[u64]) -> Option<Vec<u32>> {
    if rep.len() != comp.len()
        || rep.out.len() != comp.out.len()
        || sorted(rep_colours) != sorted(colours)
    {
        return None;
    }
    let mut budget = SEARCH_BUDGET;
    search(
        rep,
        rep_colours.to_vec(),
        comp,
        colours.to_vec(),
        0,
        &mut budget,
    )
}

/// Individualisation-refinement: with equal sorted colours, maps the slots
/// colour by colour when every colour is one slot's; otherwise gives the
/// first slot of `rep` in the smallest tied colour a colour of its own,
/// and tries each slot of `comp` of that colour in turn.
fn search(
    rep: &Local,
    rc: Vec<u64>,
    comp: &Local,
    cc: Vec<u64>,
    depth: u64,
    budget: &mut u32,
) -> Option<Vec<u32>> {
    let s = sorted(&rc);
    let tied = s.windows(2).find(|w| w[0] == w[1]).map(|w| w[0]);
    let Some(colour) = tied else {
        let at: HashMap<u64, u32> = rc.iter().enumerate().map(|(v, &c)| (c, v as u32)).collect();
        let map: Vec<u32> = cc.iter().map(|c| at[c]).collect();
        return comp.maps_onto(rep, &map).then_some(map);
    };
    let mark = mix(colour, 0xa11ce + depth);
    let v = rc
        .iter()
        .position(|&c| c == colour)
        .expect("tied colour is present");
    let mut rc2 = rc;
    rc2[v] = mark;
    rep.refine(&mut rc2);
    let want = sorted(&rc2);
    for w in (0..comp.len()).filter(|&w| cc[w] == colour) {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let mut cc2 = cc.clone();
        cc2[w] = mark;
        comp.refine(&mut cc2);
        if sorted(&cc2) == want {
            if let Some(map) = search(rep, rc2.clone(), comp, cc2, depth + 1, budget) {
                return Some(map);
            }
        }
    }
    None
}

/// splitmix64's finaliser over `h ^ x`: a fixed 64-bit mixer (the same
/// colours on every run and machine).
fn mix(h: u64, x: u64) -> u64 {
    let mut z = (h ^ x.wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn sorted(colours: &[u64]) -> Vec<u64> {
    let mut s = colours.to_vec();
    s.sort_unstable();
    s
}

fn distinct(colours: &[u64]) -> usize {
    let mut s = sorted(colours);
    s.dedup();
    s.len()
}

fn sorted_hash(colours: &[u64]) -> u64 {
    sorted(colours).into_iter().fold(0x1234_5678, mix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits, Model};

    fn inst(n: u32, demands: &[(u32, u32, u64)]) -> Instance {
        let demands = demands
            .iter()
            .map(|&(src, dst, bits)| Demand { src, dst, bits });
        Instance::new(Model::Strict1, n, 1, demands, &Limits::default()).unwrap()
    }

    /// Checks that every class's maps carry the representative's demands
    /// onto its members' with equal chunks and one slot map per member.
    fn assert_maps_hold(inst: &Instance, comps: &[Component], classes: &[Class]) {
        let mut seen = vec![false; comps.len()];
        for class in classes {
            let rep = &comps[class.members[0]];
            for (&m, map) in class.members.iter().zip(&class.maps) {
                assert!(!std::mem::replace(&mut seen[m], true));
                let comp = &comps[m];
                let mut image = map.clone();
                image.sort_unstable();
                assert_eq!(image, comp.demands);
                let mut slot_of = HashMap::new();
                for (&j, &i) in rep.demands.iter().zip(map) {
                    let (dj, di) = (inst.demands()[j as usize], inst.demands()[i as usize]);
                    assert_eq!(inst.chunks(j as usize), inst.chunks(i as usize));
                    for (r, c) in [(dj.src, di.src), (dj.dst, di.dst)] {
                        assert_eq!(*slot_of.entry(r).or_insert(c), c, "one slot map");
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    /// Two relabelled copies of a small directed multigraph (one shuffled,
    /// so the order-preserving map fails), a copy with one chunk count
    /// changed, and an isolated pair: three classes, and the maps hold.
    #[test]
    fn relabelled_copies_form_one_class() {
        let base = [(0, 1, 3), (1, 2, 5), (2, 0, 3), (0, 3, 1), (3, 2, 2)];
        let shuffled = [4u32, 2, 0, 1]; // local slot -> offset in the copy
        let mut demands = Vec::new();
        for &(a, b, m) in &base {
            demands.push((a, b, m));
            demands.push((10 + shuffled[a as usize], 10 + shuffled[b as usize], m));
            let m2 = if (a, b) == (3, 2) { 7 } else { m };
            demands.push((20 + a, 20 + b, m2));
        }
        demands.push((30, 31, 4));
        let inst = inst(32, &demands);
        let comps = components(&inst);
        assert_eq!(comps.len(), 4);
        assert_eq!(comps[1].slots, vec![10, 11, 12, 14]);
        let classes = classes(&inst, &comps);
        assert_eq!(
            classes
                .iter()
                .map(|c| c.members.clone())
                .collect::<Vec<_>>(),
            vec![vec![0, 1], vec![2], vec![3]]
        );
        assert_maps_hold(&inst, &comps, &classes);
    }

    /// Symmetric components (directed cycles, complete bipartite graphs
    /// with one multiplicity) need individualisation: refinement alone
    /// leaves every slot one colour. Copies numbered in another order
    /// still join their class, and a cycle of other length does not.
    #[test]
    fn symmetric_components_are_matched_by_individualisation() {
        let mut demands = Vec::new();
        // Directed 6-cycles at 0 and at 10 (numbered backwards), a 3-cycle pair at 20.
        for i in 0..6u32 {
            demands.push((i, (i + 1) % 6, 2));
            demands.push((10 + (6 - i) % 6, 10 + (5 - i) % 6, 2));
        }
        for i in 0..3u32 {
            demands.push((20 + i, 20 + (i + 1) % 3, 2));
            demands.push((23 + i, 23 + (i + 1) % 3, 2));
        }
        // K_{3,3} from {30..33} to {33..36}, and interleaved at {40,42,44} -> {41,43,45}.
        for a in 0..3u32 {
            for b in 0..3u32 {
                demands.push((30 + a, 33 + b, 1));
                demands.push((40 + 2 * a, 41 + 2 * b, 1));
            }
        }
        let inst = inst(46, &demands);
        let comps = components(&inst);
        let classes = classes(&inst, &comps);
        let members: Vec<Vec<usize>> = classes.iter().map(|c| c.members.clone()).collect();
        assert_eq!(members, vec![vec![0, 1], vec![2, 3], vec![4, 5]]);
        assert_maps_hold(&inst, &comps, &classes);
    }
}
