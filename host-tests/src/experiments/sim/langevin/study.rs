//! The `sim-langevin` Monte-Carlo study: SIM1 at a resonant and a non-resonant macroscopic H
//! against a Richardson GLA reference on the two-spring system, per-output moment statistics.

use super::filters::{moments_kick, slow_force_x, AliasFilter, GlaLevels, KickFilter};
use crate::ensemble_runner::{fold, member_rng, Sums};
use macrostep::model::Mass;
use macrostep::sim::{Conservative, FastParams, Increment, Sim1, SimSystem};
use macrostep::systems::{QuarticBond, TwoSpring};
use macrostep::{State, StochasticIntegrator};
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

impl Sums for Acc {
    fn visit(&mut self, f: &mut dyn FnMut(&mut f64)) {
        f(&mut self.n);
        f(&mut self.s);
        f(&mut self.s2);
    }
}

/// The four moments `x, y, x², y²` of a state.
pub fn moments(s: &State<f64, 2>) -> [f64; 4] {
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

impl Sums for SimStats {
    fn visit(&mut self, f: &mut dyn FnMut(&mut f64)) {
        self.raw.visit(f);
        self.corrected.visit(f);
        self.gla_h.visit(f);
        self.gla_ref.visit(f);
        self.raw_kick.visit(f);
        self.corrected_kick.visit(f);
        self.kick_bias.visit(f);
        self.alias_bias.visit(f);
        self.force.visit(f);
        self.gla_ref_check.visit(f);
    }
}

impl SimStats {
    /// `max |z|` ([`max_abs_z`]) of the bias-corrected SIM against the GLA reference, with the
    /// stiff allowances (`corrected_kick`) or with the soft-bias extrapolation only (`corrected`).
    pub fn max_abs_z_vs_ref(&self, stiff_allowances: bool) -> f64 {
        let sim = if stiff_allowances {
            &self.corrected_kick
        } else {
            &self.corrected
        };
        max_abs_z(sim, &self.gla_ref)
    }
}

/// The GLA grid step and the two SIM steps.
pub fn langevin_steps(omega: f64) -> (f64, f64, f64) {
    let h_res = 6.0 * std::f64::consts::PI / omega;
    let h = h_res / 188.0;
    (h, h_res, 100.0 * h)
}

/// What every path of [`langevin_study`] shares.
struct Ctx {
    system: SimSystem<f64, Conservative<QuarticBond<f64, 2>>, 2>,
    fast: FastParams<f64, 2>,
    lam: f64,
    c: f64,
    h: f64,
}

impl Ctx {
    fn sim(&self, h: f64) -> Sim1<f64, Conservative<QuarticBond<f64, 2>>, 2> {
        Sim1::new(self.system, h, self.fast).expect("sim")
    }
}

/// Empty statistics for one SIM step of the study.
fn empty_stats(
    hh: f64,
    every: usize,
    mollified: bool,
    family: bool,
    steps: usize,
    h: f64,
) -> SimStats {
    let n_out = steps / every;
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
}

/// Adds one path's SIM moments at output `k`: `m` raw, `n` with the stiff allowances, `mc`/`nc`
/// their soft-bias extrapolations, `a` the state at H.
fn add_sim(st: &mut SimStats, k: usize, m: [f64; 4], n: [f64; 4], mc: [f64; 4], nc: [f64; 4]) {
    for i in 0..4 {
        st.raw[k][i].add(m[i]);
        st.corrected[k][i].add(mc[i]);
        st.raw_kick[k][i].add(n[i]);
        st.corrected_kick[k][i].add(nc[i]);
    }
    st.kick_bias[k][0].add(n[0] - m[0]);
    st.kick_bias[k][1].add(n[2] - m[2]);
    st.alias_bias[k][0].add(n[1] - m[1]);
    st.alias_bias[k][1].add(n[3] - m[3]);
}

/// GLA on one Brownian path at the four levels, recorded into every study.
fn gla_path<P: macrostep::model::Potential<f64, 2> + Copy>(
    out: &mut [SimStats],
    mut gla: GlaLevels<P>,
    steps: usize,
    rng: &mut Pcg32,
) {
    for n in 1..=steps {
        gla.step(rng);
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
}

/// SIM1 at `τ`, `2τ`, `3τ` (`τ = H/3`, the resonant family) on one Brownian path.
fn family_path(st: &mut SimStats, ctx: &Ctx, s0: State<f64, 2>, rng: &mut Pcg32) {
    let (lam, c, f0) = (ctx.lam, ctx.c, slow_force_x(&s0));
    let tau = st.h / 3.0;
    let mut sims = [ctx.sim(tau), ctx.sim(2.0 * tau), ctx.sim(3.0 * tau)];
    let f1 = *sims[0].flow();
    let add = |a: Increment<f64, 2>, b: &Increment<f64, 2>| Increment {
        z: a.z + b.z,
        zeta: a.zeta + b.zeta,
    };
    let mut a = [s0; 3];
    let mut kf = [1.0, 2.0, 3.0].map(|m| KickFilter::new(lam, c, m * tau, false, f0));
    let mut af = [1.0, 2.0, 3.0].map(|m| AliasFilter::new(lam, c, m * tau, false, s0.q[0]));
    let groups = (st.every as f64 * ctx.h / (6.0 * tau)).round() as usize;
    for k in 0..st.t.len() {
        for _ in 0..groups {
            let r: [Increment<f64, 2>; 6] = core::array::from_fn(|_| f1.sample_increment(rng));
            let mut level = |l: usize, inc: &Increment<f64, 2>| {
                sims[l].step_with_noise(&mut a[l], inc).expect("sim family");
                kf[l].step(slow_force_x(&a[l]));
                af[l].step(&a[l]);
            };
            for ri in &r {
                level(0, ri);
            }
            for j in 0..3 {
                level(1, &add(f1.carry(&r[2 * j]), &r[2 * j + 1]));
            }
            for j in 0..2 {
                let r3 = add(
                    f1.carry(&add(f1.carry(&r[3 * j]), &r[3 * j + 1])),
                    &r[3 * j + 2],
                );
                level(2, &r3);
            }
        }
        let m = a.map(|s| moments(&s));
        let n: [[f64; 4]; 3] = core::array::from_fn(|l| moments_kick(&a[l], &kf[l], &af[l]));
        let ext = |x: &[[f64; 4]; 3]| [0, 1, 2, 3].map(|i| 3.0 * x[0][i] - 3.0 * x[1][i] + x[2][i]);
        add_sim(st, k, m[2], n[2], ext(&m), ext(&n));
        st.force[k].add(slow_force_x(&a[2]));
    }
}

/// SIM1 at `H` and `H/2` on one Brownian path (the fast-flow increments of two half steps
/// aggregated exactly, `R(H) = B(H/2)R₁ + R₂`).
fn halving_path(st: &mut SimStats, ctx: &Ctx, s0: State<f64, 2>, rng: &mut Pcg32) {
    let (lam, c, f0, m) = (ctx.lam, ctx.c, slow_force_x(&s0), st.mollified);
    let mut big = ctx.sim(st.h).mollified(m);
    let mut small = ctx.sim(st.h / 2.0).mollified(m);
    let half_flow = *small.flow();
    let (mut a, mut b) = (s0, s0);
    let mut ka = KickFilter::new(lam, c, st.h, m, f0);
    let mut kb = KickFilter::new(lam, c, st.h / 2.0, m, f0);
    let mut la = AliasFilter::new(lam, c, st.h, m, s0.q[0]);
    let mut lb = AliasFilter::new(lam, c, st.h / 2.0, m, s0.q[0]);
    let sim_steps_per_out = (st.every as f64 * ctx.h / st.h).round() as usize;
    for k in 0..st.t.len() {
        for _ in 0..sim_steps_per_out {
            let r1 = half_flow.sample_increment(rng);
            let r2 = half_flow.sample_increment(rng);
            for r in [&r1, &r2] {
                small.step_with_noise(&mut b, r).expect("sim H/2");
                kb.step(slow_force_x(&b));
                lb.step(&b);
            }
            let c1 = half_flow.carry(&r1);
            let r = Increment {
                z: c1.z + r2.z,
                zeta: c1.zeta + r2.zeta,
            };
            big.step_with_noise(&mut a, &r).expect("sim H");
            ka.step(slow_force_x(&a));
            la.step(&a);
        }
        let (ma, mb) = (moments(&a), moments(&b));
        let (na, nb) = (moments_kick(&a, &ka, &la), moments_kick(&b, &kb, &lb));
        let ext = |x: &[f64; 4], y: &[f64; 4]| [0, 1, 2, 3].map(|i| 2.0 * y[i] - x[i]);
        add_sim(st, k, ma, na, ext(&ma, &mb), ext(&na, &nb));
        st.force[k].add(slow_force_x(&a));
    }
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
    let ctx = Ctx {
        system: SimSystem::new(Mass::identity(), split.stiff.k, split.soft),
        fast: FastParams::langevin(c, sigma),
        lam: omega * omega,
        c,
        h,
    };
    // GLA integrates the full potential (stiff + soft).
    let system = model.system();
    let zero: Vec<SimStats> = [
        (h_res, 940usize, false, false),
        (h_nr, 1000usize, false, false),
        (h_nr, 1000, true, false),
        (h_res, 1880, false, true),
    ]
    .iter()
    .map(|&(hh, every, mollified, family)| {
        empty_stats(hh, every, mollified, family, setup.steps, h)
    })
    .collect();
    // Member `path` draws GLA's Brownian path from stream 0 and SIM1's from the streams
    // 1_000_000_007 (halving) and 2_000_000_011 (resonant family): `member_rng(base, path)`.
    let (out, _) = fold("GLA + SIM1 paths", setup.paths, &zero, |path, out| {
        let s0 = setup.initial_state();
        let gla = GlaLevels::new(system, c, sigma, h, s0);
        gla_path(out, gla, setup.steps, &mut member_rng(0, path));
        // SIM1 on its own Brownian path (independent of the GLA path).
        for st in out.iter_mut().filter(|st| st.family) {
            family_path(st, &ctx, s0, &mut member_rng(2_000_000_011, path));
        }
        for st in out.iter_mut().filter(|st| !st.family) {
            halving_path(st, &ctx, s0, &mut member_rng(1_000_000_007, path));
        }
    });
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
pub fn max_mean_in_se(d: &[[Acc; 4]], se_of: &[[Acc; 4]], which: &[usize]) -> f64 {
    let mut m: f64 = 0.0;
    for (x, y) in d.iter().zip(se_of) {
        for &i in which {
            m = m.max(x[i].mean().abs() / y[i].se());
        }
    }
    m
}
