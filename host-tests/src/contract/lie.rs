//! SO(3): the linearised Z&S (first order and trapezoidal) on the relaxed `R ∈ ℝ³ˣ³` with
//! penalty, and the Cayley-map variational benchmark on the same relaxed state, with random or
//! hostile inertia (flat bodies, `J_i ≥ J_j + J_k`), `Bμ`, `ω`, `β`, Newton controls and
//! attitudes (orthogonal, slightly or far off `SO(3)`).
//!
//! Both methods commit through the guard watch with [`So3Probe`]: the guarded clock, the energy
//! run guard on the probe's energy (with the penalty `ω` for the linearised Z&S, without it for
//! the benchmark) and the residual guard on the orthogonality defect `‖RᵀR − I‖_F`. Checked:
//! `Err` ⇒ bit-identical, `Ok` ⇒ finite, `t` moved by `h` to within `|h|/2`, and both guards'
//! promises replayed from outside.

use super::cases::{step, steps};
use super::{built, case, Entry, Expect, Gen, Outcome};
use macrostep::guard::Probe;
use macrostep::lie::{
    matrix_of, orthogonality_error, BodyState, CayleyVariational, LinearizedZs1, LinearizedZs2,
    RigidBody, So3Probe, So3ZsParams,
};
use macrostep::nalgebra::{Matrix3, Rotation3, SVector, Vector3};
use macrostep::zs::ImplicitNewtonParams;
use macrostep::{Integrator, State};
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
        let probe = So3Probe::new(&b, p.omega);
        Ok(if second {
            guarded(&mut g, &mut built(LinearizedZs2::new(b, h, p))?, &probe, s)
        } else {
            guarded(&mut g, &mut built(LinearizedZs1::new(b, h, p))?, &probe, s)
        })
    })
}

/// [`steps`] under the guards of [`So3Probe`] (`probe`, the one the method measures with):
/// the guarded clock, the energy run guard and the orthogonality residual guard.
fn guarded<I: Integrator<f64, 9>>(
    g: &mut Gen<'_>,
    integ: &mut I,
    probe: &So3Probe<f64>,
    s0: State<f64, 9>,
) -> Outcome {
    // The probe always measures (a NaN pair would be reported as a violation).
    let energy = |s: &State<f64, 9>| probe.energy(s).unwrap_or((f64::NAN, f64::NAN));
    let residual = |q: &SVector<f64, 9>| orthogonality_error(&matrix_of(q));
    let exp = Expect {
        energy: Some(&energy),
        residual: Some(&residual),
        exchanged: None,
        clock: true,
    };
    steps(g, integ, s0, &exp)
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
        let b = body(&mut g);
        let mut m = built(CayleyVariational::new(b, h, newton))?;
        let s = BodyState {
            t: g.time(),
            rotation: attitude(&mut g),
            omega: g.vector(-2.0, 2.0),
        }
        .to_relaxed();
        Ok(guarded(&mut g, &mut m, &So3Probe::new(&b, 0.0), s))
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
