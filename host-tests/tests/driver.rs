//! The table of every integrator type of the crate and the step driver (`macrostep::driver`).
//!
//! Per type, three things are proved and printed (`cargo test -p host-tests --test driver --
//! --nocapture`):
//!
//! 1. **driver**: the type steps through the one step driver — checked at compile time by
//!    passing it to [`row_det`] (bounded on `driver::Method<f32, N>`) or [`row_noisy`]
//!    (`driver::NoisyMethod<f32, N>`); SIM1/SIM2 are both ([`both`]).
//! 2. **guards round trip**: after `set_guards(g)` with a non-default `g`, `guards()` is `g`.
//! 3. **f32 clock**: from a valid finite state at `t = 2²¹`, one step of `h = 0.13` returns
//!    `Err(StepError::ClockStalled)` (the spacing of `f32` at `2²¹` is `0.25`, so `t + 0.13`
//!    is not within `h/2` of the exact time) and leaves the state bit-identical.
//!
//! The list below is the complete list of the crate's `Method`/`NoisyMethod` implementations as
//! of writing (36 impl headers in `src/`, every alias of a generic type, every tableau of
//! `convert`, every legacy map of `flavor` and the one-call stacks): keep it complete when a
//! method is added.

use macrostep::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use macrostep::circuit::{Circuit, CircuitParams, CircuitVi, NoisyCircuitVi};
use macrostep::compose::{Scheme, SymmetricComposition};
use macrostep::constrained::{Bdf2, ConstraintNewtonParams, Rattle, Reich4, Shake, Stage};
use macrostep::convert::{
    ConstrainedRk, ConvertParams, Converted, ConvertedConstrained, Euler, ExplicitRk, Heun, Rk4,
};
use macrostep::driver::{Method, NoisyMethod};
use macrostep::flavor::{
    Artificial, EulerMaruyama, ExplicitEuler, ForcedEuler, LangevinSoft, LangevinStiff, Legacy,
    Metropolis, Nonintrusive, Params, StiffOde, StiffSde, Switched, Symmetric,
};
use macrostep::forcing::{Actuated, Damped, Driven};
use macrostep::langevin::{
    AnnealTuneGla, AnnealTuneParams, Cooling, FrictionRule, Gla, GlaParams, Schedule,
};
use macrostep::lie::{
    BodyState, CayleyVariational, LinearizedZs1, LinearizedZs2, RigidBody, So3ZsParams,
};
use macrostep::linalg::DenseKept;
use macrostep::model::{Mass, Potential, Quadratic, Split, System, Zero};
use macrostep::recover::Recovering;
use macrostep::sim::{FastParams, Quasi1, Quasi2, QuasiExp, QuasiParams, QuasiStiffness};
use macrostep::sim::{QuasiSystem, Sim1, Sim2, Sim4, SimSystem};
use macrostep::systems::{HarmonicOscillator, Kapitza, Pendulum, SpringTrimer, TwoSpring};
use macrostep::zs::{
    DampedZs, ImplicitNewtonParams, Newmark, NewmarkOneIteration, NewmarkParams,
    PushForwardNewmark, StiffSylipn, Sylipn, ZhangSkeel, ZsParams,
};
use macrostep::{ConfigError, Guards, Integrator, State, StepError, Stepper, StochasticIntegrator};
use nalgebra::{matrix, vector, Matrix1, SMatrix, SVector, Vector2};
use rand::SeedableRng;
use rand_pcg::Pcg32;

/// The step of every row.
const H: f32 = 0.13;
/// `2²¹`: the spacing of `f32` there is `0.25 > 2·(h/2)`.
const T21: f32 = 2_097_152.0;

/// One row of the table.
struct Row {
    name: String,
    driver: &'static str,
    guards_ok: bool,
    clock: Result<(), StepError>,
    unchanged: bool,
}

impl Row {
    fn clock_ok(&self) -> bool {
        self.clock == Err(StepError::ClockStalled) && self.unchanged
    }
}

