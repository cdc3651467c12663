//! `reproduce forcing`: external forces, damping and reaction forces
//! on the double pendulum of 000 §4.1 (`DoublePendulum::paper()`, penalty `ω = 20`, `β = 0.4`).
//!
//! The force is `f(t)` of [`forcing_methods::force`](super::forcing_methods::force) (smooth,
//! `|f| ≤ 0.5`), applied through `Driven` (midpoint sample held over each step, see
//! `macrostep::forcing`). References are DOP853 (`rtol = atol = 1e-13`) on the same forced
//! system: the penalised ODE for the penalty methods, the index-1 DAE for the exact-constraint
//! ones.

use super::forcing_methods::{self as fm, Built};
use crate::measure::{from_phase, loglog_slope, symplecticity_defect, to_phase};

mod report;
use macrostep::constrained::{MultiplierWindow, Rattle};
use macrostep::forcing::reaction;
use macrostep::model::Mass;
use macrostep::nalgebra::{vector, SMatrix, SVector};
use macrostep::systems::DoublePendulum;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{Integrator, State};

/// What to run.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Step sizes of the order fit.
    pub order_steps: Vec<f64>,
    /// End time of the order runs.
    pub order_t: f64,
    /// The seed step of the energy-balance runs (also run at half of it).
    pub balance_h: f64,
    /// End time of the energy-balance runs.
    pub balance_t: f64,
    /// Steps of the damping runs.
    pub damping_steps: usize,
    /// End time of the reaction-force comparison.
    pub reaction_t: f64,
}

impl Setup {
    /// The full setting: T = 50 energy balance at h = 0.01, 10⁴ damped steps (order steps stop
    /// at 0.000625: below it the 4th-order RATTLE composition reaches its Newton-tolerance floor).
    pub fn paper() -> Self {
        Self {
            order_steps: vec![0.0025, 0.00125, 0.000625],
            order_t: 1.0,
            balance_h: 0.01,
            balance_t: 50.0,
            damping_steps: 10_000,
            reaction_t: 5.0,
        }
    }
    /// A CI-sized setting (shorter balance and reaction runs).
    pub fn quick() -> Self {
        Self {
            order_steps: vec![0.0025, 0.00125, 0.000625],
            order_t: 1.0,
            balance_h: 0.01,
            balance_t: 10.0,
            damping_steps: 10_000,
            reaction_t: 2.0,
        }
    }
}

/// Per forced method.
#[derive(Clone, Debug)]
pub struct Forced {
    /// Figure name.
    pub name: &'static str,
    /// Its `ORDER`.
    pub order: u32,
    /// Its `SYMPLECTIC`.
    pub symplectic: bool,
    /// Log–log slope of the global error at `order_t`.
    pub slope: f64,
    /// max |ΔE − W| at `balance_h` over `balance_t` (`NaN` when a step failed).
    pub balance: f64,
    /// The same at `balance_h / 2`.
    pub balance_half: f64,
    /// Symplecticity defect of 10 forced steps (manifold defect for exact constraints).
    pub defect: f64,
}

/// Per damped method.
#[derive(Clone, Debug)]
pub struct DampedRun {
    /// Figure name.
    pub name: &'static str,
    /// Steps where `E` increased by more than `8ε·S` (`S` the start's `K + |V|`).
    pub increases: usize,
    /// `(E_end − E_min)/(E₀ − E_min)`, `E_min` the rigid hanging energy (slightly negative for
    /// penalty methods: the penalised equilibrium sits below it, the rods stretch under gravity).
    pub remaining: f64,
    /// The largest single-step increase of `E`, relative to `S`.
    pub max_increase: f64,
    /// Increases (by more than `8ε·S`) of the mean of `E` over consecutive blocks of
    /// [`PERIOD_STEPS`] steps (one period of the rods' penalty mode).
    pub period_increases: usize,
}

