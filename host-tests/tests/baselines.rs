//! Verification of `macrostep::baselines`: symplectic Euler (both orderings), velocity Verlet and
//! the exact harmonic flow. Every claimed property (`ORDER`, `SYMPLECTIC`, `SYMMETRIC`, adjointness,
//! exactness, the error contract) is measured here.

use host_tests::fixtures::{Morse, PendulumPotential};
use host_tests::measure::baselines::{
    defect_henon_heiles, global_errors, harmonic, harmonic_exact, henon_heiles, order_harmonic,
    order_henon_heiles, reversibility_henon_heiles, state_error, verlet_energy_drift, Baseline,
};
use host_tests::measure::{loglog_slope, symplecticity_defect};
use host_tests::{for_scalars, reference, Tolerance};
use macrostep::baselines::{EulerOrdering, HarmonicFlow, SymplecticEuler, VelocityVerlet};
use macrostep::model::{Mass, Potential, Quadratic, Split, System};
use macrostep::nalgebra::{matrix, vector, DVector, SVector};
use macrostep::{ConfigError, Integrator, Real, State, StepError};

// ---------------------------------------------------------------------------------------------
// Order: log–log slope of the global error at fixed T against h, compared with `ORDER`.

/// Step sizes dividing T = 2 where the error is far above f32 roundoff (smallest Verlet error
/// ~1e-5 at h = 0.01, against ~1e-6 accumulated f32 roundoff over 200 steps).
const HS_F32_SAFE: [f64; 3] = [0.04, 0.02, 0.01];

/// Slope tolerance: the asymptotic regime is reached to ~0.01 at these h (see `reproduce
/// baselines`); 0.1 leaves room for f32 roundoff at the smallest h.
const SLOPE_TOL: f64 = 0.1;

fn order_on_harmonic<T: Real + Tolerance>() {
    for m in Baseline::ALL {
        let (e, slope) = order_harmonic::<T>(m, &HS_F32_SAFE);
        let claimed = m.claimed_order::<T, Quadratic<T, 1>, 1>() as f64;
        assert!(
            (slope - claimed).abs() < SLOPE_TOL,
            "{}: slope {slope} vs ORDER {claimed}, errors {e:?}",
            m.name()
        );
    }
}
for_scalars!(order_on_harmonic);

fn order_on_henon_heiles_with_mass<T: Real + Tolerance>() {
    for m in Baseline::ALL {
        let (e, slope) = order_henon_heiles::<T>(m, &HS_F32_SAFE);
        let claimed = m.claimed_order::<T, host_tests::fixtures::HenonHeiles, 2>() as f64;
        assert!(
            (slope - claimed).abs() < SLOPE_TOL,
            "{}: slope {slope} vs ORDER {claimed}, errors {e:?}",
            m.name()
        );
    }
}
for_scalars!(order_on_henon_heiles_with_mass);

/// Order on two more nonlinear 1-dof potentials with a non-unit mass, reference by DOP853.
fn order_on_pendulum_and_morse<T: Real + Tolerance>() {
    let mass = 1.5;
    let t_end = 2.0;
    let m = Mass::uniform(T::lit(mass)).expect("valid mass");
    let s0 = State::new(T::zero(), vector![T::lit(1.2)], vector![T::lit(-0.3)]);
    let (rtol, atol) = reference::TIGHT;

    let pend = PendulumPotential::<T>::new(2.0);
    let y = reference::solve_to(pend.rhs(mass), 0.0, &[1.2, -0.3], t_end, rtol, atol);
    let sys = System::new(m, pend);
    for b in Baseline::ALL {
        let e = global_errors(b, &sys, &s0, t_end, &HS_F32_SAFE, (&y[..1], &y[1..]));
        let slope = loglog_slope(&HS_F32_SAFE, &e);
        let claimed = b.claimed_order::<T, PendulumPotential<T>, 1>() as f64;
        assert!(
            (slope - claimed).abs() < SLOPE_TOL,
            "pendulum {}: {slope}",
            b.name()
        );
    }

    let morse = Morse::<T>::new(1.0, 1.3, 1.0);
    let y = reference::solve_to(morse.rhs(mass), 0.0, &[1.2, -0.3], t_end, rtol, atol);
    let sys = System::new(m, morse);
    for b in Baseline::ALL {
        let e = global_errors(b, &sys, &s0, t_end, &HS_F32_SAFE, (&y[..1], &y[1..]));
        let slope = loglog_slope(&HS_F32_SAFE, &e);
        let claimed = b.claimed_order::<T, Morse<T>, 1>() as f64;
        assert!(
            (slope - claimed).abs() < SLOPE_TOL,
            "Morse {}: {slope}",
            b.name()
        );
    }
}
for_scalars!(order_on_pendulum_and_morse);

