//! Input limits that keep memory bounded, and how a refusal names them.
//! The CLI sets them with `--max-slots` and `--max-demands`.

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

impl Limits {
    /// The slot limit as a refusal names it, with the flag that raises it.
    pub(crate) fn slots_limit(&self) -> String {
        format!("the limit of {} slots (--max-slots)", self.max_slots)
    }

    /// The demand-row limit as a refusal names it, with the flag that raises it.
    pub(crate) fn demands_limit(&self) -> String {
        format!(
            "the limit of {} demand rows (--max-demands)",
            self.max_demands
        )
    }
}
