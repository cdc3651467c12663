//! The charts of the five experiments that name a paper figure and drew none before (`vs-vr`
//! 001 Fig 2, `sim-langevin` 004 Fig 4.2, `flavor-langevin`, `dna` 000 Fig 8, `kapitza`):
//! each writes its PNG, SVG and long-format CSV under `--plot`/`--csv` from a reduced setup,
//! and `--figures-only` separates the `figure` lines from the table.

use host_tests::csv::parse_long;
use host_tests::experiments::constrained::vs_vr::VsVrExperiment;
use host_tests::experiments::flavor::kapitza::KapitzaExperiment;
use host_tests::experiments::flavor::langevin::FlavorLangevinExperiment;
use host_tests::experiments::sim::langevin::SimLangevinExperiment;
use host_tests::experiments::zs::dna::DnaExperiment;
use host_tests::experiments::Experiment;
use host_tests::report::Output;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory for `what`.
fn dir(what: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("charts-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Reports `r` of `E` with charts into a fresh directory; checks every `<stem>` has a PNG (a
/// drawn image, not a blank canvas: more than 15 kB), an SVG naming every series of the CSV,
/// and a long CSV of at least `min_rows` points whose units line comes first.
fn check<E: Experiment>(r: &E::Results, stems: &[&str], min_rows: usize) {
    let d = dir(E::NAME);
    let out = Output {
        figures_only: true,
        csv: Some(d.clone()),
        plot: Some(d.clone()),
    };
    E::report(r, &out);
    for stem in stems {
        let file = |ext: &str| d.join(format!("{}.{stem}.{ext}", E::NAME));
        let png = std::fs::metadata(file("png")).unwrap_or_else(|e| panic!("{stem}.png: {e}"));
        assert!(png.len() > 15_000, "{stem}.png has {} bytes", png.len());
        let csv = read(&file("csv"));
        assert!(csv.starts_with("# x: "), "{stem}.csv: {}", &csv[..40]);
        let table = parse_long(&csv).unwrap_or_else(|e| panic!("{stem}.csv: {e}"));
        assert!(
            table.rows.len() >= min_rows,
            "{stem}.csv: {} rows",
            table.rows.len()
        );
        assert!(table.rows.iter().all(|row| row.0 == E::NAME));
        let svg = read(&file("svg"));
        for row in &table.rows {
            let label = row
                .1
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&apos;");
            assert!(svg.contains(&label), "{stem}.svg lacks series `{}`", row.1);
        }
    }
    std::fs::remove_dir_all(&d).ok();
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn vs_vr_draws_fig2() {
    let r = VsVrExperiment::compute(&VsVrExperiment::quick());
    // One point per step of each of the three series.
    check::<VsVrExperiment>(&r, &["fig2_velocity_residual"], 3 * 1000);
}

#[test]
fn dna_draws_fig8() {
    let r = DnaExperiment::compute(&DnaExperiment::quick());
    check::<DnaExperiment>(&r, &["fig8_mean_angle"], 100);
}

#[test]
fn sim_langevin_draws_fig4_2() {
    let setup = SimLangevinExperiment::with_paths(SimLangevinExperiment::quick(), 20);
    let r = SimLangevinExperiment::compute(&setup);
    let stems = ["fig4_2_ex", "fig4_2_ey", "fig4_2_ex2", "fig4_2_ey2"];
    check::<SimLangevinExperiment>(&r, &stems, 20);
}

#[test]
fn flavor_langevin_draws_its_studies() {
    let mut setup = FlavorLangevinExperiment::with_paths(FlavorLangevinExperiment::quick(), 10);
    setup.omegas.truncate(2);
    let r = FlavorLangevinExperiment::compute(&setup);
    check::<FlavorLangevinExperiment>(&r, &["study_delta_over_tau", "study_omega"], 4);
}

#[test]
fn kapitza_draws_its_error_studies() {
    let r = KapitzaExperiment::compute(&KapitzaExperiment::quick());
    check::<KapitzaExperiment>(&r, &["window_error_vs_tau", "averaging_error_vs_ratio"], 4);
}

/// `--figures-only` prints nothing but `figure` lines; the default adds the human table.
#[test]
fn figures_only_separates_figure_lines_from_the_table() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_reproduce"))
            .args(args)
            .output()
            .expect("reproduce runs");
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let only = run(&["vs-vr", "--figures-only"]);
    assert!(only.lines().count() >= 7, "{only}");
    assert!(
        only.lines().all(|l| l.starts_with("figure vs-vr.")),
        "{only}"
    );
    let all = run(&["vs-vr"]);
    let figures: Vec<&str> = all.lines().filter(|l| l.starts_with("figure ")).collect();
    assert_eq!(figures, only.lines().collect::<Vec<_>>());
    assert!(all.lines().any(|l| l.contains("|q_VS − q_VR|")), "{all}");
}