/// Guards with every field away from its default.
fn non_default() -> Guards<f32> {
    Guards {
        residual: Some(0.3),
        energy_run: Some(0.4),
        energy_step: Some(0.5),
        velocity_step: Some(7.0),
        energy_scale: Some(2.0),
    }
}

fn bits<const N: usize>(s: &State<f32, N>) -> Vec<u32> {
    let parts = core::iter::once(s.t).chain(s.q.iter().copied());
    parts.chain(s.v.iter().copied()).map(f32::to_bits).collect()
}

/// What a constructor returns.
type Built<M> = Result<M, ConfigError>;
/// The rows of one family of the table.
type Family = fn() -> Built<Vec<Row>>;

/// Sets the non-default guards and reads them back; steps once from `s0` moved to `t = 2²¹`.
fn probe<S: Stepper<f32, N>, const N: usize>(
    name: &str,
    driver: &'static str,
    m: Built<S>,
    s0: State<f32, N>,
    step: impl FnOnce(&mut S, &mut State<f32, N>) -> Result<(), StepError>,
) -> Row {
    let mut m = m.unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let g = non_default();
    let guards_ok = m.set_guards(g).is_ok() && m.guards() == g;
    let mut s = State::new(T21, s0.q, s0.v);
    let before = bits(&s);
    let clock = step(&mut m, &mut s);
    let unchanged = bits(&s) == before;
    let name = name.into();
    Row {
        name,
        driver,
        guards_ok,
        clock,
        unchanged,
    }
}

/// A deterministic method: the bound `Method<f32, N>` is the compile-time driver check.
fn row_det<M: Method<f32, N>, const N: usize>(name: &str, m: Built<M>, s0: State<f32, N>) -> Row {
    probe(name, "Method", m, s0, |m, s| m.step(s))
}

/// A stochastic method: the bound `NoisyMethod<f32, N>` is the compile-time driver check.
fn row_noisy<M: NoisyMethod<f32, N>, const N: usize>(
    name: &str,
    m: Built<M>,
    s0: State<f32, N>,
) -> Row {
    probe(name, "NoisyMethod", m, s0, |m, s| {
        m.step_noisy(s, &mut Pcg32::seed_from_u64(7))
    })
}

/// A type that is both (SIM1, SIM2): the bound is the compile-time check, the row is noisy.
fn both<M: Method<f32, N> + NoisyMethod<f32, N>, const N: usize>(
    name: &str,
    m: Built<M>,
    s0: State<f32, N>,
) -> Row {
    let mut row = row_noisy(name, m, s0);
    row.driver = "Method+NoisyMethod";
    row
}

fn osc() -> HarmonicOscillator<f32, 1> {
    HarmonicOscillator::isotropic(1.0).unwrap()
}

/// Soft `½x²` plus stiff `½(y − x)²` at `α = 10⁴` (004 system 2.93).
fn split_293() -> System<f32, Split<f32, Quadratic<f32, 2>, Quadratic<f32, 2>>, 2> {
    let soft = Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]);
    let stiff = Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]);
    System::new(Mass::identity(), Split::new(soft, stiff, 1e4))
}

fn start_293() -> State<f32, 2> {
    State::at_rest(vector![0.8, 0.811])
}

// The row tables below are kept one row per line (`rustfmt::skip`): a table, not code.

