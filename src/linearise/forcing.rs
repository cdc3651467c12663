//! The wrappers a control loop steps through: the split damping [`Damped`] (Strang splitting with
//! the exact flow of `M v̇ = −C v`). The held force needs no wrapper: it is the
//! [`Actuated`](crate::forcing::Actuated) potential every method's linearisation already
//! differentiates (`B`).

use super::kernel::{check_input, finite};
use super::{Linearise, StepJacobian};
use crate::driver::Method;
use crate::forcing::Damped;
use crate::{Real, State, StepError};

/// `Φ = D ∘ Φ_inner ∘ D` with the linear half kick `D(q, v) = (q, E v)`,
/// `E = exp(−½h M⁻¹C)` ([`Damped::flow`]), so
///
/// ```text
/// A = diag(I, E) · A_inner(q, E v) · diag(I, E),     B = diag(I, E) · B_inner.
/// ```
///
/// Cost: the inner linearisation, one `N × N` flow ([`Damped::flow`]) and four `N × N` products.
impl<T: Real, I, const N: usize> Linearise<T, N> for Damped<T, I, N>
where
    I: Linearise<T, N> + Method<T, N>,
{
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError> {
        check_input(state, h)?;
        let e = self.flow(h * T::lit(0.5));
        let mut s = *state;
        s.v = e * state.v;
        if !s.is_finite() {
            return Err(StepError::NonFiniteResult);
        }
        let j = self.inner().linearise_by(&s, h)?;
        finite(StepJacobian {
            qq: j.qq,
            qv: j.qv * e,
            vq: e * j.vq,
            vv: e * j.vv * e,
            bq: j.bq,
            bv: e * j.bv,
        })
    }
}
