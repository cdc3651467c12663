//! The table, figures and chart of `reproduce arm-peers`.

use super::Results;
use crate::experiments::chain_peers::mujoco;
use crate::experiments::chain_peers::report::{from_curve, Entry};
use crate::experiments::work_precision::search::Curve;
use crate::experiments::work_precision::tag;
use crate::plot::{self, Chart, Series};
use crate::report::{figure, sci, Output, Table};
use crate::say;

/// Every method's entry at every target: penalty methods, exact-joint methods and peers,
/// MuJoCo's integrators.
pub fn entries(r: &Results) -> Vec<Entry> {
    let mut out = Vec::new();
    for (k, &e) in r.targets.iter().enumerate() {
        let pen = r.penalty.iter().find(|p| p.target == e);
        for key in ["zs", "sylipn"] {
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
        for c in &r.rigid.curves {
            out.push(from_curve(c, k, e, None));
        }
        if let Ok(points) = &r.mujoco {
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

/// The work–precision chart: error against CPU time, every sweep point that ran.
fn chart(r: &Results, out: &Output) {
    let mut series = Vec::new();
    let mut add = |label: String, pts: Vec<(f64, f64)>| series.push(Series::new(label, pts));
    let ok = |c: &Curve| -> Vec<(f64, f64)> {
        c.points
            .iter()
            .filter(|p| p.failure.is_none() && p.err > 0.0)
            .map(|p| (p.cost, p.err))
            .collect()
    };
    for p in &r.penalty {
        if let Some(st) = &p.study {
            for c in &st.curves {
                add(format!("{} (for {})", c.label, tag(p.target)), ok(c));
            }
        }
    }
    for c in &r.rigid.curves {
        add(c.label.to_string(), ok(c));
    }
    if let Ok(points) = &r.mujoco {
        let mut names: Vec<&str> = points.iter().map(|p| p.integrator.as_str()).collect();
        names.dedup();
        for name in names {
            let pts = points
                .iter()
                .filter(|p| p.integrator == name && p.err.is_finite() && p.err > 0.0)
                .map(|p| (p.cost, p.err))
                .collect();
            add(format!("MuJoCo {name} (Python)"), pts);
        }
    }
    plot::emit(
        out,
        &Chart {
            stem: "arm-peers.work_precision".into(),
            title: format!(
                "3-link arm (URDF), free swing: joint-angle error, T = {}",
                r.span
            ),
            x_label: "thread CPU seconds per simulated second (median)".into(),
            y_label: "max |θ − θ_ref| over joints and outputs [rad]".into(),
            log_x: true,
            log_y: true,
            series,
        },
    );
}

/// Prints everything.
pub fn report(r: &Results, out: &Output) {
    say!(
        out,
        "planar 3-link arm (planar_arm3.urdf), from the build pose at rest, g = 9.81, T = {}: \
         cost = median thread CPU per simulated second at the coarsest setting meeting each target",
        r.span
    );
    say!(
        out,
        "reference: DOP853 1e-13 on the articulated-body chain; against 1e-12: {}; the arm \
         swings to {:.2} rad at a joint",
        sci(r.reference_check),
        r.max_angle
    );
    figure("arm-peers.reference_check", r.reference_check);
    figure("arm-peers.max_angle", r.max_angle);
    for (w, me) in &r.model_errors {
        say!(out, "penalty ω = {w}: model error {}", sci(*me));
    }
    for p in &r.penalty {
        let e = tag(p.target);
        match p.omega {
            Some(w) => say!(out, "target {e}: ω = {w}, model error {}", sci(p.model_err)),
            None => say!(
                out,
                "target {e}: no ω of the list has model error ≤ margin × target (largest: {})",
                sci(p.model_err)
            ),
        }
        figure(
            &format!("arm-peers.omega_at_{e}"),
            p.omega.unwrap_or(f64::NAN),
        );
        figure(&format!("arm-peers.model_err_at_{e}"), p.model_err);
    }
    if let Err(why) = &r.mujoco {
        say!(out, "{why}");
    }
    let list = entries(r);
    let t = Table::new(
        out,
        &[
            "method",
            "target",
            "ω",
            "param",
            "error",
            "µs CPU / sim s",
            "÷ Z&S",
        ],
    );
    for en in &list {
        let e = tag(en.target);
        let base = list
            .iter()
            .find(|x| x.key == "zs" && x.target == en.target)
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
            sci(cost * 1e6),
            format!("{:.2}", cost / base),
        ]);
        figure(
            &format!("arm-peers.{}.cpu_us_per_sim_s_at_{e}", en.key),
            cost * 1e6,
        );
        figure(&format!("arm-peers.{}.{}_at_{e}", en.key, en.param_name), p);
    }
    chart(r, out);
}