/// The associated constants, read through the trait, agree with every measurement: the rounded
/// slope equals `ORDER`, the defect is below 1e-9 iff `SYMPLECTIC`, the reversibility error is
/// below 1e-12 iff `SYMMETRIC`.
#[test]
fn associated_constants_match_measurements() {
    type P = host_tests::fixtures::HenonHeiles;
    let hs = [0.04, 0.02, 0.01, 0.005];
    let claims: [(Baseline, u32, bool, bool); 3] = [
        (
            Baseline::Verlet,
            <VelocityVerlet<f64, P, 2> as Integrator<f64, 2>>::ORDER,
            <VelocityVerlet<f64, P, 2> as Integrator<f64, 2>>::SYMPLECTIC,
            <VelocityVerlet<f64, P, 2> as Integrator<f64, 2>>::SYMMETRIC,
        ),
        (
            Baseline::EulerKickDrift,
            <SymplecticEuler<f64, P, 2> as Integrator<f64, 2>>::ORDER,
            <SymplecticEuler<f64, P, 2> as Integrator<f64, 2>>::SYMPLECTIC,
            <SymplecticEuler<f64, P, 2> as Integrator<f64, 2>>::SYMMETRIC,
        ),
        (
            Baseline::EulerDriftKick,
            <SymplecticEuler<f64, P, 2> as Integrator<f64, 2>>::ORDER,
            <SymplecticEuler<f64, P, 2> as Integrator<f64, 2>>::SYMPLECTIC,
            <SymplecticEuler<f64, P, 2> as Integrator<f64, 2>>::SYMMETRIC,
        ),
    ];
    for (m, order, symplectic, symmetric) in claims {
        let (_, slope) = order_henon_heiles::<f64>(m, &hs);
        assert_eq!(slope.round() as u32, order, "{}: slope {slope}", m.name());
        let defect = defect_henon_heiles(m, 0.1, 10);
        assert_eq!(defect < 1e-9, symplectic, "{}: defect {defect:e}", m.name());
        let rev = reversibility_henon_heiles(m, 0.05, 200);
        assert_eq!(
            rev < 1e-12,
            symmetric,
            "{}: reversibility {rev:e}",
            m.name()
        );
    }
    // Sanity of the claims themselves.
    assert_eq!(<VelocityVerlet<f64, P, 2> as Integrator<f64, 2>>::ORDER, 2);
    assert_eq!(<SymplecticEuler<f64, P, 2> as Integrator<f64, 2>>::ORDER, 1);
}

// ---------------------------------------------------------------------------------------------
// Symplecticity and reversibility (f64: the measurements difference in f64).

#[test]
fn symplecticity_defect_below_1e9() {
    for m in Baseline::ALL {
        // 10 steps of h = 0.1 on Hénon–Heiles with mass diag(2, 0.5), canonical (q, M v).
        let d = defect_henon_heiles(m, 0.1, 10);
        assert!(d <= 1e-9, "{}: defect {d:e}", m.name());
    }
}

/// The defect measure can fail: explicit Euler (not symplectic) on the same system, written here.
#[test]
fn defect_measure_detects_explicit_euler() {
    let (sys, s0) = henon_heiles::<f64>();
    let h = 0.1;
    let euler = |x: &DVector<f64>| {
        let q = SVector::<f64, 2>::new(x[0], x[1]);
        let p = SVector::<f64, 2>::new(x[2], x[3]);
        let g = sys.potential.gradient(&q);
        let qn = q + sys.mass.solve(&p) * h;
        let pn = p - g * h;
        DVector::from_vec(vec![qn[0], qn[1], pn[0], pn[1]])
    };
    let x0 = DVector::from_vec(vec![s0.q[0], s0.q[1], 0.2, 0.125]);
    assert!(symplecticity_defect(euler, &x0, 1e-6) > 1e-3);
}

