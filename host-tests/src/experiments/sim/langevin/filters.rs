//! The per-path allowances for SIM's stiff biases on the two-spring system ([`KickFilter`],
//! [`AliasFilter`]) and GLA on four nested step sizes over one Brownian path ([`GlaLevels`]).

use macrostep::langevin::{Gla, GlaParams, Ou};
use macrostep::nalgebra::Vector2;
use macrostep::{State, StochasticIntegrator};

/// The impulse-kick allowance for the stiff coordinate `x` of the two-spring system.
///
/// `x` is a damped linear oscillator (`λ = ω²`, friction `γ`) driven by the soft force
/// `F(t) = (y − x)³` and the noise. Given the force samples `F_k = F(q_k)` of a SIM path, the
/// SIM's response to them is the impulse sum `r_n = Σ_k B₁₂((n−k)H)·w·F_k` (kick weight `w = H`,
/// or `B₁₂(H)` for the mollified kick; SIM1 flow-then-kick never kicks with `F₀`); the exact
/// oscillator's response to the same force, linearly interpolated between the samples, is the
/// convolution `u_n = ∫₀^{t_n} G(t_n − s) F̂(s) ds` (`G = B₁₂`), propagated exactly per step via
/// the particular solution of `u'' + γu' + λu = a + b s`. `x̃ = x + (u − r)` replaces the
/// impulse quadrature by the exact convolution: what remains of the SIM's bias is the soft
/// (smooth in `H`) one. The filter acts on the slow part of the force only, `F_slow = y³`
/// (`F` with the stiff coordinate at rest): the part linear in the fast `x`, `−3(y − x)²x`, is
/// the parametric frequency shift `3(y − x)²/(2ω)` of the stiff mode, which the kicked SIM map
/// reproduces at non-resonant `ωH` (its eigenphase moves by `H·3(y − x)²/(2ω)` per step) and
/// cannot reproduce at full-period `H` (`B₁₂(H) = 0`); it stays SIM's own.
#[derive(Clone, Copy, Debug)]
pub struct KickFilter {
    b: macrostep::nalgebra::Matrix2<f64>,
    lam: f64,
    gam: f64,
    h: f64,
    w: f64,
    r: Vector2<f64>,
    u: Vector2<f64>,
    f_prev: f64,
}

impl KickFilter {
    /// Stiff mode `λ`, `γ`; SIM step `h`; plain or mollified kick; `F₀ = F(q(0))`.
    pub fn new(lam: f64, gam: f64, h: f64, mollified: bool, f0: f64) -> Self {
        let b = macrostep::sim::mode_map(lam, gam, h);
        Self {
            b,
            lam,
            gam,
            h,
            w: if mollified { b[(0, 1)] } else { h },
            r: Vector2::zeros(),
            u: Vector2::zeros(),
            f_prev: f0,
        }
    }

    /// Advances both responses by one SIM step; `f_new` is the force at the new grid point.
    pub fn step(&mut self, f_new: f64) {
        self.r = self.b * self.r;
        self.r[1] += self.w * f_new;
        let slope = (f_new - self.f_prev) / self.h;
        let beta = slope / self.lam;
        let alpha = (self.f_prev - self.gam * beta) / self.lam;
        self.u = self.b * (self.u - Vector2::new(alpha, beta))
            + Vector2::new(alpha + beta * self.h, beta);
        self.f_prev = f_new;
    }

    /// `u − r`: the displacement of `x` the impulse kicks miss.
    pub fn correction(&self) -> f64 {
        self.u[0] - self.r[0]
    }
}

/// The slow part of the soft force on `x` (`−∂V_soft/∂x = (y − x)³`): the force with the stiff
/// coordinate at rest, `y³` (see [`KickFilter`]).
pub fn slow_force_x(s: &State<f64, 2>) -> f64 {
    s.q[1].powi(3)
}

/// The aliasing allowance for the soft coordinate `y` of the two-spring system.
///
/// The start `x(0) = 0.8/ω` excites a coherent stiff oscillation
/// `x_coh(t) = x(0)·B₁₁(t)` (`≈ x(0) e^{−ct/2} cos ωt`). The exact dynamics averages it out of
/// the force on `y`, `F_y = −(y − x)³`, to first order; SIM's kick samples it at the grid points,
/// at the same phase every step when `ωH ∈ 2πℤ` (a constant-sign force error
/// `δF_n = −3(y_n − x_n)²·x_coh(t_n)`), alternating at `ωH ∈ π + 2πℤ`. This propagates the
/// tangent-linear response `δy` of SIM's own `y` map to `−δF` along the path (flow
/// `B_y(H)` of the soft mode, then `δv += w·(−3(y − x)²)(δy + x_coh)`), so `ỹ = y + δy` is SIM with
/// the kick taken at `y − x + x_coh`. Zero when `x(0) = 0`.
#[derive(Clone, Copy, Debug)]
pub struct AliasFilter {
    b_y: macrostep::nalgebra::Matrix2<f64>,
    w: f64,
    lam: f64,
    gam: f64,
    x0: f64,
    h: f64,
    n: u32,
    d: Vector2<f64>,
}

