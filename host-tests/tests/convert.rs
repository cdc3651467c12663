//! Verification of `macrostep::convert` (003: any one-step method → a variational integrator of
//! the same order): the converted maps' `ORDER` (log–log slope, equal to the source's) and
//! `SYMPLECTIC` (defect ≤ 1e-9 where the source is not symplectic), the identity of converted
//! symplectic Euler / Verlet with the sources, long-run energy, the bias `α⁻ = −½`, f32 and f64.
//! The error paths are in `convert_errors.rs`.

use host_tests::experiments::convert::{compute, Method, Results, Setup};
use host_tests::measure::{integrator_defect, loglog_slope};
use host_tests::{for_scalars, Tolerance};
use macrostep::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use macrostep::constrained::ConstraintNewtonParams;
use macrostep::convert::{
    ConstrainedRk, ConvertParams, Converted, ConvertedConstrained, Euler, ExplicitRk, Heun, Rk4,
    Segment, StandardLayer,
};
use macrostep::model::Quadratic;
use macrostep::nalgebra::{vector, SVector};
use macrostep::systems::{HarmonicOscillator, Pendulum};
use macrostep::Stepper;
use macrostep::{Guards, Integrator, Real, State};
use std::sync::OnceLock;

/// The quick experiment, computed once for the tests that read it.
fn quick() -> &'static Results {
    static R: OnceLock<Results> = OnceLock::new();
    R.get_or_init(|| compute(&Setup::quick()))
}

/// The converted integrator of a layer with default parameters, guards off (the raw map).
fn convert<L: StandardLayer<f64, N>, const N: usize>(layer: L) -> Converted<f64, L, N> {
    Converted::new(layer, ConvertParams::default())
        .unwrap()
        .with_guards(Guards::off())
        .unwrap()
}

// ---------------------------------------------------------------------------------------------
// Tolerances.

/// Converted vs source observed order on the penalised pendulum (same `h`, same pre-asymptotic
/// regime: the stiff mode has `hω ≈ 0.2`): they must agree to 0.15.
const SAME_ORDER_TOL: f64 = 0.15;
/// Observed vs claimed order there: RK4's own slope is 4.2 at these `h` (pre-asymptotic, the
/// stiff penalty mode), so 0.35; the harmonic-oscillator test below holds 0.1.
const CLAIMED_ORDER_TOL: f64 = 0.35;
/// The required symplecticity defect bound (central differences with step 1e-6 leave
/// ~1e-10 of differencing error; a non-symplectic source is at ≥ 1e-7 here).
const DEFECT_MAX: f64 = 1e-9;

#[test]
fn converted_order_equals_the_source_order() {
    for m in &quick().methods {
        let name = m.method.name();
        assert!(
            (m.order - m.source_order).abs() < SAME_ORDER_TOL,
            "{name}: converted slope {} vs source slope {} (errors {:?} / {:?})",
            m.order,
            m.source_order,
            m.errors,
            m.source_errors
        );
        assert!(
            (m.order - m.claimed as f64).abs() < CLAIMED_ORDER_TOL,
            "{name}: converted slope {} vs ORDER {}",
            m.order,
            m.claimed
        );
    }
}

#[test]
fn converted_maps_are_symplectic_where_the_sources_are_not() {
    for m in &quick().methods {
        let name = m.method.name();
        assert!(
            m.defect <= DEFECT_MAX,
            "{name}: converted defect {}",
            m.defect
        );
        let symplectic_source = matches!(m.method, Method::SymplecticEuler | Method::Verlet);
        if symplectic_source {
            assert!(
                m.source_defect <= DEFECT_MAX,
                "{name}: source defect {}",
                m.source_defect
            );
        } else {
            // The measurement sees a non-symplectic map (so the bound above is not vacuous).
            assert!(
                m.source_defect > 1e-7,
                "{name}: source defect {}",
                m.source_defect
            );
        }
    }
}

#[test]
fn converted_explicit_methods_keep_the_energy_bounded() {
    for l in &quick().long {
        let name = format!("{} {}", l.model, l.method.name());
        assert!(
            l.converted.failed_at.is_none(),
            "{name}: converted run failed"
        );
        // Bounded by O(h^r): 4e-3 (Euler), 7e-5 (Heun), 8e-8 (RK4) measured; a factor ~2 margin.
        let bound = match l.method {
            Method::Euler => 1e-2,
            Method::Heun => 2e-4,
            _ => 2e-7,
        };
        assert!(
            l.converted.max < bound,
            "{name}: max energy error {}",
            l.converted.max
        );
        if l.method == Method::Euler {
            assert!(
                l.source.failed_at.is_some(),
                "{name}: explicit Euler should blow up"
            );
        }
    }
}

