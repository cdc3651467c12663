//! The exact step linearisations ([`macrostep::linearise`]).
//!
//! Tolerances:
//! - against central differences (`ε = 1e-5` relative, f64): `≤ 1e-6` relative (the issue's
//!   bound; the differencing error is `O(ε²)` times the map's third derivatives, the roundoff
//!   `~1e-16/ε`, both about `1e-10` here);
//! - symplectic defect `‖AₚᵀJAₚ − J‖max ≤ 1e-12` for the symplectic methods (roundoff of `2N`
//!   products of entries `O(1)`);
//! - f32 against f64: `≤ 1e-3` relative (a few hundred f32 roundings in the solve and the AD).

use host_tests::experiments::linearise::cases::{self, Methods};
use host_tests::experiments::linearise::fd::{self, Check};
use macrostep::forcing::Actuate;
use macrostep::linearise::{Linearise, StepJacobian};
use macrostep::model::{Quadratic, System};
use macrostep::nalgebra::{matrix, vector, SMatrix};
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{Integrator, State, StepError};

fn check<I: Linearise<f64, 2> + Actuate<f64, 2> + Clone>(name: &str, m: &I, symplectic: bool) {
    for (i, s) in starts().iter().enumerate() {
        let Check {
            fd_rel_err,
            symplectic_defect,
        } = fd::check(m, s, &cases::mass()).expect("linearise");
        assert!(
            fd_rel_err <= 1e-6,
            "{name} start {i}: fd_rel_err {fd_rel_err:e}"
        );
        if symplectic {
            assert!(
                symplectic_defect <= 1e-12,
                "{name} start {i}: symplectic defect {symplectic_defect:e}"
            );
        }
    }
}

/// The cases' start, one near the origin of the spring and one reversed and far out.
fn starts() -> [State<f64, 2>; 3] {
    let s = cases::start::<f64>();
    [
        s,
        State::new(0.0, vector![-0.1, 0.3], vector![2.0, -1.0]),
        State::new(5.0, vector![1.7, 0.9], -s.v),
    ]
}

#[test]
fn every_method_matches_central_differences() {
    for h in [0.05, 0.01] {
        let m = Methods::<f64>::new(h, 50.0).expect("methods");
        check("zs", &m.zs, true);
        check("sylipn", &m.sylipn, false);
        check("stiff_sylipn", &m.stiff_sylipn, false);
        check("verlet", &m.verlet, true);
        check("euler_kd", &m.euler_kd, true);
        check("euler_dk", &m.euler_dk, true);
        check("damped_split_zs", &m.damped_zs, false);
        check("zs_in_solve", &m.zs_in_solve, false);
        check("sylipn_in_solve", &m.sylipn_in_solve, false);
        check("stiff_in_solve", &m.stiff_in_solve, false);
    }
}

#[test]
fn stiff_spring_at_a_large_step() {
    // hω = 0.1·√(400/1) = 2: Verlet's limit; Z&S and the Z&Ss stay stable and exact.
    let m = Methods::<f64>::new(0.1, 400.0).expect("methods");
    check("zs", &m.zs, true);
    check("sylipn", &m.sylipn, false);
    check("stiff_sylipn", &m.stiff_sylipn, false);
}

#[test]
fn sylipn_is_not_symplectic_here() {
    // The Z&Ss map is symplectic only under a commutation condition (000 Thm 2.4) that the
    // anisotropic mass breaks: the defect is visible, so the measurement can fail.
    let m = Methods::<f64>::new(0.05, 50.0).expect("methods");
    let j = m.sylipn.linearise(&cases::start()).expect("linearise");
    assert!(j.symplectic_defect(&cases::mass()) > 1e-8);
}

#[test]
fn split_damping_contracts_the_symplectic_form_by_its_determinant() {
    // Φ = D∘Φ_zs∘D with D = (q, E v): det A = det(E)² = exp(−h tr(M⁻¹C)), and A is not
    // symplectic; without damping the same wrapper is.
    let m = Methods::<f64>::new(0.05, 50.0).expect("methods");
    let j = m.damped_zs.linearise(&cases::start()).expect("linearise");
    let a: SMatrix<f64, 4, 4> = j.a();
    let minv_c = cases::mass::<f64>().matrix().try_inverse().unwrap() * cases::damping::<f64>();
    let want = (-0.05 * minv_c.trace()).exp();
    assert!(
        (a.determinant() - want).abs() < 1e-12,
        "{} vs {want}",
        a.determinant()
    );
    assert!(j.symplectic_defect(&cases::mass()) > 1e-3);
}

