//! The tables and `figure` lines of the `sim-langevin` Monte-Carlo study.

use super::filters::slow_force_x;
use super::study::{
    max_abs_z, max_mean_in_se, Acc, LangevinSetup, SimStats, LANGEVIN_LABELS, MOMENTS,
};
use crate::report::{figure, sci, Output, Table};
use macrostep::systems::TwoSpring;

/// The stationary slow-force compliance of SIM1's stiff mode relative to the exact one:
/// with a constant force `F` the plain-kick SIM1 map (undamped) has the fixed point
pub fn sim_compliance(omega: f64, h: f64, mollified: bool) -> f64 {
    let th = omega * h;
    if mollified {
        0.5 * (1.0 + th.cos())
    } else {
        0.5 * th / (0.5 * th).tan()
    }
}

/// The moment table of one study: GLA reference, GLA at h, SIM1 raw, with the stiff
/// allowances, with all allowances, and the z of the last against the reference.
fn moment_table(st: &SimStats, out: &Output) {
    let tab = Table::new(
        out,
        &[
            "t",
            "moment",
            "GLA ref",
            "±SE",
            "GLA h",
            "SIM1 H",
            "+kick",
            "+kick+soft",
            "±SE",
            "z",
        ],
    );
    for k in 0..st.t.len() {
        for (i, name) in MOMENTS.iter().enumerate() {
            let (r, g, s, sk, sc) = (
                &st.gla_ref[k][i],
                &st.gla_h[k][i],
                &st.raw[k][i],
                &st.raw_kick[k][i],
                &st.corrected_kick[k][i],
            );
            let z = (sc.mean() - r.mean()) / (sc.se().powi(2) + r.se().powi(2)).sqrt();
            tab.row(&[
                format!("{:.3}", st.t[k]),
                name.to_string(),
                format!("{:.6}", r.mean()),
                sci(r.se()),
                format!("{:.6}", g.mean()),
                format!("{:.6}", s.mean()),
                format!("{:.6}", sk.mean()),
                format!("{:.6}", sc.mean()),
                sci(sc.se()),
                format!("{z:.2}"),
            ]);
        }
    }
}

/// Largest `|mean|` of the two components of a per-path difference and its largest size in
/// standard errors of the raw moments `se_idx` (absolute, absolute, SE units).
fn bias_max(d: &[[Acc; 2]], raw: &[[Acc; 4]], se_idx: [usize; 2]) -> (f64, f64, f64) {
    let (mut a, mut b, mut se): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for (x, r) in d.iter().zip(raw) {
        a = a.max(x[0].mean().abs());
        b = b.max(x[1].mean().abs());
        se = se
            .max(x[0].mean().abs() / r[se_idx[0]].se())
            .max(x[1].mean().abs() / r[se_idx[1]].se());
    }
    (a, b, se)
}

/// The two bias allowances and the soft bias, in absolute terms and in SE units of the raw SIM
/// moment.
fn bias_figures(st: &SimStats, p: &str) {
    let (kb_x, kb_x2, kb_se) = bias_max(&st.kick_bias, &st.raw, [0, 2]);
    let (mut sb_y, mut sb_y2, mut sb_se): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for (kc, raw) in st.corrected_kick.iter().zip(&st.raw_kick) {
        let (dy, dy2) = (raw[1].mean() - kc[1].mean(), raw[3].mean() - kc[3].mean());
        sb_y = sb_y.max(dy.abs());
        sb_y2 = sb_y2.max(dy2.abs());
        sb_se = sb_se
            .max(dy.abs() / raw[1].se())
            .max(dy2.abs() / raw[3].se());
    }
    figure(&format!("{p}.kick_bias_max_abs.x"), kb_x);
    figure(&format!("{p}.kick_bias_max_abs.x2"), kb_x2);
    figure(&format!("{p}.kick_bias_max_se"), kb_se);
    let (ab_y, ab_y2, ab_se) = bias_max(&st.alias_bias, &st.raw, [1, 3]);
    figure(&format!("{p}.alias_bias_max_abs.y"), ab_y);
    figure(&format!("{p}.alias_bias_max_abs.y2"), ab_y2);
    figure(&format!("{p}.alias_bias_max_se"), ab_se);
    figure(&format!("{p}.soft_bias_max_abs.y"), sb_y);
    figure(&format!("{p}.soft_bias_max_abs.y2"), sb_y2);
    figure(&format!("{p}.soft_bias_max_se"), sb_se);
}

/// The explanation, tested: the slow-force prediction of the E[x] kick bias,
/// (1 − κ)·E[F](t)/ω² − transient, κ the SIM's stationary compliance (0 at full-period
/// resonance, where the exact response at the grid points is F(t)/ω² − e^{−ct/2}F(0)/ω²).
fn kick_prediction(st: &SimStats, p: &str, f0: f64, out: &Output) {
    let model = TwoSpring::<f64>::paper();
    let (omega, c) = (model.omega(), model.langevin().c);
    let kappa = sim_compliance(omega, st.h, st.mollified);
    let resonant = (omega * st.h / (2.0 * std::f64::consts::PI)).fract() < 1e-6
        || (omega * st.h / (2.0 * std::f64::consts::PI)).fract() > 1.0 - 1e-6;
    let tab = Table::new(out, &["t", "E[y³]", "kick bias E[x]", "±SE", "predicted"]);
    let (mut err, mut scale): (f64, f64) = (0.0, 0.0);
    for k in 0..st.t.len() {
        let meas = &st.kick_bias[k][0];
        let transient = if resonant {
            (-0.5 * c * st.t[k]).exp() * f0 / (omega * omega)
        } else {
            0.0
        };
        let pred = (1.0 - if resonant { 0.0 } else { kappa }) * st.force[k].mean()
            / (omega * omega)
            - transient;
        err = err.max((meas.mean() - pred).abs());
        scale = scale.max(meas.mean().abs());
        tab.row(&[
            format!("{:.3}", st.t[k]),
            format!("{:.5}", st.force[k].mean()),
            sci(meas.mean()),
            sci(meas.se()),
            sci(pred),
        ]);
    }
    if resonant {
        figure(&format!("{p}.kick_bias_x_prediction_rel_err"), err / scale);
    } else {
        crate::say!(
            out,
            "(non-resonant: the prediction is the stationary slow-force compliance \
             κ = {kappa:.3} only; it ignores the kick-excited oscillation from F(0), \
             max |measured − predicted| / max |measured| = {:.2})",
            err / scale
        );
    }
}

