//! The studies of `reproduce lc-circuit`: Fig 7.2 ensemble, orders, Gibbs, structure.

use super::model::*;
use super::{Results, Setup, Stat};
use crate::measure::{
    from_phase, integrator_defect, jacobian_determinant, reversibility_error, to_phase,
};
use macrostep::circuit::{Circuit, CircuitParams, CircuitVi};
use macrostep::langevin::Normal;
use macrostep::model::Mass;
use macrostep::nalgebra::{Matrix4, Vector2, Vector4};
use macrostep::{Integrator, State, StochasticIntegrator};
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// Fig 7.2: ensemble moments of `p̃` per step against the exact and the scheme's moments.
pub(super) fn fig72(setup: &Setup, r: &mut Results) {
    let p = seed_params();
    let vi = noisy(&p, setup.h);
    let (a, gbar, _) = linear_sde(&p);
    let (phi, gam) = scheme_maps(&vi);
    let n = (setup.t_end / setup.h).round() as usize;
    let x0 = Vector4::new(1.0, 0.0, 0.0, 0.0);
    // Deviations from the scheme's mean (= the noiseless run: additive noise): d, d², d⁴.
    let mut acc = vec![[0.0f64; 6]; n];
    let mut rng = Pcg64::seed_from_u64(setup.seed);
    let mut means = Vec::with_capacity(n);
    let (mut m, mut cov) = (x0, Matrix4::zeros());
    let mut covs = Vec::with_capacity(n);
    for _ in 0..n {
        m = phi * m;
        cov = phi * cov * phi.transpose() + gam * gam.transpose();
        means.push(m);
        covs.push(cov);
    }
    let mut v = vi;
    for _ in 0..setup.paths {
        let mut s = state(&x0);
        for (k, slot) in acc.iter_mut().enumerate() {
            let xi = Normal::vector::<f64, _, 4>(&mut rng);
            v.step_with_noise(&mut s, &xi).expect("step");
            for i in 0..2 {
                let d = s.v[i] - means[k][2 + i];
                slot[3 * i] += d;
                slot[3 * i + 1] += d * d;
                slot[3 * i + 2] += d * d * d * d;
            }
        }
    }
    let mf = setup.paths as f64;
    for (k, acc) in acc.iter().enumerate() {
        let t = (k + 1) as f64 * setup.h;
        let (_, ex) = exact_moments(&a, &gbar, &x0, t);
        let mut row = [Stat::default(); 2];
        for i in 0..2 {
            let (m1, m2, m4) = (acc[3 * i] / mf, acc[3 * i + 1] / mf, acc[3 * i + 2] / mf);
            let var = m2 - m1 * m1;
            let se = ((m4 - var * var).max(0.0) / mf).sqrt();
            let (scheme, exact) = (covs[k][(2 + i, 2 + i)], ex[(2 + i, 2 + i)]);
            row[i] = Stat {
                mc: var,
                se,
                exact,
                scheme,
            };
            let z_mean = m1.abs() / (var / mf).sqrt();
            r.max_z_scheme = r.max_z_scheme.max((var - scheme).abs() / se).max(z_mean);
            if t >= 1.0 {
                r.max_rel_bias = r.max_rel_bias.max((scheme - exact).abs() / exact);
                r.max_rel_dev = r.max_rel_dev.max((var - exact).abs() / exact);
            }
        }
        r.times.push(t);
        r.var.push(row);
    }
}

/// Deterministic and weak errors at `T = 10` by exact propagation of the scheme's moments.
pub(super) fn weak_orders(setup: &Setup, r: &mut Results) {
    let p = seed_params();
    let (a, gbar, _) = linear_sde(&p);
    let (t_end, x0) = (10.0, Vector4::new(1.0, 0.0, 0.0, 0.0));
    let (ex_m, ex_c) = exact_moments(&a, &gbar, &x0, t_end);
    for &h in &setup.steps {
        let (phi, gam) = scheme_maps(&noisy(&p, h));
        let (mut m, mut c) = (x0, Matrix4::zeros());
        for _ in 0..(t_end / h).round() as usize {
            m = phi * m;
            c = phi * c * phi.transpose() + gam * gam.transpose();
        }
        r.mean_err.push((m - ex_m).amax());
        r.cov_err.push((c - ex_c).amax() / ex_c.amax());
    }
}

