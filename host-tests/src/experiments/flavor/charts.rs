//! The charts of the FLAVOR experiments (`reproduce … --plot DIR`, `--csv DIR`): 004 Fig 2.2
//! (`flavor-stability`), Figs 2.4–2.5 (`flavor-3dof`) and §2.6.3 (`flavor-fpu`).

use super::{fpu, stability, three_dof};
use crate::plot::{emit, Chart, Series};
use crate::report::Output;
use macrostep::State;

/// About 1000 samples `[t, f(FLAVOR), f(reference)]` of a FLAVOR trajectory, the reference
/// sampled every `dt_ref` on a grid that contains the FLAVOR times.
pub(super) fn sampled<const N: usize>(
    traj: &[State<f64, N>],
    reference: &[State<f64, N>],
    dt_ref: f64,
    f: impl Fn(&State<f64, N>) -> f64,
) -> Vec<[f64; 3]> {
    let stride = (traj.len() / 1000).max(1);
    traj.iter()
        .step_by(stride)
        .map(|s| {
            let k = (s.t / dt_ref).round() as usize;
            [s.t, f(s), f(&reference[k])]
        })
        .collect()
}

fn series(label: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.into(),
        points,
    }
}

/// 004 Fig 2.2: the largest stable δ against τω² for both FLAVORs on system 2.93, with the
/// limits of Theorem 2.5.1 (δ < 2 nonintrusive, δ < 2√2 artificial, as τω² → 0).
pub(super) fn stability(r: &stability::Results, out: &Output) {
    let w2 = r.omega * r.omega;
    let x = |tau: f64| tau * w2;
    let rows = &r.fig2_2;
    let limit = |v: f64| rows.iter().map(|row| (x(row.tau), v)).collect();
    emit(
        out,
        &Chart {
            stem: "flavor-stability.fig2_2".into(),
            title: format!(
                "004 Fig 2.2: FLAVOR stability on system 2.93 (ω = {}): stable below each curve",
                r.omega
            ),
            x_label: "τω² = τ/ε, micro-step × stiffness (log scale)".into(),
            y_label: "largest stable mesostep δ (log scale)".into(),
            log_x: true,
            log_y: true,
            // The limits first, so the measured curves are drawn over them.
            series: vec![
                series("Thm 2.5.1 limit τω² → 0, nonintrusive: δ = 2", limit(2.0)),
                series(
                    "Thm 2.5.1 limit τω² → 0, artificial: δ = 2√2 (under the measured curve)",
                    limit(2.0 * 2f64.sqrt()),
                ),
                series(
                    "nonintrusive FLAVOR (spectral radius of the step matrix)",
                    rows.iter()
                        .map(|row| (x(row.tau), row.nonintrusive))
                        .collect(),
                ),
                series(
                    "artificial FLAVOR (spectral radius of the step matrix)",
                    rows.iter()
                        .map(|row| (x(row.tau), row.artificial))
                        .collect(),
                ),
            ],
        },
    );
}

