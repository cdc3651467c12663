//! Cross-checks: a dynamic reimplementation, banded against dense solvers, f32 against f64, the
//! chain's local derivatives, Newmark push-forward and compositions.

use super::*;

fn max_diff(s: &State<f64, 2>, q: &DVector<f64>, v: &DVector<f64>) -> f64 {
    (s.q - SVector::<f64, 2>::from_column_slice(q.as_slice()))
        .amax()
        .max((s.v - SVector::<f64, 2>::from_column_slice(v.as_slice())).amax())
}

/// The no_std Z&S / Z&Ss / stiff Z&Ss agree with a dynamic-size f64 reimplementation.
/// 1e-12 (`f64::SAME_MATH`): accumulated roundoff over 1000 steps.
#[test]
fn cross_check_against_dynamic_reimplementation() {
    let s0 = hh_start();
    let q0 = DVector::from_column_slice(s0.q.as_slice());
    let v0 = DVector::from_column_slice(s0.v.as_slice());
    let ones = DVector::from_element(2, 1.0);
    let pot = DynPotential {
        grad: &hh_grad,
        hess: &hh_hess,
        third: &hh_third,
    };
    for full in [true, false] {
        let (q, v) = dyn_zs(
            &pot,
            &ones,
            q0.clone(),
            v0.clone(),
            0.1,
            0.4,
            1.0,
            full,
            1000,
        );
        let mut s = s0;
        if full {
            let mut m = ZhangSkeel::new(hh(), 0.1, p(0.4)).unwrap();
            m.integrate(&mut s, 1000).unwrap();
        } else {
            let mut m = Sylipn::new(hh(), 0.1, p(0.4)).unwrap();
            m.integrate(&mut s, 1000).unwrap();
        }
        let e = max_diff(&s, &q, &v);
        assert!(e < <f64 as Tolerance>::SAME_MATH, "full = {full}: {e}");
    }
    // Stiff Z&Ss: gradient of the whole split, Hessian of the stiff part times α.
    let grad = |x: &DVector<f64>| {
        let mut g = hh_grad(x);
        g[0] += 100.0 * x[0];
        g[1] += 100.0 * 4.0 * x[1];
        g
    };
    let hess = |_: &DVector<f64>| nalgebra::DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, 4.0]);
    let pot = DynPotential {
        grad: &grad,
        hess: &hess,
        third: &hh_third,
    };
    let (q, v) = dyn_zs(&pot, &ones, q0, v0, 0.05, 0.4, 100.0, false, 1000);
    let mut s = s0;
    // Same arithmetic as the reimplementation, also where the stiff mode's energy swings.
    let mut m = StiffSylipn::new(hh_split(), 0.05, p(0.4))
        .unwrap()
        .with_guards(macrostep::Guards::off())
        .unwrap();
    m.integrate(&mut s, 1000).unwrap();
    let e = max_diff(&s, &q, &v);
    assert!(e < <f64 as Tolerance>::SAME_MATH, "stiff: {e}");
}

/// The banded solver gives the same Z&S trajectory as the dense one on a tridiagonal chain.
#[test]
fn banded_solver_matches_dense() {
    let sys = System::new(Mass::identity(), FpuChain { k: 1.0 });
    let s0 = State::new(
        0.0,
        SVector::<f64, 12>::from_fn(|i, _| 0.3 * (i as f64 * 0.7).sin()),
        SVector::<f64, 12>::from_fn(|i, _| 0.1 * (i as f64).cos()),
    );
    let mut a = s0;
    let mut b = s0;
    let mut dense = ZhangSkeel::new(sys, 0.2, p(0.4)).unwrap();
    dense.integrate(&mut a, 500).unwrap();
    let mut banded = ZhangSkeel::with_solver(sys, 0.2, p(0.4), Banded::<2>).unwrap();
    banded.integrate(&mut b, 500).unwrap();
    // Different elimination orders round differently; 1e-11 covers 500 steps of it.
    assert!((a.q - b.q).amax() < 1e-11 && (a.v - b.v).amax() < 1e-11);
    // A model without a band is refused at construction; so is a full mass.
    assert!(ZhangSkeel::with_solver(hh(), 0.1, p(0.4), Banded::<2>).is_err());
    let m = SMatrix::<f64, 12, 12>::identity() * 2.0 + SMatrix::from_element(0.01);
    let full = System::new(Mass::full(m).unwrap(), FpuChain { k: 1.0 });
    assert!(ZhangSkeel::with_solver(full, 0.1, p(0.4), Banded::<2>).is_err());
}

