//! FLAVOR on the molecular examples of 004 §2.6.4–2.6.5: the propane clip
//! model (derivatives, validation) and cheap versions of `reproduce flavor-propane` and
//! `reproduce flavor-molecule`.

use host_tests::experiments::flavor::{molecule, propane};
use host_tests::{for_scalars, Tolerance};
use macrostep::autodiff::AutoDiff;
use macrostep::baselines::{EulerOrdering, SymplecticEuler};
use macrostep::model::Potential;
use macrostep::nalgebra::{vector, SVector};
use macrostep::systems::Propane;
use macrostep::{ConfigError, Integrator, Real};

/// Central differences of `V` at `q` (step `h`).
fn fd_gradient<P: Potential<f64, 6>>(v: &P, q: &SVector<f64, 6>, h: f64) -> SVector<f64, 6> {
    SVector::from_fn(|i, _| {
        let mut a = *q;
        let mut b = *q;
        a[i] += h;
        b[i] -= h;
        (v.energy(&a) - v.energy(&b)) / (2.0 * h)
    })
}

/// The hand-written gradients of both terms agree with forward-mode AD of their energies (to
/// rounding) and with central differences (O(h²) = 1e-10 with h = 1e-5, scaled by the force),
/// at the paper's start and at a strongly bent, stretched configuration.
#[test]
fn propane_gradients_are_exact() {
    let m = Propane::<f64>::paper();
    let starts = [m.initial_state().q, vector![0.1, -0.2, 1.7, 0.3, 1.9, 1.6]];
    for q in &starts {
        let bonds = m.bonds();
        let angle = m.angle_term();
        for (hand, ad, fd) in [
            (
                bonds.gradient(q),
                AutoDiff(bonds).gradient(q),
                fd_gradient(&bonds, q, 1e-5),
            ),
            (
                angle.gradient(q),
                AutoDiff(angle).gradient(q),
                fd_gradient(&angle, q, 1e-5),
            ),
        ] {
            let scale = hand.amax().max(1e-3);
            assert!(
                (hand - ad).amax() < 1e-13 * scale.max(1.0),
                "{hand} vs AD {ad}"
            );
            assert!(
                (hand - fd).amax() < 1e-8 * scale.max(1.0),
                "{hand} vs FD {fd}"
            );
        }
        // Internal forces: no net force and no net torque.
        let g = m.split().gradient(q);
        assert!((g[0] + g[2] + g[4]).abs() < 1e-9 && (g[1] + g[3] + g[5]).abs() < 1e-9);
        let torque: f64 = (0..3)
            .map(|i| q[2 * i] * g[2 * i + 1] - q[2 * i + 1] * g[2 * i])
            .sum();
        assert!(torque.abs() < 1e-9, "torque {torque}");
    }
}

/// The model in f32 and f64: the paper's start (bond lengths 1.533 and 1.5296, angle 134.95°,
/// angle energy ½·4.31·(cos 134.95° − cos 109.5°)² = 0.3013).
fn propane_start<T: Real + Tolerance>() {
    let m = Propane::<T>::paper();
    let s = m.initial_state();
    let [r1, r2] = Propane::bond_lengths(&s.q);
    // A few roundings of the inputs and of the formulas.
    let tol = 100.0 * T::EPS;
    assert!((r1.to_f64() - 1.533).abs() < tol);
    assert!((r2.to_f64() - 1.529_6).abs() < 1e-4);
    let theta = Propane::angle(&s.q).to_f64().to_degrees();
    assert!((theta - 134.95).abs() < 0.01, "{theta}");
    let v = m.angle_term().energy(&s.q).to_f64();
    let c = theta.to_radians().cos() - 109.5f64.to_radians().cos();
    assert!((v - 0.5 * 4.31 * c * c).abs() < tol, "{v}");
    // Momenta: m v = p.
    let p = m.mass().mul(&s.v);
    assert!((p[1].to_f64() + 1.6656).abs() < tol * 2.0);
}
for_scalars!(propane_start);

/// Every parameter check of `Propane::new`.
#[test]
fn propane_rejects_bad_parameters() {
    let ok = |m: [f64; 3], r0, kr, th, kt| Propane::new(m, r0, kr, th, kt).map(|_| ());
    let theta0 = 1.9;
    assert_eq!(ok([15.0, 14.0, 15.0], 1.53, 8370.0, theta0, 4.31), Ok(()));
    assert_eq!(
        ok([15.0, 0.0, 15.0], 1.53, 8370.0, theta0, 4.31),
        Err(ConfigError::OutOfRange {
            name: "mass",
            bound: "> 0"
        })
    );
    assert_eq!(
        ok([15.0, 14.0, 15.0], f64::NAN, 8370.0, theta0, 4.31),
        Err(ConfigError::NonFinite { name: "r0" })
    );
    assert_eq!(
        ok([15.0, 14.0, 15.0], 1.53, -1.0, theta0, 4.31),
        Err(ConfigError::OutOfRange {
            name: "k_r",
            bound: "> 0"
        })
    );
    assert_eq!(
        ok([15.0, 14.0, 15.0], 1.53, 8370.0, 3.2, 4.31),
        Err(ConfigError::OutOfRange {
            name: "theta0",
            bound: "in (0, pi)"
        })
    );
    assert_eq!(
        ok([15.0, 14.0, 15.0], 1.53, 8370.0, 0.0, 4.31),
        Err(ConfigError::OutOfRange {
            name: "theta0",
            bound: "in (0, pi)"
        })
    );
    assert_eq!(
        ok([15.0, 14.0, 15.0], 1.53, 8370.0, theta0, f64::INFINITY),
        Err(ConfigError::NonFinite { name: "k_theta" })
    );
}

