//! `reproduce work-precision-remedies`: the remedies the seeds allow for the
//! Z&S stability cap on the penalised double pendulum, each measured on the `omega` study's
//! cap scan ([`super::omega`]: 000 §4.1 start, guards on, `[0, T]` must complete, grid from
//! `ωh = 0.05` up to `h = 1`).
//!
//! - **(a) β**: Z&S on the squared-distance penalty at β ∈ {0.25, 0.3, 0.4, 0.5, 1}
//!   (`zs_beta<β>`).
//! - **(b) the distance form** `g = |d| − L` of the constraint (002 §5) instead of
//!   `|d|² − L²`: potential [`DistanceForm`], `V + ½ Σ ωᵢ² (|dᵢ| − Lᵢ)²`, derivatives by
//!   [`AutoDiff`](macrostep::autodiff::AutoDiff). At the same ω (`zs_distance`,
//!   `sylipn_distance`) it is a softer model: the rod stiffness is `ω²` instead of `4ω²Lᵢ²`,
//!   its fast frequencies lower by `2Lᵢ` (2 and 2√2);
//!   `zs_distance_matched` / `sylipn_distance_matched` use `ωᵢ = 2ωLᵢ`, the squared form's rod
//!   stiffness — the fair comparison.
//! - **(c) a Gauss–Newton matrix**: [`GaussNewton`] keeps the energy and the exact gradient of
//!   the squared-distance penalty but its "Hessian" is `ω² JᵀJ` (gravity is linear: no base
//!   Hessian), dropping the `ω² Σ gᵢ ∇²gᵢ` term that goes negative when a rod is compressed, so
//!   `M + βh²G` is positive definite at every step. Its third-derivative contraction is the
//!   derivative of that matrix, `2ω² Aᵀ(J a)` with `Aᵢ = (∇²gᵢ a)ᵀ` (`zs_gauss_newton`,
//!   `sylipn_gauss_newton`); the control `zs_gauss_newton_exact_third` pairs it with the exact
//!   `V‴`. The properties are measured against the exact Z&S (`zs`): order (log–log slope of the
//!   error in q and v at t = 1, ω = 20), symplecticity defect (one step, ω = 100, h = 0.01) and
//!   reversibility.
//!
//! The stiff Z&Ss of eq 2.8 is the fourth remedy; on this model (linear gravity)
//! it is SyLiPN (`work-precision-omega.stiff_sylipn.h_max.omega<ω>`; `sylipn` here).
//!
//! # Which remedy works
//!
//! **None lifts the Z&S cap by more than ≈ 20 %** (release run, T = 10, grid ratio `2^(1/8)`, so
//! one grid step is 9 %; every failure is the energy guard `Diverged { EnergyRun }`):
//!
//! | remedy | h_max ω = 100 | h_max ω = 1000 |
//! |---|---|---|
//! | Z&S, β = 0.4 (baseline) | 0.0587 | 0.0181 |
//! | (a) β = 0.25 / 0.3 / 0.5 / 1 | 0.0415 / 0.0538 / 0.0587 / 0.0415 | 0.0099 / 0.0166 / 0.0181 / 0.0128 |
//! | (b) distance form, same ω (softer model) | 0.117 | 0.0362 |
//! | (b) distance form, matched stiffness | 0.0698 (+19 %) | 0.0215 (+19 %) |
//! | (c) Gauss–Newton Z&S | 0.0640 (+9 %) | 0.0197 (+9 %) |
//! | SyLiPN (= stiff Z&Ss here) | 0.215 | 0.0939 |
//! | (c) Gauss–Newton SyLiPN | 0.0905 | 0.0304 |
//! | (b) SyLiPN, distance form matched / same ω | 0.215 / 0.279 | 0.0939 / 0.133 |
//!
//! - (a) β = 0.4 (the seed's) is the best β, tied by 0.5; β = 0.3 loses 8 %, β = 1 29 %,
//!   β = 0.25 (the edge of Thm 2.5's `β ≥ ¼`) 29–45 %.
//! - (b) the distance form's 2× at the same ω is the softer model, not a better method: at the
//!   squared form's stiffness it gains 19 % for Z&S and nothing for SyLiPN.
//! - (c) the Gauss–Newton matrix makes `M + βh²G` positive definite, yet Z&S's cap moves by one
//!   grid step: **the indefinite matrix is not what caps Z&S** (the guard trips on the energy
//!   first). It keeps second order (slope 1.89 like the exact Z&S's) and symmetry
//!   (reversibility ≈ 1e-13) but **not symplecticity**: defect 1.5e-2 against 1.4e-10 for the
//!   exact Z&S (`f = −M⁻¹∇U` needs the matrix to be the Hessian of `V`; with `G ≠ ∇²V`
//!   the term `βh²(∇²V − G)a` remains, whatever the third-derivative term — the exact-`V‴`
//!   control has the same 1.4e-2). It also cuts SyLiPN's step by 2.4–3×, so the core does not offer it.
//!
//! The only larger stable step on this problem is SyLiPN's (3.7× Z&S's at ω = 100, 5.2× at
//! ω = 1000), which `zs::advice` recommends.

