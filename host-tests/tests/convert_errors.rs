//! Error paths of `macrostep::convert` (003): bad parameters are refused at construction with
//! a typed error, and a failed step (non-finite input, a step the segment map cannot take, a
//! singular segment map) leaves the state bit-identical.

use macrostep::baselines::VelocityVerlet;
use macrostep::convert::{ConvertParams, Converted, ExplicitRk, Rk4, Segment, StandardLayer};
use macrostep::driver::{Method, Wrapper};
use macrostep::model::{Quadratic, System};
use macrostep::nalgebra::{vector, SMatrix, SVector};
use macrostep::systems::HarmonicOscillator;
use macrostep::{ConfigError, Integrator, State, StepError};

type Osc = Quadratic<f64, 1>;

fn rk4_osc(h: f64) -> ExplicitRk<f64, Osc, Rk4, 1> {
    let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
    ExplicitRk::new(osc.system(), h).unwrap()
}

#[test]
fn bad_parameters_are_refused() {
    let d = ConvertParams::<f64>::default();
    let cases = [
        (
            ConvertParams {
                alpha_minus: 0.5,
                ..d
            },
            ConfigError::OutOfRange {
                name: "alpha_minus",
                bound: "in [-1, 0]",
            },
        ),
        (
            ConvertParams {
                alpha_minus: -1.5,
                ..d
            },
            ConfigError::OutOfRange {
                name: "alpha_minus",
                bound: "in [-1, 0]",
            },
        ),
        (
            ConvertParams {
                alpha_minus: f64::NAN,
                ..d
            },
            ConfigError::NonFinite {
                name: "alpha_minus",
            },
        ),
        (
            ConvertParams { tol: 0.0, ..d },
            ConfigError::OutOfRange {
                name: "tol",
                bound: "> 0",
            },
        ),
        (
            ConvertParams {
                tol: f64::INFINITY,
                ..d
            },
            ConfigError::NonFinite { name: "tol" },
        ),
        (
            ConvertParams { max_iter: 0, ..d },
            ConfigError::OutOfRange {
                name: "max_iter",
                bound: ">= 1",
            },
        ),
    ];
    for (p, e) in cases {
        assert_eq!(Converted::new(rk4_osc(0.1), p).err(), Some(e), "{p:?}");
    }
    // The ends of the documented ranges are accepted.
    for a in [-1.0, -0.5, 0.0] {
        assert!(Converted::new(
            rk4_osc(0.1),
            ConvertParams {
                alpha_minus: a,
                ..d
            }
        )
        .is_ok());
    }
    let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
    assert_eq!(
        ExplicitRk::<f64, _, Rk4, 1>::new(osc.system(), -0.1).err(),
        Some(ConfigError::StepSize)
    );
}

fn assert_fails_untouched<I: Integrator<f64, 1>>(
    c: &mut I,
    s0: State<f64, 1>,
    h: f64,
    e: StepError,
) {
    let mut s = s0;
    assert_eq!(c.step_by(&mut s, h), Err(e));
    assert_eq!(s.t.to_bits(), s0.t.to_bits());
    assert_eq!(s.q[0].to_bits(), s0.q[0].to_bits());
    assert_eq!(s.v[0].to_bits(), s0.v[0].to_bits());
}

#[test]
fn step_errors_leave_the_state_untouched() {
    let s0 = State::new(0.5, vector![1.0], vector![0.25]);
    let mut c = Converted::new(rk4_osc(0.1), ConvertParams::default()).unwrap();
    assert_fails_untouched(&mut c, s0, 0.0, StepError::StepSize);
    assert_fails_untouched(&mut c, s0, f64::NAN, StepError::StepSize);
    let bad = State::new(0.5, vector![f64::NAN], vector![0.25]);
    let mut s = bad;
    assert_eq!(c.step(&mut s), Err(StepError::NonFiniteState));
    // A state whose layer evaluation overflows.
    assert_fails_untouched(
        &mut c,
        State::new(0.0, vector![1e300], vector![1e300]),
        0.1,
        StepError::NonFiniteResult,
    );
    // One iteration is not enough at a large step (contraction O(h²)).
    let p = ConvertParams {
        max_iter: 1,
        ..Default::default()
    };
    let mut c = Converted::new(rk4_osc(0.5), p).unwrap();
    assert_fails_untouched(&mut c, s0, 0.5, StepError::NotConverged);
    // The same step converges with the default cap.
    let mut c = Converted::new(rk4_osc(0.5), ConvertParams::default()).unwrap();
    let mut s = s0;
    c.step(&mut s).unwrap();
    assert!(c.iterations() > 1);
}

/// A layer whose segment end does not depend on `v` (`∂⁺` singular): a Verlet with its
/// `∂R^q/∂v` zeroed.
#[derive(Clone)]
struct Frozen(VelocityVerlet<f64, Osc, 1>);

impl Wrapper for Frozen {
    type Inner = VelocityVerlet<f64, Osc, 1>;
    fn inner(&self) -> &Self::Inner {
        &self.0
    }
    fn inner_mut(&mut self) -> &mut Self::Inner {
        &mut self.0
    }
}

impl Method<f64, 1> for Frozen {
    const ORDER: u32 = 2;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = true;
    fn propose(
        &mut self,
        state: &State<f64, 1>,
        h: f64,
        next: &mut State<f64, 1>,
    ) -> Result<f64, StepError> {
        self.0.propose(state, h, next)
    }
}

impl StandardLayer<f64, 1> for Frozen {
    type Potential = Osc;
    fn system(&self) -> &System<f64, Osc, 1> {
        self.0.system()
    }
    fn segment(&self, q: &SVector<f64, 1>, v: &SVector<f64, 1>, t: f64) -> Segment<f64, 1> {
        let mut s = StandardLayer::segment(&self.0, q, v, t);
        s.q_v = SMatrix::zeros();
        s
    }
}

#[test]
fn singular_segment_map_is_a_typed_error() {
    let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
    let layer = Frozen(VelocityVerlet::new(osc.system(), 0.1).unwrap());
    let mut c = Converted::new(layer, ConvertParams::default()).unwrap();
    assert_fails_untouched(
        &mut c,
        State::new(0.0, vector![1.0], vector![0.25]),
        0.1,
        StepError::Singular,
    );
}

// ---------------------------------------------------------------------------------------------
// The constrained case (003 §3; the rest is in tests/convert_constrained.rs).
