//! The state a one-step method advances: time, positions, velocities.

use crate::Real;
use nalgebra::SVector;

/// The state of a mechanical system with `N` degrees of freedom: `(t, q, v)`.
///
/// Velocities, not momenta, are stored: the Zhang–Skeel family is written in velocities, and the
/// momentum `p = M v` is one call away ([`crate::model::Mass::mul`]). The caller owns the state;
/// an integrator's `step` updates it in place, or leaves it bit-identical when it fails.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct State<T: Real, const N: usize> {
    /// Time.
    pub t: T,
    /// Generalised positions.
    pub q: SVector<T, N>,
    /// Velocities `q̇`.
    pub v: SVector<T, N>,
}

/// Logged as `State { t: 0.01, q: [..], v: [..] }`: the vectors as plain slices (nalgebra's own
/// `Format` would print its storage types).
#[cfg(feature = "defmt")]
impl<T: Real + defmt::Format, const N: usize> defmt::Format for State<T, N> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "State {{ t: {}, q: {}, v: {} }}",
            self.t,
            self.q.as_slice(),
            self.v.as_slice()
        );
    }
}

impl<T: Real, const N: usize> State<T, N> {
    /// A state at time `t` with positions `q` and velocities `v`.
    pub fn new(t: T, q: SVector<T, N>, v: SVector<T, N>) -> Self {
        Self { t, q, v }
    }

    /// A state at rest at time zero.
    pub fn at_rest(q: SVector<T, N>) -> Self {
        Self {
            t: T::zero(),
            q,
            v: SVector::zeros(),
        }
    }

    /// Whether every component (time, positions, velocities) is finite.
    #[inline]
    pub fn is_finite(&self) -> bool {
        // One branch-free pass: `x − x` is 0 for finite `x` and NaN otherwise.
        use crate::linalg::zero_if_finite as z;
        let mut acc = z(self.t);
        for i in 0..N {
            acc += z(self.q[i]) + z(self.v[i]);
        }
        acc == T::zero()
    }

    /// Converts every component to another scalar type (e.g. `f64` → `f32`).
    pub fn cast<U: Real>(&self) -> State<U, N> {
        State {
            t: U::lit(self.t.to_f64()),
            q: self.q.map(|x| U::lit(x.to_f64())),
            v: self.v.map(|x| U::lit(x.to_f64())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::vector;

    #[test]
    fn is_finite_sees_every_component() {
        let s = State::new(1.0f32, vector![0.5, -2.0], vector![3.0, 0.0]);
        assert!(s.is_finite());
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let mut t = s;
            t.t = bad;
            assert!(!t.is_finite());
            for i in 0..2 {
                let mut t = s;
                t.q[i] = bad;
                assert!(!t.is_finite());
                let mut t = s;
                t.v[i] = bad;
                assert!(!t.is_finite());
            }
        }
        // The largest finite values are finite (x − x = 0 exactly, no overflow).
        let big = State::new(f64::MAX, vector![f64::MAX], vector![f64::MIN]);
        assert!(big.is_finite());
    }
}

/// The `serde` feature: a `State` and the parameter structs survive a JSON round trip bit for
/// bit (`cargo test -p macrostep --features serde`).
#[cfg(all(test, feature = "serde"))]
mod serde_tests {
    use crate::nalgebra::{Matrix2, Vector3};
    use crate::sim::{FastParams, Friction, Noise};
    use crate::zs::ZsParams;
    use crate::{constrained, flavor, zs, State};

    fn round_trip<T>(value: &T) -> T
    where
        T: serde::Serialize + serde::de::DeserializeOwned,
    {
        let json = serde_json::to_string(value).expect("serialize");
        serde_json::from_str(&json).expect("deserialize")
    }

    #[test]
    fn state_round_trip_f64() {
        // Values that need all 17 significant digits, a subnormal and a negative zero.
        let s = State::new(
            0.1 + 0.2,
            Vector3::new(1.0 / 3.0, -2.5e-310, -0.0),
            Vector3::new(f64::MAX, f64::MIN_POSITIVE, 7.0),
        );
        let back = round_trip(&s);
        assert_eq!(back.t.to_bits(), s.t.to_bits());
        for i in 0..3 {
            assert_eq!(back.q[i].to_bits(), s.q[i].to_bits());
            assert_eq!(back.v[i].to_bits(), s.v[i].to_bits());
        }
    }

    #[test]
    fn state_round_trip_f32() {
        let s = State::new(
            1.1f32,
            Vector3::new(1.0 / 3.0, -0.0, 1e-40),
            Vector3::zeros(),
        );
        let back = round_trip(&s);
        assert_eq!(back, s);
        assert!(back.q[1].is_sign_negative());
    }

    #[test]
    fn state_json_names_its_fields() {
        let s = State::new(
            0.5,
            Vector3::new(1.0, 2.0, 3.0),
            Vector3::new(4.0, 5.0, 6.0),
        );
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, r#"{"t":0.5,"q":[1.0,2.0,3.0],"v":[4.0,5.0,6.0]}"#);
    }

    #[test]
    fn parameters_round_trip() {
        let zs = ZsParams::with_beta(0.3f64);
        assert_eq!(round_trip(&zs), zs);
        let newton = zs::ImplicitNewtonParams::<f64>::default();
        assert_eq!(round_trip(&newton), newton);
        let rattle = constrained::ConstraintNewtonParams::<f32> {
            off_manifold: constrained::OffManifold::Project,
            ..Default::default()
        };
        assert_eq!(round_trip(&rattle), rattle);
        let fast = FastParams::<f64, 2> {
            friction: Friction::Matrix(Matrix2::new(4.0, 1.0, 1.0, 3.0)),
            noise: Noise::Thermal {
                inverse_temperature: 2.0,
            },
        };
        assert_eq!(round_trip(&fast), fast);
        // FLAVOR's parameters are validated and their fields private: they serialize, and are
        // read back through `Params::new`, never bypassing it.
        let flavor = flavor::Params::new(0.1f64, 0.01).unwrap();
        let json = serde_json::to_string(&flavor).unwrap();
        assert_eq!(json, r#"{"delta":0.1,"tau":0.01}"#);
    }
}
