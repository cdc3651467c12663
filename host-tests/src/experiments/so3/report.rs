//! The table and `figure` lines of `reproduce so3`, read from [`Results`] (the charts are in
//! `charts`).

use super::{charts, compute, Results, Setup, So3Experiment};
use crate::experiments::Experiment;
use crate::report::{figure, sci, Output, Table};
use crate::say;

/// Prints the table and the figure lines.
pub fn report(r: &Results, out: &Output) {
    let t = Table::new(
        out,
        &["method (h=0.1)", "max|R-Rref|", "max|dE|", "max|RtR-I|"],
    );
    for (name, e) in [
        ("Z&S trapezoidal", r.zs),
        ("Z&S first order", r.zs1),
        ("Z&S trap. f32", r.zs_f32),
        ("Cayley bench.", r.cayley),
    ] {
        t.row(&[
            name.into(),
            sci(e.max_err_r),
            sci(e.max_energy_err),
            sci(e.max_orth_err),
        ]);
    }
    say!(out);
    say!(
        out,
        "orders: Z&S first-order {:.3}, trapezoidal {:.3}, benchmark {:.3}",
        r.order_zs1,
        r.order_zs2,
        r.order_cayley
    );
    say!(
        out,
        "symplecticity defect (10 steps, R^18 canonical): trapezoidal {}, first order {}",
        sci(r.defect_zs2),
        sci(r.defect_zs1)
    );
    say!(
        out,
        "{} steps of h = 0.1: max|dE| {}, max|RtR-I| {}",
        r.long_steps,
        sci(r.long_energy_err),
        sci(r.long_orth_err)
    );
    say!(
        out,
        "equal error {} (Z&S at h = 0.1): benchmark h = {} (interpolated); seconds per unit time: benchmark {}, Z&S {}, benchmark at h = 0.1 {}",
        sci(r.err_equal),
        sci(r.h_equal),
        sci(r.cost_cayley),
        sci(r.cost_zs),
        sci(r.cost_cayley_same_h)
    );
    for (h, e) in &r.grid {
        say!(out, "benchmark h = {} max|R-Rref| = {}", sci(*h), sci(*e));
    }
    let ratio = r.cost_cayley / r.cost_zs;
    let comparable = r.zs.max_err_r <= 3.0 * r.cayley.max_err_r;
    say!(
        out,
        "paper's claim (Z&S at h = 0.1 comparable in accuracy to the benchmark at h = 0.1, at a fraction of its cost): accuracy {} (Z&S/benchmark error {:.2}), cost ratio at equal error {:.1}, at equal step {:.1} -> {}",
        if comparable { "comparable" } else { "not comparable" },
        r.zs.max_err_r / r.cayley.max_err_r,
        ratio,
        r.cost_cayley_same_h / r.cost_zs,
        if comparable && ratio > 1.0 { "holds" } else { "does not hold" }
    );
    figures(r, ratio);
    charts::orders(r, out);
    charts::fig10(r, out);
}

/// The `figure` lines; `ratio` is the cost ratio at equal error.
fn figures(r: &Results, ratio: f64) {
    for (prefix, e) in [
        ("so3.zs", r.zs),
        ("so3.zs1", r.zs1),
        ("so3.zs_f32", r.zs_f32),
        ("so3.cayley", r.cayley),
    ] {
        figure(&format!("{prefix}.max_err_R"), e.max_err_r);
        figure(&format!("{prefix}.max_energy_err"), e.max_energy_err);
        figure(&format!("{prefix}.max_orth_err"), e.max_orth_err);
    }
    figure("so3.zs.f32_vs_f64", r.f32_vs_f64);
    figure("so3.zs.order", r.order_zs2);
    figure("so3.zs1.order", r.order_zs1);
    figure("so3.zs2.order", r.order_zs2);
    figure("so3.cayley.order", r.order_cayley);
    figure("so3.zs.symplectic_defect", r.defect_zs2);
    figure("so3.zs1.symplectic_defect", r.defect_zs1);
    figure("so3.zs.long_max_energy_err", r.long_energy_err);
    figure("so3.zs.long_max_orth_err", r.long_orth_err);
    figure("so3.cayley.h_equal_error", r.h_equal);
    figure("so3.cost_ratio", ratio);
    figure(
        "so3.cost_ratio_equal_step",
        r.cost_cayley_same_h / r.cost_zs,
    );
}

impl Experiment for So3Experiment {
    const NAME: &'static str = "so3";
    const SEED: &'static str = "000 §4.5 Figs 9–10";
    const SECONDS: f64 = 20.0;
    const ABOUT: &'static str =
        "000 §4.5 Figs 9–10: linearised Z&S on SO(3) vs the Cayley benchmark, orders, cost";
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
