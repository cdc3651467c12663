//! Lagrange multipliers recovered from a penalty trajectory (000 Theorem 1.3, eq 1.8).

use crate::model::Constraint;
use crate::{ConfigError, Real};
use heapless::Deque;
use nalgebra::SVector;

/// Online recovery of the Lagrange multiplier from a penalty simulation (000 eq 1.8):
///
/// ```text
/// λ(t) ≈ −(1/T_w) ∫_{t}^{t+T_w} ω² g(q^ω(s)) ds   ≈   −(1/W) Σ_{k=1..W} Ω g(q_k)
/// ```
///
/// with `Ω = diag(ωᵢ²)` the penalty weights and the last `W` samples of `g(q)` taken every step of
/// a penalty run (Z&S, SyLiPN, Verlet …) of `V + ½ Σ ωᵢ² gᵢ²` (000 eq 1.7). The window width is
/// `T_w = W h`. The pointwise value `−Ω g(q)` oscillates at frequency `~ω` with an `O(1)`
/// amplitude and does not converge as `ω → ∞`; its window average does (two-scale convergence,
/// Theorem 1.3), which is the point of this type.
///
/// **Sign convention:** `λ` is the multiplier of `M q̈ = −∇V + g'(q)ᵀλ` — the convention of
/// [`Rattle`](super::Rattle) and [`Shake`](super::Shake) — since the penalty force
/// `−g'(q)ᵀ Ω g(q)` plays the part of `g'(q)ᵀλ`. Use the same `g` for the penalty and the
/// constrained run.
///
/// The window is a trailing one: [`MultiplierWindow::estimate`] averages the last `W` samples and
/// so estimates `λ` at the window's centre, `t − (W − 1)h/2` after pushing the sample at time
/// `t` ([`MultiplierWindow::centre_time`]). Storage is a fixed-capacity `heapless::Deque` of
/// `CAP` samples; the sum is kept incrementally and re-summed from the samples once per `W`
/// pushes, so roundoff does not accumulate (bounded cost: `O(D)` per push, `O(W D)` every `W`-th).
///
/// ```
/// use macrostep::constrained::MultiplierWindow;
/// use nalgebra::vector;
///
/// // ω = 10, window of 4 samples.
/// let mut w = MultiplierWindow::<f64, 1, 8>::new(vector![100.0], 4).unwrap();
/// for (k, g) in [0.01, 0.03, 0.01, 0.03].iter().enumerate() {
///     w.push(k as f64 * 0.1, vector![*g]);
/// }
/// assert!((w.estimate().unwrap()[0] + 2.0).abs() < 1e-12); // −ω²·mean(g)
/// assert!((w.centre_time().unwrap() - 0.15).abs() < 1e-12);
/// ```
#[derive(Clone, Debug)]
pub struct MultiplierWindow<T: Real, const D: usize, const CAP: usize> {
    omega2: SVector<T, D>,
    len: usize,
    samples: Deque<(T, SVector<T, D>), CAP>,
    sum: SVector<T, D>,
    since_resum: usize,
    inv_len: T,
}

impl<T: Real, const D: usize, const CAP: usize> MultiplierWindow<T, D, CAP> {
    /// A window of `len` samples (`1 ≤ len ≤ CAP`) for penalty weights `ωᵢ²`
    /// ([`Penalty::omega2`](crate::model::Penalty::omega2)).
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] for `"len"` (0 or above `CAP`) or `"omega2"` (`ωᵢ² ≤ 0`),
    /// [`ConfigError::NonFinite`] for `"omega2"`.
    pub fn new(omega2: SVector<T, D>, len: usize) -> Result<Self, ConfigError> {
        if len == 0 || len > CAP {
            return Err(ConfigError::OutOfRange {
                name: "len",
                bound: "in 1..=CAP",
            });
        }
        crate::validate::check_all_positive(omega2.as_slice(), "omega2")?;
        Ok(Self {
            omega2,
            len,
            samples: Deque::new(),
            sum: SVector::zeros(),
            since_resum: 0,
            inv_len: T::one() / nalgebra::convert::<f64, T>(len as f64),
        })
    }

    /// The window length `W` in samples.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no sample has been pushed since construction or [`MultiplierWindow::clear`].
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Whether `W` samples are held (the estimate is available).
    pub fn is_full(&self) -> bool {
        self.samples.len() >= self.len
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.samples.clear();
        self.sum = SVector::zeros();
        self.since_resum = 0;
    }

    /// Adds the sample `−Ω g` taken at time `t`, dropping the oldest when the window is full.
    /// Non-finite samples are ignored (the estimate is left as it was).
    pub fn push(&mut self, t: T, g: SVector<T, D>) {
        if !t.finite() || g.iter().any(|x| !x.finite()) {
            return;
        }
        let x = -self.omega2.component_mul(&g);
        while self.samples.len() >= self.len {
            if let Some((_, old)) = self.samples.pop_front() {
                self.sum -= old;
            }
        }
        if self.samples.push_back((t, x)).is_ok() {
            self.sum += x;
        }
        self.since_resum += 1;
        if self.since_resum >= self.len {
            self.sum = self
                .samples
                .iter()
                .fold(SVector::zeros(), |acc, (_, s)| acc + s);
            self.since_resum = 0;
        }
    }

    /// Evaluates `g(q)` and pushes it (see [`MultiplierWindow::push`]).
    pub fn push_state<G: Constraint<T, N, D>, const N: usize>(
        &mut self,
        constraint: &G,
        t: T,
        q: &SVector<T, N>,
    ) {
        self.push(t, constraint.value(q));
    }

    /// The window average `−⟨Ω g⟩` once `W` samples are held, `None` before.
    pub fn estimate(&self) -> Option<SVector<T, D>> {
        if !self.is_full() {
            return None;
        }
        Some(self.sum * self.inv_len)
    }

    /// The latest pointwise value `−Ω g(q)` (for comparison: it does not converge as `ω → ∞`).
    pub fn pointwise(&self) -> Option<SVector<T, D>> {
        self.samples.back().map(|(_, x)| *x)
    }

    /// The time the estimate refers to: the mean of the sample times in the window.
    pub fn centre_time(&self) -> Option<T> {
        match (self.samples.front(), self.samples.back()) {
            (Some((a, _)), Some((b, _))) if self.is_full() => {
                Some((*a + *b) / (T::one() + T::one()))
            }
            _ => None,
        }
    }
}