/// What the experiment measured.
pub struct Results {
    /// The setup it ran.
    pub setup: Setup,
    /// Forced methods.
    pub forced: Vec<Forced>,
    /// Damped methods, `c = DASHPOTS[0]`.
    pub damped: Vec<DampedRun>,
    /// Damped methods, light damping `c = DASHPOTS[1]`.
    pub damped_light: Vec<DampedRun>,
    /// Damped methods at the intermediate coefficients [`SCAN`].
    pub damped_scan: Vec<Vec<DampedRun>>,
    /// max relative difference of window-averaged rod forces, penalty (ω = 100) vs RATTLE.
    pub reaction_window: f64,
    /// The same for the pointwise penalty force.
    pub reaction_pointwise: f64,
    /// Bad-input cases answered with the documented typed error and an untouched state.
    pub bad_ok: usize,
    /// Bad-input cases tried.
    pub bad_cases: usize,
}

fn start() -> State<f64, 4> {
    DoublePendulum::<f64>::paper().initial_state()
}

/// Global error at `t` of each method for each `h`, and the fitted slopes.
fn orders(setup: &Setup) -> Vec<f64> {
    let s0 = start();
    let t = setup.order_t;
    let (ref_pen, ref_rig) = (fm::reference_penalty(&s0, t), fm::reference_rigid(&s0, t));
    let names = fm::driven_methods(setup.order_steps[0]).len();
    let mut errs = vec![Vec::new(); names];
    for &h in &setup.order_steps {
        let n = (t / h).round() as usize;
        for (k, mut m) in fm::driven_methods(h).into_iter().enumerate() {
            let mut s = s0;
            for _ in 0..n {
                if let Err(e) = (m.step)(&mut s) {
                    panic!("{} h = {h}: {e:?}", m.name);
                }
            }
            let r = if m.rigid { &ref_rig } else { &ref_pen };
            errs[k].push((s.q - r.q).amax());
        }
    }
    errs.iter()
        .map(|e| loglog_slope(&setup.order_steps, e))
        .collect()
}

/// max |E − E₀ − W| over `t` (guards on: a failed step gives NaN).
fn balance(m: &mut Built, h: f64, t: f64) -> f64 {
    let mut s = start();
    let e0 = fm::energy(m.rigid, &s);
    let mut worst = 0.0_f64;
    for _ in 0..(t / h).round() as usize {
        if (m.step)(&mut s).is_err() {
            return f64::NAN;
        }
        worst = worst.max((fm::energy(m.rigid, &s) - e0 - m.work.get()).abs());
    }
    worst
}

/// Steps of the symplecticity measurement.
const STEPS: usize = 1;
/// Its central-difference step: the penalised pendulum's map has large third derivatives
/// (`ω_eff ≈ 56`), so the `O(ε²)` differencing error needs a small `ε`; roundoff is `~1e-16/ε`.
const EPS: f64 = 1e-5;

/// Symplecticity defect of one forced step (ten on the manifold) from a moving state at `t = 0.3`.
fn defect(m: &mut Built) -> f64 {
    let name = m.name;
    let dp = DoublePendulum::<f64>::paper();
    let mass = Mass::<f64, 4>::identity();
    let mut s0 = State::at_rest(dp.from_angles(0.4, -0.3));
    s0.t = 0.3;
    let g = dp.constraint();
    if m.rigid {
        // Tangent velocity: project a generic v onto g'(q)v = 0.
        let pr = Rattle::new(dp.system(), g, 0.01, fm::rattle_newton()).expect("h");
        s0.v = vector![0.3, 0.1, -0.2, 0.4];
        pr.project(&mut s0).expect("projection");
        let x0 = crate::manifold::to_x(&s0, &mass);
        let step = &mut m.step;
        return crate::manifold::manifold_defect(
            &g,
            &mass,
            &x0,
            |x| {
                let mut s = crate::manifold::from_x(x, &mass);
                s.t = 0.3;
                for _ in 0..10 {
                    if let Err(e) = step(&mut s) {
                        panic!("{name}: {e:?}");
                    }
                }
                crate::manifold::to_x(&s, &mass)
            },
            |x| {
                let mut s = crate::manifold::from_x(x, &mass);
                pr.project(&mut s).expect("projection");
                crate::manifold::to_x(&s, &mass)
            },
            1e-5,
        );
    }
    s0.v = vector![0.3, 0.1, -0.2, 0.4];
    let x0 = to_phase(&s0, &mass);
    let step = &mut m.step;
    symplecticity_defect(
        |x| {
            let mut s = from_phase(x, &mass, 0.3);
            for _ in 0..STEPS {
                step(&mut s).expect("step");
            }
            to_phase(&s, &mass)
        },
        &x0,
        EPS,
    )
}