/// Propane (cheap `reproduce flavor-propane`): the thesis's FLAVOR (τ = 0.01, δ = 0.1,
/// over symplectic Euler) follows the slow bond angle and orientation of a DOP853 reference over
/// T = 30 (three angle periods, 90°–135°). Measured: θ 1.23e-2 rad (already the maximum over
/// T = 100), φ 1.9e-3 rad, bond-length window means 2.4e-4. The θ bound 1.5e-2 is the
/// legacy's own error at τ (symplectic Euler at h = 0.01: 5.4e-3) plus the averaging error at
/// δ/τ = 10 (≈ 7e-3, the experiment's sweep) with 20 % margin: 2 % of the 0.79 rad swing (it
/// does not separate δ/τ = 10 from 20, which gives 1.3e-2 … 2.0e-2). Symplectic Euler at the FLAVOR's step δ (hω ≈ 4 > 2)
/// cannot do this: it blows up.
#[test]
fn propane_slow_dynamics_captured() {
    let r = propane::compute(&propane::Setup {
        t_end: 30.0,
        dt_ref: 0.01,
        window: 10.0,
        sweep: vec![propane::Setup::PAPER],
        legacy: vec![],
    });
    let e = r.flavor[0].2;
    assert!(e.theta < 1.5e-2, "theta error {:e}", e.theta);
    assert!(e.phi < 1e-2, "orientation error {:e}", e.phi);
    // The bond lengths in window means over one angle period (F-convergence): the experiment
    // measures 2.5e-4 over T = 100, against a stretch amplitude of ≈ 3e-3.
    assert!(
        e.bond_window < 1e-3,
        "bond window error {:e}",
        e.bond_window
    );
    let m = Propane::<f64>::paper();
    let mut se = SymplecticEuler::new(
        m.system(),
        propane::Setup::PAPER.1,
        EulerOrdering::KickDrift,
    )
    .unwrap();
    let mut s = m.initial_state();
    let blew = se.integrate(&mut s, 300).is_err() || (Propane::angle(&s.q) - 1.9).abs() > 1.0;
    assert!(blew, "symplectic Euler at delta should fail");
}

/// `reproduce flavor-molecule` over T = 20 at one rest length `r0` (ω = 500, start (1.1, 0.8)
/// at rest): the largest error of the slow angle's window means (width 1) against DOP853 of the
/// nonintrusive FLAVOR over symplectic Euler at the thesis's (δ, τ) = (0.01, 2·10⁻⁴), and at
/// τ = `small_tau` with δ/τ = 50 if given.
fn molecule_t20(r0: f64, small_tau: Option<f64>) -> molecule::R0Results {
    let r = molecule::compute(&molecule::Setup {
        r0s: vec![r0],
        flavor: (0.01, 2e-4, 20.0),
        study_taus: small_tau.into_iter().collect(),
        study_ratios: vec![50.0],
        ..molecule::Setup::paper()
    });
    r.runs.into_iter().next().expect("one rest length")
}

/// The 2-D primitive molecule (§2.6.4, eq 2.108; cheap `reproduce flavor-molecule`):
/// ω = 500, δ = 0.01, τ = 2e-4, r₀ = 1.3, start (1.1, 0.8) at rest; the slow angle in window
/// means over 1 stays within 1e-2 of DOP853 over T = 20 (measured 7.8e-3, also the maximum over
/// T = 100, on a swing of 1.9 rad; with r₀ = 1, an initial stretch of 0.36 at ω = 500, the
/// experiment shows the FLAVOR losing the angle, 0.59).
#[test]
fn molecule_2_6_4_slow_angle_captured() {
    let worst = molecule_t20(1.3, None).window_err;
    assert!(worst < 1e-2, "window error {worst:e}");
}

/// The molecule with r₀ = 1 (bond stretched 36 % at the start, bond energy 1.6·10⁴): at the
/// thesis's τ = 2·10⁻⁴ (τω = 0.1) and δ/τ = 50 the FLAVOR loses the slow angle (window-mean
/// error 0.59 over T = 100 in `reproduce flavor-molecule`, 0.115 by T = 20 here) although
/// symplectic Euler at τ is within 1e-2; the averaging error falls steeply with τ at fixed δ/τ,
/// and τ = 5·10⁻⁵, δ = 2.5·10⁻³ tracks the angle (4.6e-3 by T = 20, 1.6e-2 over T = 100).
#[test]
fn molecule_large_stretch_needs_the_smaller_tau() {
    let r = molecule_t20(1.0, Some(5e-5));
    let (thesis, small) = (r.window_err, r.study[0].flavor[0].1);
    println!("r0 = 1, T = 20: window error tau = 2e-4: {thesis:.3e}; tau = 5e-5: {small:.3e}");
    // Bounds at half (resp. twice) the measured values: deterministic runs, the margin is for
    // a change of legacy map or reference tolerance, not for noise.
    assert!(
        thesis > 0.05,
        "thesis tau unexpectedly accurate: {thesis:e}"
    );
    assert!(small < 1e-2, "small tau window error {small:e}");
}