/// Prints the tables and figures of `sim-langevin` for a [`super::langevin_study`] result;
/// returns the headline `max |z|` (plain SIM1, both allowances).
pub fn report_langevin(
    setup: &LangevinSetup,
    stats: &[SimStats],
    prefix: &str,
    out: &Output,
) -> f64 {
    let f0 = slow_force_x(&setup.initial_state());
    let mut worst: f64 = 0.0;
    let mut worst_old: f64 = 0.0;
    let mut ref_check: f64 = 0.0;
    for (label, st) in LANGEVIN_LABELS.iter().zip(stats) {
        crate::say!(out, "\nSIM1 H = {:.5} ({label})", st.h);
        moment_table(st, out);
        let z_corr = max_abs_z(&st.corrected, &st.gla_ref);
        let z_kick = max_abs_z(&st.corrected_kick, &st.gla_ref);
        // Plain SIM1 with the halving / family allowance only.
        if *label == "resonant_family" || *label == "nonresonant" {
            worst_old = worst_old.max(z_corr);
        }
        // The headline: plain SIM1 (every plain-kick study) with both allowances.
        if !st.mollified {
            worst = worst.max(z_kick);
        }
        let p = format!("{prefix}.{label}");
        figure(&format!("{p}.max_abs_z"), z_corr);
        figure(
            &format!("{p}.max_abs_z_uncorrected"),
            max_abs_z(&st.raw, &st.gla_ref),
        );
        figure(
            &format!("{p}.gla_h_max_abs_z"),
            max_abs_z(&st.gla_h, &st.gla_ref),
        );
        figure(&format!("{p}.max_abs_z_all_allowances"), z_kick);
        figure(
            &format!("{p}.max_abs_z_stiff_allowances_only"),
            max_abs_z(&st.raw_kick, &st.gla_ref),
        );
        bias_figures(st, &p);
        kick_prediction(st, &p, f0, out);
        ref_check = ref_check.max(max_mean_in_se(
            &st.gla_ref_check,
            &st.gla_ref,
            &[0, 1, 2, 3],
        ));
    }
    figure(&format!("{prefix}.max_abs_z"), worst);
    figure(
        &format!("{prefix}.max_abs_z_soft_allowance_only"),
        worst_old,
    );
    figure(&format!("{prefix}.gla_ref_check.max_bias_se"), ref_check);
    reading(out);
    worst
}

/// How to read the study.
fn reading(out: &Output) {
    crate::say!(
        out,
        "\nReading: GLA at h = 0.1/ω is itself biased (gla_h z), hence the Richardson reference \
         (gla_ref_check: the coarser Richardson pair (h/2, h/4) differs from it by at most that \
         many SE, so its own error is a fraction of an SE). The two-spring system is not linear \
         (quartic soft spring), so SIM's law has no closed form; its deterministic bias has \
         three parts, each allowed for separately and shown in SE units. (1) Soft: the O(H) \
         splitting error of the y dynamics (soft_bias, ~100 SE), smooth in H, extrapolated out \
         over H on the same Brownian path. (2) Stiff impulse quadrature (kick_bias): x is a \
         linear oscillator driven by the slow force y³, and SIM replaces the convolution \
         ∫G(t − s)F(s)ds of its response by the impulse sum Σ B₁₂((n−k)H)·H·F_k — \
         H-independent, O(F/ω²), not removable by extrapolation. At full-period H the sum \
         vanishes: E[x] misses the quasi-static shift (E[y³](t) − e^{{−ct/2}}y(0)³)/ω², which \
         predicts the measured allowance to kick_bias_x_prediction_rel_err; at non-resonant H \
         the stationary compliance is (ωH/2)cot(ωH/2) instead of 1, plus a kick-excited \
         oscillation. KickFilter replaces the impulse sum by the exact convolution of the same \
         force samples; the part of the force linear in x (the stiff mode's parametric \
         frequency shift 3(y − x)²/(2ω)) stays SIM's own — the plain kick reproduces it at \
         non-resonant ωH, the mollified kick (weight sin ωH/ω) does not, which is the mollified \
         row's remaining E[x] excess. (3) Aliasing (alias_bias): x(0) = 0.8/ω starts a coherent \
         stiff oscillation that the exact dynamics averages out of the force on y; at full-period \
         H every kick samples it at the same phase. The control from x(0) = 0 has no (3) and \
         passes with (1) and (2) alone. All three are within Theorem 4.2.1's O(H) error but \
         resolved by 5000 paths. max_abs_z (plain SIM1, all allowances) then tests what is \
         left: the stochastic part B(H), Σ(H), sampling and seeding against the independent GLA \
         reference."
    );
}
