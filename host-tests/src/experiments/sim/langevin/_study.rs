
use macrostep::langevin::{Gla, Ou, StochasticIntegrator};
use macrostep::models::TwoSpring;
use macrostep::nalgebra::Vector2;
use macrostep::sim::Increment;
use rand::SeedableRng;
use rand_pcg::Pcg32;

/// Running sums of a per-path quantity: mean and standard error.
#[derive(Clone, Copy, Debug, Default)]
pub struct Acc {
    n: f64,
    s: f64,
    s2: f64,
}

impl Acc {
    /// Adds one path's value.
    pub fn add(&mut self, x: f64) {
        self.n += 1.0;
        self.s += x;
        self.s2 += x * x;
    }
    /// Sample mean.
    pub fn mean(&self) -> f64 {
        self.s / self.n
    }
    /// Standard error of the mean.
    pub fn se(&self) -> f64 {
        let m = self.mean();
        ((self.s2 / self.n - m * m).max(0.0) / (self.n - 1.0)).sqrt()
    }
}

/// The four moments `x, y, x², y²` of a state.
fn moments(s: &State<f64, 2>) -> [f64; 4] {
    [s.q[0], s.q[1], s.q[0] * s.q[0], s.q[1] * s.q[1]]
}

/// Moment names.
pub const MOMENTS: [&str; 4] = ["E[x]", "E[y]", "E[x²]", "E[y²]"];

/// Setup of the `sim-langevin` study: the GLA grid `h = H_res/188 ≈ 0.1/ω` carries both SIM
/// steps, `H_res = 6π/ω` (three full stiff periods, `sin ωH = 0`, Fig. 4.2a) and
/// `H_nr = 100 h` (`ωH ≈ 10.03`, non-resonant).
#[derive(Clone, Copy, Debug)]
pub struct LangevinSetup {
    /// Trajectories.
    pub paths: usize,
    /// Number of GLA steps of size `h` (`T = steps·h`).
    pub steps: usize,
    /// Whether to start the stiff spring stretched as in Fig. 4.2 (`x(0) = 0.8/ω`,
    /// `y(0) = 1.1 + x(0)`); `false` is the control start `x(0) = 0`, `y(0) = 1.1` (same soft
    /// stretch, no coherent stiff oscillation).
    pub stiff_start: bool,
}

impl LangevinSetup {
    /// The start of the study.
    pub fn initial_state(&self) -> State<f64, 2> {
        let mut s = TwoSpring::<f64>::paper().initial_state();
        if !self.stiff_start {
            s.q[1] -= s.q[0];
            s.q[0] = 0.0;
        }
        s
    }
}

/// Per-output statistics of one SIM step size.
#[derive(Clone, Debug)]
pub struct SimStats {
    /// SIM step `H`.
    pub h: f64,
    /// Whether the SIM uses the mollified kick (eq 4.8).
    pub mollified: bool,
    /// Bias correction: `false` = halving `2X(H/2) − X(H)`; `true` = the resonant family
    /// `τ = H/3 = 2π/ω`: quadratic extrapolation `3X(τ) − 3X(2τ) + X(3τ)` from three full-period
    /// steps (all with `sin ωH = 0`), on one Brownian path.
    pub family: bool,
    /// GLA steps (size `h`) per output.
    pub every: usize,
    /// Output times.
    pub t: Vec<f64>,
    /// SIM at `H`: per output, per moment.
    pub raw: Vec<[Acc; 4]>,
    /// Bias-corrected SIM per path (see `family`; same Brownian path).
    pub corrected: Vec<[Acc; 4]>,
    /// GLA at `h`, Richardson reference `(4X(h/8) − X(h/4))/3` per path, at the same times.
    pub gla_h: Vec<[Acc; 4]>,
    /// The GLA reference.
    pub gla_ref: Vec<[Acc; 4]>,
    /// SIM at `H` with the stiff allowances — impulse kick ([`KickFilter`]) on `x`, aliasing
    /// ([`AliasFilter`]) on `y` — per output, per moment.
    pub raw_kick: Vec<[Acc; 4]>,
    /// As `corrected`, with the stiff allowances applied to every level before the soft-bias
    /// extrapolation (all allowances).
    pub corrected_kick: Vec<[Acc; 4]>,
    /// Per path at `H`: the allowance itself, `x̃ − x` and `x̃² − x²`.
    pub kick_bias: Vec<[Acc; 2]>,
    /// Per path at `H`: the aliasing allowance ([`AliasFilter`]), `ỹ − y` and `ỹ² − y²`.
    pub alias_bias: Vec<[Acc; 2]>,
    /// Per path at `H`: the slow force on `x`, `y³` (see [`KickFilter`]).
    pub force: Vec<Acc>,
    /// Per path: the coarser Richardson value `(4X(h/4) − X(h/2))/3` minus the reference
    /// `(4X(h/8) − X(h/4))/3` (a check that the reference is converged).
    pub gla_ref_check: Vec<[Acc; 4]>,
}

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
fn slow_force_x(s: &State<f64, 2>) -> f64 {
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
fn moments_kick(s: &State<f64, 2>, k: &KickFilter, a: &AliasFilter) -> [f64; 4] {
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
            g: dts.map(|dt| Gla::with_noise(system, c, sigma, dt).expect("gla")),
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
                    g8.step_with_normals(s8, &xi).expect("gla h/8");
                    *e8 = xi * ou8.std_dev();
                }
                *e4 = eta8[0] * ou8.decay() + eta8[1];
                g4.step_with_normals(s4, &(*e4 / ou4.std_dev()))
                    .expect("gla h/4");
            }
            *e2 = eta4[0] * ou4.decay() + eta4[1];
            g2.step_with_normals(s2, &(*e2 / ou2.std_dev()))
                .expect("gla h/2");
        }
        let eta1 = eta2[0] * ou2.decay() + eta2[1];
        g1.step_with_normals(s1, &(eta1 / ou1.std_dev()))
            .expect("gla h");
    }
}