/// Associated constants: the converted method claims the source's order and symplecticity.
#[test]
fn claims_are_the_sources_order_and_symplectic() {
    type P = Quadratic<f64, 1>;
    assert_eq!(
        <Converted<f64, ExplicitRk<f64, P, Rk4, 1>, 1> as Integrator<f64, 1>>::ORDER,
        4
    );
    assert_eq!(
        <Converted<f64, ExplicitRk<f64, P, Heun, 1>, 1> as Integrator<f64, 1>>::ORDER,
        2
    );
    assert_eq!(
        <Converted<f64, ExplicitRk<f64, P, Euler, 1>, 1> as Integrator<f64, 1>>::ORDER,
        1
    );
    const { assert!(<Converted<f64, ExplicitRk<f64, P, Rk4, 1>, 1> as Integrator<f64, 1>>::SYMPLECTIC) };
    const { assert!(!<ExplicitRk<f64, P, Rk4, 1> as Integrator<f64, 1>>::SYMPLECTIC) };
}

// ---------------------------------------------------------------------------------------------
// Converting a variational method gives it back.

fn run_both<I: Integrator<f64, 2>, J: Integrator<f64, 2>>(a: &mut I, b: &mut J) -> f64 {
    let s0 = State::new(0.0, vector![0.8, -0.61], vector![0.3, 0.4]);
    let (mut s, mut t) = (s0, s0);
    a.integrate(&mut s, 200).expect("source");
    b.integrate(&mut t, 200).expect("converted");
    (s.q - t.q).amax().max((s.v - t.v).amax())
}

#[test]
fn converted_verlet_is_verlet() {
    let sys = Pendulum::<f64>::paper().penalised(10.0).unwrap();
    let mut vv = VelocityVerlet::new(sys, 0.01)
        .unwrap()
        .with_guards(Guards::off())
        .unwrap();
    let mut cv = convert(VelocityVerlet::new(sys, 0.01).unwrap());
    let d = run_both(&mut vv, &mut cv);
    // 200 steps of the same map computed two ways: rounding only.
    assert!(d < 1e-12, "converted Verlet differs from Verlet by {d}");
}

#[test]
fn converted_symplectic_euler_is_symplectic_euler() {
    let sys = Pendulum::<f64>::paper().penalised(10.0).unwrap();
    for o in [EulerOrdering::KickDrift, EulerOrdering::DriftKick] {
        let mut se = SymplecticEuler::new(sys, 0.01, o)
            .unwrap()
            .with_guards(Guards::off())
            .unwrap();
        let mut cs = convert(SymplecticEuler::new(sys, 0.01, o).unwrap());
        let d = run_both(&mut se, &mut cs);
        assert!(d < 1e-12, "{o:?}: converted differs by {d}");
    }
}

/// The layer's action and tangent are those of its `(q, v)` map: its end agrees with
/// `step_by`, and its derivatives with central differences of `segment` (relative 1e-6).
#[test]
fn rk4_layer_segment_matches_its_step_and_differences() {
    let sys = Pendulum::<f64>::paper().penalised(3.0).unwrap();
    let rk = ExplicitRk::<f64, _, Rk4, 2>::new(sys, 0.05).unwrap();
    let (q, v) = (vector![0.8, -0.61], vector![0.3, 0.4]);
    let seg = rk.segment(&q, &v, 0.05);
    let mut s = State::new(0.0, q, v);
    rk.with_guards(Guards::off()).unwrap().step(&mut s).unwrap();
    assert!((s.q - seg.q).amax() < 1e-15);
    let e = 1e-6;
    for k in 0..2 {
        let dq = SVector::<f64, 2>::ith(k, e);
        let fd = |a: Segment<f64, 2>, b: Segment<f64, 2>| {
            ((a.q - b.q) / (2.0 * e), (a.s - b.s) / (2.0 * e))
        };
        let (gq, gs) = fd(
            rk.segment(&(q + dq), &v, 0.05),
            rk.segment(&(q - dq), &v, 0.05),
        );
        assert!((gq - seg.q_q.column(k)).amax() < 1e-6 && (gs - seg.s_q[k]).abs() < 1e-6);
        let (gq, gs) = fd(
            rk.segment(&q, &(v + dq), 0.05),
            rk.segment(&q, &(v - dq), 0.05),
        );
        assert!((gq - seg.q_v.column(k)).amax() < 1e-6 && (gs - seg.s_v[k]).abs() < 1e-6);
    }
}

// ---------------------------------------------------------------------------------------------
// f32 and f64, and the centred bias.