/// 004 Figs 2.4 (slow variable over time), 2.5a (error against δ), 2.5b (error over time) and
/// 2.5c (error against ω) for `flavor-3dof`.
pub(super) fn three_dof(r: &three_dof::Results, out: &Output) {
    let flavor = format!(
        "FLAVOR over symplectic Euler, δ = {}, τ = {:e}",
        r.delta, r.tau
    );
    let curve = |col: usize| r.slow_curve.iter().map(|p| (p[0], p[col])).collect();
    emit(
        out,
        &Chart {
            stem: "flavor-3dof.slow".into(),
            title: "004 Fig 2.4: slow variable of system 2.100 (ε = 1e-6), FLAVOR vs reference"
                .into(),
            x_label: "time t".into(),
            y_label: "slow variable (x + y + z)/3".into(),
            log_x: false,
            log_y: false,
            // The reference first, so the FLAVOR curve is drawn over it.
            series: vec![
                series("reference (DOP853, rtol = atol = 1e-11)", curve(2)),
                series(flavor.clone(), curve(1)),
            ],
        },
    );
    emit(
        out,
        &Chart {
            stem: "flavor-3dof.slow_error".into(),
            title: "004 Fig 2.5b: FLAVOR error on the slow variable over time (system 2.100)"
                .into(),
            x_label: "time t".into(),
            y_label: "|slow(FLAVOR) − slow(reference)|, slow = (x + y + z)/3 (log scale)".into(),
            log_x: false,
            log_y: true,
            series: vec![series(
                flavor,
                // t = 0 is exact: left out of the log plot.
                r.slow_curve
                    .iter()
                    .skip(1)
                    .map(|p| (p[0], (p[1] - p[2]).abs()))
                    .collect(),
            )],
        },
    );
    fig2_5a(r, out);
    emit(
        out,
        &Chart {
            stem: "flavor-3dof.fig2_5c".into(),
            title: "004 Fig 2.5c: FLAVOR error does not grow with the stiffness ω".into(),
            x_label: "ω = ε^(-1/2) (log scale)".into(),
            y_label: "max over t ≤ 10 of the slow-variable error (log scale)".into(),
            log_x: true,
            log_y: true,
            series: vec![series(
                "FLAVOR over symplectic Euler, δ = 0.01, τ = 0.05/ω",
                r.fig2_5c.iter().map(|&(w, _, e)| (w, e)).collect(),
            )],
        },
    );
}

/// 004 Fig 2.5a: error of the window mean of q against δ, split into its slow and fast parts.
fn fig2_5a(r: &three_dof::Results, out: &Output) {
    let rows = &r.fig2_5a;
    let pts = |f: fn(&three_dof::Fig25aRow) -> f64| -> Vec<(f64, f64)> {
        rows.iter().map(|row| (row.delta, f(row))).collect()
    };
    // A first-order guide through the coarsest point of the q error.
    let guide = match rows.first() {
        Some(first) => pts(|row| row.delta)
            .into_iter()
            .map(|(d, _)| (d, first.err * d / first.delta))
            .collect(),
        None => vec![],
    };
    emit(
        out,
        &Chart {
            stem: "flavor-3dof.fig2_5a".into(),
            title: "004 Fig 2.5a: error against δ, first order until the fast residual takes over"
                .into(),
            x_label: "mesostep δ = 1/M (log scale)".into(),
            y_label: "error of the M-sample mean over [T − 1, T], T = 10 (log scale)".into(),
            log_x: true,
            log_y: true,
            series: vec![
                series(
                    "q = (x, y, z), Euclidean norm (the thesis's)",
                    pts(|row| row.err),
                ),
                series("slow part (x + y + z)/3", pts(|row| row.slow)),
                series("fast part (the rest of q)", pts(|row| row.fast)),
                series("slope 1 (guide)", guide),
            ],
        },
    );
}

/// 004 §2.6.3: the window means of the stiff-spring energies over time, one chart per spring,
/// every FLAVOR against the reference.
pub(super) fn fpu(r: &fpu::Results, out: &Output) {
    let w = r.window;
    let pts = |e: &[[f64; 3]], j: usize| -> Vec<(f64, f64)> {
        e.iter()
            .enumerate()
            .map(|(k, e)| ((k + 1) as f64 * w, e[j]))
            .collect()
    };
    for j in 0..3 {
        let n = j + 1;
        let mut curves = vec![series(
            "reference (DOP853, rtol = atol = 1e-11)",
            pts(&r.energies_ref, j),
        )];
        curves.extend(r.rows.iter().map(|row| {
            let name = match row.name {
                "artificial" => "artificial FLAVOR (2.51)",
                "nonintrusive" => "nonintrusive FLAVOR over symplectic Euler",
                _ => "nonintrusive FLAVOR, fused",
            };
            series(name, pts(&row.energies, j))
        }));
        emit(
            out,
            &Chart {
                stem: format!("flavor-fpu.energy_I{n}"),
                title: format!(
                    "004 §2.6.3: FPU (ω = {}), stiff spring {n}: energy exchange",
                    r.omega
                ),
                x_label: format!("time t (end of each window of width {w})"),
                y_label: format!("window mean of the stiff-spring energy I{n}"),
                log_x: false,
                log_y: false,
                series: curves,
            },
        );
    }
}