#[test]
fn verlet_reversible_to_1e12() {
    let r = reversibility_henon_heiles(Baseline::Verlet, 0.05, 1000);
    assert!(r <= 1e-12, "Verlet reversibility {r:e}");
}

/// Symplectic Euler is not symmetric: Φ₋ₕ∘Φₕ is an O(h²)-per-step perturbation of the identity.
#[test]
fn symplectic_euler_not_reversible() {
    for m in [Baseline::EulerKickDrift, Baseline::EulerDriftKick] {
        let r = reversibility_henon_heiles(m, 0.05, 100);
        assert!(r > 1e-4, "{}: {r:e}", m.name());
    }
}

/// The two orderings are adjoint, Φ*ₕ = Φ₋ₕ⁻¹: kick–drift by h then drift–kick by −h returns
/// the state (and vice versa), to roundoff, on a nonlinear system with a mass.
fn euler_orderings_are_adjoint<T: Real + Tolerance>() {
    let (sys, s0) = henon_heiles::<T>();
    let h = T::lit(0.1);
    for ord in [EulerOrdering::KickDrift, EulerOrdering::DriftKick] {
        let mut fwd = SymplecticEuler::new(sys, h, ord).expect("valid h");
        let mut adj = fwd.adjoint();
        assert_eq!(adj.ordering(), ord.adjoint());
        let mut s = s0;
        for _ in 0..10 {
            fwd.step_by(&mut s, h).expect("step");
            adj.step_by(&mut s, -h).expect("step");
        }
        let err = state_error(
            &s,
            &[s0.q[0].to_f64(), s0.q[1].to_f64()],
            &[s0.v[0].to_f64(), s0.v[1].to_f64()],
        );
        // 20 steps × a few roundoffs of O(1) quantities.
        assert!(err < 100.0 * T::EPS, "{ord:?}: {err:e}");
        // The same ordering backwards is not the inverse (the test can fail).
        let mut same = SymplecticEuler::new(sys, h, ord).expect("valid h");
        let mut s = s0;
        same.step_by(&mut s, h).expect("step");
        same.step_by(&mut s, -h).expect("step");
        let err = state_error(
            &s,
            &[s0.q[0].to_f64(), s0.q[1].to_f64()],
            &[s0.v[0].to_f64(), s0.v[1].to_f64()],
        );
        assert!(err > 1e-4, "{ord:?} self-inverse? {err:e}");
    }
}
for_scalars!(euler_orderings_are_adjoint);

/// Velocity Verlet is the composition of the two orderings with half steps.
fn verlet_is_composition_of_euler_half_steps<T: Real + Tolerance>() {
    let (sys, s0) = henon_heiles::<T>();
    let h = T::lit(0.1);
    let half = T::lit(0.05);
    let mut vv = VelocityVerlet::new(sys, h).expect("valid h");
    let mut kd = SymplecticEuler::new(sys, half, EulerOrdering::KickDrift).expect("valid h");
    let mut dk = kd.adjoint();
    let (mut a, mut b) = (s0, s0);
    for _ in 0..20 {
        vv.step(&mut a).expect("step");
        kd.step(&mut b).expect("step");
        dk.step(&mut b).expect("step");
    }
    let err = state_error(
        &a,
        &[b.q[0].to_f64(), b.q[1].to_f64()],
        &[b.v[0].to_f64(), b.v[1].to_f64()],
    );
    assert!(err < 100.0 * T::EPS, "{err:e}");
}
for_scalars!(verlet_is_composition_of_euler_half_steps);

