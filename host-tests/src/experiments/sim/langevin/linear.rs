//! The linear variant of the `sim-langevin` system: exact and SIM1 laws in closed form (Van
//! Loan) against Monte Carlo of SIM1 and the GLA reference.

use super::filters::GlaLevels;
use super::study::{langevin_steps, moments, Acc, MOMENTS};
use crate::ensemble_runner::{fold, member_rng, Sums};
use crate::report::{figure, sci, Output, Table};
use macrostep::langevin::StochasticIntegrator;
use macrostep::model::Mass;
use macrostep::sim::{FastParams, Sim1, SimSystem};
use macrostep::systems::TwoSpring;
use macrostep::State;

type M4 = macrostep::nalgebra::Matrix4<f64>;
type V4 = macrostep::nalgebra::Vector4<f64>;

/// Van Loan's method (host `exp` of an 8×8 block matrix): `(e^{At}, ∫₀ᵗ e^{As} Q e^{Aᵀs} ds)`.
pub fn van_loan(a: &M4, q: &M4, t: f64) -> (M4, M4) {
    let mut c = macrostep::nalgebra::SMatrix::<f64, 8, 8>::zeros();
    c.fixed_view_mut::<4, 4>(0, 0).copy_from(&(-a * t));
    c.fixed_view_mut::<4, 4>(0, 4).copy_from(&(q * t));
    c.fixed_view_mut::<4, 4>(4, 4)
        .copy_from(&(a.transpose() * t));
    let e = c.exp();
    let f12: M4 = e.fixed_view::<4, 4>(0, 4).into_owned();
    let f22: M4 = e.fixed_view::<4, 4>(4, 4).into_owned();
    (f22.transpose(), f22.transpose() * f12)
}

/// The linear variant of the two-spring system: the quartic soft spring replaced by
/// `½k(y − x)²`, everything else as [`TwoSpring::paper`]. Linear with additive noise, so both the
/// exact law and SIM1's law are Gaussian and computable without Monte Carlo.
#[derive(Clone, Copy, Debug)]
pub struct LinearTwoSpring {
    /// Stiff frequency `ω`.
    pub omega: f64,
    /// Soft spring constant `k`.
    pub k: f64,
    /// Friction `c`.
    pub c: f64,
    /// Noise `σ`.
    pub sigma: f64,
}

impl LinearTwoSpring {
    /// `ω = 100`, `k = 1`, `c = 0.1`, `σ² = 0.02` (`β = 10`).
    pub fn paper_like() -> Self {
        let lp = TwoSpring::<f64>::paper().langevin();
        Self {
            omega: 100.0,
            k: 1.0,
            c: lp.c,
            sigma: lp.sigma,
        }
    }
    fn stiff(&self) -> macrostep::nalgebra::Matrix2<f64> {
        macrostep::nalgebra::Matrix2::new(self.omega * self.omega, 0.0, 0.0, 0.0)
    }
    fn soft(&self) -> macrostep::nalgebra::Matrix2<f64> {
        macrostep::nalgebra::Matrix2::new(self.k, -self.k, -self.k, self.k)
    }
    /// The generator `[[0, I], [−K, −cI]]` of `(q, v)` for the stiffness `K`.
    fn generator(&self, k: &macrostep::nalgebra::Matrix2<f64>) -> M4 {
        let mut a = M4::zeros();
        a[(0, 2)] = 1.0;
        a[(1, 3)] = 1.0;
        a.fixed_view_mut::<2, 2>(2, 0).copy_from(&(-k));
        a[(2, 2)] = -self.c;
        a[(3, 3)] = -self.c;
        a
    }
    fn noise(&self) -> M4 {
        M4::from_diagonal(&V4::new(0.0, 0.0, self.sigma.powi(2), self.sigma.powi(2)))
    }
    /// Exact law over `dt`: `(E, P)` with `m ← E m`, `P ← E P Eᵀ + P(dt)`.
    pub fn exact_map(&self, dt: f64) -> (M4, M4) {
        van_loan(
            &self.generator(&(self.stiff() + self.soft())),
            &self.noise(),
            dt,
        )
    }
    /// SIM1's law over one step `H` (exact fast flow `B(H)`, `Σ(H)` by Van Loan, then the kick
    /// `v += −H K_soft q`): `(A, Q)` with `m ← A m`, `P ← A P Aᵀ + Q`.
    pub fn sim1_map(&self, h: f64) -> (M4, M4) {
        let (b, sig) = van_loan(&self.generator(&self.stiff()), &self.noise(), h);
        let mut kick = M4::identity();
        kick.fixed_view_mut::<2, 2>(2, 0)
            .copy_from(&(-self.soft() * h));
        (kick * b, kick * sig * kick.transpose())
    }
    /// The start of Fig. 4.2 (`x(0) = 0.8/ω`, `y(0) = 1.1 + x(0)`, at rest).
    pub fn initial_state(&self) -> State<f64, 2> {
        TwoSpring::<f64>::paper().initial_state()
    }
}

