//! Input limits that keep memory bounded.

/// Upper limits checked while reading input; exceeding one is an
/// [`InputError`](super::InputError), never a panic or an allocation failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest accepted slot count.
    pub max_slots: u32,
    /// Largest accepted number of demand rows (before merging).
    pub max_demands: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_slots: 1 << 20,
            max_demands: 20_000_000,
        }
    }
}
