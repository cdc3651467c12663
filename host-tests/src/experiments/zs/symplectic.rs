//! `reproduce zs-symplectic` (000 Thm 2.12, Thm 2.4, Rem 2.14): symplecticity defects of Z&S and
//! Z&Ss on a 1-DOF pendulum, Hénon–Heiles and the penalised double pendulum.

use super::{dp_penalised, dp_start, hh, hh_start};
use crate::experiments::Experiment;
use crate::fixtures::PendulumPotential;
use crate::measure::integrator_defect;
use crate::report::{figure, sci, Output, Table};
use macrostep::model::{Mass, System};
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Integrator, State};
use nalgebra::{vector, DVector};

/// Symplecticity defect `max|DΦᵀJDΦ − J|` with the Jacobian from Richardson-extrapolated
/// central differences, `(4 D(ε) − D(2ε))/3`: the stiff penalty gives the map large second
/// derivatives, so plain central differences carry an `O(ε²)` error above 1e-9 (see the table).
pub fn richardson_defect(
    mut f: impl FnMut(&DVector<f64>) -> DVector<f64>,
    x: &DVector<f64>,
    eps: f64,
) -> f64 {
    use crate::measure::{canonical_j, jacobian};
    let j1 = jacobian(&mut f, x, eps);
    let j2 = jacobian(&mut f, x, 2.0 * eps);
    let d = (j1 * 4.0 - j2) / 3.0;
    let j = canonical_j(x.len() / 2);
    (d.transpose() * &j * &d - j).amax()
}

/// Symplecticity defects of `steps` steps on the penalised double pendulum (ω = 20, h = 0.1,
/// β = 0.4) at a point of the trajectory (t = 2): plain central differences with step `eps`
/// when `richardson` is false, extrapolated ones otherwise. Returns (Z&S, Z&Ss).
pub fn dp_defects(steps: usize, eps: f64, richardson: bool) -> (f64, f64) {
    use crate::measure::{from_phase, symplecticity_defect, to_phase};
    let sys = dp_penalised(20.0);
    let p = ZsParams::with_beta(0.4);
    let mut s0 = dp_start();
    ZhangSkeel::new(sys, 0.1, p)
        .expect("valid")
        .integrate(&mut s0, 20)
        .expect("stable");
    let m = Mass::identity();
    let x0 = to_phase(&s0, &m);
    let mut zs = ZhangSkeel::new(sys, 0.1, p).expect("valid");
    let mut zss = Sylipn::new(sys, 0.1, p).expect("valid");
    let mut run = |x: &DVector<f64>, full: bool| {
        let mut s = from_phase(x, &m, s0.t);
        for _ in 0..steps {
            if full {
                zs.step(&mut s).expect("step");
            } else {
                zss.step(&mut s).expect("step");
            }
        }
        to_phase(&s, &m)
    };
    if richardson {
        (
            richardson_defect(|x| run(x, true), &x0, eps),
            richardson_defect(|x| run(x, false), &x0, eps),
        )
    } else {
        (
            symplecticity_defect(|x| run(x, true), &x0, eps),
            symplecticity_defect(|x| run(x, false), &x0, eps),
        )
    }
}

/// One row of the double-pendulum table: steps, finite-difference ε, Richardson?, defects of
/// Z&S and Z&Ss.
pub type DpRow = (usize, f64, bool, f64, f64);

/// What the experiment measured.
pub struct Results {
    /// Z&Ss on the 1-DOF pendulum `V = −cos q`, h = 0.1, 10 steps.
    pub zss_pendulum: f64,
    /// Z&S and Z&Ss on Hénon–Heiles, h = 0.1, 10 steps.
    pub henon_heiles: (f64, f64),
    /// The double pendulum over steps × ε × Richardson.
    pub double_pendulum: Vec<DpRow>,
}

/// The sweep of the double-pendulum measurement: step counts and finite-difference steps (each
/// with and without Richardson extrapolation). The other two measurements are single points.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Numbers of steps composed before the Jacobian is taken.
    pub steps: Vec<usize>,
    /// Central-difference steps `ε`.
    pub eps: Vec<f64>,
}

impl Setup {
    /// 1 and 10 steps, `ε = 10⁻⁴, 10⁻⁵, 10⁻⁶`.
    pub fn paper() -> Self {
        Self {
            steps: vec![1, 10],
            eps: vec![1e-4, 1e-5, 1e-6],
        }
    }

    /// As [`Setup::paper`]: the experiment takes well under a second.
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let p = ZsParams::with_beta(0.4);
    let pend = System::new(Mass::identity(), PendulumPotential::new(1.0));
    let s1 = State::new(0.0, vector![1.0], vector![0.3]);
    let mut zss_pend = Sylipn::new(pend, 0.1, p).expect("valid");
    let zss_pendulum = integrator_defect(&mut zss_pend, &Mass::identity(), &s1, 10, 1e-5);
    let s0 = hh_start();
    let mut zs = ZhangSkeel::new(hh(), 0.1, p).expect("valid");
    let mut zss = Sylipn::new(hh(), 0.1, p).expect("valid");
    let henon_heiles = (
        integrator_defect(&mut zs, &Mass::identity(), &s0, 10, 1e-5),
        integrator_defect(&mut zss, &Mass::identity(), &s0, 10, 1e-5),
    );
    let mut double_pendulum = vec![];
    for &steps in &setup.steps {
        for &eps in &setup.eps {
            for rich in [false, true] {
                let (a, b) = dp_defects(steps, eps, rich);
                double_pendulum.push((steps, eps, rich, a, b));
            }
        }
    }
    Results {
        zss_pendulum,
        henon_heiles,
        double_pendulum,
    }
}

/// Prints the tables and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    let d = r.zss_pendulum;
    crate::say!(
        out,
        "Z&Ss on the 1-DOF pendulum V = -cos q, h = 0.1, 10 steps: defect {d:.3e}"
    );
    figure("zs-symplectic.zss.oscillator_1d", d);
    let (zs, zss) = r.henon_heiles;
    crate::say!(
        out,
        "Henon-Heiles, h = 0.1, 10 steps: Z&S defect {zs:.3e}, Z&Ss defect {zss:.3e}"
    );
    figure("zs-symplectic.zs.henon_heiles", zs);
    figure("zs-symplectic.zss.henon_heiles", zss);
    let t = Table::new(out, &["steps", "fd eps", "Richardson", "Z&S", "Z&Ss"]);
    for &(steps, eps, rich, a, b) in &r.double_pendulum {
        t.row(&[
            format!("{steps}"),
            sci(eps),
            format!("{rich}"),
            sci(a),
            sci(b),
        ]);
    }
    let &(_, _, _, zs, zss) = r
        .double_pendulum
        .iter()
        .find(|row| row.0 == 1 && row.1 == 1e-4 && row.2)
        .expect("one step, eps = 1e-4, Richardson");
    crate::say!(out, "penalised double pendulum (omega = 20, h = 0.1, beta = 0.4), one step, Richardson eps = 1e-4: Z&S {zs:.3e}, Z&Ss {zss:.3e}");
    figure("zs-symplectic.zs.double_pendulum", zs);
    figure("zs-symplectic.zss.double_pendulum", zss);
}

/// `reproduce zs-symplectic`.
pub struct ZsSymplecticExperiment;

impl Experiment for ZsSymplecticExperiment {
    const NAME: &'static str = "zs-symplectic";
    const SEED: &'static str = "000 Thm 2.12, 2.4, Rem 2.14";
    const SECONDS: f64 = 0.0;
    const ABOUT: &'static str = "000 Thm 2.12, 2.4, Rem 2.14: symplecticity defects";
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