#[rustfmt::skip]
fn baselines_and_zs() -> Built<Vec<Row>> {
    let (o, s0) = (osc().system(), osc().initial_state());
    let (zp, np) = (ZsParams::default(), NewmarkParams::default());
    let (tri, ts) = (SpringTrimer::<f32>::paper().system(), SpringTrimer::paper().initial_state());
    let (c, c3) = (Matrix1::new(0.2), SMatrix::identity());
    let (kd, dk) = (EulerOrdering::KickDrift, EulerOrdering::DriftKick);
    let kept = ZhangSkeel::with_solver(o, H, zp, DenseKept::new());
    let (zs, zss) = (ZhangSkeel::new(o, H, zp)?, Sylipn::new(o, H, zp)?);
    let stiff = StiffSylipn::new(tri, H, zp)?;
    Ok(vec![
        row_det("VelocityVerlet", VelocityVerlet::new(o, H), s0),
        row_det("SymplecticEuler KickDrift", SymplecticEuler::new(o, H, kd), s0),
        row_det("SymplecticEuler DriftKick", SymplecticEuler::new(o, H, dk), s0),
        row_det("ZhangSkeel", Ok(zs), s0),
        row_det("ZhangSkeel<DenseKept>", kept, s0),
        row_det("Sylipn", Ok(zss), s0),
        row_det("StiffSylipn (SpringTrimer)", Ok(stiff), ts),
        row_det("Newmark", Newmark::new(o, H, np), s0),
        row_det("PushForwardNewmark", PushForwardNewmark::new(o, H, np), s0),
        row_det("NewmarkOneIteration", NewmarkOneIteration::new(o, H, zp), s0),
        row_det("DampedZs<ZhangSkeel>", DampedZs::new(zs, c), s0),
        row_det("DampedZs<Sylipn>", DampedZs::new(zss, c), s0),
        row_det("DampedZs<StiffSylipn>", DampedZs::new(stiff, c3), ts),
    ])
}

#[rustfmt::skip]
fn constrained() -> Built<Vec<Row>> {
    let p = Pendulum::<f32>::paper();
    let (sys, g, s0) = (p.system(), p.constraint(), p.initial_state());
    let np = ConstraintNewtonParams::default();
    Ok(vec![
        row_det("Shake", Shake::new(sys, g, H, np), s0),
        row_det("Rattle", Rattle::new(sys, g, H, np), s0),
        row_det("Reich4 Stage::Reich", Reich4::new(sys, g, H, Stage::Reich, np), s0),
        row_det("Reich4 Stage::Rattle", Reich4::new(sys, g, H, Stage::Rattle, np), s0),
        row_det("Bdf2", Bdf2::new(sys, g, H, np), s0),
    ])
}

#[rustfmt::skip]
fn convert() -> Built<Vec<Row>> {
    let (o, s0) = (osc().system(), osc().initial_state());
    let p = Pendulum::<f32>::paper();
    let (sys, g, ps) = (p.system(), p.constraint(), p.initial_state());
    let (cp, cnp) = (ConvertParams::default(), ConstraintNewtonParams::default());
    let rk4 = ExplicitRk::<_, _, Rk4, 1>::new(o, H)?;
    let crk4 = ConstrainedRk::<_, _, _, Rk4, 2, 1>::new(sys, g, H)?;
    let converted_constrained = ConvertedConstrained::new(crk4, cp, cnp);
    let se = SymplecticEuler::new(o, H, EulerOrdering::KickDrift)?;
    let vv = VelocityVerlet::new(o, H)?;
    Ok(vec![
        row_det("ExplicitRk<Euler>", ExplicitRk::<_, _, Euler, 1>::new(o, H), s0),
        row_det("ExplicitRk<Heun>", ExplicitRk::<_, _, Heun, 1>::new(o, H), s0),
        row_det("ExplicitRk<Rk4>", Ok(rk4), s0),
        row_det("ConstrainedRk<Euler>", ConstrainedRk::<_, _, _, Euler, 2, 1>::new(sys, g, H), ps),
        row_det("ConstrainedRk<Heun>", ConstrainedRk::<_, _, _, Heun, 2, 1>::new(sys, g, H), ps),
        row_det("ConstrainedRk<Rk4>", Ok(crk4), ps),
        row_det("Converted<ExplicitRk<Rk4>>", Converted::new(rk4, cp), s0),
        row_det("Converted<VelocityVerlet>", Converted::new(vv, cp), s0),
        row_det("Converted<SymplecticEuler>", Converted::new(se, cp), s0),
        row_det("ConvertedConstrained<ConstrainedRk<Rk4>>", converted_constrained, ps),
    ])
}