/// The dashpot coefficients: `c = 0.5` (the `damping.monotone.*` figures) and the light
/// `c = 0.1` (`damping.light.*`), where a penalty method's `O(h²)` oscillation of the stiff
/// mode's energy can outweigh one step's dissipation near a turning point.
pub const DASHPOTS: [f64; 2] = [0.5, 0.1];

/// The coefficients between the two, run for the smallest `c` with monotone energy
/// (`damping.monotone_from_c.*`).
pub const SCAN: [f64; 2] = [0.2, 0.3];

/// The block of the period-averaged energy: `32 h = 0.32 ≈ 2π/ω`, one period of the rods'
/// penalty mode (`ω = 20`), whose `O(h²)` energy oscillation makes single steps gain energy.
pub const PERIOD_STEPS: usize = 32;

impl Results {
    /// [`monotone_from_c`] of the damped method `name`.
    pub fn monotone_from_c(&self, name: &str) -> f64 {
        let k = self
            .damped
            .iter()
            .position(|d| d.name == name)
            .expect("a damped method");
        monotone_from_c(self, k)
    }
}

/// The smallest `c` of `DASHPOTS ∪ SCAN` from which on (every larger one too) method `k` had no
/// single-step increase; `NaN` when even `c = 0.5` had one.
pub fn monotone_from_c(r: &Results, k: usize) -> f64 {
    let mut runs: Vec<(f64, usize)> = vec![(DASHPOTS[1], r.damped_light[k].increases)];
    for (c, scan) in SCAN.iter().zip(&r.damped_scan) {
        runs.push((*c, scan[k].increases));
    }
    runs.push((DASHPOTS[0], r.damped[k].increases));
    let mut from = f64::NAN;
    for (c, inc) in runs.into_iter().rev() {
        if inc > 0 {
            break;
        }
        from = c;
    }
    from
}

fn damping(setup: &Setup, c: f64) -> Vec<DampedRun> {
    let h = 0.01;
    fm::damped_methods(h, c)
        .into_iter()
        .map(|(name, rigid, mut step)| {
            let mut s = start();
            // Hanging straight down: the minimum of V (L₁ = 1, L₂ = √2).
            let down = vector![0.0, -1.0, 0.0, -1.0 - 2f64.sqrt()];
            let e_min = fm::energy(rigid, &State::at_rest(down));
            let e0 = fm::energy(rigid, &s);
            let scale = e0.abs() + e_min.abs();
            let mut e = e0;
            let (mut increases, mut max_increase) = (0, 0.0_f64);
            let (mut block, mut last_mean, mut period_increases) = (0.0, f64::INFINITY, 0);
            for k in 0..setup.damping_steps {
                step(&mut s).expect("damped step");
                let e1 = fm::energy(rigid, &s);
                if e1 > e + 8.0 * f64::EPSILON * scale {
                    increases += 1;
                }
                max_increase = max_increase.max((e1 - e) / scale);
                e = e1;
                block += e1;
                if (k + 1) % PERIOD_STEPS == 0 {
                    let mean = block / PERIOD_STEPS as f64;
                    if mean > last_mean + 8.0 * f64::EPSILON * scale {
                        period_increases += 1;
                    }
                    (last_mean, block) = (mean, 0.0);
                }
            }
            DampedRun {
                name,
                increases,
                remaining: (e - e_min) / (e0 - e_min),
                max_increase,
                period_increases,
            }
        })
        .collect()
}

