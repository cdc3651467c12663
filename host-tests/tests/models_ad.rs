//! Every built-in model: the derivatives by automatic differentiation (`AutoDiff` of the model's
//! `Energy` / `ConstraintFn`, written from the formulas in its docs) equal the model's hand-written
//! derivatives, and those equal central differences (f64), at random seeded points.

use host_tests::{for_scalars, Tolerance};
use macrostep::autodiff::{AutoDiff, ConstraintFn, Energy};
use macrostep::model::{Constraint, Hessian, Potential, ThirdDerivative};
use macrostep::systems::{
    Chain, Dna, DoublePendulum, Fpu, HarmonicOscillator, Kapitza, Pendulum, SpringTrimer, TwoSpring,
};
use macrostep::Real;
use nalgebra::{SMatrix, SVector};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

/// AD vs hand-written derivatives (normwise relative): two exact formulas rounded differently.
fn ad_tol<T: Tolerance>() -> f64 {
    if T::EPS > 1e-10 {
        // f32: a few ulp per operation, amplified by cancellation in the penalty terms
        // (ω² g ∇g with ω = 100 and g ≈ 0 after cancellation of |p|² − L²): 1e-4 ≈ 800 ulp.
        1e-4
    } else {
        // f64: the same cancellations; 1e-11 ≈ 45 000 ulp of the largest entry, far below
        // any derivative error (which would be O(1) relative).
        1e-11
    }
}

/// Central differences (f64, h = 1e-5): relative truncation O(h²) = 1e-10 times a ratio of
/// derivatives, with margin.
const FD_TOL: f64 = 1e-6;
const H: f64 = 1e-5;

/// Whether a derivative `exact` matches its central difference `approx` of a function of size
/// `f_scale`: `‖exact − approx‖∞ ≤ FD_TOL ‖exact‖∞ + 100 ε f_scale / h`. The second term is the
/// roundoff of differencing values of size `f_scale` (it dominates in stiff models, where e.g.
/// `Hess V · a` carries `1/ε` but the third derivative does not).
fn fd_ok(exact: &[f64], approx: &[f64], f_scale: f64) -> bool {
    let scale = sup(exact);
    let diff = exact
        .iter()
        .zip(approx)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0_f64, |m, d| if d.is_nan() { f64::NAN } else { m.max(d) });
    diff <= FD_TOL * scale + 100.0 * f64::EPSILON * f_scale / H
}

fn sup(v: &[f64]) -> f64 {
    v.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
}
const POINTS: usize = 6;

/// Normwise relative difference `‖a − b‖∞ / ‖b‖∞` (absolute when `b = 0`; NaN fails).
fn rel(a: &[f64], b: &[f64]) -> f64 {
    let scale = b.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let diff = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0_f64, |m, d| if d.is_nan() { f64::NAN } else { m.max(d) });
    if scale > 0.0 {
        diff / scale
    } else {
        diff
    }
}

fn to64<T: Real, const R: usize, const C: usize>(m: &SMatrix<T, R, C>) -> Vec<f64> {
    m.iter().map(|x| x.to_f64()).collect()
}

fn assert_close<T: Real, const R: usize, const C: usize>(
    what: &str,
    ad: &SMatrix<T, R, C>,
    hand: &SMatrix<T, R, C>,
    tol: f64,
) {
    let e = rel(&to64(ad), &to64(hand));
    assert!(
        e <= tol,
        "{what}: AD vs hand relative difference {e:e} > {tol:e}"
    );
}

fn random_near<T: Real, const N: usize>(
    rng: &mut Pcg64,
    center: &SVector<T, N>,
    spread: f64,
) -> SVector<T, N> {
    SVector::from_fn(|i, _| T::lit(center[i].to_f64() + rng.random_range(-spread..spread)))
}

/// Central difference in f64 along `a` of a function of `q`.
fn fd<const N: usize, const M: usize>(
    f: impl Fn(&SVector<f64, N>) -> SVector<f64, M>,
    q: &SVector<f64, N>,
    a: &SVector<f64, N>,
) -> SVector<f64, M> {
    (f(&(q + a * H)) - f(&(q - a * H))) / (2.0 * H)
}

fn unit<const N: usize>(j: usize) -> SVector<f64, N> {
    SVector::from_fn(|i, _| if i == j { 1.0 } else { 0.0 })
}

