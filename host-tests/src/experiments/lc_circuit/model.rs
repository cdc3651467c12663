//! The circuits of the experiment and the scheme's linear maps (the exact moments of the reduced
//! SDE (7.20) are in [`crate::reference::circuit`]).

use macrostep::circuit::{johnson_nyquist, Circuit, CircuitParams, NoisyCircuitVi};
use macrostep::langevin::Normal;
use macrostep::nalgebra::{Matrix2, Matrix4, Vector2, Vector4};
use macrostep::{State, StochasticIntegrator};

pub(super) use crate::reference::circuit::{exact_moments, linear_sde};
use rand_pcg::Pcg64;

/// The parameters of the 4-branch, 2-mesh circuit.
pub type Params = CircuitParams<f64, 4, 2>;
/// The stochastic integrator of that circuit.
pub type Vi = NoisyCircuitVi<f64, 4, 2>;

/// Gibbs temperature `k_BT` and the added resistances.
pub const KT: f64 = 0.5;
/// Resistance added on each inductor branch for the Gibbs study.
pub const R_GIBBS: f64 = 0.5;

/// The §7.1.6 circuit with the seed's noise `Σ_jj = 0.01`.
pub fn seed_params() -> Params {
    CircuitParams::lc_paper(10.0, 0.01)
}

/// The §7.1.6 circuit with resistors on the inductor branches and Johnson–Nyquist noise.
pub fn gibbs_params() -> Params {
    let mut p = seed_params();
    p.resistance = Vector4::new(R_GIBBS, R_GIBBS, 0.0, 0.0);
    p.noise = johnson_nyquist(&p.resistance, KT).expect("valid");
    p
}

pub(super) fn phase(s: &State<f64, 2>) -> Vector4<f64> {
    // 𝕃 = I in every circuit of this experiment: p̃ = ṽ.
    Vector4::new(s.q[0], s.q[1], s.v[0], s.v[1])
}

pub(super) fn state(x: &Vector4<f64>) -> State<f64, 2> {
    State::new(0.0, Vector2::new(x[0], x[1]), Vector2::new(x[2], x[3]))
}

/// The scheme's linear maps in `x = (q̃, p̃)`: `x' = Φ x + Γ ξ`, read off single steps.
pub fn scheme_maps(vi: &Vi) -> (Matrix4<f64>, Matrix4<f64>) {
    let (mut phi, mut gam) = (Matrix4::zeros(), Matrix4::zeros());
    for j in 0..4 {
        let mut v = *vi;
        let mut s = state(&Vector4::ith(j, 1.0));
        v.step_with_noise(&mut s, &Vector4::zeros()).expect("step");
        phi.set_column(j, &phase(&s));
        let mut s = state(&Vector4::zeros());
        v.step_with_noise(&mut s, &Vector4::ith(j, 1.0))
            .expect("step");
        gam.set_column(j, &phase(&s));
    }
    (phi, gam)
}

pub(super) fn noisy(p: &Params, h: f64) -> Vi {
    NoisyCircuitVi::new(Circuit::new(*p).expect("valid circuit"), h).expect("valid step")
}

/// Stationary covariance of `x' = Φx + Γξ` by doubling (`P = Σ Φᵏ ΓΓᵀ Φᵏᵀ`).
pub(super) fn stationary(phi: &Matrix4<f64>, gam: &Matrix4<f64>) -> Matrix4<f64> {
    let (mut a, mut cov) = (*phi, gam * gam.transpose());
    for _ in 0..60 {
        cov += a * cov * a.transpose();
        a = a * a;
    }
    cov
}

/// `⟨H⟩`, `⟨q₃²⟩`, `⟨q₄²⟩`, `⟨i₁²⟩` of a stationary covariance of `(q̃, p̃)` (𝕃 = I).
pub(super) fn gibbs_stats(cov: &Matrix4<f64>, s: &Matrix2<f64>) -> [f64; 4] {
    let pq = cov.fixed_view::<2, 2>(0, 0);
    let energy = 0.5 * ((s * pq).trace() + cov[(2, 2)] + cov[(3, 3)]);
    // q₃ = q̃₁ − q̃₂, q₄ = q̃₁, i₁ = ṽ₁ (rows of K₂).
    let q3 = pq[(0, 0)] - 2.0 * pq[(0, 1)] + pq[(1, 1)];
    [energy, q3, pq[(0, 0)], cov[(2, 2)]]
}

pub(super) trait RunRng {
    fn integrate_with_rng(&mut self, s: &mut State<f64, 2>, n: usize, rng: &mut Pcg64);
}

impl RunRng for Vi {
    fn integrate_with_rng(&mut self, s: &mut State<f64, 2>, n: usize, rng: &mut Pcg64) {
        for _ in 0..n {
            let xi = Normal::vector::<f64, _, 4>(rng);
            self.step_with_noise(s, &xi).expect("step");
        }
    }
}
