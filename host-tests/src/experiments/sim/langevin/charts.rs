//! 004 Fig 4.2 from the `sim-langevin` study: the empirical moments E[x], E[y], E[x²], E[y²]
//! over time by SIM1 at macroscopic steps and by GLA at the microscopic step, with the
//! Richardson GLA reference.

use super::study::{Acc, SimStats, MOMENTS};
use super::SimLangevinExperiment;
use crate::experiments::Experiment;
use crate::plot::{emit, Chart, Series};
use crate::report::Output;

/// The file tag of each moment.
const TAGS: [&str; 4] = ["ex", "ey", "ex2", "ey2"];
/// The unit of each moment.
const UNITS: [&str; 4] = ["m", "m", "m²", "m²"];

/// The moment `m` of every output of `acc` against the output times `t`.
fn moment(t: &[f64], acc: &[[Acc; 4]], m: usize) -> Vec<(f64, f64)> {
    t.iter().zip(acc).map(|(&t, a)| (t, a[m].mean())).collect()
}

/// The SIM1 series of one study (`label` from [`super::LANGEVIN_LABELS`]).
fn sim_label(label: &str, st: &SimStats) -> String {
    let h = st.h;
    match label {
        "resonant" => format!("SIM1 (004 Int. 4.2.2), H = {h:.4} (ωH = 6π, resonant)"),
        "nonresonant" => format!("SIM1, H = {h:.4} (ωH ≈ {:.1})", 100.0 * h),
        "nonresonant_mollified" => format!("SIM1, mollified kick (eq 4.8), H = {h:.4}"),
        other => format!("SIM1 {other}, H = {h:.4}"),
    }
}

/// Writes one chart per moment for `stats` (the studies in [`super::LANGEVIN_LABELS`] order)
/// of `paths` paths.
pub fn fig4_2(stats: &[SimStats], paths: usize, out: &Output) {
    let Some(first) = stats.first() else {
        return;
    };
    for (m, tag) in TAGS.iter().enumerate() {
        let mut series = vec![
            Series::new(
                "GLA reference: Richardson (4E[h/8] − E[h/4])/3",
                moment(&first.t, &first.gla_ref, m),
            ),
            Series::new(
                format!("GLA at h = {:.1e} ≈ 0.1/ω", super::langevin_steps(100.0).0),
                moment(&first.t, &first.gla_h, m),
            ),
        ];
        // The family study is an extrapolation, not a SIM1 run of its own: not drawn.
        for (label, st) in super::LANGEVIN_LABELS.iter().zip(stats) {
            if *label != "resonant_family" {
                series.push(Series::new(sim_label(label, st), moment(&st.t, &st.raw, m)));
            }
        }
        emit(
            out,
            &Chart {
                stem: format!("{}.fig4_2_{tag}", SimLangevinExperiment::NAME),
                title: format!(
                    "004 Fig 4.2: {} over time, ω = 100, c = 0.1, β = 10, {paths} paths",
                    MOMENTS[m]
                ),
                x_label: "time t [s]".into(),
                y_label: format!("empirical moment {} [{}]", MOMENTS[m], UNITS[m]),
                log_x: false,
                log_y: false,
                series,
            },
        );
    }
}