fn lift<T: Real, const N: usize>(q: &SVector<T, N>) -> SVector<f64, N> {
    q.map(|x| x.to_f64())
}

/// AD of `p` equals `p`'s own derivatives; in f64 those equal central differences.
fn check_potential<T, P, const N: usize>(
    name: &str,
    p: &P,
    center: SVector<T, N>,
    spread: f64,
    seed: u64,
) where
    T: Real + Tolerance,
    P: ThirdDerivative<T, N> + Energy<T, N>,
{
    let ad = AutoDiff(p);
    let tol = ad_tol::<T>();
    let mut rng = Pcg64::seed_from_u64(seed);
    for _ in 0..POINTS {
        let q = random_near(&mut rng, &center, spread);
        let a = random_near(&mut rng, &SVector::zeros(), 1.0);
        let v = SVector::<T, 1>::new(Potential::energy(p, &q));
        assert_close(name, &SVector::<T, 1>::new(ad.energy(&q)), &v, tol);
        assert_close(name, &ad.gradient(&q), &p.gradient(&q), tol);
        assert_close(name, &ad.hessian(&q), &p.hessian(&q), tol);
        assert_close(
            name,
            &ad.hessian_vector(&q, &a),
            &p.hessian_vector(&q, &a),
            tol,
        );
        assert_close(
            name,
            &ad.third_contraction(&q, &a),
            &p.third_contraction(&q, &a),
            tol,
        );
    }
}

/// The hand-written derivatives of `p` against central differences (f64 only).
fn check_potential_fd<P, const N: usize>(
    name: &str,
    p: &P,
    center: SVector<f64, N>,
    spread: f64,
    seed: u64,
) where
    P: ThirdDerivative<f64, N>,
{
    let mut rng = Pcg64::seed_from_u64(seed);
    for _ in 0..POINTS {
        let q = random_near(&mut rng, &center, spread);
        let a = random_near(&mut rng, &SVector::zeros(), 1.0);
        let g_fd = SVector::<f64, N>::from_fn(|j, _| {
            fd(|x| SVector::<f64, 1>::new(p.energy(x)), &q, &unit(j))[0]
        });
        let g = p.gradient(&q);
        let ok = fd_ok(g.as_slice(), g_fd.as_slice(), p.energy(&q).abs());
        assert!(ok, "{name}: gradient {g} vs differences {g_fd}");
        let h_fd = SMatrix::<f64, N, N>::from_fn(|i, j| fd(|x| p.gradient(x), &q, &unit(j))[i]);
        let h = p.hessian(&q);
        let ok = fd_ok(h.as_slice(), h_fd.as_slice(), sup(g.as_slice()));
        assert!(ok, "{name}: hessian {h} vs differences {h_fd}");
        let t_fd = fd(|x| p.hessian_vector(x, &a), &q, &a);
        let t = p.third_contraction(&q, &a);
        let hv = p.hessian_vector(&q, &a);
        let ok = fd_ok(t.as_slice(), t_fd.as_slice(), sup(hv.as_slice()));
        assert!(ok, "{name}: a·V'''·a {t} vs differences {t_fd}");
    }
}

