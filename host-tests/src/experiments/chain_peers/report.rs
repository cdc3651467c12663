//! The tables, figures and charts of `reproduce chain-peers`.

use super::{Results, Size, MODEL_TOL};
#[cfg(test)]
use crate::experiments::peers::report::Entry;
use crate::experiments::peers::report::{self, Layout};
use crate::plot::Chart;
use crate::report::{figure, sci, Output};
use crate::say;

/// The penalty methods' keys, Z&Ss (the base of the `÷` column) first.
const PENALTY_KEYS: [&str; 2] = ["sylipn", "zs"];

/// Every method's entry at every target of one size: penalty methods, rigid methods and peers,
/// MuJoCo's integrators.
#[cfg(test)]
pub fn entries(s: &Size, targets: &[f64]) -> Vec<Entry> {
    report::entries(&s.comparison.compared(targets), PENALTY_KEYS)
}

/// One size: references, right-hand sides, ω choice, the table and the figures. Every figure
/// that depends on the span is named `chain-peers.span<T>.n<n>.…` (the right-hand-side costs,
/// which do not, `chain-peers.n<n>.rhs_ns.…`).
fn report_size(s: &Size, targets: &[f64], span: f64, out: &Output) {
    let n = s.n;
    say!(out, "\n== chain of {n} pendula ==");
    say!(
        out,
        "references: O(n) articulated body (1e-13) vs O(n³) LU (1e-12) differ by {}",
        sci(s.reference_agreement)
    );
    let prefix = format!("chain-peers.span{span}.n{n}");
    figure(
        &format!("{prefix}.reference_agreement"),
        s.reference_agreement,
    );
    report::model_tol_check(&prefix, &s.model_tol_check, MODEL_TOL, out);
    let [aba, lu] = s.rhs_ns;
    say!(
        out,
        "one right-hand side (thread CPU): articulated body {aba:.0} ns, LU {lu:.0} ns ({:.1}×)",
        lu / aba
    );
    figure(&format!("chain-peers.n{n}.rhs_ns.aba"), aba);
    figure(&format!("chain-peers.n{n}.rhs_ns.lu"), lu);
    let layout = Layout {
        prefix,
        penalty_keys: PENALTY_KEYS,
        base_header: "÷ Z&Ss",
        cost_header: "s per unit t",
        cost_scale: 1.0,
        cost_figure: "cpu",
        speedups: true,
    };
    let chart = Chart {
        stem: format!("chain-peers.n{n}"),
        title: format!("chain of {n} pendula: error vs rigid, T = {span}"),
        x_label: "thread CPU time per unit simulated time [s/s] (median)".into(),
        y_label: "max |q − q_rigid| over the outputs".into(),
        log_x: true,
        log_y: true,
        series: Vec::new(),
    };
    report::report(&s.comparison.compared(targets), &layout, chart, out);
}

/// Prints everything.
pub fn report(r: &Results, out: &Output) {
    say!(
        out,
        "chain of n unit pendula, horizontal at rest, g = 1, T = {}: cost = median thread CPU \
         seconds per unit simulated time at the coarsest setting meeting each target",
        r.span
    );
    for s in &r.sizes {
        report_size(s, &r.targets, r.span, out);
    }
}
