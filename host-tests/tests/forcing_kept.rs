//! A new held force every tick with the factor-keeping strategy (`linalg::DenseKept`): the Z&S
//! family refreshes its cached `f` by `a ← a + A⁻¹ δu` instead of a second assembly and
//! factorisation per tick. The trajectory is the method's own (equal to the fresh evaluation up
//! to rounding), and the number of matrix assemblies per tick drops from two to one.

use macrostep::forcing::{Actuate, Actuated};
use macrostep::linalg::{BandMut, DenseKept};
use macrostep::model::{Hessian, Mass, Potential, Quadratic, Split, System, ThirdDerivative};
use macrostep::nalgebra::{matrix, vector, SMatrix, SVector};
use macrostep::systems::DoublePendulum;
use macrostep::zs::{StiffSylipn, Sylipn, ZhangSkeel, ZsParams};
use macrostep::Stepper;
use macrostep::{Guards, Integrator, State};
use std::cell::Cell;

/// A potential that counts how often a linear solve assembled its Hessian.
#[derive(Clone, Debug)]
struct Counting<'a, P> {
    inner: P,
    assemblies: &'a Cell<u32>,
}

impl<P: Potential<f64, 4>> Potential<f64, 4> for Counting<'_, P> {
    fn energy(&self, q: &SVector<f64, 4>) -> f64 {
        self.inner.energy(q)
    }
    fn gradient(&self, q: &SVector<f64, 4>) -> SVector<f64, 4> {
        self.inner.gradient(q)
    }
    fn constraint_residual(&self, q: &SVector<f64, 4>) -> Option<f64> {
        self.inner.constraint_residual(q)
    }
}

impl<P: Hessian<f64, 4>> Hessian<f64, 4> for Counting<'_, P> {
    fn hessian(&self, q: &SVector<f64, 4>) -> SMatrix<f64, 4, 4> {
        self.inner.hessian(q)
    }
    fn add_hessian(&self, q: &SVector<f64, 4>, scale: f64, out: &mut SMatrix<f64, 4, 4>) {
        self.assemblies.set(self.assemblies.get() + 1);
        self.inner.add_hessian(q, scale, out);
    }
    fn hessian_band(&self, q: &SVector<f64, 4>, s: f64, band: &mut BandMut<'_, f64>) -> bool {
        self.inner.hessian_band(q, s, band)
    }
}

impl<P: ThirdDerivative<f64, 4>> ThirdDerivative<f64, 4> for Counting<'_, P> {
    fn third_contraction(&self, q: &SVector<f64, 4>, a: &SVector<f64, 4>) -> SVector<f64, 4> {
        self.inner.third_contraction(q, a)
    }
}

/// The controller of these tests: a smooth force on both masses that changes every tick.
fn control(k: usize) -> SVector<f64, 4> {
    let t = k as f64 * 0.01;
    vector![(3.0 * t).sin(), 0.5 * t.cos(), -0.7 * (2.0 * t).sin(), 0.2]
}

/// Runs `n` ticks (new force, one step) and returns the final state.
fn run<I: Integrator<f64, 4> + Actuate<f64, 4>>(
    mut m: I,
    s0: State<f64, 4>,
    n: usize,
) -> State<f64, 4> {
    let mut s = s0;
    for k in 0..n {
        m.set_force(&control(k)).unwrap();
        m.step(&mut s).unwrap();
    }
    s
}

fn gap(a: &State<f64, 4>, b: &State<f64, 4>) -> f64 {
    (a.q - b.q).amax().max((a.v - b.v).amax())
}

/// The counted, actuated penalised double pendulum.
type CountedDp<'a, P> = System<f64, Actuated<f64, Counting<'a, P>, 4>, 4>;

fn dp_system(
    count: &Cell<u32>,
) -> (
    CountedDp<'_, impl ThirdDerivative<f64, 4> + Clone>,
    State<f64, 4>,
) {
    let dp = DoublePendulum::<f64>::paper();
    let pen = dp.penalised(20.0).unwrap();
    let pot = Counting {
        inner: pen.potential,
        assemblies: count,
    };
    (
        System::new(pen.mass, Actuated::new(pot)),
        dp.initial_state(),
    )
}