#[test]
fn f32_builds_and_agrees_with_f64() {
    let m64 = Methods::<f64>::new(0.05, 50.0).expect("methods");
    let m32 = Methods::<f32>::new(0.05, 50.0).expect("methods");
    let s32 = cases::start::<f32>();
    let s64 = cases::start::<f64>();
    let pairs: [(StepJacobian<f32, 2>, StepJacobian<f64, 2>); 3] = [
        (
            m32.zs.linearise(&s32).unwrap(),
            m64.zs.linearise(&s64).unwrap(),
        ),
        (
            m32.stiff_sylipn.linearise(&s32).unwrap(),
            m64.stiff_sylipn.linearise(&s64).unwrap(),
        ),
        (
            m32.verlet.linearise(&s32).unwrap(),
            m64.verlet.linearise(&s64).unwrap(),
        ),
    ];
    for (j32, j64) in pairs {
        let a32: SMatrix<f32, 4, 4> = j32.a();
        let a64: SMatrix<f64, 4, 4> = j64.a();
        let err = (a32.cast::<f64>() - a64).amax() / a64.amax();
        assert!(err < 1e-3, "{err:e}");
        let b32: SMatrix<f32, 4, 2> = j32.b();
        let b64: SMatrix<f64, 4, 2> = j64.b();
        assert!((b32.cast::<f64>() - b64).amax() / b64.amax() < 1e-3);
    }
}

#[test]
fn bad_input_is_the_steps_typed_error_and_changes_nothing() {
    let m = Methods::<f64>::new(0.05, 50.0).expect("methods");
    let s = cases::start::<f64>();
    let mut bad = s;
    bad.q[1] = f64::NAN;
    assert_eq!(m.zs.linearise(&bad), Err(StepError::NonFiniteState));
    assert_eq!(m.verlet.linearise(&bad), Err(StepError::NonFiniteState));
    for h in [0.0, f64::NAN, f64::INFINITY] {
        assert_eq!(m.zs.linearise_by(&s, h), Err(StepError::StepSize));
        assert_eq!(m.euler_dk.linearise_by(&s, h), Err(StepError::StepSize));
    }
    // K = M + βh² Hess V = 0: the step and its linearisation are both singular.
    let (beta, h) = (0.25, 0.1);
    let k = -1.0 / (beta * h * h);
    let sys = System::new(cases::mass(), Quadratic::new(matrix![k, 0.0; 0.0, 2.0 * k]));
    let mut zs = ZhangSkeel::new(sys, h, ZsParams::with_beta(beta)).expect("zs");
    let mut s1 = s;
    assert_eq!(zs.linearise(&s1), Err(StepError::Singular));
    assert_eq!(zs.step(&mut s1), Err(StepError::Singular));
    assert_eq!(s1, s);
}

#[test]
fn linearising_leaves_the_run_bit_identical() {
    // Linearise between the steps of one run and not in a copy: the trajectories, the clock and
    // the guards' verdicts agree bit for bit (no cache, clock or guard memory is touched).
    let m = Methods::<f64>::new(0.05, 50.0).expect("methods");
    let (mut a, mut b) = (m.zs, m.zs);
    let (mut sa, mut sb) = (cases::start::<f64>(), cases::start::<f64>());
    for _ in 0..50 {
        let before = sa;
        let _ = a.linearise(&sa).expect("linearise");
        assert_eq!(sa, before);
        a.step(&mut sa).expect("step");
        b.step(&mut sb).expect("step");
        assert_eq!(sa, sb);
    }
}

#[test]
fn linear_system_is_the_step_matrix() {
    // On q̈ = −ω²q the step is linear: A is the step's own matrix, B its response to a
    // constant force; checked against two steps of the map itself.
    let osc = macrostep::systems::HarmonicOscillator::<f64, 1>::isotropic(3.0).unwrap();
    let zs = ZhangSkeel::new(osc.system(), 0.2, ZsParams::default()).unwrap();
    let j = zs
        .linearise(&State::new(0.0, vector![0.0], vector![0.0]))
        .unwrap();
    let mut m = zs;
    let mut s = State::new(0.0, vector![1.0], vector![0.0]);
    m.step(&mut s).unwrap();
    assert!((s.q[0] - j.qq[(0, 0)]).abs() < 1e-15 && (s.v[0] - j.vq[(0, 0)]).abs() < 1e-15);
}

mod experiment {
    use host_tests::experiments::linearise::{cart, compute, Setup};

