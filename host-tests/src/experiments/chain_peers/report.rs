//! The tables, figures and charts of `reproduce chain-peers`.

use super::{mujoco, Results, Size};
use crate::experiments::work_precision::search::Curve;
use crate::experiments::work_precision::tag;
use crate::plot::{self, Chart, Series};
use crate::report::{figure, sci, Output, Table};
use crate::say;

/// One method's found setting at one target.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Method key in figure names.
    pub key: String,
    /// Target error.
    pub target: f64,
    /// Parameter name (`h`, `tol`, `dt`).
    pub param_name: &'static str,
    /// The found parameter, its error and cost (`None`: not reached).
    pub found: Option<(f64, f64, f64)>,
    /// The penalty ω, for penalty methods.
    pub omega: Option<f64>,
}

/// The entry of curve `c` at its `k`-th target `target`.
pub fn from_curve(c: &Curve, k: usize, target: f64, omega: Option<f64>) -> Entry {
    Entry {
        key: c.key.to_string(),
        target,
        param_name: c.param_name,
        found: c.found[k].as_ref().map(|f| (f.p, f.err, f.cost)),
        omega,
    }
}

/// Every method's entry at every target of one size: penalty methods, rigid methods and peers,
/// MuJoCo's integrators.
pub fn entries(s: &Size, targets: &[f64]) -> Vec<Entry> {
    let mut out = Vec::new();
    for (k, &e) in targets.iter().enumerate() {
        let pen = s.penalty.iter().find(|p| p.target == e);
        for key in ["sylipn", "zs"] {
            let curve = pen
                .and_then(|p| p.study.as_ref())
                .and_then(|st| st.curves.iter().find(|c| c.key == key));
            out.push(match curve {
                Some(c) => from_curve(c, 0, e, pen.and_then(|p| p.omega)),
                None => Entry {
                    key: key.into(),
                    target: e,
                    param_name: "h",
                    found: None,
                    omega: None,
                },
            });
        }
        for c in &s.rigid.curves {
            out.push(from_curve(c, k, e, None));
        }
        if let Ok(points) = &s.mujoco {
            for (name, p) in mujoco::found(points, e) {
                out.push(Entry {
                    key: format!("mujoco_{name}"),
                    target: e,
                    param_name: "dt",
                    found: p.map(|p| (p.dt, p.err, p.cost)),
                    omega: None,
                });
            }
        }
    }
    out
}

/// The chart of one size: error against CPU time, every sweep point that ran.
fn chart(s: &Size, span: f64, out: &Output) {
    let mut series = Vec::new();
    let mut add = |label: String, pts: Vec<(f64, f64)>| series.push(Series::new(label, pts));
    let ok = |c: &Curve| -> Vec<(f64, f64)> {
        c.points
            .iter()
            .filter(|p| p.failure.is_none())
            .map(|p| (p.cost, p.err))
            .collect()
    };
    for p in &s.penalty {
        if let Some(st) = &p.study {
            for c in &st.curves {
                add(format!("{} (for {})", c.label, tag(p.target)), ok(c));
            }
        }
    }
    for c in &s.rigid.curves {
        add(c.label.to_string(), ok(c));
    }
    if let Ok(points) = &s.mujoco {
        let mut names: Vec<&str> = points.iter().map(|p| p.integrator.as_str()).collect();
        names.dedup();
        for name in names {
            let pts = points
                .iter()
                .filter(|p| p.integrator == name && p.err.is_finite())
                .map(|p| (p.cost, p.err))
                .collect();
            add(format!("MuJoCo {name} (Python)"), pts);
        }
    }
    plot::emit(
        out,
        &Chart {
            stem: format!("chain-peers.n{}", s.n),
            title: format!("chain of {} pendula: error vs rigid, T = {span}", s.n),
            x_label: "thread CPU time per unit simulated time [s/s] (median)".into(),
            y_label: "max |q − q_rigid| over the outputs".into(),
            log_x: true,
            log_y: true,
            series,
        },
    );
}

/// One size: references, right-hand sides, ω choice, the table and the figures. Every figure
/// that depends on the span is named `chain-peers.span<T>.n<n>.…` (the right-hand-side costs,
/// which do not, `chain-peers.n<n>.rhs_ns.…`).
fn report_size(s: &Size, targets: &[f64], span: f64, out: &Output) {
    let n = s.n;
    let at = format!("chain-peers.span{span}.n{n}");
    say!(out, "\n== chain of {n} pendula ==");
    say!(
        out,
        "references: O(n) articulated body (1e-13) vs O(n³) LU (1e-12) differ by {}",
        sci(s.reference_agreement)
    );
    figure(&format!("{at}.reference_agreement"), s.reference_agreement);
    let [aba, lu] = s.rhs_ns;
    say!(
        out,
        "one right-hand side (thread CPU): articulated body {aba:.0} ns, LU {lu:.0} ns ({:.1}×)",
        lu / aba
    );
    figure(&format!("chain-peers.n{n}.rhs_ns.aba"), aba);
    figure(&format!("chain-peers.n{n}.rhs_ns.lu"), lu);
    for p in &s.penalty {
        let e = tag(p.target);
        match p.omega {
            Some(w) => say!(
                out,
                "target {e}: penalty ω = {w}, model error {}",
                sci(p.model_err)
            ),
            None => say!(
                out,
                "target {e}: no ω of the list has model error ≤ margin × target (largest: {})",
                sci(p.model_err)
            ),
        }
        figure(&format!("{at}.omega_at_{e}"), p.omega.unwrap_or(f64::NAN));
        figure(&format!("{at}.model_err_at_{e}"), p.model_err);
    }
    if let Err(why) = &s.mujoco {
        say!(out, "{why}");
    }
    let list = entries(s, targets);
    let t = Table::new(
        out,
        &[
            "method",
            "target",
            "ω",
            "param",
            "error",
            "s per unit t",
            "÷ Z&Ss",
        ],
    );
    for en in &list {
        let e = tag(en.target);
        let base = list
            .iter()
            .find(|x| x.key == "sylipn" && x.target == en.target)
            .and_then(|x| x.found)
            .map_or(f64::NAN, |f| f.2);
        let (p, err, cost) = en.found.unwrap_or((f64::NAN, f64::NAN, f64::NAN));
        t.row(&[
            en.key.clone(),
            e.clone(),
            en.omega.map_or("-".into(), |w| format!("{w}")),
            if en.found.is_some() {
                format!("{} = {}", en.param_name, sci(p))
            } else {
                "not reached".into()
            },
            sci(err),
            sci(cost),
            format!("{:.2}", cost / base),
        ]);
        figure(&format!("{at}.{}.cpu_at_{e}", en.key), cost);
        figure(&format!("{at}.{}.{}_at_{e}", en.key, en.param_name), p);
        if en.key != "sylipn" {
            figure(
                &format!("{at}.{}_over_sylipn.speedup_at_equal_error_{e}", en.key),
                cost / base,
            );
        }
    }
    chart(s, span, out);
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
