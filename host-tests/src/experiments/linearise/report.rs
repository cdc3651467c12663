//! The report of `reproduce linearise`.

use super::{cart, ekf_chart, fmt_h, Results, PENDULUM};
use crate::plot::emit;
use crate::report::{figure, sci, Output, Table};
use crate::say;

/// Prints the tables and the figure lines, and draws the EKF chart.
pub fn report(r: &Results, out: &Output) {
    let s = &r.setup;
    say!(
        out,
        "exact step linearisations on a bob on a spring (k = {}, mass diag(1, 2), held force (0.3, −0.2)), h = {}, three starts; rattle on a Cartesian double pendulum (see below the table)",
        s.k,
        s.h
    );
    let t = Table::new(
        out,
        &["method", "A,B vs central diff", "‖AᵀJA − J‖", "cost ÷ step"],
    );
    for row in &r.rows {
        t.row(&[
            row.name.to_string(),
            sci(row.fd_rel_err),
            if row.symplectic {
                sci(row.symplectic_defect)
            } else {
                format!("({}: not claimed)", sci(row.symplectic_defect))
            },
            format!("{:.1}", row.cost_ratio),
        ]);
        figure(
            &format!("linearise.{}.fd_rel_err", row.name),
            row.fd_rel_err,
        );
        if row.symplectic {
            figure(
                &format!("linearise.{}.symplectic_defect", row.name),
                row.symplectic_defect,
            );
        }
        figure(
            &format!("linearise.{}.cost_ratio", row.name),
            row.cost_ratio,
        );
    }

    say!(
        out,
        "rattle: the Cartesian double pendulum (masses 1, 2; rods 1, 0.8; nonlinear spring; held force) in the tangent coordinates of its solution manifold (ξ = UᵀMδq, η = UᵀMδv), two starts; A, B vs central differences along the projected tangent basis"
    );
    let (m, g, l) = PENDULUM;
    say!(
        out,
        "RATTLE on the Cartesian pendulum (m = {m}, g = {g}, L = {l}) at its equilibria: reduced A's eigenvalues vs the angle model's exp(h·[[0, 1], [∓g/L, 0]])"
    );
    let t = Table::new(
        out,
        &["h", "hanging |arg λ − ωh|", "upright |λmax − e^{ωh}|"],
    );
    for (h, gap) in s.eigen_hs.iter().zip(&r.eigen_gaps) {
        t.row(&[fmt_h(*h), sci(gap[0]), sci(gap[1])]);
    }
    t.row(&[
        "order".into(),
        format!("{:.2}", r.eigen_orders[0]),
        format!("{:.2}", r.eigen_orders[1]),
    ]);
    figure(
        "linearise.rattle.eigen_gap_order_hanging",
        r.eigen_orders[0],
    );
    figure(
        "linearise.rattle.eigen_gap_order_upright",
        r.eigen_orders[1],
    );

    say!(
        out,
        "LQR gain of the cart-pole from each method's linearisation vs the ZOH linearisation of the continuous model (relative gap)"
    );
    let mut headers = vec!["method".to_string()];
    headers.extend(s.gain_hs.iter().map(|h| format!("h = {}", fmt_h(*h))));
    headers.push("order".into());
    let hs: Vec<&str> = headers.iter().map(String::as_str).collect();
    let t = Table::new(out, &hs);
    for (m, name) in cart::METHODS.iter().enumerate() {
        let mut cells = vec![name.to_string()];
        cells.extend(r.gaps.iter().map(|g| sci(g[m])));
        cells.push(format!("{:.2}", r.gap_orders[m]));
        t.row(&cells);
    }
    for (i, h) in s.gain_hs.iter().enumerate() {
        figure(
            &format!("linearise.lqr.gain_gap_h{}", fmt_h(*h)),
            r.gaps[i][0],
        );
    }
    figure("linearise.lqr.gain_gap_order", r.gap_orders[0]);
    for (m, name) in cart::METHODS.iter().enumerate().skip(1) {
        figure(
            &format!("linearise.lqr.{name}.gain_gap_order"),
            r.gap_orders[m],
        );
    }
    if let Some(z) = r.zoh.iter().zip(&s.gain_hs).find(|(_, h)| **h == 1e-3) {
        say!(out, "ZOH gain at h = 1e-3: {:?}", z.0);
    }

    say!(
        out,
        "full cart-pole (mechanism, Z&S penalty plant, 1 kHz) regulated with each method's gains, {} s: max |θ| over the last second",
        s.seconds
    );
    let mut headers = vec!["gains from".to_string()];
    headers.extend(s.tilts.iter().map(|t| format!("θ₀ = {t}")));
    let hs: Vec<&str> = headers.iter().map(String::as_str).collect();
    let t = Table::new(out, &hs);
    for (m, name) in cart::METHODS.iter().enumerate() {
        let mut cells = vec![name.to_string()];
        let mut worst = 0.0f64;
        for (_, run) in &r.regulated[m] {
            match run {
                Ok((last, _, _)) => {
                    worst = worst.max(*last);
                    cells.push(sci(*last));
                }
                Err(e) => {
                    worst = f64::NAN;
                    cells.push(format!("error: {e}"));
                }
            }
        }
        t.row(&cells);
        figure(&format!("linearise.regulate.{name}.max_final_angle"), worst);
    }

    say!(
        out,
        "cart-pole through the EKF (measures s, θ with noise σ; Z&S gains; start tilt {} rad, {} s): RMS estimation error from 0.5 s",
        s.ekf_tilt,
        s.ekf_seconds
    );
    let t = Table::new(out, &["σ", "RMS θ̂ − θ", "÷ σ", "RMS ŝ − s", "final |θ|"]);
    for run in &r.ekf {
        match run {
            Ok(e) => {
                t.row(&[
                    sci(e.sigma),
                    sci(e.rms_theta),
                    format!("{:.3}", e.rms_theta / e.sigma),
                    sci(e.rms_s),
                    sci(e.final_theta),
                ]);
                let tag = fmt_h(e.sigma);
                figure(&format!("linearise.ekf.rms_theta_sigma{tag}"), e.rms_theta);
                figure(
                    &format!("linearise.ekf.final_angle_sigma{tag}"),
                    e.final_theta,
                );
            }
            Err(e) => say!(out, "EKF run failed: {e}"),
        }
    }
    if let Some(Ok(last)) = r.ekf.last() {
        emit(out, &ekf_chart(last));
    }
}