/// f32 runs stay within the f32 tolerance of the f64 run (and f64 of itself, trivially tight).
fn f32_tracks_f64<T: Real + Tolerance>() {
    let sys = System::new(Mass::identity(), HenonHeiles);
    let s0 = hh_start().cast::<T>();
    let h = T::lit(0.1);
    let beta = ZsParams::with_beta(T::lit(0.4));
    let mut a = s0;
    ZhangSkeel::new(sys, h, beta)
        .unwrap()
        .integrate(&mut a, 1000)
        .unwrap();
    let mut b = hh_start();
    ZhangSkeel::new(hh(), 0.1, p(0.4))
        .unwrap()
        .integrate(&mut b, 1000)
        .unwrap();
    let e = (a.q.map(|x| x.to_f64()) - b.q).amax();
    // SAME_MATH allows 10³ steps of linearly growing roundoff; ×10 for the phase error that
    // roundoff induces in an oscillation over t = 100.
    assert!(e < 10.0 * T::SAME_MATH, "{e}");
}
for_scalars!(f32_tracks_f64);

// --- chain of pendula: local penalty derivatives and the banded solver ---------------------------

use macrostep::model::Constraint;
use macrostep::systems::Chain;

fn chain_state<const N: usize, const D: usize>(chain: &Chain<f64, N, D>) -> State<f64, N> {
    let mut s = chain.initial_state();
    // leave the constraint manifold and move, so every term is non-zero
    for i in 0..N {
        s.q[i] += 0.01 * ((i as f64) * 1.3).sin();
        s.v[i] = 0.2 * ((i as f64) * 0.7).cos();
    }
    s
}

/// The O(D) penalty gradient, third contraction and Hessian band of the distance constraints
/// agree with independent assemblies: `Jᵀ W g` from the dense Jacobian, central differences of
/// the Hessian, and the dense Hessian.
#[test]
fn chain_penalty_local_derivatives_match_dense() {
    let chain = Chain::<f64, 20, 10>::slanted();
    let sys = chain.penalised(20.0).unwrap();
    let s = chain_state(&chain);
    let q = s.q;
    let pen = &sys.potential;
    let g = pen.constraint.value(&q);
    let dense_grad = pen.base.gradient(&q) + pen.constraint.jacobian(&q).tr_mul(&(g * 400.0));
    assert!((pen.gradient(&q) - dense_grad).amax() < 1e-10 * dense_grad.amax().max(1.0));
    let a = s.v;
    let eps = 1e-5;
    let fd = (pen.hessian(&(q + a * eps)) - pen.hessian(&(q - a * eps))) / (2.0 * eps) * a;
    let c = pen.third_contraction(&q, &a);
    // central differences: O(ε²) truncation (zero here: the Hessian is quadratic in q) and
    // O(1e-16·|H|/ε) roundoff with |H| ~ 1e4
    assert!(
        (c - fd).amax() < 1e-6 * c.amax().max(1.0),
        "{}",
        (c - fd).amax()
    );
    let h = pen.hessian(&q);
    let mut band = SMatrix::<f64, 4, 20>::zeros();
    assert!(pen.hessian_band(&q, 1.0, &mut BandMut::from_matrix(&mut band)));
    for j in 0..20 {
        for i in j..20 {
            let expect = h[(i, j)];
            let got = if i - j < 4 { band[(i - j, j)] } else { 0.0 };
            assert!(
                (got - expect).abs() < 1e-9 * h.amax(),
                "({i},{j}) {got} vs {expect}"
            );
        }
    }
    // The dense in-place assembly (link by link) equals the dense Hessian: M + c·Hess.
    let mut m = SMatrix::<f64, 20, 20>::identity();
    pen.add_hessian(&q, 0.3, &mut m);
    let expect = SMatrix::<f64, 20, 20>::identity() + h * 0.3;
    assert!((m - expect).amax() < 1e-12 * expect.amax());
    // three diagonals are too few for 2×2 blocks between neighbours
    let mut narrow = SMatrix::<f64, 3, 20>::zeros();
    assert!(!pen.hessian_band(&q, 1.0, &mut BandMut::from_matrix(&mut narrow)));
    // The trait stays dyn-compatible.
    let dynamic: &dyn Hessian<f64, 20> = pen;
    let mut again = SMatrix::<f64, 4, 20>::zeros();
    assert!(dynamic.hessian_band(&q, 1.0, &mut BandMut::from_matrix(&mut again)));
    assert_eq!(again, band);
}

