//! Cache-line prefetches for the placement's scattered reads (the
//! segments' cursors, their demands, a demand's NVLink counts): a hint
//! that changes no result, only when the line arrives.

/// Asks the CPU to bring `x`'s cache line in, without waiting for it (a
/// load would hold the instructions after it until the line came).
#[inline(always)]
pub(super) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it reads nothing the program sees and
    // cannot fault, whatever the address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