/// Rod tensions (positive when the rod pulls) from the per-constraint generalised forces `F`
/// at `q`: `Tᵢ = −F_far·dᵢ / Lᵢ` with `dᵢ` the rod vector towards its far mass.
fn tensions(f: &SMatrix<f64, 4, 2>, q: &SVector<f64, 4>) -> [f64; 2] {
    let d1 = vector![q[0], q[1]];
    let d2 = vector![q[2] - q[0], q[3] - q[1]];
    [
        -(f[(0, 0)] * d1[0] + f[(1, 0)] * d1[1]) / d1.norm(),
        -(f[(2, 1)] * d2[0] + f[(3, 1)] * d2[1]) / d2.norm(),
    ]
}

/// Rod tensions: penalty Z&S (ω = 100, h = 0.001) vs RATTLE (h = 0.001), both averaged over the
/// same trailing window of 0.2 (000 eq 1.8); returns (windowed, pointwise) max differences
/// relative to the largest RATTLE tension.
fn reactions(setup: &Setup) -> (f64, f64) {
    let (h, omega, w) = (0.001, 100.0, 200);
    let dp = DoublePendulum::<f64>::paper();
    let g = dp.constraint();
    let pen = dp.penalised(omega).expect("penalty");
    let mut zs = ZhangSkeel::new(pen, h, ZsParams::default()).expect("h");
    let mut ra = Rattle::new(dp.system(), g, h, fm::rattle_newton()).expect("h");
    let mut win = MultiplierWindow::<f64, 2, 256>::new(*pen.potential.omega2(), w).expect("w");
    let mut rattle_t: Vec<[f64; 2]> = Vec::new();
    let (mut sp, mut sr) = (start(), start());
    let (mut diff_w, mut diff_p, mut max_t) = (0.0_f64, 0.0_f64, 0.0_f64);
    for _ in 0..(setup.reaction_t / h).round() as usize {
        zs.step(&mut sp).expect("penalty step");
        ra.step(&mut sr).expect("RATTLE step");
        let tr = tensions(&ra.reactions(&sr.q), &sr.q);
        rattle_t.push(tr);
        // Pointwise penalty force −ω²gᵢ∇gᵢ at the penalty run's q.
        let lp = reaction::penalty_multipliers(&pen.potential, &sp.q);
        let tp = tensions(&reaction::forces(&g, &sp.q, &lp), &sp.q);
        win.push_state(&g, sp.t, &sp.q);
        let k = rattle_t.len();
        let lam = match win.estimate() {
            Some(l) if k >= w => l,
            _ => continue,
        };
        let tw = tensions(&reaction::forces(&g, &sp.q, &lam), &sp.q);
        for i in 0..2 {
            let avg: f64 = rattle_t[k - w..].iter().map(|t| t[i]).sum::<f64>() / w as f64;
            max_t = max_t.max(avg.abs());
            diff_w = diff_w.max((tw[i] - avg).abs());
            diff_p = diff_p.max((tp[i] - tr[i]).abs());
        }
    }
    (diff_w / max_t, diff_p / max_t)
}

/// Runs every measurement.
pub fn compute(setup: &Setup) -> Results {
    let slopes = orders(setup);
    let mut forced = Vec::new();
    let h = setup.balance_h;
    let mut at_h = fm::driven_methods(h);
    let mut at_half = fm::driven_methods(h / 2.0);
    let mut for_defect = fm::driven_methods(0.01);
    for (k, m) in at_h.iter_mut().enumerate() {
        forced.push(Forced {
            name: m.name,
            order: m.order,
            symplectic: m.symplectic,
            slope: slopes[k],
            balance: balance(m, h, setup.balance_t),
            balance_half: balance(&mut at_half[k], h / 2.0, setup.balance_t),
            defect: defect(&mut for_defect[k]),
        });
    }
    let (reaction_window, reaction_pointwise) = reactions(setup);
    let (bad_ok, bad_cases) = fm::bad_input();
    Results {
        setup: setup.clone(),
        forced,
        damped: damping(setup, DASHPOTS[0]),
        damped_light: damping(setup, DASHPOTS[1]),
        damped_scan: SCAN.iter().map(|&c| damping(setup, c)).collect(),
        reaction_window,
        reaction_pointwise,
        bad_ok,
        bad_cases,
    }
}

/// `reproduce forcing` (quick with `--quick`).
pub struct ForcingExperiment;