/// The four moments of a Gaussian law `(m, P)` of `(x, y, vₓ, v_y)`.
fn law_moments(m: &V4, p: &M4) -> [f64; 4] {
    [m[0], m[1], m[0] * m[0] + p[(0, 0)], m[1] * m[1] + p[(1, 1)]]
}

/// The linear-variant study: per output, exact and SIM1 law moments and Monte-Carlo moments.
#[derive(Clone, Debug)]
pub struct LinearStats {
    /// SIM step `H`.
    pub h: f64,
    /// Output times.
    pub t: Vec<f64>,
    /// Exact law moments.
    pub exact: Vec<[f64; 4]>,
    /// SIM1 law moments (same `H`).
    pub sim_law: Vec<[f64; 4]>,
    /// Monte Carlo of the `Sim1` implementation.
    pub sim_mc: Vec<[Acc; 4]>,
    /// Monte Carlo of GLA at `h` on the same grid as [`langevin_study`](super::langevin_study).
    pub gla_h: Vec<[Acc; 4]>,
    /// The Richardson GLA reference `(4X(h/8) − X(h/4))/3`.
    pub gla_ref: Vec<[Acc; 4]>,
}

impl Sums for LinearStats {
    fn visit(&mut self, f: &mut dyn FnMut(&mut f64)) {
        self.sim_mc.visit(f);
        self.gla_h.visit(f);
        self.gla_ref.visit(f);
    }
}

/// Runs the linear-variant study for the resonant and the non-resonant `H` of
/// [`langevin_steps`], `paths` trajectories of `steps` GLA steps, outputs every `every` GLA
/// steps (a multiple of both SIM steps: 940 or 1880 for `H_res`, 100 for `H_nr`).
pub fn linear_law_study(paths: usize, steps: usize) -> Vec<LinearStats> {
    let sys = LinearTwoSpring::paper_like();
    let (h, h_res, h_nr) = langevin_steps(sys.omega);
    let s0 = sys.initial_state();
    let every = [940usize, 1000];
    let zero: Vec<LinearStats> = [h_res, h_nr]
        .iter()
        .zip(every)
        .map(|(&hh, every)| law_stats(&sys, hh, every, steps, h))
        .collect();
    let system = macrostep::model::System::new(
        Mass::identity(),
        macrostep::model::Quadratic::new(sys.stiff() + sys.soft()),
    );
    let fast = FastParams::langevin(sys.c, sys.sigma);
    // Member `path`: GLA from stream 3_000_000_019, SIM1 from 4_000_000_007 (`member_rng`).
    fold("linear variant paths", paths, &zero, |path, out| {
        let mut rng = member_rng(3_000_000_019, path);
        let mut gla = GlaLevels::new(system, sys.c, sys.sigma, h, s0);
        for n in 1..=steps {
            gla.step(&mut rng);
            for (st, every) in out.iter_mut().zip(every) {
                if n % every == 0 {
                    let k = n / every - 1;
                    let [s1, _, s4, s8] = &gla.states;
                    let (m1, m4, m8) = (moments(s1), moments(s4), moments(s8));
                    for i in 0..4 {
                        st.gla_h[k][i].add(m1[i]);
                        st.gla_ref[k][i].add((4.0 * m8[i] - m4[i]) / 3.0);
                    }
                }
            }
        }
        for (st, every) in out.iter_mut().zip(every) {
            let mut rng = member_rng(4_000_000_007, path);
            let soft = macrostep::model::Quadratic::new(sys.soft());
            let sim_system = SimSystem::new(Mass::identity(), sys.stiff(), soft);
            let mut sim = Sim1::new(sim_system, st.h, fast).expect("sim1");
            let per = (every as f64 * h / st.h).round() as usize;
            let mut s = s0;
            for acc in st.sim_mc.iter_mut() {
                sim.integrate_noisy(&mut s, per, &mut rng).expect("sim1");
                for (a, m) in acc.iter_mut().zip(moments(&s)) {
                    a.add(m);
                }
            }
        }
    })
    .0
}

/// The exact and SIM1 laws at the outputs (every `every` GLA steps of `h`) for SIM step `hh`,
/// with empty Monte-Carlo sums.
fn law_stats(sys: &LinearTwoSpring, hh: f64, every: usize, steps: usize, h: f64) -> LinearStats {
    let s0 = sys.initial_state();
    let z0 = V4::new(s0.q[0], s0.q[1], s0.v[0], s0.v[1]);
    let n_out = steps / every;
    // Propagates the Gaussian law (m, P) by `(A, Q)` `per` times between outputs.
    let propagate = |(a, q): (M4, M4), per: usize| {
        let (mut m, mut p) = (z0, M4::zeros());
        let mut out = Vec::with_capacity(n_out);
        for _ in 0..n_out {
            for _ in 0..per {
                m = a * m;
                p = a * p * a.transpose() + q;
            }
            out.push(law_moments(&m, &p));
        }
        out
    };
    LinearStats {
        h: hh,
        t: (1..=n_out).map(|k| (k * every) as f64 * h).collect(),
        exact: propagate(sys.exact_map(every as f64 * h), 1),
        sim_law: propagate(sys.sim1_map(hh), (every as f64 * h / hh).round() as usize),
        sim_mc: vec![[Acc::default(); 4]; n_out],
        gla_h: vec![[Acc::default(); 4]; n_out],
        gla_ref: vec![[Acc::default(); 4]; n_out],
    }
}