    #[test]
    fn quick_experiment_meets_the_claims() {
        let r = compute(&Setup::quick());
        for row in &r.rows {
            assert!(row.fd_rel_err <= 1e-6, "{}: {:e}", row.name, row.fd_rel_err);
            if row.symplectic {
                assert!(row.symplectic_defect <= 1e-12, "{}", row.name);
            }
            assert!(row.cost_ratio.is_finite() && row.cost_ratio > 0.0);
        }
        // Z&S's gain converges to the continuous model's at its order (2); symplectic Euler's
        // at order 1.
        assert!((r.gap_orders[0] - 2.0).abs() < 0.3, "{:?}", r.gap_orders);
        assert!(r.gaps.iter().all(|g| g[0] < 1e-2), "{:?}", r.gaps);
        // RATTLE's reduced eigenvalues match the angle model's at the step's order (local, 3).
        for order in r.eigen_orders {
            assert!((order - 3.0).abs() < 0.2, "{:?}", r.eigen_gaps);
        }
        assert!(r
            .rows
            .iter()
            .any(|row| row.name == "rattle" && row.symplectic));
        let kd = cart::METHODS
            .iter()
            .position(|m| *m == "symplectic_euler_kd")
            .unwrap();
        assert!((r.gap_orders[kd] - 1.0).abs() < 0.3, "{:?}", r.gap_orders);
        // Every method's gains regulate the full cart-pole from every tilt.
        for (m, runs) in r.regulated.iter().enumerate() {
            for (tilt, run) in runs {
                let (last, _, _) = run.as_ref().expect("regulated run");
                assert!(*last < 1e-2, "{} from {tilt}: {last}", cart::METHODS[m]);
            }
        }
        // The EKF's angle error stays below the measurement noise at every level.
        for run in &r.ekf {
            let e = run.as_ref().expect("EKF run");
            assert!(e.rms_theta < e.sigma, "σ {}: rms {}", e.sigma, e.rms_theta);
            assert!(
                e.final_theta < 1e-2,
                "σ {}: final {}",
                e.sigma,
                e.final_theta
            );
        }
    }
}

#[test]
fn newmark_variants_are_linearised() {
    // Newmark and one-iteration Newmark are not symplectic (their defect is visible, so the
    // push-forward's ≤ 1e-12 is a measurement that could fail); push-forward Newmark is.
    for (h, k) in [(0.05, 50.0), (0.01, 50.0), (0.1, 400.0)] {
        let m = Methods::<f64>::new(h, k).expect("methods");
        check("newmark", &m.newmark, false);
        check("push_forward_newmark", &m.push_forward, true);
        check("newmark_one_iteration", &m.newmark_one, false);
        let s = cases::start::<f64>();
        for (name, j) in [
            ("newmark", m.newmark.linearise(&s).unwrap()),
            (
                "newmark_one_iteration",
                m.newmark_one.linearise(&s).unwrap(),
            ),
        ] {
            let d = j.symplectic_defect(&cases::mass());
            assert!(d > 1e-8, "{name} at h = {h}: defect {d:e}");
        }
    }
}

#[test]
fn newmark_variants_in_f32_agree_with_f64() {
    let m64 = Methods::<f64>::new(0.05, 50.0).expect("methods");
    let m32 = Methods::<f32>::new(0.05, 50.0).expect("methods");
    let (s32, s64) = (cases::start::<f32>(), cases::start::<f64>());
    let pairs: [(StepJacobian<f32, 2>, StepJacobian<f64, 2>); 3] = [
        (
            m32.newmark.linearise(&s32).unwrap(),
            m64.newmark.linearise(&s64).unwrap(),
        ),
        (
            m32.push_forward.linearise(&s32).unwrap(),
            m64.push_forward.linearise(&s64).unwrap(),
        ),
        (
            m32.newmark_one.linearise(&s32).unwrap(),
            m64.newmark_one.linearise(&s64).unwrap(),
        ),
    ];
    for (j32, j64) in pairs {
        let a32: SMatrix<f32, 4, 4> = j32.a();
        let a64: SMatrix<f64, 4, 4> = j64.a();
        assert!((a32.cast::<f64>() - a64).amax() / a64.amax() < 1e-3);
        let b32: SMatrix<f32, 4, 2> = j32.b();
        let b64: SMatrix<f64, 4, 2> = j64.b();
        assert!((b32.cast::<f64>() - b64).amax() / b64.amax() < 1e-3);
    }
}