/// The GLA grid step and the two SIM steps.
pub fn langevin_steps(omega: f64) -> (f64, f64, f64) {
    let h_res = 6.0 * std::f64::consts::PI / omega;
    let h = h_res / 188.0;
    (h, h_res, 100.0 * h)
}

/// Runs GLA at `h`, `h/2`, `h/4`, `h/8` on one Brownian path per trajectory ([`GlaLevels`]),
/// and SIM1 at `H` and `H/2` (its fast-flow increments aggregated exactly,
/// `R(H) = B(H/2)R₁ + R₂`; the resonant family at `τ`, `2τ`, `3τ`) for the resonant and
/// non-resonant `H`, each SIM level with its [`KickFilter`] and [`AliasFilter`] allowances.
pub fn langevin_study(setup: LangevinSetup) -> Vec<SimStats> {
    let model = TwoSpring::<f64>::paper();
    let omega = model.omega();
    let lp = model.langevin();
    let (c, sigma) = (lp.c, lp.sigma);
    let (h, h_res, h_nr) = langevin_steps(omega);
    let split = model.split();
    let fast = FastParams::langevin(split.stiff.k, c, sigma);
    // GLA integrates the full potential (stiff + soft).
    let system = model.system();
    let lam = omega * omega;
    let mut out: Vec<SimStats> = [
        (h_res, 940usize, false, false),
        (h_nr, 1000usize, false, false),
        (h_nr, 1000, true, false),
        (h_res, 1880, false, true),
    ]
    .iter()
    .map(|&(hh, every, mollified, family)| {
        let n_out = setup.steps / every;
        SimStats {
            h: hh,
            mollified,
            family,
            every,
            t: (1..=n_out).map(|k| (k * every) as f64 * h).collect(),
            raw: vec![[Acc::default(); 4]; n_out],
            corrected: vec![[Acc::default(); 4]; n_out],
            gla_h: vec![[Acc::default(); 4]; n_out],
            gla_ref: vec![[Acc::default(); 4]; n_out],
            raw_kick: vec![[Acc::default(); 4]; n_out],
            corrected_kick: vec![[Acc::default(); 4]; n_out],
            kick_bias: vec![[Acc::default(); 2]; n_out],
            alias_bias: vec![[Acc::default(); 2]; n_out],
            force: vec![Acc::default(); n_out],
            gla_ref_check: vec![[Acc::default(); 4]; n_out],
        }
    })
    .collect();
    for path in (0..setup.paths).progress_with(progress(setup.paths, "GLA + SIM1 paths")) {
        // ---- GLA on one Brownian path at three levels.
        let mut rng = Pcg32::seed_from_u64(path as u64);
        let s0 = setup.initial_state();
        let f0 = slow_force_x(&s0);
        let mut gla = GlaLevels::new(system, c, sigma, h, s0);
        for n in 1..=setup.steps {
            gla.step(&mut rng);
            let [s1, s2, s4, s8] = &gla.states;
            for st in out.iter_mut() {
                if n % st.every == 0 {
                    let k = n / st.every - 1;
                    let (m1, m2, m4, m8) = (moments(s1), moments(s2), moments(s4), moments(s8));
                    for i in 0..4 {
                        st.gla_h[k][i].add(m1[i]);
                        let reference = (4.0 * m8[i] - m4[i]) / 3.0;
                        st.gla_ref[k][i].add(reference);
                        st.gla_ref_check[k][i].add((4.0 * m4[i] - m2[i]) / 3.0 - reference);
                    }
                }
            }
        }
        // ---- SIM1 at H and H/2 on one Brownian path (independent of the GLA path).
        for st in out.iter_mut().filter(|st| st.family) {
            let mut rng = Pcg32::seed_from_u64(2_000_000_011 + path as u64);
            let tau = st.h / 3.0;
            let mk = |hh: f64| Sim1::new(Mass::identity(), fast, split.soft, hh).expect("sim");
            let (mut s1, mut s2, mut s3) = (mk(tau), mk(2.0 * tau), mk(3.0 * tau));
            let f1 = *s1.flow();
            let add = |a: Increment<f64, 2>, b: &Increment<f64, 2>| Increment {
                z: a.z + b.z,
                zeta: a.zeta + b.zeta,
            };
            let (mut a1, mut a2, mut a3) = (s0, s0, s0);
            let (mut k1, mut k2, mut k3) = (
                KickFilter::new(lam, c, tau, false, f0),
                KickFilter::new(lam, c, 2.0 * tau, false, f0),
                KickFilter::new(lam, c, 3.0 * tau, false, f0),
            );
            let (mut l1, mut l2, mut l3) = (
                AliasFilter::new(lam, c, tau, false, s0.q[0]),
                AliasFilter::new(lam, c, 2.0 * tau, false, s0.q[0]),
                AliasFilter::new(lam, c, 3.0 * tau, false, s0.q[0]),
            );
            let groups = (st.every as f64 * h / (6.0 * tau)).round() as usize;
            for k in 0..st.t.len() {
                for _ in 0..groups {
                    let r: [Increment<f64, 2>; 6] =
                        core::array::from_fn(|_| f1.sample_increment(&mut rng));
                    for ri in &r {
                        s1.step_with_increment(&mut a1, ri).expect("sim τ");
                        k1.step(slow_force_x(&a1));
                        l1.step(&a1);
                    }
                    for j in 0..3 {
                        let r2 = add(f1.carry(&r[2 * j]), &r[2 * j + 1]);
                        s2.step_with_increment(&mut a2, &r2).expect("sim 2τ");
                        k2.step(slow_force_x(&a2));
                        l2.step(&a2);
                    }
                    for j in 0..2 {
                        let r3 = add(
                            f1.carry(&add(f1.carry(&r[3 * j]), &r[3 * j + 1])),
                            &r[3 * j + 2],
                        );
                        s3.step_with_increment(&mut a3, &r3).expect("sim 3τ");
                        k3.step(slow_force_x(&a3));
                        l3.step(&a3);
                    }
                }
                let (m1, m2, m3) = (moments(&a1), moments(&a2), moments(&a3));
                let (n1, n2, n3) = (
                    moments_kick(&a1, &k1, &l1),
                    moments_kick(&a2, &k2, &l2),
                    moments_kick(&a3, &k3, &l3),
                );
                for i in 0..4 {
                    st.raw[k][i].add(m3[i]);
                    st.corrected[k][i].add(3.0 * m1[i] - 3.0 * m2[i] + m3[i]);
                    st.raw_kick[k][i].add(n3[i]);
                    st.corrected_kick[k][i].add(3.0 * n1[i] - 3.0 * n2[i] + n3[i]);
                }
                st.kick_bias[k][0].add(n3[0] - m3[0]);
                st.kick_bias[k][1].add(n3[2] - m3[2]);
                st.alias_bias[k][0].add(n3[1] - m3[1]);
                st.alias_bias[k][1].add(n3[3] - m3[3]);
                st.force[k].add(slow_force_x(&a3));
            }
        }
        for st in out.iter_mut().filter(|st| !st.family) {
            let mut rng = Pcg32::seed_from_u64(1_000_000_007 + path as u64);
            let mut big = Sim1::new(Mass::identity(), fast, split.soft, st.h)
                .expect("sim H")
                .mollified(st.mollified);
            let mut small = Sim1::new(Mass::identity(), fast, split.soft, st.h / 2.0)
                .expect("sim H/2")
                .mollified(st.mollified);
            let half_flow = *small.flow();
            let (mut a, mut b) = (s0, s0);
            let mut ka = KickFilter::new(lam, c, st.h, st.mollified, f0);
            let mut kb = KickFilter::new(lam, c, st.h / 2.0, st.mollified, f0);
            let mut la = AliasFilter::new(lam, c, st.h, st.mollified, s0.q[0]);
            let mut lb = AliasFilter::new(lam, c, st.h / 2.0, st.mollified, s0.q[0]);
            let sim_steps_per_out = (st.every as f64 * h / st.h).round() as usize;
            for k in 0..st.t.len() {
                for _ in 0..sim_steps_per_out {
                    let r1 = half_flow.sample_increment(&mut rng);
                    let r2 = half_flow.sample_increment(&mut rng);
                    small.step_with_increment(&mut b, &r1).expect("sim H/2");
                    kb.step(slow_force_x(&b));
                    lb.step(&b);
                    small.step_with_increment(&mut b, &r2).expect("sim H/2");
                    kb.step(slow_force_x(&b));
                    lb.step(&b);
                    let c1 = half_flow.carry(&r1);
                    let r = Increment {
                        z: c1.z + r2.z,
                        zeta: c1.zeta + r2.zeta,
                    };
                    big.step_with_increment(&mut a, &r).expect("sim H");
                    ka.step(slow_force_x(&a));
                    la.step(&a);
                }
                let (ma, mb) = (moments(&a), moments(&b));
                let (na, nb) = (moments_kick(&a, &ka, &la), moments_kick(&b, &kb, &lb));
                for i in 0..4 {
                    st.raw[k][i].add(ma[i]);
                    st.corrected[k][i].add(2.0 * mb[i] - ma[i]);
                    st.raw_kick[k][i].add(na[i]);
                    st.corrected_kick[k][i].add(2.0 * nb[i] - na[i]);
                }
                st.kick_bias[k][0].add(na[0] - ma[0]);
                st.kick_bias[k][1].add(na[2] - ma[2]);
                st.alias_bias[k][0].add(na[1] - ma[1]);
                st.alias_bias[k][1].add(na[3] - ma[3]);
                st.force[k].add(slow_force_x(&a));
            }
        }
    }
    out
}