/// Figures of the linear-variant study; returns `max |z|` of (SIM − exact bias) vs the GLA
/// reference over both `H`.
pub fn report_linear(stats: &[LinearStats], out: &Output) -> f64 {
    let sys = LinearTwoSpring::paper_like();
    let mut worst: f64 = 0.0;
    let (mut ref_z, mut gla_z): (f64, f64) = (0.0, 0.0);
    for (label, st) in ["resonant", "nonresonant"].iter().zip(stats) {
        crate::say!(out, "\nlinear variant, SIM1 H = {:.5} ({label})", st.h);
        let tab = Table::new(
            out,
            &[
                "t", "moment", "exact", "SIM law", "bias", "SIM MC", "±SE", "z own", "GLA ref",
                "±SE", "z",
            ],
        );
        let (mut z_own, mut z, mut bias_se): (f64, f64, f64) = (0.0, 0.0, 0.0);
        let mut bias_abs = [0.0f64; 4];
        for k in 0..st.t.len() {
            for (i, name) in MOMENTS.iter().enumerate() {
                let (ex, law, mc, r) = (
                    st.exact[k][i],
                    st.sim_law[k][i],
                    &st.sim_mc[k][i],
                    &st.gla_ref[k][i],
                );
                let bias = law - ex;
                let zo = (mc.mean() - law) / mc.se();
                let zz = (mc.mean() - bias - r.mean()) / (mc.se().powi(2) + r.se().powi(2)).sqrt();
                z_own = z_own.max(zo.abs());
                z = z.max(zz.abs());
                bias_abs[i] = bias_abs[i].max(bias.abs());
                bias_se = bias_se.max(bias.abs() / mc.se());
                ref_z = ref_z.max((r.mean() - ex).abs() / r.se());
                gla_z = gla_z.max((st.gla_h[k][i].mean() - ex).abs() / st.gla_h[k][i].se());
                tab.row(&[
                    format!("{:.3}", st.t[k]),
                    name.to_string(),
                    format!("{ex:.6}"),
                    format!("{law:.6}"),
                    sci(bias),
                    format!("{:.6}", mc.mean()),
                    sci(mc.se()),
                    format!("{zo:.2}"),
                    format!("{:.6}", r.mean()),
                    sci(r.se()),
                    format!("{zz:.2}"),
                ]);
            }
        }
        worst = worst.max(z);
        let p = format!("sim-langevin.linear.{label}");
        figure(&format!("{p}.sim_vs_own_law.max_abs_z"), z_own);
        figure(&format!("{p}.max_abs_z"), z);
        for (i, m) in ["x", "y", "x2", "y2"].iter().enumerate() {
            figure(&format!("{p}.bias_max_abs.{m}"), bias_abs[i]);
        }
        figure(&format!("{p}.bias_max_se"), bias_se);
        if *label == "resonant" {
            bias_x_prediction(&sys, st, &p);
        }
    }
    figure("sim-langevin.linear.max_abs_z", worst);
    figure("sim-langevin.linear.gla_ref_vs_exact.max_abs_z", ref_z);
    figure("sim-langevin.linear.gla_h_vs_exact.max_abs_z", gla_z);
    worst
}

/// The quasi-static explanation of the resonant bias: at full-period H SIM's x never takes the
/// shift F/ω² of the slow force F = k(y − x) (exact-law mean), so bias E[x] ≈
/// −(E[F](t) − e^{−ct/2}F(0))/ω². Second order: the exact stiff frequency is √(ω² + k), so the
/// coherent part (x(0) − F(0)/ω²)e^{−ct/2} of x turns by δω·t, δω ≈ k/(2ω), between the grid
/// points where SIM's x stands still.
fn bias_x_prediction(sys: &LinearTwoSpring, st: &LinearStats, p: &str) {
    let w2 = sys.omega * sys.omega;
    let s0 = sys.initial_state();
    let f0 = sys.k * (s0.q[1] - s0.q[0]);
    let (mut err, mut err2, mut scale): (f64, f64, f64) = (0.0, 0.0, 0.0);
    let dw = (w2 + sys.k).sqrt() - sys.omega;
    for k in 0..st.t.len() {
        let f = sys.k * (st.exact[k][1] - st.exact[k][0]);
        let decay = (-0.5 * sys.c * st.t[k]).exp();
        let pred = -(f - decay * f0) / w2;
        let pred2 = pred + (s0.q[0] - f0 / w2) * decay * (1.0 - (dw * st.t[k]).cos());
        let bias = st.sim_law[k][0] - st.exact[k][0];
        err = err.max((bias - pred).abs());
        err2 = err2.max((bias - pred2).abs());
        scale = scale.max(bias.abs());
    }
    figure(&format!("{p}.bias_x_prediction_rel_err"), err / scale);
    figure(
        &format!("{p}.bias_x_prediction_with_phase_rel_err"),
        err2 / scale,
    );
}
