//! `reproduce zs-order` (000 Cor 2.8, Rem 2.11): second order of Z&S, Z&Ss and the stiff Z&Ss,
//! fourth order of the triple-jump composition of Z&S, on Hénon–Heiles.

use super::{hh, hh_split, hh_start};
use crate::experiments::Experiment;
use crate::measure::loglog_slope;
use crate::reference::solve_system;
use crate::report::{figure, sci, Output, Table};
use macrostep::compose::{Scheme, SymmetricComposition};
use macrostep::zs::{StiffSylipn, Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Integrator, State};

/// Error at `t_end` of `make(h)` against `reference` (max norm over q and v), for each `h`.
fn errors<I: Integrator<f64, 2>>(
    make: impl Fn(f64) -> I,
    s0: State<f64, 2>,
    t_end: f64,
    hs: &[f64],
    reference: &State<f64, 2>,
) -> Vec<f64> {
    hs.iter()
        .map(|&h| {
            let mut integ = make(h);
            let mut s = s0;
            let n = (t_end / h).round() as usize;
            integ.integrate(&mut s, n).expect("stable run");
            (s.q - reference.q).amax().max((s.v - reference.v).amax())
        })
        .collect()
}

/// What to run.
pub struct Setup {
    /// Final time.
    pub t_end: f64,
    /// Steps of Z&S, Z&Ss and the composition.
    pub hs: Vec<f64>,
    /// Steps of the stiff Z&Ss (on the stiffer split system).
    pub hs_stiff: Vec<f64>,
}

impl Setup {
    /// T = 2, h = 0.2 … 0.0125 (stiff: 0.01 … 6.25·10⁻⁴).
    pub fn paper() -> Self {
        Self {
            t_end: 2.0,
            hs: vec![0.2, 0.1, 0.05, 0.025, 0.0125],
            hs_stiff: vec![0.01, 0.005, 0.0025, 0.00125, 0.000625],
        }
    }

    /// As [`Setup::paper`]: the experiment takes about a second, so `--quick` runs it unchanged.
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// What the experiment measured: the errors per step of each method.
pub struct Results {
    /// Final time.
    pub t_end: f64,
    /// The steps.
    pub hs: Vec<f64>,
    /// The steps of the stiff Z&Ss.
    pub hs_stiff: Vec<f64>,
    /// Z&S.
    pub zs: Vec<f64>,
    /// Z&Ss.
    pub zss: Vec<f64>,
    /// The stiff Z&Ss.
    pub zss_stiff: Vec<f64>,
    /// The triple-jump composition of Z&S.
    pub zs4: Vec<f64>,
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let p = ZsParams::with_beta(0.4);
    let (t_end, hs, hs_stiff) = (setup.t_end, &setup.hs, &setup.hs_stiff);
    let s0 = hh_start();
    let reference_hh = solve_system(&hh(), &s0, &[t_end], 1e-13, 1e-13)[0];
    let reference_split = solve_system(&hh_split(), &s0, &[t_end], 1e-13, 1e-13)[0];
    let zs4 = |h| {
        SymmetricComposition::new(
            ZhangSkeel::new(hh(), h, p).expect("valid"),
            Scheme::TripleJump,
        )
        .expect("valid")
    };
    Results {
        zs: errors(
            |h| ZhangSkeel::new(hh(), h, p).expect("valid"),
            s0,
            t_end,
            hs,
            &reference_hh,
        ),
        zss: errors(
            |h| Sylipn::new(hh(), h, p).expect("valid"),
            s0,
            t_end,
            hs,
            &reference_hh,
        ),
        zss_stiff: errors(
            |h| StiffSylipn::new(hh_split(), h, p).expect("valid"),
            s0,
            t_end,
            hs_stiff,
            &reference_split,
        ),
        zs4: errors(zs4, s0, t_end, hs, &reference_hh),
        hs: hs.clone(),
        hs_stiff: hs_stiff.clone(),
        t_end,
    }
}

/// Prints the table and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    let t = Table::new(
        out,
        &["h", "zs", "zss", "zs4 (3-jump)", "h_stiff", "zss_stiff"],
    );
    for k in 0..r.hs.len() {
        t.row(&[
            sci(r.hs[k]),
            sci(r.zs[k]),
            sci(r.zss[k]),
            sci(r.zs4[k]),
            sci(r.hs_stiff[k]),
            sci(r.zss_stiff[k]),
        ]);
    }
    figure("zs-order.zs.slope", loglog_slope(&r.hs, &r.zs));
    figure("zs-order.zss.slope", loglog_slope(&r.hs, &r.zss));
    figure(
        "zs-order.zss_stiff.slope",
        loglog_slope(&r.hs_stiff, &r.zss_stiff),
    );
    figure("zs-order.zs4.slope", loglog_slope(&r.hs, &r.zs4));
    chart(r, out);
}

/// The errors against h, log–log (`--plot`, `--csv`); the legend gives each fitted slope.
fn chart(r: &Results, out: &Output) {
    let curve = |name: &str, hs: &[f64], errs: &[f64]| crate::plot::Series {
        label: format!("{name} (fitted slope {:.2})", loglog_slope(hs, errs)),
        points: hs.iter().copied().zip(errs.iter().copied()).collect(),
    };
    crate::plot::emit(
        out,
        &crate::plot::Chart {
            stem: "zs-order.error_vs_h".into(),
            title: "000 Cor 2.8, Rem 2.11: order of the Z&S family on Hénon–Heiles (β = 0.4)"
                .into(),
            x_label: "step h (log scale)".into(),
            y_label: format!(
                "max-norm error in (q, v) at T = {} against DOP853 (log scale)",
                r.t_end
            ),
            log_x: true,
            log_y: true,
            series: vec![
                curve("Z&S", &r.hs, &r.zs),
                curve("Z&Ss (SyLiPN), on top of Z&S at this scale", &r.hs, &r.zss),
                curve("Z&S composed by the triple jump", &r.hs, &r.zs4),
                curve(
                    "stiff Z&Ss (stiffer split system)",
                    &r.hs_stiff,
                    &r.zss_stiff,
                ),
            ],
        },
    );
}

/// `reproduce zs-order`.
pub struct ZsOrderExperiment;

impl Experiment for ZsOrderExperiment {
    const NAME: &'static str = "zs-order";
    const SEED: &'static str = "000 Cor 2.8, Rem 2.11";
    const SECONDS: f64 = 0.1;
    const ABOUT: &'static str =
        "000 Cor 2.8, Rem 2.11: order of Z&S, Z&Ss, stiff Z&Ss, composed Z&S";
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