#[test]
fn newmark_variants_report_the_steps_errors() {
    use macrostep::zs::{
        ImplicitNewtonParams, Newmark, NewmarkOneIteration, NewmarkParams, PushForwardNewmark,
    };
    let m = Methods::<f64>::new(0.05, 50.0).expect("methods");
    let s = cases::start::<f64>();
    let mut bad = s;
    bad.v[0] = f64::INFINITY;
    assert_eq!(m.newmark.linearise(&bad), Err(StepError::NonFiniteState));
    assert_eq!(
        m.push_forward.linearise(&bad),
        Err(StepError::NonFiniteState)
    );
    assert_eq!(
        m.newmark_one.linearise(&bad),
        Err(StepError::NonFiniteState)
    );
    for h in [0.0, f64::NAN] {
        assert_eq!(m.newmark.linearise_by(&s, h), Err(StepError::StepSize));
        assert_eq!(m.push_forward.linearise_by(&s, h), Err(StepError::StepSize));
        assert_eq!(m.newmark_one.linearise_by(&s, h), Err(StepError::StepSize));
    }
    // A Newton cap of one update: the step and the linearisation both do not converge.
    let one = NewmarkParams {
        beta: 0.4,
        newton: ImplicitNewtonParams {
            tol: 1e-300,
            max_iter: 1,
        },
    };
    let mut nm = Newmark::new(cases::spring::<f64>(50.0), 0.05, one).unwrap();
    let mut s1 = s;
    assert_eq!(nm.linearise(&s1), Err(StepError::NotConverged));
    assert_eq!(nm.step(&mut s1), Err(StepError::NotConverged));
    let mut pf = PushForwardNewmark::new(cases::spring::<f64>(50.0), 0.05, one).unwrap();
    assert_eq!(pf.linearise(&s1), Err(StepError::NotConverged));
    assert_eq!(pf.step(&mut s1), Err(StepError::NotConverged));
    assert_eq!(s1, s);
    // K = M + βh² Hess V = 0 where the Newton matrix is formed: singular in both.
    let (beta, h) = (0.25, 0.1);
    let kk = -1.0 / (beta * h * h);
    let quad = || {
        System::new(
            cases::mass(),
            Quadratic::new(matrix![kk, 0.0; 0.0, 2.0 * kk]),
        )
    };
    let mut one_it = NewmarkOneIteration::new(quad(), h, ZsParams::with_beta(beta)).unwrap();
    assert_eq!(one_it.linearise(&s1), Err(StepError::Singular));
    assert_eq!(one_it.step(&mut s1), Err(StepError::Singular));
    let mut nm = Newmark::new(quad(), h, NewmarkParams::with_beta(beta)).unwrap();
    assert_eq!(nm.linearise(&s1), Err(StepError::Singular));
    assert_eq!(nm.step(&mut s1), Err(StepError::Singular));
    assert_eq!(s1, s);
}

mod rattle {
    use host_tests::experiments::linearise::tangent::{self, TangentCheck};
    use macrostep::forcing::Actuate;
    use macrostep::nalgebra::{vector, SMatrix};
    use macrostep::{State, StepError};

    #[test]
    fn rattle_is_linearised_in_tangent_coordinates() {
        // Central differences along the projected tangent basis (fd error O(ε²) ≈ 1e-10) and
        // the symplectic defect in the Darboux coordinates (ξ, η), on the double pendulum with a
        // nonlinear spring and a held force, at two steps and two starts.
        for h in [0.05, 0.01] {
            let m = tangent::chain_rattle(h);
            for (i, s) in tangent::chain_starts(&m).iter().enumerate() {
                let TangentCheck {
                    fd_rel_err,
                    symplectic_defect,
                } = tangent::check::<_, _, 4, 2, 2>(&m, s).expect("check");
                assert!(fd_rel_err <= 1e-6, "h {h} start {i}: fd {fd_rel_err:e}");
                assert!(
                    symplectic_defect <= 1e-12,
                    "h {h} start {i}: defect {symplectic_defect:e}"
                );
            }
        }
    }

    #[test]
    fn tangent_bases_are_m_orthonormal_and_tangent() {
        let m = tangent::chain_rattle(0.05);
        let s = tangent::chain_starts(&m)[1];
        let j = m.linearise_tangent::<2>(&s).expect("linearise");
        let mass = m.system().mass.matrix();
        let dp = tangent::double_pendulum();
        let mut end = s;
        let mut run = m;
        macrostep::Integrator::step(&mut run, &mut end).expect("step");
        for (u, q) in [(j.start_basis, s.q), (j.end_basis, end.q)] {
            let gram = u.transpose() * mass * u;
            assert!((gram - SMatrix::<f64, 2, 2>::identity()).amax() < 1e-13);
            let g = macrostep::model::Constraint::jacobian(&dp.constraint(), &q);
            assert!((g * u).amax() < 1e-13);
        }
    }

