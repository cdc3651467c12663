//! The charts of `reproduce so3` (`--plot DIR`, `--csv DIR`): 000 Fig 10 and the orders.

use super::Results;
use crate::plot::{emit, Chart, Series};
use crate::report::Output;

/// 000 Fig 10: deviation from the benchmark at h = 10⁻⁴, energy error and orthogonality defect
/// over time, Z&S and the benchmark at the same step, one chart per quantity.
pub(super) fn fig10(r: &Results, out: &Output) {
    let what = [
        (
            1,
            "deviation",
            "deviation from the reference",
            "‖R(t) − R_ref(t)‖_F",
        ),
        (
            2,
            "energy",
            "energy error",
            "|E(t) − E(0)|, Z&S: of its penalised system",
        ),
        (
            3,
            "orthogonality",
            "Lie-group structure",
            "‖R(t)ᵀR(t) − I‖_F",
        ),
    ];
    // The curves are sampled every step: the second sample's time is the step.
    let h = r.fig10[0].get(1).map_or(f64::NAN, |p| p[0]);
    let names = [
        format!("linearised Z&S (trapezoidal, relaxed with penalty), h = {h}"),
        format!("Cayley variational benchmark, h = {h}"),
    ];
    for (col, stem, title, y) in what {
        let series = names
            .iter()
            .zip(&r.fig10)
            .map(|(name, curve)| Series {
                label: name.clone(),
                // t = 0 is exact: left out of the log plot.
                points: curve.iter().skip(1).map(|p| (p[0], p[col])).collect(),
            })
            .collect();
        emit(
            out,
            &Chart {
                stem: format!("so3.fig10_{stem}"),
                title: format!("000 Fig 10: magnetised rigid body on SO(3), {title}"),
                x_label: "time t".into(),
                y_label: format!("{y} (log scale)"),
                log_x: false,
                log_y: true,
                series,
            },
        );
    }
}

/// The order runs, error against h (log–log; `--plot`, `--csv`).
pub(super) fn orders(r: &Results, out: &Output) {
    let names = [
        ("linearised Z&S, first-order form", r.order_zs1),
        ("linearised Z&S, trapezoidal form", r.order_zs2),
        ("Cayley variational benchmark", r.order_cayley),
    ];
    let series = names
        .iter()
        .zip(&r.order_points)
        .map(|((name, slope), points)| Series {
            label: format!("{name} (fitted slope {slope:.2})"),
            points: points.clone(),
        })
        .collect();
    emit(
        out,
        &Chart {
            stem: "so3.orders".into(),
            title: "000 §4.5: orders on the magnetised rigid body (SO(3))".into(),
            x_label: "step h (log scale)".into(),
            y_label: format!(
                "max-norm error of (q, v) at T = {} vs DOP853 of its own system (log)",
                r.t_order
            ),
            log_x: true,
            log_y: true,
            series,
        },
    );
}
