//! The case generator: valid values from a model's natural ranges, hostile values (NaN, ±∞,
//! zeros of both signs, subnormals, ±MAX, values that overflow when squared) mixed in.
//!
//! A case is *clean* (every value valid) with probability 0.4; otherwise each value is
//! replaced by a hostile one with probability 0.15, so most hostile cases have one or two bad
//! values and reach the code behind the first check.

use super::Bits;
use macrostep::nalgebra::{SMatrix, SVector};
use macrostep::State;
use rand::RngExt;
use rand_pcg::Pcg64;
use std::ops::Range;

/// Probability that a case is clean.
const CLEAN: f64 = 0.4;
/// Probability, in a hostile case, that one value is hostile.
const HOSTILE: f64 = 0.15;

/// Hostile values of a scalar type, beyond what [`Real::lit`] of an `f64` gives.
pub trait Special: Bits {
    /// NaN, ±∞, ±0, the smallest subnormal, the smallest normal, ±MAX, ε.
    fn specials() -> [Self; 10];
}

impl Special for f32 {
    fn specials() -> [Self; 10] {
        [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            f32::from_bits(1),
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            f32::EPSILON,
        ]
    }
}

impl Special for f64 {
    fn specials() -> [Self; 10] {
        [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            f64::from_bits(1),
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
        ]
    }
}

/// Draws the values of one case.
pub struct Gen<'a> {
    rng: &'a mut Pcg64,
    hostile: bool,
}

impl<'a> Gen<'a> {
    /// A generator for one case; decides whether the case is clean.
    pub fn new(rng: &'a mut Pcg64) -> Self {
        let hostile = !rng.random_bool(CLEAN);
        Self { rng, hostile }
    }

    /// Whether the case may hold hostile values.
    pub fn is_hostile(&self) -> bool {
        self.hostile
    }

    /// An independent RNG for a stochastic integrator's noise, seeded from this case.
    pub fn fork(&mut self) -> Pcg64 {
        use rand::SeedableRng;
        Pcg64::seed_from_u64(self.rng.random())
    }

    /// A uniform integer in `r`.
    pub fn rng_range(&mut self, r: Range<usize>) -> usize {
        self.rng.random_range(r)
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    /// Whether the next value is hostile.
    fn bad(&mut self) -> bool {
        self.hostile && self.rng.random_bool(HOSTILE)
    }

    /// A hostile value: one of the specials, or a finite value far outside any natural range
    /// (`±1e±300`, `±1e±30`, which overflow or underflow `f32` on conversion or when squared).
    pub fn hostile<T: Special>(&mut self) -> T {
        let sp = T::specials();
        let k = self.rng.random_range(0..sp.len() + 6);
        match sp.get(k) {
            Some(&x) => x,
            None => {
                let mag = [1e300, 1e-300, 1e30, 1e-30, 1e154, 1e-160][k - sp.len()];
                let sign = if self.rng.random_bool(0.5) { 1.0 } else { -1.0 };
                T::lit(sign * mag)
            }
        }
    }

    /// A value uniform in `[lo, hi)`, or a hostile one.
    pub fn uniform<T: Special>(&mut self, lo: f64, hi: f64) -> T {
        if self.bad() {
            self.hostile()
        } else {
            T::lit(self.rng.random_range(lo..hi))
        }
    }

    /// A value log-uniform in `[lo, hi)` (`0 < lo < hi`), or a hostile one (negative values
    /// included: the sign of a hostile value is random).
    pub fn positive<T: Special>(&mut self, lo: f64, hi: f64) -> T {
        if self.bad() {
            self.hostile()
        } else {
            let x = self.rng.random_range(lo.ln()..hi.ln());
            T::lit(x.exp())
        }
    }

    /// A vector of [`Gen::uniform`] components.
    pub fn vector<T: Special, const N: usize>(&mut self, lo: f64, hi: f64) -> SVector<T, N> {
        SVector::from_fn(|_, _| self.uniform(lo, hi))
    }

    /// A vector of [`Gen::positive`] components.
    pub fn positives<T: Special, const N: usize>(&mut self, lo: f64, hi: f64) -> SVector<T, N> {
        SVector::from_fn(|_, _| self.positive(lo, hi))
    }

    /// A matrix of [`Gen::uniform`] entries.
    pub fn matrix<T: Special, const R: usize, const C: usize>(
        &mut self,
        lo: f64,
        hi: f64,
    ) -> SMatrix<T, R, C> {
        SMatrix::from_fn(|_, _| self.uniform(lo, hi))
    }

    /// A start time: mostly small, sometimes large enough that `t + h` cannot advance, or
    /// hostile.
    pub fn time<T: Special>(&mut self) -> T {
        if self.bad() {
            return self.hostile();
        }
        match self.rng.random_range(0..8) {
            0 => T::lit(1e7),
            1 => T::lit(4_194_304.0),
            2 => T::lit(1e17),
            _ => T::lit(self.rng.random_range(0.0..10.0)),
        }
    }

    /// The step of one call: the configured `h` (three times in four), else a hostile signed
    /// step for `step_by` (zero, negative, a fraction, tiny, huge, NaN, …).
    pub fn step_size<T: Special>(&mut self, h: T) -> T {
        if !self.hostile || self.rng.random_bool(0.75) {
            return h;
        }
        match self.rng.random_range(0..6) {
            0 => -h,
            1 => h * T::lit(self.rng.random_range(-2.0..2.0)),
            2 => T::lit(1e-300),
            3 => T::lit(1e300),
            4 => T::lit(1e-100),
            _ => self.hostile(),
        }
    }

    /// `x` moved off by a relative `ε`-scale, `1e-6` or `O(1)` amount in each component
    /// (states off a constraint manifold), or with hostile components.
    pub fn perturb<T: Special, const N: usize>(&mut self, x: SVector<T, N>) -> SVector<T, N> {
        let size = match self.rng.random_range(0..4) {
            0 => return x.map(|c| if self.bad() { self.hostile() } else { c }),
            1 => 1e-13,
            2 => 1e-6,
            _ => 0.5,
        };
        x.map(|c| {
            if self.bad() {
                self.hostile()
            } else {
                c + T::lit(size * self.rng.random_range(-1.0..1.0))
            }
        })
    }

    /// A state at `q` with velocities in `[-v, v]`: exactly `q` or [`Gen::perturb`]ed, a
    /// random start time, hostile components in hostile cases.
    pub fn state<T: Special, const N: usize>(&mut self, q: SVector<T, N>, v: f64) -> State<T, N> {
        let q = if self.rng.random_bool(0.3) {
            q
        } else {
            self.perturb(q)
        };
        let v = self.vector(-v, v + f64::MIN_POSITIVE);
        State::new(self.time(), q, v)
    }
}
