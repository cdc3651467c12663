//! Copies of a routine's data at every 8-byte offset modulo a cache line, used in turn
//! ([`Placed`]).
//!
//! A step of a few tens of ns costs up to 15 % more at one offset of its integrator within a
//! 64-byte cache line than at another (Z&S on the double pendulum: 62 or 72 ns), and where the
//! allocator or the stack puts one copy depends on everything the process did before. A ratio of
//! two routines each timed at one placement then measures their placements as much as their
//! work; timed over every placement, each figure is the mean over them.

/// One copy, padded by `P` words so the copies of a [`Rotation`] sit at different offsets
/// within a cache line.
#[derive(Clone)]
struct Slot<X, const P: usize> {
    x: X,
    _pad: [u64; P],
}

/// The copies in a `Vec` whose stride (the slot's size) is an odd multiple of the slot's
/// alignment unit `u` (8 or 16 bytes): they fall on every `u`-byte offset modulo 64 once,
/// wherever the `Vec` starts.
struct Rotation<X, const P: usize> {
    slots: Vec<Slot<X, P>>,
}

impl<X: Clone, const P: usize> Rotation<X, P> {
    /// The rotation when `P` padding words make the stride an odd multiple of the unit.
    fn fits(x0: &X) -> Option<Self> {
        let size = core::mem::size_of::<Slot<X, P>>();
        let unit = core::mem::align_of::<Slot<X, P>>().max(8);
        if unit > 64 || (size / unit).is_multiple_of(2) {
            return None;
        }
        let slot = Slot {
            x: x0.clone(),
            _pad: [0; P],
        };
        Some(Self {
            slots: vec![slot; 64 / unit],
        })
    }
}

/// Either rotation: one padding word or none makes the stride odd.
enum Copies<X> {
    P0(Rotation<X, 0>),
    P1(Rotation<X, 1>),
}

impl<X: Clone> Copies<X> {
    fn new(x0: &X) -> Self {
        match Rotation::fits(x0) {
            Some(r) => Self::P0(r),
            None => Self::P1(Rotation::fits(x0).expect("one padding word makes the stride odd")),
        }
    }

    fn len(&self) -> usize {
        match self {
            Self::P0(r) => r.slots.len(),
            Self::P1(r) => r.slots.len(),
        }
    }

    #[inline(always)]
    fn get(&mut self, k: usize) -> &mut X {
        match self {
            Self::P0(r) => &mut r.slots[k].x,
            Self::P1(r) => &mut r.slots[k].x,
        }
    }
}

/// A routine `tick(&mut x, k)` (`k` counts the calls) on copies of `x0` at every placement in a
/// cache line: after every `reset` calls the next copy is set back to `x0` and used, so a timed
/// batch of calls is the mean over placements once it spans `reset × placements` calls.
///
/// ```
/// use host_tests::timing::Placed;
/// let mut p = Placed::new(0u64, 4, |x: &mut u64, _| *x += 1);
/// for _ in 0..6 {
///     p.call();
/// }
/// assert_eq!(p.placements(), 8);
/// ```
pub struct Placed<X, F> {
    copies: Copies<X>,
    x0: X,
    tick: F,
    reset: usize,
    left: usize,
    at: usize,
    calls: usize,
}

impl<X: Clone, F: FnMut(&mut X, usize)> Placed<X, F> {
    /// `tick` on copies of `x0`, each set back to `x0` and used for `reset` calls in turn.
    ///
    /// # Panics
    /// When `reset` is zero or `X` is aligned to more than 64 bytes.
    pub fn new(x0: X, reset: usize, tick: F) -> Self {
        assert!(reset > 0, "reset every zero calls");
        Self {
            copies: Copies::new(&x0),
            x0,
            tick,
            reset,
            left: 0,
            at: 0,
            calls: 0,
        }
    }

    /// How many placements the copies take in turn (`64 / unit`, `unit` = 8 or 16 bytes).
    pub fn placements(&self) -> usize {
        self.copies.len()
    }

    /// One call of the routine on the current copy.
    #[inline(always)]
    pub fn call(&mut self) {
        if self.left == 0 {
            self.at = if self.at + 1 == self.copies.len() {
                0
            } else {
                self.at + 1
            };
            *self.copies.get(self.at) = self.x0.clone();
            self.left = self.reset;
        }
        self.left -= 1;
        (self.tick)(self.copies.get(self.at), self.calls);
        self.calls += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every copy sits at its own 8-byte offset modulo 64, and each serves `reset` calls in
    /// turn starting from `x0`.
    #[test]
    fn copies_cover_every_offset_and_take_turns() {
        let mut seen = Vec::new();
        let mut p = Placed::new([0u64; 3], 2, |x: &mut [u64; 3], k| {
            seen.push((x.as_ptr() as usize % 64, x[0], k));
            x[0] += 1;
        });
        assert_eq!(p.placements(), 8);
        for _ in 0..16 {
            p.call();
        }
        drop(p);
        let mut offsets: Vec<usize> = seen.iter().step_by(2).map(|s| s.0).collect();
        assert_eq!(seen.len(), 16);
        // Two calls per copy: the first from x0, the second after one tick.
        for pair in seen.chunks(2) {
            assert_eq!((pair[0].1, pair[1].1), (0, 1), "{pair:?}");
            assert_eq!(pair[0].0, pair[1].0);
        }
        offsets.sort_unstable();
        assert_eq!(offsets, (0..64).step_by(8).collect::<Vec<_>>());
    }

    /// A 16-byte-aligned value (`u128` on x86-64) takes the 4 offsets a 16-byte unit allows.
    #[test]
    fn a_wider_alignment_takes_fewer_placements() {
        let p = Placed::new(0u128, 1, |_: &mut u128, _| {});
        assert_eq!(p.placements(), 64 / core::mem::align_of::<u128>().max(8));
    }
}
