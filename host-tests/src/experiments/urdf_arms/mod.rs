//! `reproduce urdf-arms`: the mechanisms `urdf2mech` emits for the shipped URDFs — a planar
//! 3-link arm (`DIM = 2`) and a UR5-like 6-DOF arm (`DIM = 3`) — released from rest at their
//! zero configuration (stretched horizontally) under gravity `9.81`, no control, in `f64`:
//! RATTLE on the exact constraints and Z&S on the penalty form, over `T = 100 s` (the paper
//! setup) or `1 s` (quick). Measured: `max |E(t) − E(0)|`, the largest constraint residual, and
//! for the arm the drift of `L_z` (gravity along `−z` and a base joint about `z` conserve it).
//!
//! The penalty's `ω` is set by the smallest body: the wrist links' nodes sit 2–4 cm from their
//! centres of mass, and at `ω = 10⁴` the arm's wrist deforms past the step guard's 10 % relative
//! residual once it swings fast (`t ≈ 1.5 s`), so the setups use `ω = 10⁵`; at that `ω`, Z&S
//! steps with `h ω = 25` (or `15` at `ω = 3·10⁴`) let the arm's energy grow until a guard stops
//! the run (`t ≈ 16 s`), while `h ω = 10` keeps it bounded: `h = 0.1 ms`.

pub mod models;
pub mod run;

use crate::experiments::Experiment;
use crate::plot::{Chart, Series};
use crate::report::{figure, sci, Output, Table};
use crate::say;
use run::{Method, Run};

/// Gravity (m/s²).
pub const G: f64 = 9.81;

/// What to run.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// Simulated time (s).
    pub t_end: f64,
    /// RATTLE's step (s).
    pub h_rattle: f64,
    /// Z&S's step (s).
    pub h_zs: f64,
    /// Z&S's penalty frequency (1/s).
    pub omega: f64,
}

impl Setup {
    /// `T = 100 s`, RATTLE at `h = 1 ms`, Z&S at `h = 0.1 ms` with `ω = 10⁵`.
    pub fn paper() -> Self {
        Self {
            t_end: 100.0,
            h_rattle: 1e-3,
            h_zs: 1e-4,
            omega: 1e5,
        }
    }

    /// The paper's steps over `T = 1 s`.
    pub fn quick() -> Self {
        Self {
            t_end: 1.0,
            ..Self::paper()
        }
    }
}

/// Both methods' runs of one arm.
#[derive(Clone, Debug)]
pub struct Arm {
    /// RATTLE, exact constraints.
    pub rattle: Run,
    /// Z&S, penalty form.
    pub zs: Run,
}

/// What it measures.
#[derive(Clone, Debug)]
pub struct Results {
    /// The setup run.
    pub setup: Setup,
    /// The planar 3-link arm.
    pub planar3: Arm,
    /// The 6-DOF arm.
    pub arm6: Arm,
}

/// Runs the four cases, two at a time (the runs are independent; nothing here is timed).
pub fn compute(setup: &Setup) -> Results {
    let (p3, p3_ids) = models::planar_arm3::build::<f64>(G).expect("the emitted arm builds");
    let (a6, a6_ids) = models::arm6::build::<f64>(G).expect("the emitted arm builds");
    let sample = |h: f64| ((setup.t_end / h) as usize / 500).max(1);
    let (s, zs) = (setup, Method::Zs(setup.omega));
    let arm6 = std::thread::scope(|scope| {
        let r = scope.spawn(|| {
            run::run(
                &a6,
                &a6_ids.joints,
                Method::Rattle,
                s.h_rattle,
                s.t_end,
                sample(s.h_rattle),
            )
        });
        let z = run::run(&a6, &a6_ids.joints, zs, s.h_zs, s.t_end, sample(s.h_zs));
        Arm {
            rattle: r.join().expect("the RATTLE run"),
            zs: z,
        }
    });
    let planar3 = Arm {
        rattle: run::run(
            &p3,
            &p3_ids.joints,
            Method::Rattle,
            s.h_rattle,
            s.t_end,
            sample(s.h_rattle),
        ),
        zs: run::run(&p3, &p3_ids.joints, zs, s.h_zs, s.t_end, sample(s.h_zs)),
    };
    Results {
        setup: *setup,
        planar3,
        arm6,
    }
}