/// Long run: Verlet's energy error stays bounded (no secular drift) on Hénon–Heiles.
#[test]
fn verlet_energy_does_not_drift() {
    // h = 0.05: the error oscillates at O(h²) ~ 1e-4. Bounded: the max over t ≤ 2000 is not
    // larger than over t ≤ 200 (a drift of even 1e-8 per unit time would double it), and the
    // least-squares trend over the whole run is smaller than the oscillation itself.
    let (_, early) = verlet_energy_drift(0.05, 4_000, 10);
    let (slope, max) = verlet_energy_drift(0.05, 40_000, 10);
    assert!(max < 1e-3, "max energy error {max:e}");
    assert!(max < 1.5 * early, "energy error grows: {early:e} → {max:e}");
    assert!(slope.abs() * 2000.0 < max, "energy drift slope {slope:e}");
}

// ---------------------------------------------------------------------------------------------
// Split potentials: the stiff part switched on/off through `alpha`.

/// `V = ½q²` (ω = 1) and stiff `U = ½·99q²`: α = 1 gives ω = 10, α = 0 gives ω = 1.
fn split_system<T: Real>(alpha: f64) -> System<T, Split<T, Quadratic<T, 1>, Quadratic<T, 1>>, 1> {
    System::new(
        Mass::identity(),
        Split::new(
            Quadratic::new(matrix![T::one()]),
            Quadratic::new(matrix![T::lit(99.0)]),
            T::lit(alpha),
        ),
    )
}

fn split_alpha_switches_dynamics<T: Real + Tolerance>() {
    let s0 = State::new(T::zero(), vector![T::one()], vector![T::zero()]);
    let t_end: f64 = 1.0;
    let h: f64 = 0.001;
    for (alpha, omega) in [(1.0, 10.0_f64), (0.0, 1.0)] {
        let sys = split_system::<T>(alpha);
        let exact = ([(omega * t_end).cos()], [-omega * (omega * t_end).sin()]);
        for m in Baseline::ALL {
            let e = global_errors(m, &sys, &s0, t_end, &[h], (&exact.0, &exact.1))[0];
            // Global error bound C·(ωh)^p·ω·T with the observed constants (< 1 for both orders
            // at ωh ≤ 0.01), plus f32 roundoff over 1000 steps.
            let p = m.claimed_order::<T, Quadratic<T, 1>, 1>() as i32;
            let bound = omega * (omega * h).powi(p) + 1000.0 * T::EPS * omega;
            assert!(e < bound, "{} α={alpha}: {e:e} ≥ {bound:e}", m.name());
        }
    }
}
for_scalars!(split_alpha_switches_dynamics);

/// Switching α through `system_mut()` mid-run takes effect at the next step (Verlet's cached
/// force is cleared): the result is bit-identical to a fresh Verlet on the switched system.
fn verlet_alpha_switch_clears_cache<T: Real + Tolerance>() {
    let h = T::lit(0.01);
    let mut vv = VelocityVerlet::new(split_system::<T>(1.0), h).expect("valid h");
    let mut s = State::new(T::zero(), vector![T::one()], vector![T::zero()]);
    vv.integrate(&mut s, 37).expect("steps");
    vv.system_mut().potential.set_alpha(T::zero());
    let mut fresh = VelocityVerlet::new(split_system::<T>(0.0), h).expect("valid h");
    let mut a = s;
    let mut b = s;
    vv.integrate(&mut a, 5).expect("steps");
    fresh.integrate(&mut b, 5).expect("steps");
    assert_eq!(a, b);
    // The stiff part really was on before the switch (the test can fail).
    let mut on = VelocityVerlet::new(split_system::<T>(1.0), h).expect("valid h");
    let mut c = s;
    on.integrate(&mut c, 5).expect("steps");
    assert!((c.q[0] - a.q[0]).abs().to_f64() > 1e-3);

    // Same for symplectic Euler (no cache, but the switch must be honoured).
    let mut se =
        SymplecticEuler::new(split_system::<T>(1.0), h, EulerOrdering::DriftKick).expect("h");
    se.system_mut().potential.alpha = T::zero();
    let mut se0 =
        SymplecticEuler::new(split_system::<T>(0.0), h, EulerOrdering::DriftKick).expect("h");
    let (mut a, mut b) = (s, s);
    se.integrate(&mut a, 5).expect("steps");
    se0.integrate(&mut b, 5).expect("steps");
    assert_eq!(a, b);
}
for_scalars!(verlet_alpha_switch_clears_cache);

// ---------------------------------------------------------------------------------------------
// HarmonicFlow: exact.