/// Z&S with the banded solver on the chain of 10 pendula equals the dense run.
#[test]
fn chain_banded_zs_matches_dense() {
    let chain = Chain::<f64, 20, 10>::slanted();
    let sys = chain.penalised(20.0).unwrap();
    let s0 = chain.initial_state();
    let (mut a, mut b) = (s0, s0);
    let mut dense = ZhangSkeel::new(sys, 0.05, p(0.4)).unwrap();
    dense.integrate(&mut a, 100).unwrap();
    let mut banded = ZhangSkeel::with_solver(sys, 0.05, p(0.4), Banded::<4>).unwrap();
    banded.integrate(&mut b, 100).unwrap();
    // different elimination order → different rounding; 1e-9 over 100 steps of a stiff problem
    let e = (a.q - b.q).amax().max((a.v - b.v).amax());
    assert!(e < 1e-9, "{e}");
    let mut c = s0;
    let mut stiff = Sylipn::with_solver(sys, 0.05, p(0.4), Banded::<4>).unwrap();
    stiff.integrate(&mut c, 10).unwrap();
}

/// The same cross-check for the Newton-solved methods and the composition: the algorithms written again
/// in dynamic size agree to 1e-12 over 1000 steps (both iterate to the same stopping rule).
#[test]
fn cross_check_newmark_push_forward_and_composition() {
    use host_tests::zs_support::{dyn_newmark, dyn_push_forward};
    let s0 = hh_start();
    let q0 = DVector::from_column_slice(s0.q.as_slice());
    let v0 = DVector::from_column_slice(s0.v.as_slice());
    let ones = DVector::from_element(2, 1.0);
    let pot = DynPotential {
        grad: &hh_grad,
        hess: &hh_hess,
        third: &hh_third,
    };
    let tol = 1e-13;
    let np = ImplicitNewtonParams { tol, max_iter: 100 };
    let tolerance = <f64 as Tolerance>::SAME_MATH;

    let (q, v) = dyn_newmark(
        &pot,
        &ones,
        q0.clone(),
        v0.clone(),
        0.1,
        0.4,
        tol,
        false,
        1000,
    );
    let mut s = s0;
    Newmark::new(hh(), 0.1, pn(0.4, np))
        .unwrap()
        .integrate(&mut s, 1000)
        .unwrap();
    let e = max_diff(&s, &q, &v);
    assert!(e < tolerance, "Newmark {e}");

    let (q, v) = dyn_newmark(
        &pot,
        &ones,
        q0.clone(),
        v0.clone(),
        0.1,
        0.4,
        tol,
        true,
        1000,
    );
    let mut s = s0;
    NewmarkOneIteration::new(hh(), 0.1, p(0.4))
        .unwrap()
        .integrate(&mut s, 1000)
        .unwrap();
    let e = max_diff(&s, &q, &v);
    assert!(e < tolerance, "one-iteration Newmark {e}");

    let (q, v) = dyn_push_forward(&pot, &ones, q0.clone(), v0.clone(), 0.1, 0.4, tol, 1000);
    let mut s = s0;
    PushForwardNewmark::new(hh(), 0.1, pn(0.4, np))
        .unwrap()
        .integrate(&mut s, 1000)
        .unwrap();
    let e = max_diff(&s, &q, &v);
    assert!(e < tolerance, "push-forward Newmark {e}");

    // Triple jump of Z&S: coefficients from Yoshida's formula, stages by the dynamic Z&S.
    let g1 = 1.0 / (2.0 - 2f64.powf(1.0 / 3.0));
    let gammas = [g1, 1.0 - 2.0 * g1, g1];
    let (mut q, mut v) = (q0, v0);
    for _ in 0..1000 {
        for g in gammas {
            (q, v) = dyn_zs(&pot, &ones, q, v, g * 0.1, 0.4, 1.0, true, 1);
        }
    }
    let mut s = s0;
    let zs = ZhangSkeel::new(hh(), 0.1, p(0.4)).unwrap();
    SymmetricComposition::new(zs, Scheme::TripleJump)
        .unwrap()
        .integrate(&mut s, 1000)
        .unwrap();
    let e = max_diff(&s, &q, &v);
    assert!(e < tolerance, "triple-jump Z&S {e}");
}

/// The composition is generic over any symmetric method: triple-jump velocity Verlet is 4th order.
#[test]
fn composition_of_verlet_is_fourth_order() {
    use macrostep::baselines::VelocityVerlet;
    let hs = [0.2, 0.1, 0.05, 0.025];
    let s = successive_difference_slope(
        |h| {
            SymmetricComposition::new(VelocityVerlet::new(hh(), h).unwrap(), Scheme::TripleJump)
                .unwrap()
        },
        hh_start(),
        2.0,
        &hs,
    );
    assert!((s - 4.0).abs() < 0.2, "order {s}");
}
