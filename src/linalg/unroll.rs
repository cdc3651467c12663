//! Loops over the small const sizes written out: at opt-level "s" the compiler keeps even a
//! two-trip loop as a loop (its counter, compare and branch cost more than a 2×2 block's
//! arithmetic), so the kernels of a step call [`each`] instead of `for i in 0..n`.

/// Calls `f(0)`, `f(1)`, …, `f(n − 1)` in order: written out (one inlined copy of `f` per index,
/// each index a constant) for `n ≤ 4`, a plain loop above. Same operations in the same order as
/// the loop, so results are bit-identical to it.
///
/// ```text
/// each(DIM, |c| d[c] -= p[c]);   // for c in 0..DIM { d[c] -= p[c] }, written out for DIM ≤ 4
/// ```
#[inline(always)]
pub(crate) fn each(n: usize, mut f: impl FnMut(usize)) {
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
    use super::each;

    #[test]
    fn visits_every_index_once_in_order() {
        for n in 0..9 {
            let mut seen = [usize::MAX; 9];
            let mut k = 0;
            each(n, |i| {
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
