use super::report::entries;
use super::*;

#[test]
fn quick_setup_finds_settings_that_meet_the_targets() {
    let setup = Setup::quick();
    let r = compute(&setup);
    assert_eq!(r.sizes.len(), 2);
    for s in &r.sizes {
        // The two rigid references (O(n) ABA at 1e-13, O(n³) LU at 1e-12) agree.
        assert!(
            s.reference_agreement < 1e-9,
            "n = {}: {}",
            s.n,
            s.reference_agreement
        );
        let list = entries(s, &r.targets);
        for &e in &r.targets {
            for key in ["sylipn", "rattle", "aba_dop853"] {
                let en = list.iter().find(|x| x.key == key && x.target == e).unwrap();
                let (p, err, cost) = en.found.unwrap_or_else(|| panic!("{key} at {e}: none"));
                assert!(err <= e && cost > 0.0, "{key} n = {}: {err} at {p}", s.n);
            }
        }
        // The found ABA tolerance, run again here, meets the target against the reference.
        let e = r.targets[1];
        let en = list
            .iter()
            .find(|x| x.key == "aba_dop853" && x.target == e)
            .unwrap();
        let tol = en.found.unwrap().0;
        let refq = reference::chain::reference(s.n, setup.span, setup.n_out);
        let obs = match s.n {
            2 => methods::aba_dop853::<2, 4>(tol, setup.span, setup.n_out),
            _ => methods::aba_dop853::<5, 10>(tol, setup.span, setup.n_out),
        }
        .unwrap();
        assert!(methods::max_diff(&obs, &refq) <= e);
        // The model error is converged in DOP853's tolerance: a tenth of it moves it by < 1e-6.
        assert_eq!(s.model_tol_check.len(), r.targets.len());
        for (e, check) in &s.model_tol_check {
            assert!(*check < 1e-6, "n = {}, target {e}: {check}", s.n);
        }
    }
}

#[test]
fn chosen_omega_is_the_least_with_model_error_within_margin() {
    let setup = Setup::quick();
    let (span, n_out) = (setup.span, setup.n_out);
    let refq = reference::chain::reference(5, span, n_out);
    let e = 1e-2;
    let errs: Vec<f64> = setup
        .effort
        .omegas
        .iter()
        .map(|&w| model_error::<10, 5>(w, MODEL_TOL, span, n_out, &refq))
        .collect();
    // The penalty model converges to the rigid one as ω grows (about as ω⁻²).
    assert!(errs[errs.len() - 1] < errs[0] / 50.0, "{errs:?}");
    let k = errs
        .iter()
        .position(|&m| m <= setup.effort.model_margin * e)
        .expect("some ω qualifies");
    let r = compute(&Setup {
        sizes: vec![5],
        targets: vec![e],
        ..Setup::quick()
    });
    let p = &r.sizes[0].comparison.penalty[0];
    assert_eq!(p.omega, Some(setup.effort.omegas[k]));
    assert!(p.model_err <= 3e-3);
}

#[test]
#[ignore = "needs the mujoco Python package (`cargo xtask peers` installs it)"]
fn mujoco_rk4_on_the_double_pendulum_converges() {
    let refq = reference::chain::reference(2, 1.0, 2);
    let effort = SweepEffort {
        span: 1.0,
        targets: vec![1e-4],
        rounds: 1,
        max_run_seconds: 2.0,
    };
    let pts = mujoco_sweep(2, &refq, effort).unwrap();
    let rk4: Vec<&MjPoint> = pts.iter().filter(|p| p.integrator == "rk4").collect();
    // RK4 reaches 1e-4 / 3 at some step, and refining the step lowers the error.
    assert!(rk4.last().unwrap().err < 1e-4 / 3.0, "{rk4:?}");
    assert!(rk4.last().unwrap().err < rk4[0].err, "{rk4:?}");
}