    #[test]
    fn pendulum_eigenvalues_match_the_angle_model_at_the_steps_order() {
        // m = 0.7, g = 9.81, L = 0.5: ω = 4.43. The per-step eigenvalue error of a second-order
        // method is O(h³): the fitted order is 3 ± 0.2, hanging (phase) and upright (growth).
        let hs = [0.04, 0.02, 0.01, 0.005];
        for upright in [false, true] {
            let gaps: Vec<f64> = hs
                .iter()
                .map(|&h| tangent::pendulum_eigen_gap(0.7, 9.81, 0.5, h, upright).unwrap())
                .collect();
            let order = host_tests::measure::loglog_slope(&hs, &gaps);
            assert!(
                (order - 3.0).abs() < 0.2,
                "upright {upright}: {gaps:?} order {order}"
            );
            assert!(gaps[0] < 1e-3, "{gaps:?}");
        }
    }

    #[test]
    fn f32_agrees_with_f64() {
        use macrostep::constrained::{ConstraintNewtonParams, Rattle};
        use macrostep::systems::Pendulum;
        let at = State::new(0.0, vector![0.3, -0.4], vector![0.8, 0.6]);
        let p64 = Pendulum::<f64>::new(0.7, 9.81, 0.5).unwrap();
        let r64 = Rattle::new(
            p64.system(),
            p64.constraint(),
            0.02,
            ConstraintNewtonParams::default(),
        )
        .unwrap();
        let j64 = r64.linearise_tangent::<1>(&at).unwrap();
        let p32 = Pendulum::<f32>::new(0.7, 9.81, 0.5).unwrap();
        let r32 = Rattle::new(
            p32.system(),
            p32.constraint(),
            0.02,
            ConstraintNewtonParams::default(),
        )
        .unwrap();
        let at32 = State::new(0.0, vector![0.3f32, -0.4], vector![0.8f32, 0.6]);
        let j32 = r32.linearise_tangent::<1>(&at32).unwrap();
        let (a32, a64): (SMatrix<f32, 2, 2>, SMatrix<f64, 2, 2>) = (j32.a(), j64.a());
        assert!((a32.cast::<f64>() - a64).amax() / a64.amax() < 1e-4);
        let (b32, b64): (SMatrix<f32, 2, 2>, SMatrix<f64, 2, 2>) = (j32.b(), j64.b());
        assert!((b32.cast::<f64>() - b64).amax() / b64.amax() < 1e-4);
        assert!(j32.symplectic_defect() < 1e-5);
    }

    #[test]
    fn bad_input_is_the_steps_typed_error() {
        let m = tangent::chain_rattle(0.05);
        let s = tangent::chain_starts(&m)[0];
        let mut bad = s;
        bad.q[2] = f64::NAN;
        assert_eq!(
            m.linearise_tangent::<2>(&bad),
            Err(StepError::NonFiniteState)
        );
        assert_eq!(
            m.linearise_tangent_by::<2>(&s, 0.0),
            Err(StepError::StepSize)
        );
        // Off the manifold (rejected by default), as the step.
        let mut off = s;
        off.q[0] += 1e-3;
        let lin = m.linearise_tangent::<2>(&off);
        let mut run = m;
        let mut s1 = off;
        let step = macrostep::Integrator::step(&mut run, &mut s1);
        assert!(
            matches!(lin, Err(StepError::Precondition { .. })),
            "{lin:?}"
        );
        assert_eq!(lin.unwrap_err(), step.unwrap_err());
        assert_eq!(s1, off);
        // A held force along g'(q)ᵀ at an equilibrium moves nothing (the multiplier takes it).
        let r = tangent::pendulum_rattle(0.7, 9.81, 0.5, 0.02);
        let j = r
            .linearise_tangent::<1>(&State::at_rest(vector![0.0, -0.5]))
            .unwrap();
        let normal = vector![0.0, 1.0];
        assert!((j.bq * normal).amax() < 1e-15 && (j.bv * normal).amax() < 1e-15);
        assert!(j.bv[(0, 0)].abs() > 1e-3);
        let _ = r.force();
    }
}