fn harmonic_flow_is_exact<T: Real + Tolerance>() {
    let omega = [0.5, 3.0];
    let flow = HarmonicFlow::new(vector![T::lit(omega[0]), T::lit(omega[1])]).expect("valid");
    let s0 = State::new(
        T::zero(),
        vector![T::one(), T::lit(-0.4)],
        vector![T::lit(0.5), T::lit(2.0)],
    );
    let t = 7.3;
    // Closed form written here, in f64.
    let q0 = [1.0, -0.4];
    let v0 = [0.5, 2.0];
    let exact_q: Vec<f64> = (0..2)
        .map(|i| q0[i] * (omega[i] * t).cos() + v0[i] / omega[i] * (omega[i] * t).sin())
        .collect();
    let exact_v: Vec<f64> = (0..2)
        .map(|i| -q0[i] * omega[i] * (omega[i] * t).sin() + v0[i] * (omega[i] * t).cos())
        .collect();
    // One evolve by t: a few roundoffs of sin/cos of arguments up to ~22.
    let s = flow.evolve(&s0, T::lit(t));
    let scale = 22.0 * 3.0;
    assert!(state_error(&s, &exact_q, &exact_v) < 20.0 * T::EPS * scale);
    assert!((s.t.to_f64() - t).abs() < 4.0 * T::EPS * t);
    // 73 evolves by 0.1 compose to the same (no step-size error at all, only roundoff).
    let mut s = s0;
    for _ in 0..73 {
        s = flow.evolve(&s, T::lit(0.1));
    }
    assert!(state_error(&s, &exact_q, &exact_v) < 300.0 * T::EPS * scale);
    // Energy conserved and the backward flow inverts.
    let back = flow.evolve(&flow.evolve(&s0, T::lit(t)), T::lit(-t));
    let e0 = flow.energy(&s0).to_f64();
    assert!((flow.energy(&s).to_f64() - e0).abs() < 300.0 * T::EPS * e0);
    assert!(state_error(&back, &[1.0, T::lit(-0.4).to_f64()], &[0.5, 2.0]) < 40.0 * T::EPS * scale);
}
for_scalars!(harmonic_flow_is_exact);

/// The flow agrees with the independent DOP853 reference.
#[test]
fn harmonic_flow_matches_reference_solver() {
    let flow = HarmonicFlow::new(vector![2.0_f64]).expect("valid");
    let s0 = State::new(0.0, vector![1.0], vector![0.5]);
    let f = |_t: f64, y: &[f64], dy: &mut [f64]| {
        dy[0] = y[1];
        dy[1] = -4.0 * y[0];
    };
    let (rtol, atol) = reference::TIGHT;
    let y = reference::solve_to(f, 0.0, &[1.0, 0.5], 5.0, rtol, atol);
    let s = flow.evolve(&s0, 5.0);
    assert!(state_error(&s, &y[..1], &y[1..]) < 1e-10);
    // And with the harness's own closed form for ω = 1.
    let flow1 = HarmonicFlow::new(vector![1.0_f64]).expect("valid");
    let (q, v) = harmonic_exact(2.0);
    let (_, s1) = harmonic::<f64>();
    assert!(state_error(&flow1.evolve(&s1, 2.0), &q, &v) < 1e-15);
}