/// AD of the constraints `g` equals their own derivatives; in f64 those equal differences.
fn check_constraint<T, G, const N: usize, const D: usize>(
    name: &str,
    g: &G,
    center: SVector<T, N>,
    spread: f64,
    seed: u64,
) where
    T: Real + Tolerance,
    G: Constraint<T, N, D> + ConstraintFn<T, N, D>,
{
    let ad = AutoDiff(g);
    let tol = ad_tol::<T>();
    let mut rng = Pcg64::seed_from_u64(seed);
    for _ in 0..POINTS {
        let q = random_near(&mut rng, &center, spread);
        let a = random_near(&mut rng, &SVector::zeros(), 1.0);
        let w = random_near(&mut rng, &SVector::<T, D>::zeros(), 2.0);
        assert_close(name, &ad.value(&q), &Constraint::value(g, &q), tol);
        assert_close(name, &ad.jacobian(&q), &g.jacobian(&q), tol);
        assert_close(
            name,
            &ad.weighted_hessian(&q, &w),
            &g.weighted_hessian(&q, &w),
            tol,
        );
        assert_close(
            name,
            &ad.hessian_times(&q, &a),
            &g.hessian_times(&q, &a),
            tol,
        );
        assert_close(
            name,
            &ad.weighted_third_contraction(&q, &w, &a),
            &g.weighted_third_contraction(&q, &w, &a),
            tol,
        );
        if T::EPS < 1e-10 {
            // The hand-written derivatives against central differences of the hand-written ones.
            let (qf, af, wf) = (lift(&q), lift(&a), lift(&w));
            let val = |x: &SVector<f64, N>| g.value(&x.map(T::lit)).map(|v| v.to_f64());
            let jac = |x: &SVector<f64, N>| g.jacobian(&x.map(T::lit)).map(|v| v.to_f64());
            let j_fd = SMatrix::<f64, D, N>::from_fn(|i, k| fd(val, &qf, &unit(k))[i]);
            let j = to64(&g.jacobian(&q));
            let ok = fd_ok(&j, j_fd.as_slice(), sup(val(&qf).as_slice()));
            assert!(ok, "{name}: jacobian vs differences");
            let wh_fd =
                SMatrix::<f64, N, N>::from_fn(|i, k| fd(|x| jac(x).tr_mul(&wf), &qf, &unit(k))[i]);
            let ok = fd_ok(
                &to64(&g.weighted_hessian(&q, &w)),
                wh_fd.as_slice(),
                sup(&j),
            );
            assert!(ok, "{name}: weighted hessian vs differences");
            let ht_fd = SMatrix::<f64, D, N>::from_fn(|i, k| {
                fd(|x| jac(x).row(i).transpose(), &qf, &af)[k]
            });
            let ok = fd_ok(&to64(&g.hessian_times(&q, &a)), ht_fd.as_slice(), sup(&j));
            assert!(ok, "{name}: hessian_times vs differences");
            let wt_fd = fd(
                |x| g.weighted_hessian(&x.map(T::lit), &w).map(|v| v.to_f64()) * af,
                &qf,
                &af,
            );
            let wh_a = to64(&(g.weighted_hessian(&q, &w) * a));
            let wt = to64(&g.weighted_third_contraction(&q, &w, &a));
            let ok = fd_ok(&wt, wt_fd.as_slice(), sup(&wh_a));
            assert!(ok, "{name}: weighted third vs differences");
        }
    }
}

fn harmonic<T: Real + Tolerance>() {
    let m =
        HarmonicOscillator::<T, 3>::new(SVector::from_fn(|i, _| T::lit(1.0 + i as f64))).unwrap();
    check_potential(
        "harmonic",
        &m.system().potential,
        m.initial_state().q,
        1.0,
        1,
    );
}
for_scalars!(harmonic);

fn pendulum<T: Real + Tolerance>() {
    let m = Pendulum::<T>::paper();
    let q0 = m.initial_state().q;
    check_potential("pendulum gravity", &m.system().potential, q0, 0.5, 2);
    check_constraint("pendulum rod", &m.constraint(), q0, 0.5, 3);
    let pen = m.penalised(T::lit(100.0)).unwrap();
    check_potential("pendulum penalty", &pen.potential, q0, 0.1, 4);
}
for_scalars!(pendulum);

fn double_pendulum<T: Real + Tolerance>() {
    let m = DoublePendulum::<T>::paper();
    let q0 = m.initial_state().q;
    check_potential("double pendulum gravity", &m.system().potential, q0, 0.5, 5);
    check_constraint("double pendulum rods", &m.constraint(), q0, 0.5, 6);
    let omega = SVector::<T, 2>::new(T::lit(100.0), T::lit(70.0));
    let pen = m.penalised_per_constraint(omega).unwrap();
    check_potential("double pendulum penalty", &pen.potential, q0, 0.1, 7);
}
for_scalars!(double_pendulum);

fn chain<T: Real + Tolerance>() {
    let m = Chain::<T, 20, 10>::slanted();
    let q0 = m.initial_state().q;
    check_potential("slanted chain gravity", &m.system().potential, q0, 0.5, 8);
    check_constraint("slanted chain rods", &m.constraint(), q0, 0.5, 9);
    let pen = m.penalised(T::lit(20.0)).unwrap();
    check_potential("slanted chain penalty", &pen.potential, q0, 0.1, 10);
    let h = Chain::<T, 40, 20>::horizontal();
    check_constraint(
        "horizontal chain rods",
        &h.constraint(),
        h.initial_state().q,
        0.5,
        11,
    );
}
for_scalars!(chain);

