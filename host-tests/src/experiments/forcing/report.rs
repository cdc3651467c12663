//! The report of `reproduce forcing`: tables and `figure` lines from [`Results`].

use super::{compute, monotone_from_c, ForcingExperiment, Results, Setup, DASHPOTS, SCAN};
use crate::experiments::Experiment;
use crate::report::{figure, figure_int, sci, Output, Table};
use crate::say;

/// Prints the tables and the figure lines.
pub fn report(r: &Results, out: &Output) {
    let setup = &r.setup;
    say!(
        out,
        "forces on the double pendulum (000 §4.1), f(t) smooth, |f| ≤ 0.5, midpoint-held"
    );
    say!(
        out,
        "order: global error at t = {} vs DOP853 on the same forced system, h = {:?}",
        setup.order_t,
        setup.order_steps
    );
    say!(
        out,
        "balance: max |E − E₀ − W| over T = {} (W = Σ uᵀΔq per step or stage), at h = {} and h/2",
        setup.balance_t,
        setup.balance_h
    );
    let t = Table::new(
        out,
        &[
            "method",
            "ORDER",
            "slope",
            "balance h",
            "balance h/2",
            "rate",
            "defect",
        ],
    );
    for m in &r.forced {
        let rate = (m.balance / m.balance_half).log2();
        t.row(&[
            m.name.to_string(),
            m.order.to_string(),
            format!("{:.2}", m.slope),
            sci(m.balance),
            sci(m.balance_half),
            format!("{rate:.2}"),
            sci(m.defect),
        ]);
    }
    for m in &r.forced {
        figure(&format!("forcing.order.{}", m.name), m.slope);
    }
    for m in &r.forced {
        figure(&format!("forcing.energy_balance.{}", m.name), m.balance);
        figure(
            &format!("forcing.energy_balance_rate.{}", m.name),
            (m.balance / m.balance_half).log2(),
        );
    }
    for m in &r.forced {
        figure(&format!("forcing.forced_symplectic.{}", m.name), m.defect);
    }
    report_damping(r, setup, out);
    report_reaction_and_input(r, setup, out);
}

/// The damping tables and figures: per-step and per-period monotonicity, and the smallest
/// dashpot from which no step gains energy.
fn report_damping(r: &Results, setup: &Setup, out: &Output) {
    for (c, runs, prefix) in [
        (DASHPOTS[0], &r.damped, "damping"),
        (DASHPOTS[1], &r.damped_light, "damping.light"),
    ] {
        say!(out);
        say!(out, "damping C = {c} I (dashpot to ground on every coordinate), h = 0.01, {} steps, unforced", setup.damping_steps);
        let t = Table::new(
            out,
            &[
                "method",
                "E increases",
                "max increase / S",
                "period-mean increases",
                "(E−E_min)/(E₀−E_min)",
            ],
        );
        for d in runs {
            t.row(&[
                d.name.to_string(),
                d.increases.to_string(),
                sci(d.max_increase),
                d.period_increases.to_string(),
                sci(d.remaining),
            ]);
        }
        for d in runs {
            figure_int(
                &format!("{prefix}.monotone.{}", d.name),
                i64::from(d.increases == 0),
            );
            figure_int(
                &format!("{prefix}.increases.{}", d.name),
                d.increases as i64,
            );
        }
        for d in runs {
            figure_int(
                &format!("{prefix}.monotone_period.{}", d.name),
                i64::from(d.period_increases == 0),
            );
        }
    }
    say!(out);
    say!(
        out,
        "smallest c of {:?} from which on no single step gains energy (NaN: none)",
        [DASHPOTS[1], SCAN[0], SCAN[1], DASHPOTS[0]]
    );
    for (k, d) in r.damped.iter().enumerate() {
        figure(
            &format!("damping.monotone_from_c.{}", d.name),
            monotone_from_c(r, k),
        );
    }
}

/// Rod tensions (penalty vs RATTLE) and the bad-input cases.
fn report_reaction_and_input(r: &Results, setup: &Setup, out: &Output) {
    say!(out);
    say!(out, "rod tensions, penalty Z&S (ω = 100) windowed over 0.2 vs RATTLE windowed, h = 0.001, t ≤ {}", setup.reaction_t);
    say!(
        out,
        "  windowed: {}   pointwise −ω²g: {}   (relative to max RATTLE tension)",
        sci(r.reaction_window),
        sci(r.reaction_pointwise)
    );
    figure("reaction.rattle_vs_penalty", r.reaction_window);
    figure("reaction.rattle_vs_penalty_pointwise", r.reaction_pointwise);
    say!(out);
    say!(
        out,
        "bad input: {} of {} cases gave their typed error with the state untouched",
        r.bad_ok,
        r.bad_cases
    );
    figure_int("forcing.bad_input.ok", r.bad_ok as i64);
    figure_int("forcing.bad_input.cases", r.bad_cases as i64);
}

impl Experiment for ForcingExperiment {
    const NAME: &'static str = "forcing";
    const SEED: &'static str = "Marsden & West 2001 §3.2; 000 eq 1.8";
    const SECONDS: f64 = 10.0;
    const ABOUT: &'static str =
        "external forces (order, energy balance, forced symplecticity), damping, reaction forces";
    type Setup = Setup;
    type Results = Results;

    fn paper() -> Setup {
        Setup::paper()
    }

    fn quick() -> Setup {
        Setup::quick()
    }

    fn compute(setup: &Setup) -> Results {
        compute(setup)
    }

    fn report(results: &Results, out: &Output) {
        report(results, out);
    }
}
