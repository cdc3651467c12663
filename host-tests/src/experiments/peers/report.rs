//! One peer comparison's report: the penalty ω per target, the table of every method and peer
//! at every target, its figures and the work–precision chart.

use super::mujoco::{self, MjPoint};
use super::Penalty;
use crate::experiments::work_precision::search::{Curve, Study};
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
    /// The finest parameter searched (`None`: no sweep ran): where a target not reached was
    /// given up.
    pub finest: Option<f64>,
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
        finest: c.points.iter().map(|p| p.p).reduce(f64::min),
        omega,
    }
}

/// What one comparison measured: the penalty methods per target, the rigid-model methods and
/// peers (every target), MuJoCo's sweep.
pub struct Compared<'a> {
    /// Targets, loosest first.
    pub targets: &'a [f64],
    /// The penalty methods, per target.
    pub penalty: &'a [Penalty],
    /// The rigid-model (exact-joint) methods and peers.
    pub rigid: &'a Study,
    /// MuJoCo's sweep, or why it did not run.
    pub mujoco: &'a Result<Vec<MjPoint>, String>,
}

/// How one comparison is printed.
pub struct Layout {
    /// Figure name prefix (`arm-peers`, `chain-peers.span3.n5`).
    pub prefix: String,
    /// The two penalty methods' keys, the first the base of the `÷` column.
    pub penalty_keys: [&'static str; 2],
    /// The `÷` column's header.
    pub base_header: &'static str,
    /// The cost column's header.
    pub cost_header: &'static str,
    /// Cost unit per second of thread CPU per simulated second (1e6 for µs).
    pub cost_scale: f64,
    /// The cost figure's name (`<prefix>.<method>.<cost_figure>_at_<target>`).
    pub cost_figure: &'static str,
    /// Publish `<prefix>.<method>_over_<base>.speedup_at_equal_error_<target>`.
    pub speedups: bool,
}

/// Every method's entry at every target: penalty methods (in `penalty_keys` order), rigid-model
/// methods and peers, MuJoCo's integrators.
pub fn entries(c: &Compared<'_>, penalty_keys: [&'static str; 2]) -> Vec<Entry> {
    let mut out = Vec::new();
    for (k, &e) in c.targets.iter().enumerate() {
        let pen = c.penalty.iter().find(|p| p.target == e);
        for key in penalty_keys {
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
                    finest: None,
                    omega: None,
                },
            });
        }
        for curve in &c.rigid.curves {
            out.push(from_curve(curve, k, e, None));
        }
        if let Ok(points) = c.mujoco {
            for (name, p) in mujoco::found(points, e) {
                out.push(Entry {
                    key: format!("mujoco_{name}"),
                    target: e,
                    param_name: "dt",
                    found: p.map(|p| (p.dt, p.err, p.cost)),
                    finest: points
                        .iter()
                        .filter(|p| p.integrator == name)
                        .map(|p| p.dt)
                        .reduce(f64::min),
                    omega: None,
                });
            }
        }
    }
    out
}

/// The work–precision chart (`chart` with its series filled in): error against CPU time, every
/// sweep point that ran.
fn chart(c: &Compared<'_>, mut chart: Chart, out: &Output) {
    let mut add = |label: String, pts: Vec<(f64, f64)>| chart.series.push(Series::new(label, pts));
    let ok = |c: &Curve| -> Vec<(f64, f64)> {
        c.points
            .iter()
            .filter(|p| p.failure.is_none())
            .map(|p| (p.cost, p.err))
            .collect()
    };
    for p in c.penalty {
        if let Some(st) = &p.study {
            for curve in &st.curves {
                add(
                    format!("{} (for {})", curve.label, tag(p.target)),
                    ok(curve),
                );
            }
        }
    }
    for curve in &c.rigid.curves {
        add(curve.label.to_string(), ok(curve));
    }
    if let Ok(points) = c.mujoco {
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
    plot::emit(out, &chart);
}

/// The table of every entry, with its figures.
fn table(list: &[Entry], l: &Layout, out: &Output) {
    let base_key = l.penalty_keys[0];
    let t = Table::new(
        out,
        &[
            "method",
            "target",
            "ω",
            "param",
            "error",
            l.cost_header,
            l.base_header,
        ],
    );
    for en in list {
        let e = tag(en.target);
        let base = list
            .iter()
            .find(|x| x.key == base_key && x.target == en.target)
            .and_then(|x| x.found)
            .map_or(f64::NAN, |f| f.2);
        let (p, err, cost) = en.found.unwrap_or((f64::NAN, f64::NAN, f64::NAN));
        t.row(&[
            en.key.clone(),
            e.clone(),
            en.omega.map_or("-".into(), |w| format!("{w}")),
            match (en.found, en.finest) {
                (Some(_), _) => format!("{} = {}", en.param_name, sci(p)),
                (None, Some(f)) => format!("not reached down to {} = {}", en.param_name, sci(f)),
                (None, None) => "not reached".into(),
            },
            sci(err),
            sci(cost * l.cost_scale),
            format!("{:.2}", cost / base),
        ]);
        let at = &l.prefix;
        figure(
            &format!("{at}.{}.{}_at_{e}", en.key, l.cost_figure),
            cost * l.cost_scale,
        );
        figure(&format!("{at}.{}.{}_at_{e}", en.key, en.param_name), p);
        if l.speedups && en.key != base_key {
            figure(
                &format!("{at}.{}_over_{base_key}.speedup_at_equal_error_{e}", en.key),
                cost / base,
            );
        }
    }
}

/// The model error's own accuracy per target with a chosen ω (`checks`: `(target, |model error
/// at model_tol / 10 − at model_tol| / model error)`), said and published as
/// `<prefix>.model_err_tol_check_at_<target>`.
pub fn model_tol_check(prefix: &str, checks: &[(f64, f64)], model_tol: f64, out: &Output) {
    for (e, check) in checks {
        say!(
            out,
            "model error at the ω chosen for {e:e}, DOP853 at {} against {}: relative \
             difference {}",
            sci(model_tol / 10.0),
            sci(model_tol),
            sci(*check)
        );
        figure(
            &format!("{prefix}.model_err_tol_check_at_{}", tag(*e)),
            *check,
        );
    }
}

/// The penalty ω per target (figures `<prefix>.omega_at_<target>`, `…model_err_at_<target>`),
/// why MuJoCo did not run, the table with its figures, and the chart.
pub fn report(c: &Compared<'_>, l: &Layout, plot: Chart, out: &Output) {
    for p in c.penalty {
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
        let at = &l.prefix;
        figure(&format!("{at}.omega_at_{e}"), p.omega.unwrap_or(f64::NAN));
        figure(&format!("{at}.model_err_at_{e}"), p.model_err);
    }
    if let Err(why) = c.mujoco {
        say!(out, "{why}");
    }
    table(&entries(c, l.penalty_keys), l, out);
    chart(c, plot, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::work_precision::search::Point;

    #[test]
    fn an_entry_not_reached_knows_how_fine_its_sweep_went() {
        let point = |p: f64, err: f64| Point {
            p,
            err,
            failure: None,
            cost: 1.0 / p,
        };
        let curve = Curve {
            key: "rapier_sub1",
            label: "",
            param_name: "h",
            points: vec![point(1e-2, 0.5), point(1e-3, 0.05), point(1e-4, 5e-3)],
            found: vec![None],
        };
        let en = from_curve(&curve, 0, 1e-3, None);
        assert!(en.found.is_none());
        assert_eq!(en.finest, Some(1e-4));
    }
}