#[test]
fn harmonic_flow_rejects_bad_frequencies() {
    for w in [0.0, -1.0] {
        assert_eq!(
            HarmonicFlow::new(vector![1.0, w]).err(),
            Some(ConfigError::OutOfRange {
                name: "omega",
                bound: "> 0"
            })
        );
    }
    for w in [f64::NAN, f64::INFINITY] {
        assert_eq!(
            HarmonicFlow::new(vector![w]).err(),
            Some(ConfigError::NonFinite { name: "omega" })
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Bad inputs: typed errors and a bit-identical state.

fn bits<T: Real, const N: usize>(s: &State<T, N>) -> Vec<u64> {
    // Exact bit comparison via f64 (an injective widening for f32 and identity for f64).
    std::iter::once(s.t)
        .chain(s.q.iter().copied())
        .chain(s.v.iter().copied())
        .map(|x| x.to_f64().to_bits())
        .collect()
}

/// Checks the whole step contract of one integrator: bad `h`, non-finite state, non-finite result.
fn check_contract<T: Real, I: Integrator<T, 1>>(integ: &mut I, name: &str) {
    let good = State::new(T::zero(), vector![T::lit(0.5)], vector![T::lit(0.1)]);
    for h in [T::zero(), T::lit(f64::NAN), T::lit(f64::INFINITY)] {
        let mut s = good;
        assert_eq!(integ.step_by(&mut s, h), Err(StepError::StepSize), "{name}");
        assert_eq!(bits(&s), bits(&good), "{name}");
    }
    for bad in [
        State::new(T::zero(), vector![T::lit(f64::NAN)], vector![T::zero()]),
        State::new(
            T::zero(),
            vector![T::zero()],
            vector![T::lit(f64::INFINITY)],
        ),
        State::new(T::lit(f64::NAN), vector![T::zero()], vector![T::zero()]),
    ] {
        let mut s = bad;
        assert_eq!(integ.step(&mut s), Err(StepError::NonFiniteState), "{name}");
        assert_eq!(bits(&s), bits(&bad), "{name}");
    }
    // A finite state whose force overflows (the caller's potential makes k·1e30 overflow).
    let huge = State::new(T::zero(), vector![T::lit(1e30)], vector![T::zero()]);
    let mut s = huge;
    assert_eq!(
        integ.step(&mut s),
        Err(StepError::NonFiniteResult),
        "{name}"
    );
    assert_eq!(bits(&s), bits(&huge), "{name}");
    // A negative step is allowed and works after the errors (at the equilibrium, which stays
    // finite whatever the stiffness).
    let mut s = State::new(T::zero(), vector![T::zero()], vector![T::zero()]);
    integ
        .step_by(&mut s, -integ.step_size())
        .expect("negative h");
    assert!(s.t < T::zero(), "{name}");
}

fn bad_inputs_give_typed_errors<T: Real + Tolerance>() {
    // The force k·q at q = 1e30 must overflow: k = 1e30 in f32 (1e60 > 3.4e38), 1e300 in f64.
    let k = if T::EPS < 1e-10 { 1e300 } else { 1e30 };
    let sys = System::new(Mass::identity(), Quadratic::new(matrix![T::lit(k)]));
    let h = T::lit(0.1);
    let mut vv = VelocityVerlet::new(sys, h).expect("valid h");
    check_contract(&mut vv, "Verlet");
    let mut kd = SymplecticEuler::new(sys, h, EulerOrdering::KickDrift).expect("valid h");
    check_contract(&mut kd, "SE kick-drift");
    let mut dk = SymplecticEuler::new(sys, h, EulerOrdering::DriftKick).expect("valid h");
    check_contract(&mut dk, "SE drift-kick");

    for bad_h in [0.0, -0.1, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(matches!(
            VelocityVerlet::new(sys, T::lit(bad_h)),
            Err(ConfigError::StepSize)
        ));
        for ord in [EulerOrdering::KickDrift, EulerOrdering::DriftKick] {
            assert!(matches!(
                SymplecticEuler::new(sys, T::lit(bad_h), ord),
                Err(ConfigError::StepSize)
            ));
        }
    }
}
for_scalars!(bad_inputs_give_typed_errors);

/// After a failed step, Verlet's next successful step equals a fresh integrator's (the failure
/// did not leave a stale cached force behind).
#[test]
fn verlet_error_leaves_no_stale_cache() {
    let sys = System::new(Mass::identity(), Quadratic::new(matrix![1.0_f64]));
    let mut vv = VelocityVerlet::new(sys, 0.1).expect("valid h");
    let mut s = State::new(0.0, vector![0.3], vector![0.0]);
    vv.integrate(&mut s, 3).expect("steps");
    let mut bad = State::new(0.0, vector![f64::NAN], vector![0.0]);
    assert!(vv.step(&mut bad).is_err());
    let mut fresh = VelocityVerlet::new(sys, 0.1).expect("valid h");
    let (mut a, mut b) = (s, s);
    vv.step(&mut a).expect("step");
    fresh.step(&mut b).expect("step");
    assert_eq!(a, b);
}