/// `max |Δ| / √(SE₁² + SE₂²)` over outputs and moments.
pub fn max_abs_z(a: &[[Acc; 4]], b: &[[Acc; 4]]) -> f64 {
    let mut z: f64 = 0.0;
    for (x, y) in a.iter().zip(b) {
        for i in 0..4 {
            let se = (x[i].se().powi(2) + y[i].se().powi(2)).sqrt();
            z = z.max((x[i].mean() - y[i].mean()).abs() / se);
        }
    }
    z
}

/// The `sim-langevin` labels, in [`langevin_study`]'s order.
pub const LANGEVIN_LABELS: [&str; 4] = [
    "resonant",
    "nonresonant",
    "nonresonant_mollified",
    "resonant_family",
];

/// `max_t |E[Δ]| / SE` of the per-path differences `d` against the standard errors of `se_of`.
fn max_mean_in_se(d: &[[Acc; 4]], se_of: &[[Acc; 4]], which: &[usize]) -> f64 {
    let mut m: f64 = 0.0;
    for (x, y) in d.iter().zip(se_of) {
        for &i in which {
            m = m.max(x[i].mean().abs() / y[i].se());
        }
    }
    m
}

/// The stationary slow-force compliance of SIM1's stiff mode relative to the exact one:
/// with a constant force `F` the plain-kick SIM1 map (undamped) has the fixed point
/// `x* = (ωH/2)·cot(ωH/2)·F/ω²` instead of `F/ω²`; the mollified kick
/// (weight `sin(ωH)/ω`) gives `x* = (1 + cos ωH)/2 · F/ω²`.
