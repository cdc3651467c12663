//! Unit tests of the circuit module: validation, error paths, one step by hand, both scalars.

use super::*;
use crate::guard::Guard;
use crate::langevin::StochasticIntegrator;
use crate::{Integrator, StepError, Stepper};
use nalgebra::{Vector2, Vector4};
use rand_pcg::rand_core::SeedableRng;

macro_rules! gen_tests {
    ($($name:ident),* $(,)?) => {
        mod f32 { $(#[test] fn $name() { super::$name::<f32>(); })* }
        mod f64 { $(#[test] fn $name() { super::$name::<f64>(); })* }
    };
}

gen_tests!(
    rejects_bad_parameters,
    rejects_bad_step_and_degenerate_inductance,
    one_step_by_hand,
    step_errors_leave_state_unchanged,
    kirchhoff_laws_hold_along_a_run,
    degenerate_circuit_with_resistor_steps,
    noise_kick_by_hand,
    energy_guard_refuses_an_unstable_step,
    source_change_keeps_the_run,
    set_source_validates,
    set_inverse_capacitance_validates,
    johnson_nyquist_values,
    rejects_singular_inductance_plus_resistance,
    judges_huge_entries_scaled,
);

fn paper<T: Real>() -> CircuitParams<T, 4, 2> {
    CircuitParams::lc_paper(T::lit(10.0), T::lit(0.01))
}

/// The paper's circuit with `edit` applied.
fn circuit<T: Real>(edit: impl FnOnce(&mut CircuitParams<T, 4, 2>)) -> Circuit<T, 4, 2> {
    let mut p = paper::<T>();
    edit(&mut p);
    Circuit::new(p).unwrap()
}

fn lit<T: Real>(x: f64) -> T {
    T::lit(x)
}

fn rejects_bad_parameters<T: Real>() {
    let nan = T::lit(f64::NAN);
    let neg = lit::<T>(-1.0);
    type Edit<T> = fn(&mut CircuitParams<T, 4, 2>, T);
    let negative = |name| ConfigError::OutOfRange {
        name,
        bound: ">= 0",
    };
    let cases: [(Edit<T>, ConfigError); 7] = [
        (|p, x| p.inductance[0] = x, negative("inductance")),
        (
            |p, x| p.inverse_capacitance[3] = x,
            negative("inverse_capacitance"),
        ),
        (|p, x| p.resistance[1] = x, negative("resistance")),
        (|p, x| p.noise[2] = x, negative("noise")),
        (
            |p, _| p.loops[(1, 1)] = T::lit(f64::NAN),
            ConfigError::NonFinite { name: "loops" },
        ),
        (
            |p, x| p.source[0] = x / T::zero(),
            ConfigError::NonFinite { name: "source" },
        ),
        (
            |p, _| {
                p.inverse_capacitance[2] = T::max_value().unwrap();
                p.inverse_capacitance[3] = T::max_value().unwrap();
            },
            ConfigError::Overflow { name: "elastance" },
        ),
    ];
    for (set, err) in cases {
        let mut p = paper::<T>();
        set(&mut p, neg);
        assert_eq!(Circuit::new(p), Err(err));
    }
    let mut p = paper::<T>();
    p.inductance[1] = nan;
    assert_eq!(
        Circuit::new(p),
        Err(ConfigError::NonFinite { name: "inductance" })
    );
    assert!(kirchhoff_consistent(&CircuitParams::<T, 4, 2>::lc_paper_kcl(), &p.loops).is_ok());
    let mut wrong = p.loops;
    wrong[(0, 0)] = lit(2.0);
    assert_eq!(
        kirchhoff_consistent(&CircuitParams::<T, 4, 2>::lc_paper_kcl(), &wrong),
        Err(ConfigError::Inconsistent { name: "K^T K2 = 0" })
    );
}

fn rejects_bad_step_and_degenerate_inductance<T: Real>() {
    let c = Circuit::new(paper::<T>()).unwrap();
    for h in [T::zero(), lit(-0.1), T::lit(f64::NAN)] {
        assert_eq!(CircuitVi::new(c, h).err(), Some(ConfigError::StepSize));
        assert_eq!(NoisyCircuitVi::new(c, h).err(), Some(ConfigError::StepSize));
    }
    // No inductor on mesh 2 and no resistor: K₂ᵀ(L + hR)K₂ is singular.
    let mut p = paper::<T>();
    p.inductance[1] = T::zero();
    let c = Circuit::new(p).unwrap();
    assert_eq!(
        CircuitVi::new(c, lit(0.1)).err(),
        Some(ConfigError::NotPositiveDefinite {
            name: "inductance + h resistance"
        })
    );
}

fn one_step_by_hand<T: Real>() {
    // 𝕃 = I, S = [[1.1, −1], [−1, 1]] (1/C₁ + 1/C₂ with C₁ = 1, C₂ = 10), q̃₀ = (1, 0), ṽ₀ = 0:
    // q̃₁ = q̃₀, ṽ₁ = −h S q̃₁ = (−0.11, 0.1) for h = 0.1.
    let c = Circuit::new(paper::<T>()).unwrap();
    let mut vi = CircuitVi::new(c, lit(0.1)).unwrap();
    let mut s = State::at_rest(Vector2::new(T::one(), T::zero()));
    vi.step(&mut s).unwrap();
    let tol = lit::<T>(1e-6);
    assert!((s.q[0] - T::one()).abs() < tol && s.q[1].abs() < tol);
    assert!((s.v[0] - lit(-0.11)).abs() < tol && (s.v[1] - lit(0.1)).abs() < tol);
    // Second step: q̃₂ = q̃₁ + h ṽ₁ = (0.989, 0.01).
    vi.step(&mut s).unwrap();
    assert!((s.q[0] - lit(0.989)).abs() < tol && (s.q[1] - lit(0.01)).abs() < tol);
    // With R₁ = 1 and a source u₁ = 2: (1 + h) ṽ₁[0] = h(2 − 1.1).
    let c = circuit::<T>(|p| {
        p.resistance[0] = T::one();
        p.source[0] = lit(2.0);
    });
    let mut vi = CircuitVi::new(c, lit(0.1)).unwrap();
    let mut s = State::at_rest(Vector2::new(T::one(), T::zero()));
    vi.step(&mut s).unwrap();
    assert!((s.v[0] - lit(0.09 / 1.1)).abs() < tol, "{:?}", s.v);
    assert!((s.v[1] - lit(0.1)).abs() < tol);
}

fn step_errors_leave_state_unchanged<T: Real>() {
    let c = circuit::<T>(|p| {
        p.resistance[0] = T::one();
        p.resistance[1] = T::one();
    });
    let mut vi = CircuitVi::new(c, lit(0.1)).unwrap();
    let s0 = State::new(
        lit(0.5),
        Vector2::new(lit(0.3), lit(-0.2)),
        Vector2::new(lit(0.1), T::one()),
    );
    let mut s = s0;
    assert_eq!(vi.step_by(&mut s, T::zero()), Err(StepError::StepSize));
    // 𝕃 + hD = (1 + h) I is singular for h = −1.
    assert_eq!(vi.step_by(&mut s, -T::one()), Err(StepError::Singular));
    assert_eq!(s, s0);
    let mut bad = s0;
    bad.v[1] = T::lit(f64::NAN);
    let before = bad;
    assert_eq!(vi.step(&mut bad), Err(StepError::NonFiniteState));
    assert_eq!(bad.q, before.q);
    let big = T::max_value().unwrap() * lit(0.5);
    let mut huge = State::new(T::zero(), Vector2::new(big, -big), Vector2::new(big, big));
    let h0 = huge;
    assert_eq!(vi.step(&mut huge), Err(StepError::NonFiniteResult));
    assert_eq!(huge, h0);
    let mut noisy = NoisyCircuitVi::new(c, lit(0.1)).unwrap();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(1);
    assert_eq!(
        noisy.step_noisy(&mut huge, &mut rng),
        Err(StepError::NonFiniteResult)
    );
    assert_eq!(huge, h0);
}

fn kirchhoff_laws_hold_along_a_run<T: Real>() {
    let c = Circuit::new(paper::<T>()).unwrap();
    let kcl = CircuitParams::<T, 4, 2>::lc_paper_kcl();
    let mut vi = NoisyCircuitVi::new(c, lit(0.1)).unwrap();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(2);
    let mut s = State::at_rest(Vector2::new(T::one(), T::zero()));
    for _ in 0..50 {
        vi.step_noisy(&mut s, &mut rng).unwrap();
        let v = c.branch_currents(&s);
        let q = c.branch_charges(&s);
        let tol = lit::<T>(1e-5) * (T::one() + v.norm() + q.norm());
        assert!((kcl.transpose() * v).norm() < tol);
        assert!((kcl.transpose() * q).norm() < tol);
    }
}

fn degenerate_circuit_with_resistor_steps<T: Real>() {
    // 𝕃 = diag(1, 0) is singular; the resistor on branch 2 makes 𝕃 + hD = diag(1, h) regular.
    let c = circuit::<T>(|p| {
        p.inductance[1] = T::zero();
        p.resistance[1] = T::one();
    });
    let mut vi = CircuitVi::new(c, lit(0.1)).unwrap();
    let mut s = State::at_rest(Vector2::new(T::one(), T::zero()));
    vi.step(&mut s).unwrap();
    // Mesh 2: h ṽ₂ = h(−S q̃)₂ → ṽ₂ = 1 (the RC mesh: R i = −voltage).
    assert!((s.v[1] - T::one()).abs() < lit(1e-6), "{:?}", s.v);
    for _ in 0..100 {
        vi.step(&mut s).unwrap();
    }
    assert!(c.energy(&s) < lit(0.55)); // dissipative
}

fn noise_kick_by_hand<T: Real>() {
    // From rest at q̃ = 0 the only force is the kick: ṽ₁ = √h K₂ᵀΣξ (𝕃 = I, D = 0).
    let c = Circuit::new(paper::<T>()).unwrap();
    let mut vi = NoisyCircuitVi::new(c, lit(0.04)).unwrap();
    let mut s = State::at_rest(Vector2::zeros());
    let xi = Vector4::new(T::one(), lit(2.0), lit(3.0), lit(4.0));
    vi.step_with_noise(&mut s, &xi).unwrap();
    // K₂ᵀξ = (1 + 3 + 4, 2 − 3) = (8, −1); √h Σ = 0.2 · 0.01.
    let tol = lit::<T>(1e-6);
    assert!((s.v[0] - lit(0.016)).abs() < tol && (s.v[1] - lit(-0.002)).abs() < tol);
    assert_eq!(s.q, Vector2::zeros());
    assert_eq!(
        <NoisyCircuitVi<T, 4, 2> as StochasticIntegrator<T, 2>>::DETERMINISTIC_ORDER,
        1
    );
}

fn energy_guard_refuses_an_unstable_step<T: Real>() {
    // Lossless, ω_max = 1.432: stable only for h < 1.397. The energy guard refuses the run
    // while the energy is still finite; with the guards off it runs until E = ∞.
    let c = Circuit::new(CircuitParams::<T, 4, 2>::lc_paper(lit(10.0), T::zero())).unwrap();
    assert!(c.is_lossless());
    let s0 = State::at_rest(Vector2::new(T::one(), T::zero()));
    let mut vi = CircuitVi::new(c, lit(1.5)).unwrap();
    let mut s = s0;
    let mut n = 0;
    let err = loop {
        match vi.step(&mut s) {
            Ok(()) => n += 1,
            Err(e) => break e,
        }
    };
    assert_eq!(
        err,
        StepError::Diverged {
            guard: Guard::EnergyRun
        }
    );
    assert!(n < 20, "{n} steps accepted");
    assert!(c.energy(&s).finite());
    let mut off = CircuitVi::new(c, lit(1.5))
        .unwrap()
        .with_guards(crate::Guards::off())
        .unwrap();
    let mut s = s0;
    let mut m = 0;
    while off.step(&mut s).is_ok() {
        m += 1;
    }
    assert!(m > 10 * n, "{m} unguarded steps, {n} guarded");
    // Dissipative: no energy is measured (the degenerate RC circuit runs, see below).
    assert!(!circuit::<T>(|p| p.resistance[0] = T::one()).is_lossless());
    assert_eq!(
        crate::guard::Probe::energy(&circuit::<T>(|p| p.resistance[0] = T::one()), &s0),
        None
    );
}

fn source_change_keeps_the_run<T: Real>() {
    // A lossless circuit charged by a source from rest: the guarded energy is H − fᵀq̃, so the
    // run is not refused although H grows from 0; a new source voltage keeps the run going.
    let c = Circuit::new(CircuitParams::<T, 4, 2>::lc_paper(lit(10.0), T::zero())).unwrap();
    let mut vi = CircuitVi::new(c, lit(0.05)).unwrap();
    let mut s = State::at_rest(Vector2::new(lit(0.1), T::zero()));
    vi.set_source(Vector4::new(T::one(), T::zero(), T::zero(), T::zero()))
        .unwrap();
    vi.integrate(&mut s, 200).unwrap();
    vi.set_source(Vector4::new(lit(-1.0), T::zero(), T::zero(), T::zero()))
        .unwrap();
    vi.integrate(&mut s, 200).unwrap();
    assert!(c.energy(&s) > lit(0.1));
}

fn set_source_validates<T: Real>() {
    let c = Circuit::new(paper::<T>()).unwrap();
    let mut vi = CircuitVi::new(c, lit(0.1)).unwrap();
    let mut u = Vector4::zeros();
    u[3] = T::lit(f64::NAN);
    assert_eq!(
        vi.set_source(u),
        Err(ConfigError::NonFinite { name: "source" })
    );
    assert_eq!(vi.circuit().source_force(), &Vector2::zeros());
    vi.set_source(Vector4::new(T::one(), T::zero(), T::zero(), lit(2.0)))
        .unwrap();
    assert_eq!(
        vi.circuit().source_force(),
        &Vector2::new(lit(3.0), T::zero())
    );
}

fn johnson_nyquist_values<T: Real>() {
    let r = Vector4::new(T::one(), lit(2.0), T::zero(), T::zero());
    let s = johnson_nyquist(&r, lit(0.5)).unwrap();
    let tol = lit::<T>(1e-6);
    assert!((s[0] - T::one()).abs() < tol && (s[1] - lit(2.0f64.sqrt())).abs() < tol);
    assert_eq!(s[2], T::zero());
    assert_eq!(
        johnson_nyquist(&r, lit(-1.0)),
        Err(ConfigError::OutOfRange {
            name: "temperature",
            bound: ">= 0"
        })
    );
    let mut r_bad = r;
    r_bad[1] = lit(-1.0);
    assert_eq!(
        johnson_nyquist(&r_bad, T::one()),
        Err(ConfigError::OutOfRange {
            name: "resistance",
            bound: ">= 0"
        })
    );
}

fn set_inverse_capacitance_validates<T: Real>() {
    let c = Circuit::new(paper::<T>()).unwrap();
    let mut vi = CircuitVi::new(c, lit(0.1)).unwrap();
    let before = *vi.circuit().elastance();
    assert_eq!(
        vi.set_inverse_capacitance(4, T::one()),
        Err(ConfigError::OutOfRange {
            name: "branch",
            bound: "< B (the number of branches)"
        })
    );
    assert_eq!(
        vi.set_inverse_capacitance(3, lit(-1.0)),
        Err(ConfigError::OutOfRange {
            name: "inverse_capacitance",
            bound: ">= 0"
        })
    );
    assert_eq!(vi.circuit().elastance(), &before);
    // 1/C₂ off: S = [[1, −1], [−1, 1]] (only C₁ on mesh charges q̃₁ − q̃₂).
    vi.set_inverse_capacitance(3, T::zero()).unwrap();
    let s = vi.circuit().elastance();
    assert_eq!(s[(0, 0)], T::one());
    assert_eq!(s[(0, 1)], -T::one());
    assert_eq!(vi.circuit().params().inverse_capacitance[3], T::zero());
}

/// The paper's loops without inductors, only branch 3 resisting: `𝕃 = 0`, `D = R₃ (1, −1)ᵀ(1, −1)`
/// has rank one, so `𝕃 + hD` is singular for every `R₃` and `h`.
fn rank_one_damping<T: Real>(r3: T) -> Circuit<T, 4, 2> {
    circuit::<T>(|p| {
        p.inductance = Vector4::zeros();
        p.resistance = Vector4::new(T::zero(), T::zero(), r3, T::zero());
    })
}

fn rejects_singular_inductance_plus_resistance<T: Real>() {
    let refused = Some(ConfigError::NotPositiveDefinite {
        name: "inductance + h resistance",
    });
    let h = lit::<T>(0.0726676);
    assert_eq!(
        CircuitVi::new(rank_one_damping(lit(0.78237)), h).err(),
        refused
    );
    assert_eq!(
        NoisyCircuitVi::new(rank_one_damping(lit(0.78237)), h).err(),
        refused
    );
    // Every R₃ of a scan over [0.001, 1], whatever the round-off of the factorisation does.
    let accepted = (0..1000)
        .filter(|&i| {
            let r3 = 0.001 + 0.999 * f64::from(i) / 999.0;
            CircuitVi::new(rank_one_damping(T::lit(r3)), h).is_ok()
        })
        .count();
    assert_eq!(accepted, 0);
    // Ill-conditioned (inductances 1 and 1e-12 on the two meshes, no resistor): refused.
    let thin = circuit::<T>(|p| p.inductance[1] = lit(1e-12));
    assert_eq!(CircuitVi::new(thin, lit(0.1)).err(), refused);
    // A step of another size for which 𝕃 + hD is singular: refused with the state unchanged.
    let c = circuit::<T>(|p| {
        p.inductance[1] = T::zero();
        p.resistance[1] = T::one();
    });
    let mut vi = CircuitVi::new(c, lit(0.1)).unwrap();
    let s0 = State::new(
        T::zero(),
        Vector2::new(T::one(), T::zero()),
        Vector2::zeros(),
    );
    let mut s = s0;
    assert_eq!(vi.step_by(&mut s, lit(1e-30)), Err(StepError::Singular));
    assert_eq!(s, s0);
}

fn judges_huge_entries_scaled<T: Real>() {
    // Inductances near the top of the range (the Frobenius norm of 𝕃 overflows): regular 𝕃 is
    // accepted and its inverse is right; a singular one is refused.
    let big = T::max_value().unwrap() * lit(0.25);
    let c = circuit::<T>(|p| p.inductance = Vector4::new(big, big, T::zero(), T::zero()));
    assert!(CircuitVi::new(c, lit(0.1)).is_ok());
    let a_inv = c.solve_matrix_inverse(lit(0.1)).unwrap();
    assert!(((a_inv[(0, 0)] * big) - T::one()).abs() < lit(1e-5));
    let c = circuit::<T>(|p| p.inductance = Vector4::new(big, T::zero(), T::zero(), T::zero()));
    assert_eq!(
        CircuitVi::new(c, lit(0.1)).err(),
        Some(ConfigError::NotPositiveDefinite {
            name: "inductance + h resistance"
        })
    );
}
