//! The charts of `reproduce fpu-sim` (`--plot DIR`, `--csv DIR`): 004 Fig 4.3.

use super::fpu::{FpuSeries, Results, SimRun};
use crate::plot::{emit, Chart, Series};
use crate::report::Output;

/// 004 Fig 4.3 as curves (`--plot`, `--csv`): the stiff-spring energies `I_j` over time (SIM1
/// at the smallest H and the reference on its trusted window), their sum ΣI for every run, and
/// the error of ΣI.
pub(super) fn charts(r: &Results, out: &Output) {
    let label = |run: &SimRun| format!("{} H = {}", run.name.to_uppercase(), run.h);
    let pts = |s: &FpuSeries, upto: usize, f: &dyn Fn(&FpuSeries, usize) -> f64| {
        (0..s.t.len().min(upto))
            .map(|k| (s.t[k], f(s, k)))
            .collect()
    };
    let title = |what: &str| format!("004 Fig 4.3: FPU (m = 3, ω = {}), {what}", r.omega);
    let reference = format!("Verlet–Richardson reference (h = {:e})", r.h_ref);
    let mut series = Vec::new();
    if let Some(run) = r.runs.first() {
        for j in 0..3 {
            series.push(Series {
                label: format!("I{} {}", j + 1, label(run)),
                points: pts(&run.series, usize::MAX, &|s, k| s.ij[k][j]),
            });
        }
    }
    for j in 0..3 {
        series.push(Series {
            label: format!("I{} reference, trusted t ≤ {}", j + 1, r.t_trusted),
            points: pts(&r.richardson, r.trusted, &|s, k| s.ij[k][j]),
        });
    }
    emit(
        out,
        &Chart {
            stem: "fpu-sim.energies".into(),
            title: title("energy exchange among the stiff springs"),
            x_label: format!("time t (sampled every {})", r.every),
            y_label: "stiff-spring energy I_j".into(),
            log_x: false,
            log_y: false,
            series,
        },
    );
    let mut series: Vec<Series> = r
        .runs
        .iter()
        .map(|run| Series {
            label: label(run),
            points: pts(&run.series, usize::MAX, &|s, k| s.sum(k)),
        })
        .collect();
    series.push(Series {
        label: reference,
        points: pts(&r.richardson, usize::MAX, &|s, k| s.sum(k)),
    });
    emit(
        out,
        &Chart {
            stem: "fpu-sim.energy_sum".into(),
            title: title("total stiff energy ΣI, an adiabatic invariant"),
            x_label: format!("time t (sampled every {})", r.every),
            y_label: "ΣI = I1 + I2 + I3".into(),
            log_x: false,
            log_y: false,
            series,
        },
    );
    let series = r
        .runs
        .iter()
        .map(|run| Series {
            label: label(run),
            // t = 0 is exact: left out of the log plot.
            points: (1..run.series.t.len().min(r.richardson.t.len()))
                .map(|k| {
                    (
                        run.series.t[k],
                        (run.series.sum(k) - r.richardson.sum(k)).abs(),
                    )
                })
                .collect(),
        })
        .collect();
    emit(
        out,
        &Chart {
            stem: "fpu-sim.energy_sum_error".into(),
            title: title("error of ΣI against the reference"),
            x_label: format!("time t (sampled every {})", r.every),
            y_label: "|ΣI − ΣI reference| (log scale)".into(),
            log_x: false,
            log_y: true,
            series,
        },
    );
}