#[rustfmt::skip]
fn wrappers() -> Built<Vec<Row>> {
    let (o, s0) = (osc().system(), osc().initial_state());
    let zs = || ZhangSkeel::new(o, H, ZsParams::default()).unwrap();
    let vv = VelocityVerlet::new(o, H)?;
    let actuated = System::new(Mass::<f32, 1>::identity(), Actuated::new(Zero));
    let force = |t: f32, _: &SVector<f32, 1>| vector![t.cos()];
    let driven = Driven::new(VelocityVerlet::new(actuated, H)?, force);
    let triple_jump = SymmetricComposition::new(zs(), Scheme::TripleJump);
    let suzuki = SymmetricComposition::new(vv, Scheme::Suzuki5);
    Ok(vec![
        row_det("SymmetricComposition<ZhangSkeel> TripleJump", triple_jump, s0),
        row_det("SymmetricComposition<VelocityVerlet> Suzuki5", suzuki, s0),
        row_det("Recovering<ZhangSkeel>", Recovering::new(zs(), 4), s0),
        row_det("Damped<ZhangSkeel>", Damped::new(zs(), o.mass, Matrix1::new(0.2)), s0),
        row_det("Driven<VelocityVerlet>", Ok(driven), State::at_rest(vector![0.0])),
    ])
}

/// `V = (x² + y² − 1)²` of 004 eq 4.84.
struct RingV;
impl Potential<f32, 2> for RingV {
    fn energy(&self, q: &Vector2<f32>) -> f32 {
        (q.dot(q) - 1.0).powi(2)
    }
    fn gradient(&self, q: &Vector2<f32>) -> Vector2<f32> {
        q * (4.0 * (q.dot(q) - 1.0))
    }
}

/// `K(x) = 1 + x²` of 004 eq 4.84.
struct RingK;
impl QuasiStiffness<f32, 1, 1> for RingK {
    fn stiffness(&self, x: &SVector<f32, 1>) -> SMatrix<f32, 1, 1> {
        SMatrix::from_element(1.0 + x[0] * x[0])
    }
    fn stiffness_derivative(&self, x: &SVector<f32, 1>, _: usize) -> SMatrix<f32, 1, 1> {
        SMatrix::from_element(2.0 * x[0])
    }
}

#[rustfmt::skip]
fn sim() -> Built<Vec<Row>> {
    let (fast, noisy) = (FastParams::default(), FastParams::langevin(0.5, 0.3));
    let ss = SimSystem::new(Mass::identity(), matrix![1.0e4_f32], Quadratic::new(matrix![1.0_f32]));
    let s0 = State::at_rest(vector![1.0_f32]);
    let (qsys, qp) = (|| QuasiSystem::new(RingV, RingK, 1.0e4), QuasiParams { exp: QuasiExp::Diagonal });
    let qs = State::at_rest(vector![1.1_f32, 0.007]);
    Ok(vec![
        row_det("Sim1 (σ = 0)", Sim1::new(ss, H, fast), s0),
        row_det("Sim2 (σ = 0)", Sim2::new(ss, H, fast), s0),
        row_det("Sim4", Sim4::new(ss, H, fast), s0),
        row_det("Quasi1", Quasi1::<f32, _, _, 2, 1, 1>::new(qsys(), H, qp), qs),
        row_det("Quasi2", Quasi2::<f32, _, _, 2, 1, 1>::new(qsys(), H, qp), qs),
        both("Sim1 (noisy)", Sim1::new(ss, H, noisy), s0),
        both("Sim2 (noisy)", Sim2::new(ss, H, noisy), s0),
    ])
}

