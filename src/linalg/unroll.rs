//! Loops over the small const sizes written out on bare-metal targets: at opt-level "s" (the
//! firmware's) the compiler keeps even a two-trip loop as a loop (its counter, compare and branch
//! cost more than a 2×2 block's arithmetic), so the kernels of a step call [`each`] instead of
//! `for i in 0..n`. A host build unrolls such loops itself and schedules the loop form better,
//! so there [`each`] is the loop.

/// Calls `f(0)`, `f(1)`, …, `f(n − 1)` in order: on a bare-metal target (`target_os = "none"`)
/// written out for `n ≤ 4` (one copy of `f` per index, each index a constant), a plain loop otherwise. Same operations in the same order as the
/// loop, so results are bit-identical to it. On a Cortex-M4F it takes the Z&S double-pendulum
/// step from 2,568 to ≈ 1,650 instructions.
///
/// ```text
/// each(DIM, |c| d[c] -= p[c]);   // for c in 0..DIM { d[c] -= p[c] }, written out for DIM ≤ 4
/// ```
#[inline(always)]
pub(crate) fn each(n: usize, mut f: impl FnMut(usize)) {
    if cfg!(target_os = "none") && n <= 4 {
        if n > 0 {
            f(0);
        }
        if n > 1 {
            f(1);
        }
        if n > 2 {
            f(2);
        }
        if n > 3 {
            f(3);
        }
    } else {
        for i in 0..n {
            f(i);
        }
    }
}

/// [`each`]'s written-out schedule on any target (what a bare-metal build runs), for the tests.
#[cfg(test)]
fn written_out(n: usize, mut f: impl FnMut(usize)) {
    if n <= 4 {
        if n > 0 {
            f(0);
        }
        if n > 1 {
            f(1);
        }
        if n > 2 {
            f(2);
        }
        if n > 3 {
            f(3);
        }
    } else {
        for i in 0..n {
            f(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{each, written_out};

    /// Both schedules (the one this target uses and the written-out one) visit `0 … n − 1` once each, in order.
    #[test]
    fn visits_every_index_once_in_order() {
        type Schedule = fn(usize, &mut dyn FnMut(usize));
        let schedules: [Schedule; 2] = [|n, f| each(n, f), |n, f| written_out(n, f)];
        for schedule in schedules {
            for n in 0..9 {
                let mut seen = [usize::MAX; 9];
                let mut k = 0;
                schedule(n, &mut |i| {
                    seen[k] = i;
                    k += 1;
                });
                assert_eq!(k, n);
                for (j, &i) in seen.iter().take(n).enumerate() {
                    assert_eq!(i, j);
                }
            }
        }
    }
}