fn fpu<T: Real + Tolerance>() {
    let m = Fpu::<T, 6>::paper();
    check_potential(
        "fpu (paper)",
        &m.system().potential,
        m.initial_state().q,
        1.0,
        12,
    );
    let m = Fpu::<T, 10>::new(T::lit(30.0)).unwrap();
    check_potential(
        "fpu n=10",
        &m.system().potential,
        m.initial_state().q,
        1.0,
        13,
    );
    check_potential("fpu soft", &m.split().soft, m.initial_state().q, 1.0, 14);
}
for_scalars!(fpu);

fn dna<T: Real + Tolerance>() {
    let m = Dna::<T, 12>::paper();
    check_potential("dna", &m.system().potential, SVector::zeros(), 1.5, 15);
    // A larger on-site coupling so the Morse part is not swamped by the springs.
    let m = Dna::<T, 5>::new(T::lit(7.0), T::lit(0.3), T::lit(0.5)).unwrap();
    check_potential(
        "dna eps=0.5",
        &m.system().potential,
        SVector::zeros(),
        1.5,
        16,
    );
}
for_scalars!(dna);

fn trimer<T: Real + Tolerance>() {
    let m = SpringTrimer::<T>::paper();
    check_potential(
        "spring trimer",
        &m.system().potential,
        m.initial_state().q,
        1.0,
        17,
    );
}
for_scalars!(trimer);

fn kapitza<T: Real + Tolerance>() {
    let m = Kapitza::<T>::paper();
    let q0 = m.initial_state().q;
    for (k, t) in [0.0, 0.3, 1.7].into_iter().enumerate() {
        let t = T::lit(t);
        check_potential("kapitza", &m.system_at(t).potential, q0, 1.0, 18 + k as u64);
        check_potential("kapitza split", &m.split_at(t), q0, 1.0, 21 + k as u64);
    }
}
for_scalars!(kapitza);

fn two_spring<T: Real + Tolerance>() {
    let m = TwoSpring::<T>::paper();
    check_potential(
        "two spring",
        &m.system().potential,
        m.initial_state().q,
        1.0,
        24,
    );
}
for_scalars!(two_spring);

/// The hand-written derivatives of every model potential against central differences (f64).
#[test]
fn hand_derivatives_match_central_differences() {
    let h = HarmonicOscillator::<f64, 3>::new(SVector::from([1.0, 2.0, 3.0])).unwrap();
    check_potential_fd(
        "harmonic",
        &h.system().potential,
        h.initial_state().q,
        1.0,
        31,
    );
    let p = Pendulum::<f64>::paper();
    let pen = p.penalised(100.0).unwrap();
    check_potential_fd(
        "pendulum penalty",
        &pen.potential,
        p.initial_state().q,
        0.1,
        32,
    );
    let d = DoublePendulum::<f64>::paper();
    let pen = d
        .penalised_per_constraint(SVector::from([100.0, 70.0]))
        .unwrap();
    check_potential_fd(
        "double pendulum penalty",
        &pen.potential,
        d.initial_state().q,
        0.1,
        33,
    );
    let c = Chain::<f64, 20, 10>::slanted();
    let pen = c.penalised(20.0).unwrap();
    check_potential_fd(
        "chain penalty",
        &pen.potential,
        c.initial_state().q,
        0.1,
        34,
    );
    let f = Fpu::<f64, 10>::new(30.0).unwrap();
    check_potential_fd("fpu", &f.system().potential, f.initial_state().q, 1.0, 35);
    let n = Dna::<f64, 5>::new(7.0, 0.3, 0.5).unwrap();
    check_potential_fd("dna", &n.system().potential, SVector::zeros(), 1.5, 36);
    let t = SpringTrimer::<f64>::paper();
    check_potential_fd(
        "trimer",
        &t.system().potential,
        t.initial_state().q,
        1.0,
        37,
    );
    let k = Kapitza::<f64>::paper();
    check_potential_fd("kapitza", &k.split_at(0.3), k.initial_state().q, 1.0, 38);
    let s = TwoSpring::<f64>::paper();
    check_potential_fd(
        "two spring",
        &s.system().potential,
        s.initial_state().q,
        1.0,
        39,
    );
}