#[rustfmt::skip]
fn langevin_circuit_lie() -> Built<Vec<Row>> {
    let o2 = HarmonicOscillator::<f32, 2>::new(vector![1.0, 3.0])?;
    let (sys, s0) = (o2.system(), o2.initial_state());
    let schedule = Schedule::new(Cooling::InverseLinear { initial: 1.0 }, 0.1, 500)?;
    let gp = GlaParams { friction: 0.5, inverse_temperature: 10.0 };
    let ap = AnnealTuneParams { friction: FrictionRule::tuned(0.0), schedule };
    let lossless = Circuit::new(CircuitParams::<f32, 4, 2>::lc_paper(10.0, 0.0))?;
    let noisy = Circuit::new(CircuitParams::<f32, 4, 2>::lc_paper(10.0, 0.01))?;
    let cs = State::at_rest(Vector2::new(1.0, 0.0));
    let (body, bs) = (RigidBody::<f32>::paper(), BodyState::<f32>::paper().to_relaxed());
    let (zp, np) = (So3ZsParams::default(), ImplicitNewtonParams::default());
    Ok(vec![
        row_noisy("Gla", Gla::new(sys, H, gp), s0),
        row_noisy("AnnealTuneGla", AnnealTuneGla::new(sys, H, ap), s0),
        row_det("CircuitVi", CircuitVi::new(lossless, H), cs),
        row_noisy("NoisyCircuitVi", NoisyCircuitVi::new(noisy, H), cs),
        row_det("LinearizedZs1", LinearizedZs1::new(body, H, zp), bs),
        row_det("LinearizedZs2", LinearizedZs2::new(body, H, zp), bs),
        row_det("CayleyVariational", CayleyVariational::new(body, H, np), bs),
    ])
}

/// `u̇ = 1 + α(0 − u)`: a stiff relaxation ODE.
struct Relax;
impl StiffOde<f32, 1> for Relax {
    fn soft(&self, _: f32, _: &SVector<f32, 1>) -> SVector<f32, 1> {
        vector![1.0]
    }
    fn stiff(&self, _: f32, u: &SVector<f32, 1>) -> SVector<f32, 1> {
        -u
    }
}

/// `du = −α u dt + √2 dW` (stiff part): an Ornstein–Uhlenbeck SDE.
struct Ou;
impl StiffSde<f32, 1> for Ou {
    fn soft_drift(&self, _: f32, _: &SVector<f32, 1>) -> SVector<f32, 1> {
        vector![0.0]
    }
    fn stiff_drift(&self, _: f32, u: &SVector<f32, 1>) -> SVector<f32, 1> {
        -u
    }
    fn soft_diffusion(&self, _: f32, _: &SVector<f32, 1>) -> SMatrix<f32, 1, 1> {
        SMatrix::zeros()
    }
    fn stiff_diffusion(&self, _: f32, _: &SVector<f32, 1>) -> SMatrix<f32, 1, 1> {
        SMatrix::from_element(2f32.sqrt())
    }
}

/// The micro-step of every FLAVOR row (`δ = H`).
const TAU: f32 = 1e-3;
/// The legacy symplectic Euler of the FLAVOR rows.
const KICK_DRIFT: EulerOrdering = EulerOrdering::KickDrift;

#[rustfmt::skip]
fn flavor_deterministic() -> Built<Vec<Row>> {
    let (p, sys, s0) = (Params::new(H, TAU)?, split_293(), start_293());
    let se_map = || Switched::symplectic_euler(SymplecticEuler::new(sys, TAU, KICK_DRIFT)?);
    let (tri, ts) = (SpringTrimer::<f32>::paper().system(), SpringTrimer::paper().initial_state());
    let (kapitza, ks) = (Kapitza::<f32>::paper(), Kapitza::paper().initial_state());
    let forced = ForcedEuler::new(kapitza, kapitza.mass(), 1.0)?;
    let em = EulerMaruyama::new(Ou, 100.0, Pcg32::seed_from_u64(9))?;
    let ode = ExplicitEuler::new(Relax, 100.0)?;
    let u0 = State::at_rest(vector![1.0_f32]);
    Ok(vec![
        row_det("Nonintrusive<Switched<SE>>", Nonintrusive::new(se_map()?, p), s0),
        row_det("Symmetric<Switched<SE>>", Symmetric::new(se_map()?, p), s0),
        row_det("Artificial", Artificial::new(sys, matrix![-1.0, 1.0], p), s0),
        row_det("Nonintrusive<ExplicitEuler> (ODE)", Nonintrusive::new(ode, p), u0),
        row_det("Nonintrusive<EulerMaruyama> (SDE)", Nonintrusive::new(em, p), u0),
        row_det("Nonintrusive<ForcedEuler> (Kapitza)", Nonintrusive::new(forced, p), ks),
        row_det("Legacy<ForcedEuler> (Kapitza)", Legacy::new(forced, H), ks),
        row_det("Nonintrusive::symplectic_euler", Nonintrusive::symplectic_euler(sys, H, TAU), s0),
        row_det("Nonintrusive::fused_euler", Nonintrusive::fused_euler(tri, H, TAU), ts),
        row_det("Nonintrusive::verlet", Nonintrusive::verlet(sys, H, TAU), s0),
        row_det("Symmetric::symplectic_euler", Symmetric::symplectic_euler(sys, H, TAU), s0),
    ])
}