use super::omega::Cap;
use crate::experiments::Experiment;
use crate::fixtures::penalised_dp::{completes, DistanceForm, GaussNewton};
use crate::measure::{loglog_slope, reversibility_error};
use crate::reference::solve_system;
use crate::report::{figure, sci, Output, Table};
use crate::say;
use macrostep::systems::DoublePendulum;
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Integrator, State};

/// β of every method but the (a) scan (the seed's value, as in the `omega` study).
pub const BETA: f64 = 0.4;

/// A remedy of the cap scan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Remedy {
    /// (a) Z&S, squared distance, this β.
    Beta(f64),
    /// The baseline SyLiPN on the squared distance (β = 0.4).
    Sylipn,
    /// (b) the distance form; `sylipn`: SyLiPN instead of Z&S; `matched`: rod stiffness of the
    /// squared form ([`DistanceForm::paper`]).
    Distance {
        /// SyLiPN instead of Z&S.
        sylipn: bool,
        /// `ωᵢ = 2ωLᵢ` instead of `ω`.
        matched: bool,
    },
    /// (c) the Gauss–Newton matrix; `true`: SyLiPN instead of Z&S.
    GaussNewton(bool),
}

impl Remedy {
    /// The figure key.
    pub fn key(self) -> String {
        match self {
            Remedy::Beta(b) => format!("zs_beta{b}"),
            Remedy::Sylipn => "sylipn".into(),
            Remedy::Distance { sylipn, matched } => format!(
                "{}_distance{}",
                if sylipn { "sylipn" } else { "zs" },
                if matched { "_matched" } else { "" }
            ),
            Remedy::GaussNewton(false) => "zs_gauss_newton".into(),
            Remedy::GaussNewton(true) => "sylipn_gauss_newton".into(),
        }
    }
}

/// One run of a remedy at ω and h: its failure, if any.
pub fn cap_run(remedy: Remedy, omega: f64, h: f64, span: f64) -> Option<String> {
    let p = ZsParams::with_beta(BETA);
    match remedy {
        Remedy::Beta(b) => {
            let pen = DoublePendulum::<f64>::paper().penalised(omega);
            let pen = pen.expect("valid omega");
            completes(ZhangSkeel::new(pen, h, ZsParams::with_beta(b)), span)
        }
        Remedy::Sylipn => {
            let pen = DoublePendulum::<f64>::paper().penalised(omega);
            completes(Sylipn::new(pen.expect("valid omega"), h, p), span)
        }
        Remedy::Distance { sylipn, matched } => {
            let sys = DistanceForm::paper(omega, matched);
            if sylipn {
                completes(Sylipn::new(sys, h, p), span)
            } else {
                completes(ZhangSkeel::new(sys, h, p), span)
            }
        }
        Remedy::GaussNewton(false) => completes(
            ZhangSkeel::new(GaussNewton::paper(omega, false), h, p),
            span,
        ),
        Remedy::GaussNewton(true) => {
            completes(Sylipn::new(GaussNewton::paper(omega, false), h, p), span)
        }
    }
}

/// The largest stable step of a remedy: scans `h = start/ω · ratio^k` up to 1 (as
/// [`super::omega::cap`]); `h_max` is NaN when the first grid step fails.
pub fn cap(remedy: Remedy, omega: f64, setup: &Setup) -> Cap {
    let mut out = Cap {
        method: super::leak(remedy.key()),
        h_max: f64::NAN,
        h_fail: f64::NAN,
        failure: "none up to h = 1".into(),
    };
    let mut h = setup.start_omega_h / omega;
    while h <= 1.0 {
        if let Some(why) = cap_run(remedy, omega, h, setup.span) {
            out.h_fail = h;
            out.failure = why;
            return out;
        }
        out.h_max = h;
        h *= setup.cap_ratio;
    }
    out
}

/// What to run.
pub struct Setup {
    /// The penalty frequencies of the cap scans.
    pub omegas: Vec<f64>,
    /// The β values of remedy (a).
    pub betas: Vec<f64>,
    /// Simulated span of the cap runs.
    pub span: f64,
    /// First grid step, as `ωh`.
    pub start_omega_h: f64,
    /// Grid ratio of the cap scan.
    pub cap_ratio: f64,
    /// Penalty frequency of the property measurements (order, symplecticity, symmetry).
    pub prop_omega: f64,
    /// Penalty frequency of the order measurement: at ω = 100 the fast rod mode (frequency
    /// `≈ 2ωL`) keeps the error out of the asymptotic regime down to `h ≈ 5e-4` (all four
    /// methods alike, slope ≈ 1.3 over `h = 4e-3 … 5e-4`); the seed's ω = 20 is asymptotic.
    pub order_omega: f64,
    /// Steps of the order measurement (span 1, error in q and v at t = 1).
    pub order_hs: Vec<f64>,
    /// Step of the symplecticity and reversibility measurements.
    pub prop_h: f64,
}