/// Strong RMS error at `T = 5` (`Σ_jj = 0.5`) against Heun on a 32× finer grid of the smallest
/// step, both driven by the same Brownian increments.
pub(super) fn strong_order(setup: &Setup, r: &mut Results) {
    let p = CircuitParams::lc_paper(10.0, 0.5);
    let (a, gbar, _) = linear_sde(&p);
    let t_end = 5.0;
    let hmin = setup.steps.iter().cloned().fold(f64::INFINITY, f64::min);
    let delta = hmin / 32.0;
    let n_fine = (t_end / delta).round() as usize;
    let mut vis: Vec<Vi> = setup.steps.iter().map(|&h| noisy(&p, h)).collect();
    let ratios: Vec<usize> = setup
        .steps
        .iter()
        .map(|h| (h / delta).round() as usize)
        .collect();
    let mut sq = vec![0.0; setup.steps.len()];
    let mut rng = Pcg64::seed_from_u64(setup.seed + 1);
    let x0 = Vector4::new(1.0, 0.0, 0.0, 0.0);
    for _ in 0..setup.strong_paths {
        let xis: Vec<Vector4<f64>> = (0..n_fine)
            .map(|_| Normal::vector::<f64, _, 4>(&mut rng))
            .collect();
        let mut x = x0;
        for xi in &xis {
            let dw = gbar * xi * delta.sqrt();
            let pred = x + a * x * delta + dw;
            x += (a * x + a * pred) * (0.5 * delta) + dw;
        }
        for ((vi, &ratio), e) in vis.iter_mut().zip(&ratios).zip(sq.iter_mut()) {
            let mut s = state(&x0);
            for chunk in xis.chunks(ratio) {
                let xi = chunk.iter().sum::<Vector4<f64>>() / (ratio as f64).sqrt();
                vi.step_with_noise(&mut s, &xi).expect("step");
            }
            *e += (phase(&s) - x).norm_squared();
        }
    }
    r.strong_err = sq
        .iter()
        .map(|e| (e / setup.strong_paths as f64).sqrt())
        .collect();
}

/// The Gibbs study: long runs with resistors and Johnson–Nyquist noise.
pub(super) fn gibbs(setup: &Setup, r: &mut Results) {
    let p = gibbs_params();
    let (_, _, s_mat) = linear_sde(&p);
    let exact = [
        2.0 * KT,
        KT / p.inverse_capacitance[2],
        KT / p.inverse_capacitance[3],
        KT / p.inductance[0],
    ];
    let vi = noisy(&p, setup.gibbs_h);
    let (phi, gam) = scheme_maps(&vi);
    let scheme = gibbs_stats(&stationary(&phi, &gam), &s_mat);
    let burn = (setup.gibbs_burn / setup.gibbs_h).round() as usize;
    let n = (setup.gibbs_time / setup.gibbs_h).round() as usize;
    let mut rng = Pcg64::seed_from_u64(setup.seed + 2);
    let mut per_path = Vec::with_capacity(setup.gibbs_paths);
    let mut v = vi;
    for _ in 0..setup.gibbs_paths {
        let mut st = state(&Vector4::zeros());
        v.integrate_with_rng(&mut st, burn, &mut rng);
        let mut sum = [0.0; 4];
        for _ in 0..n {
            v.integrate_with_rng(&mut st, 1, &mut rng);
            let x = phase(&st);
            let q = x.fixed_rows::<2>(0);
            let e = 0.5 * (q.dot(&(s_mat * q)) + x[2] * x[2] + x[3] * x[3]);
            let q3 = x[0] - x[1];
            for (a, b) in sum.iter_mut().zip([e, q3 * q3, x[0] * x[0], x[2] * x[2]]) {
                *a += b / n as f64;
            }
        }
        per_path.push(sum);
    }
    let np = per_path.len() as f64;
    for k in 0..4 {
        let mean = per_path.iter().map(|s| s[k]).sum::<f64>() / np;
        let var = per_path.iter().map(|s| (s[k] - mean).powi(2)).sum::<f64>() / (np - 1.0);
        r.gibbs[k] = Stat {
            mc: mean,
            se: (var / np).sqrt(),
            exact: exact[k],
            scheme: scheme[k],
        };
    }
    for &h in &setup.steps {
        let (phi, gam) = scheme_maps(&noisy(&p, h));
        r.gibbs_bias
            .push((gibbs_stats(&stationary(&phi, &gam), &s_mat)[0] - exact[0]).abs());
    }
}

/// Symplecticity (R = 0), phase-volume factor (R ≠ 0), reversibility.
pub(super) fn structure(r: &mut Results) {
    let mass = Mass::<f64, 2>::identity();
    let s0 = State::new(0.0, Vector2::new(0.7, -0.3), Vector2::new(0.2, 0.5));
    let h = 0.1;
    let mut vi = CircuitVi::new(Circuit::new(seed_params()).expect("valid"), h).expect("valid");
    r.symplectic_defect = integrator_defect(&mut vi, &mass, &s0, 10, 1e-5);
    r.reversibility = reversibility_error(&mut vi, &s0, 10);
    let mut lossy = CircuitVi::new(Circuit::new(gibbs_params()).expect("valid"), h).expect("ok");
    let det = jacobian_determinant(
        |x| {
            let mut s = from_phase(x, &mass, 0.0);
            lossy.step(&mut s).expect("step");
            to_phase(&s, &mass)
        },
        &to_phase(&s0, &mass),
        1e-5,
    );
    r.volume_error = (det - 1.0 / (1.0 + h * R_GIBBS).powi(2)).abs();
}
