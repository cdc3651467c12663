use super::methods::{self, max_angle_diff, wrap};
use super::report::entries;
use super::*;

#[test]
fn wrap_maps_into_the_half_open_circle() {
    assert_eq!(wrap(0.5), 0.5);
    assert!((wrap(2.0 * std::f64::consts::PI + 0.25) - 0.25).abs() < 1e-12);
    assert!((wrap(-std::f64::consts::PI) - std::f64::consts::PI).abs() < 1e-12);
    assert!(max_angle_diff(&[0.1, 3.1], &[0.1, -3.1]) < 0.09);
    assert!(max_angle_diff(&[0.0], &[0.0, 1.0]).is_infinite());
}

/// The emitted mechanism and the articulated-body chain are the same arm: RATTLE at a fine step
/// on the emitted arm follows the chain's reference (the links' masses, centres of mass and
/// inertias were read off the URDF twice, by the tool and by hand).
#[test]
fn emitted_arm_and_articulated_chain_agree() {
    let (span, n_out) = (0.5, 5);
    let refq = methods::reference(span, n_out);
    let rattle = methods::rigid(span, n_out)
        .into_iter()
        .find(|m| m.key == "rattle")
        .unwrap();
    let obs = (rattle.run)(1e-4).unwrap();
    let err = max_angle_diff(&obs, &refq);
    assert!(err < 1e-5, "{err}");
    // The arm really moves: the shoulder falls by more than 0.5 rad in 0.5 s.
    assert!(refq[3 * (n_out - 1)] < -0.5, "{refq:?}");
}

#[test]
fn quick_setup_finds_settings_that_meet_the_target() {
    let setup = Setup::quick();
    let r = compute(&setup);
    // The reference (1e-13) against DOP853 at 1e-12: the swing amplifies the tolerance's local
    // errors (measured 1.3e-9 over T = 1); the bound keeps it 10⁵ below the target.
    assert!(r.reference_check < 1e-7, "{}", r.reference_check);
    let list = entries(&r);
    for key in ["zs", "sylipn", "rattle", "aba_dop853"] {
        let en = list.iter().find(|x| x.key == key).unwrap();
        let (p, err, cost) = en.found.unwrap_or_else(|| panic!("{key}: none"));
        assert!(err <= setup.targets[0] && cost > 0.0, "{key}: {err} at {p}");
    }
    // The chosen ω's model error is within the margin, and a larger ω lowers it.
    let pen = &r.comparison.penalty[0];
    assert!(pen.model_err <= setup.effort.model_margin * setup.targets[0]);
    // The model error is converged in DOP853's tolerance: a tenth of it moves it by < 1 %.
    assert_eq!(r.model_tol_check.len(), 1);
    assert!(r.model_tol_check[0].1 < 1e-2, "{:?}", r.model_tol_check);
    let errs: Vec<f64> = r.comparison.model_errors.iter().map(|x| x.1).collect();
    if errs.len() > 1 {
        assert!(errs[errs.len() - 1] < errs[0], "{errs:?}");
    }
}

/// The penalty's model error falls as ω⁻²: at ω = 10⁴ and 10⁵ over 0.5 s, a ratio of 100.
#[test]
fn model_error_falls_as_omega_to_the_minus_two() {
    let (span, n_out) = (0.5, 2);
    let refq = methods::reference(span, n_out);
    let (e4, e5) = (
        model_error(1e4, MODEL_TOL, span, n_out, &refq),
        model_error(1e5, MODEL_TOL, span, n_out, &refq),
    );
    let ratio = e4 / e5;
    assert!((70.0..140.0).contains(&ratio), "{e4} / {e5} = {ratio}");
}

#[test]
#[ignore = "needs the mujoco Python package (`cargo xtask peers` installs it)"]
fn mujoco_rk4_on_the_arm_converges_to_the_reference() {
    let (span, n_out) = (0.5, 2);
    let refq = methods::reference(span, n_out);
    let effort = SweepEffort {
        span,
        targets: vec![1e-4],
        rounds: 1,
        max_run_seconds: 2.0,
    };
    let pts = mujoco_sweep(&refq, effort).unwrap();
    let rk4: Vec<_> = pts.iter().filter(|p| p.integrator == "rk4").collect();
    // MuJoCo's arm is the same arm: RK4 reaches 1e-4 / 3 rad at some step, and refining the
    // step lowers the error.
    assert!(rk4.last().unwrap().err < 1e-4 / 3.0, "{rk4:?}");
    assert!(rk4.last().unwrap().err < rk4[0].err, "{rk4:?}");
}
