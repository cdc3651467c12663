//! SO(3): the linearised Z&S (first order and trapezoidal) on the relaxed `R ∈ ℝ³ˣ³` with
//! penalty, and the Cayley-map variational benchmark on `BodyState`, with random or hostile
//! inertia (flat bodies, `J_i ≥ J_j + J_k`), `Bμ`, `ω`, `β`, Newton controls and attitudes
//! (orthogonal, slightly or far off `SO(3)`).
//!
//! The linearised Z&S commits without a guard watch (no energy or residual guard, plain
//! `t + h`); the Cayley step has its own state type. Checked: `Err` ⇒ bit-identical, `Ok` ⇒
//! finite and `t` moved in the direction of `h`.

use super::cases::{step, steps, MAX_STEPS};
use super::{built, case, Bits, Entry, Expect, Gen, Outcome};
use macrostep::lie::{
    BodyState, CayleyVariational, LinearizedZs1, LinearizedZs2, RigidBody, So3ZsParams,
};
use macrostep::nalgebra::{Matrix3, Rotation3, Vector3};
use macrostep::zs::ImplicitNewtonParams;
use macrostep::State;
use rand_pcg::Pcg64;

/// The SO(3) entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "lie::LinearizedZs1",
        run: |r| linearized(r, false),
    },
    Entry {
        name: "lie::LinearizedZs2",
        run: |r| linearized(r, true),
    },
    Entry {
        name: "lie::CayleyVariational",
        run: cayley,
    },
    Entry {
        name: "lie::BodyState::new",
        run: body_state,
    },
];

fn body(g: &mut Gen<'_>) -> RigidBody<f64> {
    RigidBody {
        inertia: g.positives(0.2, 5.0),
        b_mu: g.uniform(-3.0, 3.0),
    }
}

/// A random attitude, exactly orthogonal, or perturbed off `SO(3)` (hostile entries too).
fn attitude(g: &mut Gen<'_>) -> Matrix3<f64> {
    let axis: Vector3<f64> = Vector3::new(
        g.uniform(-1.0, 1.0),
        g.uniform(-1.0, 1.0),
        g.uniform(-1.0, 1.0),
    );
    let r = *Rotation3::new(axis * 3.0).matrix();
    if g.chance(0.5) {
        r
    } else {
        Matrix3::from_column_slice(
            g.perturb(macrostep::nalgebra::SVector::<f64, 9>::from_column_slice(
                r.as_slice(),
            ))
            .as_slice(),
        )
    }
}

fn linearized(rng: &mut Pcg64, second: bool) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let b = body(&mut g);
        let p = So3ZsParams {
            omega: g.positive(1.0, 1e3),
            beta: g.uniform(0.0, 1.0),
        };
        let h = step(&mut g, 1e-3, 0.2);
        let r = attitude(&mut g);
        let w: Vector3<f64> = g.vector(-2.0, 2.0);
        let mut s = BodyState {
            t: g.time(),
            rotation: r,
            omega: w,
        }
        .to_relaxed();
        if g.chance(0.3) {
            s.v = g.perturb(s.v);
        }
        Ok(if second {
            steps(
                &mut g,
                &mut built(LinearizedZs2::new(b, h, p))?,
                s,
                &Expect::bare(),
            )
        } else {
            steps(
                &mut g,
                &mut built(LinearizedZs1::new(b, h, p))?,
                s,
                &Expect::bare(),
            )
        })
    })
}

/// Whether two body states are bit-identical.
fn same(a: &BodyState<f64>, b: &BodyState<f64>) -> bool {
    a.t.bits() == b.t.bits()
        && a.rotation
            .iter()
            .zip(b.rotation.iter())
            .all(|(x, y)| x.bits() == y.bits())
        && a.omega
            .iter()
            .zip(b.omega.iter())
            .all(|(x, y)| x.bits() == y.bits())
}

fn cayley(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let max_iter = if g.is_hostile() && g.chance(0.1) {
            0
        } else {
            g.rng_range(1..30) as u32
        };
        let newton = ImplicitNewtonParams {
            tol: g.positive(1e-14, 1e-4),
            max_iter,
        };
        let h = step(&mut g, 1e-3, 0.2);
        let mut m = built(CayleyVariational::new(body(&mut g), h, newton))?;
        let mut s = BodyState {
            t: g.time(),
            rotation: attitude(&mut g),
            omega: g.vector(-2.0, 2.0),
        };
        for k in 0..g.rng_range(1..MAX_STEPS + 1) {
            let hk = g.step_size(h);
            let before = s;
            match m.step_by(&mut s, hk) {
                Err(e) if same(&s, &before) => return Ok(Outcome::Step(super::step_kind(&e))),
                Err(e) => {
                    return Err(Outcome::Violation(format!(
                        "step {k}: Err({e:?}) changed {before:?} -> {s:?}"
                    )))
                }
                Ok(()) => {
                    let finite = s.t.is_finite()
                        && s.rotation
                            .iter()
                            .chain(s.omega.iter())
                            .all(|x| x.is_finite());
                    let dt = s.t - before.t;
                    if !finite || !(if hk > 0.0 { dt > 0.0 } else { dt < 0.0 }) {
                        return Err(Outcome::Violation(format!(
                            "step {k} (h = {hk:?}): Ok with {before:?} -> {s:?}"
                        )));
                    }
                }
            }
        }
        Ok(Outcome::Ok)
    })
}

fn body_state(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let s = built(BodyState::new(attitude(&mut g), g.vector(-2.0, 2.0)))?;
        let relaxed: State<f64, 9> = s.to_relaxed();
        if !relaxed.is_finite() {
            return Err(Outcome::Violation(format!(
                "{s:?} accepted, relaxed {relaxed:?}"
            )));
        }
        Ok(Outcome::Ok)
    })
}