impl AliasFilter {
    /// Stiff mode `λ` and friction `γ` (also the soft mode's), SIM step `h`, plain or mollified
    /// kick, stiff start `x(0)` (from rest).
    pub fn new(lam: f64, gam: f64, h: f64, mollified: bool, x0: f64) -> Self {
        let b_y = macrostep::sim::mode_map(0.0, gam, h);
        Self {
            b_y,
            w: if mollified { b_y[(0, 1)] } else { h },
            lam,
            gam,
            x0,
            h,
            n: 0,
            d: Vector2::zeros(),
        }
    }

    /// Advances by one SIM step; `s` is the state after it.
    pub fn step(&mut self, s: &State<f64, 2>) {
        self.n += 1;
        let t = f64::from(self.n) * self.h;
        let x_coh = self.x0 * macrostep::sim::mode_map(self.lam, self.gam, t)[(0, 0)];
        let k = -3.0 * (s.q[1] - s.q[0]).powi(2);
        self.d = self.b_y * self.d;
        self.d[1] += self.w * k * (self.d[0] + x_coh);
    }

    /// `δy`.
    pub fn correction(&self) -> f64 {
        self.d[0]
    }
}

/// The moments with the impulse-kick allowance on `x` and the aliasing allowance on `y`.
pub fn moments_kick(s: &State<f64, 2>, k: &KickFilter, a: &AliasFilter) -> [f64; 4] {
    let x = s.q[0] + k.correction();
    let y = s.q[1] + a.correction();
    [x, y, x * x, y * y]
}

/// GLA (004 eq 6.3) at `h`, `h/2`, `h/4`, `h/8` on one Brownian path: each step draws the
/// normals of eight `h/8` steps and aggregates the Ornstein–Uhlenbeck increments exactly to the
/// coarser levels (`η(2δ) = e^{−cδ}η₁(δ) + η₂(δ)`).
#[derive(Clone, Copy, Debug)]
pub struct GlaLevels<P> {
    g: [Gla<f64, P, 2>; 4],
    ou: [Ou<f64>; 4],
    /// The states at `h`, `h/2`, `h/4`, `h/8`.
    pub states: [State<f64, 2>; 4],
}

impl<P: macrostep::model::Potential<f64, 2> + Copy> GlaLevels<P> {
    /// The four levels of GLA with friction `c`, noise `σ` and coarse step `h`, from `s0`.
    pub fn new(
        system: macrostep::model::System<f64, P, 2>,
        c: f64,
        sigma: f64,
        h: f64,
        s0: State<f64, 2>,
    ) -> Self {
        let dts = [h, h / 2.0, h / 4.0, h / 8.0];
        Self {
            g: dts.map(|dt| {
                let params = GlaParams::from_noise(c, sigma).expect("gla");
                Gla::new(system, dt, params).expect("gla")
            }),
            ou: dts.map(|dt| Ou::new(c, sigma, dt).expect("ou")),
            states: [s0; 4],
        }
    }

    /// One coarse step `h` (eight fine steps).
    pub fn step<R: rand_core::Rng + ?Sized>(&mut self, rng: &mut R) {
        let [g1, g2, g4, g8] = &mut self.g;
        let [ou1, ou2, ou4, ou8] = &self.ou;
        let [s1, s2, s4, s8] = &mut self.states;
        let mut eta2 = [Vector2::zeros(); 2];
        for e2 in eta2.iter_mut() {
            let mut eta4 = [Vector2::zeros(); 2];
            for e4 in eta4.iter_mut() {
                let mut eta8 = [Vector2::zeros(); 2];
                for e8 in eta8.iter_mut() {
                    let xi: Vector2<f64> = macrostep::langevin::Normal::vector(rng);
                    g8.step_with_noise(s8, &xi).expect("gla h/8");
                    *e8 = xi * ou8.std_dev();
                }
                *e4 = eta8[0] * ou8.decay() + eta8[1];
                g4.step_with_noise(s4, &(*e4 / ou4.std_dev()))
                    .expect("gla h/4");
            }
            *e2 = eta4[0] * ou4.decay() + eta4[1];
            g2.step_with_noise(s2, &(*e2 / ou2.std_dev()))
                .expect("gla h/2");
        }
        let eta1 = eta2[0] * ou2.decay() + eta2[1];
        g1.step_with_noise(s1, &(eta1 / ou1.std_dev()))
            .expect("gla h");
    }
}