impl Setup {
    /// The omega study's scan (T = 10, from ωh = 0.05, ratio `2^(1/8)`) at ω = 100 and 1000.
    pub fn paper() -> Self {
        Self {
            omegas: vec![100.0, 1000.0],
            betas: vec![0.25, 0.3, 0.4, 0.5, 1.0],
            span: 10.0,
            start_omega_h: 0.05,
            cap_ratio: 2f64.powf(0.125),
            prop_omega: 100.0,
            order_omega: 20.0,
            order_hs: vec![0.004, 0.002, 0.001, 0.0005],
            prop_h: 0.01,
        }
    }
    /// CI-sized: the same figure names; T = 1 (so the caps are not the paper's: the Z&S energy
    /// guard trips at t ≈ 7), from ωh = 0.5, ratio 2, three order steps.
    pub fn quick() -> Self {
        Self {
            span: 1.0,
            start_omega_h: 0.5,
            cap_ratio: 2.0,
            order_hs: vec![0.002, 0.001, 0.0005],
            ..Self::paper()
        }
    }
}

impl Setup {
    /// The remedies of the cap scan, in report order ([`remedies`]).
    pub fn remedies(&self) -> Vec<Remedy> {
        remedies(self)
    }
}

/// The remedies of the cap scan, in report order.
pub fn remedies(setup: &Setup) -> Vec<Remedy> {
    let mut out: Vec<Remedy> = setup.betas.iter().map(|&b| Remedy::Beta(b)).collect();
    out.push(Remedy::Sylipn);
    for matched in [false, true] {
        for sylipn in [false, true] {
            out.push(Remedy::Distance { sylipn, matched });
        }
    }
    out.extend([Remedy::GaussNewton(false), Remedy::GaussNewton(true)]);
    out
}

/// The measured properties of one method on the penalised double pendulum at `prop_omega`.
#[derive(Clone, Debug)]
pub struct Props {
    /// Method key: `zs` (the exact Z&S, control), `zs_gauss_newton`, `sylipn_gauss_newton`,
    /// `zs_gauss_newton_exact_third` (control).
    pub key: &'static str,
    /// Errors at t = 1 per order step (max over q and v, vs DOP853 at 1e-13).
    pub errors: Vec<f64>,
    /// Log–log slope of the errors.
    pub order: f64,
    /// Symplecticity defect of one step at `prop_h` from the trajectory at t = 2 (Richardson
    /// central differences, ε = 1e-4, as `zs-symplectic`).
    pub symplectic_defect: f64,
    /// `max |Φ₋ₕ(Φₕ(s)) − s|`, 10 steps of `prop_h` (guards off).
    pub reversibility: f64,
}

/// Measures [`Props`] of the integrator `make(h)`.
fn props<I: Integrator<f64, 4>>(
    key: &'static str,
    make: impl Fn(f64, f64) -> I,
    setup: &Setup,
) -> Props {
    use super::super::zs::symplectic::richardson_defect;
    use crate::measure::{from_phase, to_phase};
    let pen = DoublePendulum::<f64>::paper().penalised(setup.prop_omega);
    let pen = pen.expect("valid omega");
    let s0 = DoublePendulum::<f64>::paper().initial_state();
    let slow = DoublePendulum::<f64>::paper().penalised(setup.order_omega);
    let exact = solve_system(&slow.expect("valid omega"), &s0, &[1.0], 1e-13, 1e-13)[0];
    let errors: Vec<f64> = setup
        .order_hs
        .iter()
        .map(|&h| {
            let mut s = s0;
            match make(setup.order_omega, h).integrate(&mut s, (1.0 / h).round() as usize) {
                Ok(()) => (s.q - exact.q).amax().max((s.v - exact.v).amax()),
                Err(_) => f64::NAN,
            }
        })
        .collect();
    let order = loglog_slope(&setup.order_hs, &errors);
    // The base point: the exact Z&S at h = 0.01 to t = 2.
    let mut x = s0;
    let base = ZhangSkeel::new(pen, 0.01, ZsParams::with_beta(BETA)).expect("valid");
    let ok = { base }.integrate(&mut x, 200).is_ok();
    let mass = pen.mass;
    let mut integ = make(setup.prop_omega, setup.prop_h);
    let symplectic_defect = if ok {
        richardson_defect(
            |y| {
                let mut s: State<f64, 4> = from_phase(y, &mass, x.t);
                match integ.step(&mut s) {
                    Ok(()) => to_phase(&s, &mass),
                    Err(_) => y * f64::NAN,
                }
            },
            &to_phase(&x, &mass),
            1e-4,
        )
    } else {
        f64::NAN
    };
    let reversibility = reversibility_error(&mut make(setup.prop_omega, setup.prop_h), &x, 10);
    Props {
        key,
        errors,
        order,
        symplectic_defect,
        reversibility,
    }
}