/// Global error at `t = 2` on `q̈ = −q` (closed form) of converted Heun, for `h = 0.1, 0.05,
/// 0.025` (errors 1e-3 … 1e-4, far above f32 roundoff).
fn heun_order_on_harmonic<T: Real + Tolerance>() {
    for alpha in [0.0, -0.5] {
        let osc = HarmonicOscillator::<T, 1>::isotropic(T::one()).unwrap();
        let hs = [0.1, 0.05, 0.025];
        let mut errs = Vec::new();
        for &h in &hs {
            let layer = ExplicitRk::<T, _, Heun, 1>::new(osc.system(), T::lit(h)).unwrap();
            let params = ConvertParams {
                alpha_minus: T::lit(alpha),
                ..Default::default()
            };
            let mut c = Converted::new(layer, params)
                .unwrap()
                .with_guards(Guards::off())
                .unwrap();
            let mut s = osc.initial_state();
            c.integrate(&mut s, (2.0 / h).round() as usize).unwrap();
            let (q, v) = (s.q[0].to_f64(), s.v[0].to_f64());
            errs.push((q - 2f64.cos()).abs().max((v + 2f64.sin()).abs()));
        }
        let slope = loglog_slope(&hs, &errs);
        // Asymptotic regime on a smooth problem: 0.1 (as the baselines' order tests).
        assert!(
            (slope - 2.0).abs() < 0.1,
            "α⁻ = {alpha}: slope {slope}, errors {errs:?}"
        );
    }
}
for_scalars!(heun_order_on_harmonic);

/// With the centred bias the converted RK4 keeps order 4 and is symplectic.
#[test]
fn centred_bias_rk4_is_fourth_order_and_symplectic() {
    let sys = Pendulum::<f64>::paper().penalised(3.0).unwrap();
    let s0 = Pendulum::<f64>::paper().initial_state();
    let params = ConvertParams {
        alpha_minus: -0.5,
        ..Default::default()
    };
    let make = |h: f64| {
        Converted::new(ExplicitRk::<f64, _, Rk4, 2>::new(sys, h).unwrap(), params)
            .unwrap()
            .with_guards(Guards::off())
            .unwrap()
    };
    let fine = {
        let mut c = make(0.0025);
        let mut s = s0;
        c.integrate(&mut s, 400).unwrap();
        s
    };
    let hs = [0.04, 0.02, 0.01];
    let errs: Vec<f64> = hs
        .iter()
        .map(|&h| {
            let mut s = s0;
            make(h)
                .integrate(&mut s, (1.0 / h).round() as usize)
                .unwrap();
            (s.q - fine.q).amax().max((s.v - fine.v).amax())
        })
        .collect();
    // Against the same method at h = 0.0025 (error 256× below the smallest h's at order 4).
    let slope = loglog_slope(&hs, &errs);
    assert!((slope - 4.0).abs() < 0.3, "slope {slope}, errors {errs:?}");
    let mut c = make(0.01);
    let s = State::new(0.0, vector![0.8, -0.61], vector![0.3, 0.4]);
    let d = integrator_defect(&mut c, &sys.mass, &s, 1, 1e-6);
    assert!(d < DEFECT_MAX, "defect {d}");
}

/// f32: the converted RK4 keeps the oscillator's energy over 10⁴ steps (160 periods).
fn rk4_energy_bounded<T: Real + Tolerance>() {
    let osc = HarmonicOscillator::<T, 1>::isotropic(T::one()).unwrap();
    let layer = ExplicitRk::<T, _, Rk4, 1>::new(osc.system(), T::lit(0.1)).unwrap();
    let mut c = Converted::new(layer, ConvertParams::default()).unwrap();
    let mut s = osc.initial_state();
    let e0 = osc.system().energy(&s).to_f64();
    c.integrate(&mut s, 10_000).unwrap();
    let de = (osc.system().energy(&s).to_f64() - e0).abs();
    // O(h⁴) ≈ 1e-6 bounded error plus roundoff of 10⁴ steps (≈ 1e-3 relative in f32).
    assert!(de < 1e-5 + 1e4 * T::EPS, "energy error {de}");
}
for_scalars!(rk4_energy_bounded);

/// The converted RK4 on the rigid pendulum (002 §5, Cartesian, `|q| = 1`) stays on the rod to
/// the Newton tolerance of the projection `ℙ` (3.2) while its source drifts off it.
#[test]
fn constrained_pendulum_stays_on_the_constraint() {
    let p = Pendulum::<f64>::paper();
    let layer =
        ConstrainedRk::<f64, _, _, Rk4, 2, 1>::new(p.system(), p.constraint(), 0.01).unwrap();
    let mut src = layer;
    let mut c = ConvertedConstrained::new(
        layer,
        ConvertParams::default(),
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let (mut s, mut r) = (p.initial_state(), p.initial_state());
    let (mut worst, mut worst_src) = (0.0f64, 0.0f64);
    for _ in 0..1000 {
        c.step(&mut s).unwrap();
        src.step(&mut r).unwrap();
        worst = worst.max((s.q.norm() - 1.0).abs());
        worst_src = worst_src.max((r.q.norm() - 1.0).abs());
    }
    // ConstraintNewtonParams::default().tol is 1000 ε on |q|² − 1; one more Newton update
    // after it is met leaves roundoff.
    assert!(worst < 1e-12, "constraint residual {worst}");
    // The source (RK4 on the index-1 ODE) leaves the rod at O(h⁴) per unit time.
    assert!(worst_src > 1e-11, "source residual {worst_src}");
}
