//! Fourth-order SIM by triple-jump composition, 004 Remark 4.2.4.

use super::{Conservative, FastFlow, FastParams, Force, StiffLinear};
use crate::guard::{NoProbe, Watch};
use crate::model::{Mass, Potential};
use crate::validate::check_step_input;
use crate::{validate::check_step, ConfigError, Integrator, Real, State, StepError};
use nalgebra::{Matrix2, SVector};

/// The composition constant `c₄ = 1/(2 − 2^{1/3})` of Remark 4.2.4 (Yoshida's triple jump).
pub const SIM4_C: f64 = 1.351_207_191_959_657_8;

/// Fourth-order impulse method (004 Remark 4.2.4), with `c₄ = 1/(2 − 2^{1/3})`:
///
/// ```text
/// φˢ(c₄H/2) ∘ φᶠ(c₄H) ∘ φˢ((1−c₄)H/2) ∘ φᶠ((1−2c₄)H) ∘ φˢ((1−c₄)H/2) ∘ φᶠ(c₄H) ∘ φˢ(c₄H/2)
/// ```
///
/// Fourth order, symplectic and symmetric when `c = 0`. Friction is allowed (the damped fast
/// flow over the negative sub-step `(1 − 2c₄)H < 0` is well defined), **noise is not**: an
/// Ornstein–Uhlenbeck increment over a negative time has no meaning, and every composition of
/// order > 2 needs a negative sub-step of each flow (Sheng–Suzuki). A noisy fast part is
/// rejected at construction ([`ConfigError::Inconsistent`] `"fourth-order SIM needs σ = 0"`).
///
/// # Errors
/// As [`super::Sim1`], plus the noise rule above.
///
/// ```
/// use macrostep::{sim::{FastParams, Sim4}, model::{Mass, Quadratic}, Integrator, State};
/// use nalgebra::{matrix, vector};
/// let fast = FastParams::hamiltonian(matrix![1.0e4_f64]);
/// let mut sim = Sim4::new(Mass::identity(), fast, Quadratic::new(matrix![1.0]), 1e-2).unwrap();
/// let mut s = State::at_rest(vector![1.0]);
/// sim.integrate(&mut s, 10).unwrap();
/// assert!((s.q[0] - (0.1 * 10001f64.sqrt()).cos()).abs() < 1e-6);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Sim4<T: Real, F, const N: usize> {
    lin: StiffLinear<T, N>,
    outer: FastFlow<T, N>,
    inner: FastFlow<T, N>,
    force: F,
    h: T,
    c: T,
    half: T,
    watch: Watch<T, N>,
}

impl<T: Real, P: Potential<T, N>, const N: usize> Sim4<T, Conservative<P>, N> {
    /// Sim4 for the slow force `−∇V` of `potential` (see [`Sim4::with_force`] for any force).
    ///
    /// # Errors
    /// See the type docs.
    pub fn new(
        mass: Mass<T, N>,
        fast: FastParams<T, N>,
        potential: P,
        h: T,
    ) -> Result<Self, ConfigError> {
        Self::with_force(mass, fast, Conservative(potential), h)
    }
}

impl<T: Real, F: Force<T, N>, const N: usize> Sim4<T, F, N> {
    /// SIM4 with mass `M`, fast part `fast` (noise-free), slow force `force` and step `H`.
    ///
    /// # Errors
    /// See the type docs.
    pub fn with_force(
        mass: Mass<T, N>,
        fast: FastParams<T, N>,
        force: F,
        h: T,
    ) -> Result<Self, ConfigError> {
        let h = check_step(h)?;
        let lin = StiffLinear::new(mass, &fast)?;
        if lin.is_noisy() {
            return Err(ConfigError::Inconsistent {
                name: "fourth-order SIM needs σ = 0",
            });
        }
        let c = T::lit(SIM4_C);
        let outer = FastFlow::new(&lin, c * h)?;
        let inner = FastFlow::new(&lin, (T::one() - c - c) * h)?;
        Ok(Self {
            watch: Watch::default(),
            lin,
            outer,
            inner,
            force,
            h,
            c,
            half: T::lit(0.5),
        })
    }

    /// The validated fast system.
    pub fn stiff(&self) -> &StiffLinear<T, N> {
        &self.lin
    }

    fn kick(&self, q: &SVector<T, N>, v: &SVector<T, N>, w: T) -> SVector<T, N> {
        v + self.lin.mass().solve(&self.force.force(q)) * w
    }

    fn advance(
        &self,
        s: &State<T, N>,
        h: T,
        outer: &[Matrix2<T>; N],
        inner: &[Matrix2<T>; N],
    ) -> State<T, N> {
        let half = self.half;
        let c = self.c;
        let w_end = c * h * half;
        let w_mid = (T::one() - c) * h * half;
        let v = self.kick(&s.q, &s.v, w_end);
        let (q, v) = self.lin.apply_maps(outer, &s.q, &v, None);
        let v = self.kick(&q, &v, w_mid);
        let (q, v) = self.lin.apply_maps(inner, &q, &v, None);
        let v = self.kick(&q, &v, w_mid);
        let (q, v) = self.lin.apply_maps(outer, &q, &v, None);
        let v = self.kick(&q, &v, w_end);
        State { t: s.t + h, q, v }
    }
}

impl<T: Real, F: Force<T, N>, const N: usize> crate::Stepper<T> for Sim4<T, F, N> {
    fn step_size(&self) -> T {
        self.h
    }
}

impl<T: Real, F: Force<T, N>, const N: usize> Integrator<T, N> for Sim4<T, F, N> {
    const ORDER: u32 = 4;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = true;

    fn watch(&self) -> Option<&Watch<T, N>> {
        Some(&self.watch)
    }

    fn watch_mut(&mut self) -> Option<&mut Watch<T, N>> {
        Some(&mut self.watch)
    }

    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        check_step_input(state, h)?;
        let next = if h == self.h {
            self.advance(state, h, self.outer.maps(), self.inner.maps())
        } else {
            let c = self.c;
            let outer = self.lin.mode_maps(c * h);
            let inner = self.lin.mode_maps((T::one() - c - c) * h);
            self.advance(state, h, &outer, &inner)
        };
        self.watch.commit(state, &next, h, &NoProbe)
    }
}

/// The held force `u` of an [`Actuated`](crate::forcing::Actuated) slow potential, a zero-order
/// hold entering the slow kicks (the stiff linear flow is unchanged): `Sim4::new(mass,
/// fast, Actuated::new(slow), h)`.
impl<T: Real, P: Potential<T, N>, const N: usize> crate::forcing::Actuate<T, N>
    for Sim4<T, Conservative<crate::forcing::Actuated<T, P, N>>, N>
{
    fn force(&self) -> &SVector<T, N> {
        self.force.0.force()
    }

    fn set_force(&mut self, u: &SVector<T, N>) -> Result<(), StepError> {
        crate::forcing::set_held(&mut self.force.0, &mut self.watch, u)?;
        Ok(())
    }
}