#[rustfmt::skip]
fn flavor_noisy() -> Built<Vec<Row>> {
    let p = Params::new(H, TAU)?;
    let model = TwoSpring::<f32>::paper();
    let (sys, s0) = (model.system(), model.initial_state());
    let map = || Switched::symplectic_euler(SymplecticEuler::new(sys, TAU, KICK_DRIFT)?);
    let (m, c, sigma) = (&sys.mass, vector![0.1, 0.1], vector![0.5, 0.5]);
    let (cs, ss, a) = (vector![0.1, 0.0], vector![1.0, 0.0], 1e4);
    let stiff_symmetric = LangevinStiff::symmetric(map()?, p, m, cs, ss, a);
    let sym = Symmetric::new(map()?, p)?;
    Ok(vec![
        row_noisy("LangevinSoft", LangevinSoft::new(map()?, p, m, c, sigma), s0),
        row_noisy("LangevinSoft::symmetric", LangevinSoft::symmetric(map()?, p, m, c, sigma), s0),
        row_noisy("LangevinStiff", LangevinStiff::new(map()?, p, m, cs, ss, a), s0),
        row_noisy("LangevinStiff::symmetric", stiff_symmetric, s0),
        row_noisy("Metropolis<Symmetric>", Metropolis::new(sym, sys, vector![1.0, 1.0], 1.0), s0),
    ])
}

fn show(r: &Result<(), StepError>) -> String {
    match r {
        Ok(()) => "Ok".into(),
        Err(e) => format!("{e:?}"),
    }
}

#[test]
fn every_integrator_type_steps_through_the_driver() {
    let groups: [(&str, Family); 8] = [
        ("baselines + zs", baselines_and_zs),
        ("constrained", constrained),
        ("convert", convert),
        ("compose, recover, forcing", wrappers),
        ("sim", sim),
        ("langevin, circuit, lie", langevin_circuit_lie),
        ("flavor (deterministic)", flavor_deterministic),
        ("flavor (stochastic)", flavor_noisy),
    ];
    let line = |a: &str, b: &str, c: &str, d: &str, e: &str| {
        println!("{a:<46} {b:<19} {c:<7} {d:<14} {e}");
    };
    line("type", "driver", "guards", "f32 clock", "unchanged");
    let mut rows = Vec::new();
    for (family, make) in groups {
        println!("-- {family}");
        let family_rows = make().unwrap_or_else(|e| panic!("{family}: {e:?}"));
        for r in family_rows {
            let (g, u) = (r.guards_ok.to_string(), r.unchanged.to_string());
            line(&r.name, r.driver, &g, &show(&r.clock), &u);
            rows.push(r);
        }
    }
    let n = rows.len();
    let k = rows.iter().filter(|r| r.guards_ok).count();
    let m = rows.iter().filter(|r| r.clock_ok()).count();
    println!("driver types {n} guards_roundtrip_ok {k} f32_clock_stalled {m}");
    let bad: Vec<_> = rows
        .iter()
        .filter(|r| !(r.guards_ok && r.clock_ok()))
        .map(|r| (&r.name, r.guards_ok, show(&r.clock), r.unchanged))
        .collect();
    assert!(
        bad.is_empty(),
        "failing rows (name, guards, clock, unchanged): {bad:#?}"
    );
}