/// What the experiment measured.
pub struct Results {
    /// Per ω (outer) and remedy (inner, [`remedies`] order).
    pub caps: Vec<(f64, Vec<Cap>)>,
    /// The Gauss–Newton methods' properties, with the exact Z&S and the non-variational
    /// GN control.
    pub props: Vec<Props>,
}

/// Runs the scans and the property measurements.
pub fn compute(setup: &Setup) -> Results {
    let caps = setup
        .omegas
        .iter()
        .map(|&w| {
            (
                w,
                remedies(setup)
                    .into_iter()
                    .map(|r| cap(r, w, setup))
                    .collect(),
            )
        })
        .collect();
    let p = ZsParams::with_beta(BETA);
    let pen = |w: f64| {
        DoublePendulum::<f64>::paper()
            .penalised(w)
            .expect("valid omega")
    };
    let props = vec![
        props(
            "zs",
            |w, h| ZhangSkeel::new(pen(w), h, p).expect("valid"),
            setup,
        ),
        props(
            "zs_gauss_newton",
            |w, h| ZhangSkeel::new(GaussNewton::paper(w, false), h, p).expect("valid"),
            setup,
        ),
        props(
            "sylipn_gauss_newton",
            |w, h| Sylipn::new(GaussNewton::paper(w, false), h, p).expect("valid"),
            setup,
        ),
        props(
            "zs_gauss_newton_exact_third",
            |w, h| ZhangSkeel::new(GaussNewton::paper(w, true), h, p).expect("valid"),
            setup,
        ),
    ];
    Results { caps, props }
}

/// Prints the tables and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    say!(
        out,
        "Z&S stability-cap remedies, penalised double pendulum (000 §4.1), guards on"
    );
    let t = Table::new(
        out,
        &["omega", "remedy", "h_max", "omega*h_max", "first failure"],
    );
    for (w, caps) in &r.caps {
        for c in caps {
            t.row(&[
                format!("{w}"),
                c.method.into(),
                sci(c.h_max),
                format!("{:.2}", w * c.h_max),
                if c.h_fail.is_nan() {
                    c.failure.clone()
                } else {
                    format!("h = {}: {}", sci(c.h_fail), c.failure)
                },
            ]);
        }
    }
    for (w, caps) in &r.caps {
        for c in caps {
            figure(
                &format!("work-precision-remedies.{}.h_max.omega{w}", c.method),
                c.h_max,
            );
        }
    }
    say!(out, "\nproperties (order: ω = 20, error in q, v at t = 1 vs DOP853; defect, reversibility: ω = 100, h = 0.01, from t = 2)");
    let t = Table::new(
        out,
        &[
            "method",
            "errors",
            "order",
            "symplectic defect",
            "reversibility",
        ],
    );
    for p in &r.props {
        let errs: Vec<String> = p.errors.iter().map(|&e| sci(e)).collect();
        t.row(&[
            p.key.into(),
            errs.join(" "),
            format!("{:.3}", p.order),
            sci(p.symplectic_defect),
            sci(p.reversibility),
        ]);
    }
    for p in &r.props {
        let k = p.key;
        figure(&format!("work-precision-remedies.{k}.order"), p.order);
        figure(
            &format!("work-precision-remedies.{k}.symplectic_defect"),
            p.symplectic_defect,
        );
        figure(
            &format!("work-precision-remedies.{k}.reversibility"),
            p.reversibility,
        );
    }
}

/// `reproduce work-precision-remedies` (`--quick`: the reduced setup).
pub struct WorkPrecisionRemediesExperiment;

impl Experiment for WorkPrecisionRemediesExperiment {
    const NAME: &'static str = "work-precision-remedies";
    const SEED: &'static str = "000 §4.1, eq 1.2–1.3; 002 §5";
    const SECONDS: f64 = 10.0;
    const ABOUT: &'static str = "Z&S stability-cap remedies on the penalised double pendulum: β, distance form, Gauss–Newton matrix (h_max at ω = 100, 1000; order, symplecticity, symmetry)";
    type Setup = Setup;
    type Results = Results;

    fn paper() -> Setup {
        Setup::paper()
    }

    fn quick() -> Setup {
        Setup::quick()
    }

    fn compute(setup: &Setup) -> Results {
        compute(setup)
    }

    fn report(results: &Results, out: &Output) {
        report(results, out);
    }
}
