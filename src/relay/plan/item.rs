//! One demand, or a piece of one, in a node pair's sequence: what the
//! placement (`super::hops`) walks and the rail alignment
//! (`super::align`) reorders.

/// One demand of a pair's sequence: its index, ends (and their indices
/// in their nodes) and chunk count.
#[derive(Clone, Copy, Default)]
pub(crate) struct Item {
    pub(crate) demand: u32,
    pub(crate) src: u32,
    pub(crate) dst: u32,
    pub(crate) src_local: u32,
    pub(crate) dst_local: u32,
    /// The demand's chunk this item starts at (a demand may be cut into
    /// pieces on several rails, `super::align`), and how many it has.
    pub(crate) first: u64,
    pub(crate) chunks: u64,
}