#[test]
fn zs_with_kept_factors_assembles_once_per_tick_and_follows_the_fresh_run() {
    let n = 500;
    let (fresh_count, kept_count) = (Cell::new(0), Cell::new(0));
    let (sys, s0) = dp_system(&fresh_count);
    let fresh = run(
        ZhangSkeel::new(sys, 0.01, ZsParams::default()).unwrap(),
        s0,
        n,
    );
    let (sys, _) = dp_system(&kept_count);
    let zs = ZhangSkeel::with_solver(sys, 0.01, ZsParams::default(), DenseKept::new()).unwrap();
    let kept = run(zs, s0, n);
    // Fresh: the force changes every tick, so every step evaluates f twice.
    assert_eq!(fresh_count.get(), 2 * n as u32);
    // Kept: one assembly at the start, then one per step (the end of the step).
    assert_eq!(kept_count.get(), n as u32 + 1);
    // Same method, different rounding: 500 steps of a chaotic pendulum amplify the last bits by
    // at most a few orders of magnitude (measured 6e-14).
    assert!(gap(&fresh, &kept) < 1e-10, "gap {:e}", gap(&fresh, &kept));
    assert!(gap(&fresh, &s0) > 0.1, "the run moved");
}

#[test]
fn sylipn_with_kept_factors_assembles_once_per_tick_and_follows_the_fresh_run() {
    let n = 500;
    let (fresh_count, kept_count) = (Cell::new(0), Cell::new(0));
    let (sys, s0) = dp_system(&fresh_count);
    let fresh = run(Sylipn::new(sys, 0.01, ZsParams::default()).unwrap(), s0, n);
    let (sys, _) = dp_system(&kept_count);
    let m = Sylipn::with_solver(sys, 0.01, ZsParams::default(), DenseKept::new()).unwrap();
    let kept = run(m, s0, n);
    assert_eq!(fresh_count.get(), 2 * n as u32);
    assert_eq!(kept_count.get(), n as u32 + 1);
    assert!(gap(&fresh, &kept) < 1e-10, "gap {:e}", gap(&fresh, &kept));
}

#[test]
fn stiff_sylipn_with_kept_factors_follows_the_fresh_run() {
    let soft = Actuated::new(Quadratic::new(matrix![
        1.0, 0.2, 0.0, 0.0;
        0.2, 2.0, 0.0, 0.0;
        0.0, 0.0, 0.5, 0.0;
        0.0, 0.0, 0.0, 0.0
    ]));
    let stiff = Quadratic::new(matrix![
        0.0, 0.0, 0.0, 0.0;
        0.0, 1.0, -1.0, 0.0;
        0.0, -1.0, 1.0, 0.0;
        0.0, 0.0, 0.0, 1.0
    ]);
    let sys = System::new(Mass::identity(), Split::new(soft, stiff, 1e4));
    let s0 = State::new(
        0.0,
        vector![1.0, 0.0, 0.01, -0.01],
        vector![0.0, 0.5, 0.0, 0.0],
    );
    // The stiff spring is driven hard by the force (it gains energy the run guard's scale,
    // set by the small start energy, does not allow): compare the raw methods.
    let mut m = StiffSylipn::new(sys, 0.01, ZsParams::default()).unwrap();
    m.set_guards(Guards::off()).unwrap();
    let fresh = run(m, s0, 1000);
    let mut m = StiffSylipn::with_solver(sys, 0.01, ZsParams::default(), DenseKept::new()).unwrap();
    m.set_guards(Guards::off()).unwrap();
    let kept = run(m, s0, 1000);
    assert!(gap(&fresh, &kept) < 1e-11, "gap {:e}", gap(&fresh, &kept));
    assert!(gap(&fresh, &s0) > 0.1, "the run moved");
}

#[test]
fn an_indefinite_matrix_falls_back_to_the_fresh_evaluation_bit_for_bit() {
    // V = −½·5 q₀² + ½ q₁² ...: M + βh²·Hess V is indefinite at h = 1 (β = 0.4): the LU
    // fallback keeps nothing, so every tick evaluates afresh, exactly as `Dense` does.
    let k = matrix![
        -5.0, 0.0, 0.0, 0.0;
        0.0, 1.0, 0.0, 0.0;
        0.0, 0.0, 1.0, 0.0;
        0.0, 0.0, 0.0, 1.0
    ];
    let sys = System::new(Mass::identity(), Actuated::new(Quadratic::new(k)));
    let s0 = State::new(
        0.0,
        vector![1e-3, 1.0, 0.0, 0.5],
        vector![0.0, 0.0, 1.0, 0.0],
    );
    let p = ZsParams::default();
    let mut dense = ZhangSkeel::new(sys, 1.0, p).unwrap();
    let mut kept = ZhangSkeel::with_solver(sys, 1.0, p, DenseKept::new()).unwrap();
    // The unstable mode grows: raw method, no guards.
    dense.set_guards(Guards::off()).unwrap();
    kept.set_guards(Guards::off()).unwrap();
    let (mut a, mut b) = (s0, s0);
    for k in 0..5 {
        dense.set_force(&control(k)).unwrap();
        kept.set_force(&control(k)).unwrap();
        dense.step(&mut a).unwrap();
        kept.step(&mut b).unwrap();
        assert_eq!(a, b, "tick {k}");
    }
}