/// Prints the table, the `figure` lines and the energy chart.
pub fn report(r: &Results, out: &Output) {
    let s = &r.setup;
    say!(
        out,
        "urdf-arms: emitted mechanisms from rest at q = 0 under g = {G}, no control, T = {} s, f64",
        s.t_end
    );
    let t = Table::new(
        out,
        &[
            "arm",
            "method",
            "h",
            "steps",
            "E0 J",
            "max|ΔE| J",
            "max residual",
            "max|ΔL_z|",
        ],
    );
    let cases = [("planar3", &r.planar3), ("arm6", &r.arm6)];
    for (name, arm) in cases {
        for (method, h, run) in [
            ("RATTLE".to_string(), s.h_rattle, &arm.rattle),
            (format!("Z&S ω={:.0e}", s.omega), s.h_zs, &arm.zs),
        ] {
            t.row(&[
                name.to_string(),
                method.clone(),
                sci(h),
                run.steps.to_string(),
                format!("{:.4}", run.e0),
                sci(run.max_de),
                sci(run.residual),
                if name == "arm6" {
                    sci(run.lz_drift)
                } else {
                    "—".into()
                },
            ]);
            if let Some(e) = run.error {
                say!(
                    out,
                    "  {name} {method}: stopped after {} steps: {e}",
                    run.steps
                );
            }
        }
    }
    for (name, arm) in cases {
        figure(&format!("urdf-arms.{name}.max_de"), arm.rattle.max_de);
        figure(&format!("urdf-arms.{name}.residual"), arm.rattle.residual);
        figure(&format!("urdf-arms.{name}.zs.max_de"), arm.zs.max_de);
        figure(&format!("urdf-arms.{name}.zs.residual"), arm.zs.residual);
    }
    figure("urdf-arms.arm6.lz_drift", r.arm6.rattle.lz_drift);
    for (name, arm) in cases {
        figure(
            &format!("urdf-arms.{name}.zs.t_reached"),
            arm.zs.steps as f64 * s.h_zs,
        );
    }
    // The start (ΔE = 0) has no place on a log axis.
    let abs = |run: &Run| {
        let points = run.energy.iter().filter(|p| p.1 != 0.0);
        points.map(|&(t, e)| (t, e.abs())).collect()
    };
    crate::plot::emit(
        out,
        &Chart {
            stem: "urdf-arms.energy".into(),
            title: "URDF arms under gravity, no control: energy error".into(),
            x_label: "t (s)".into(),
            y_label: "|E(t) − E(0)| (J)".into(),
            log_x: false,
            log_y: true,
            series: vec![
                Series::new("arm6, RATTLE", abs(&r.arm6.rattle)),
                Series::new("arm6, Z&S", abs(&r.arm6.zs)),
                Series::new("planar3, RATTLE", abs(&r.planar3.rattle)),
                Series::new("planar3, Z&S", abs(&r.planar3.zs)),
            ],
        },
    );
}

/// `reproduce urdf-arms`.
pub struct UrdfArmsExperiment;

impl Experiment for UrdfArmsExperiment {
    const NAME: &'static str = "urdf-arms";
    const SEED: &'static str = "(application: URDF in, 000 §4.5 bodies)";
    const SECONDS: f64 = 130.0;
    const ABOUT: &'static str = "planar 3-link and UR5-like 6-DOF arms from URDF (urdf2mech), free fall under gravity: energy, residual, L_z over T = 100 s (RATTLE, Z&S)";
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
