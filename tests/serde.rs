//! The `serde` feature: a `State` and the parameter structs survive a JSON round trip bit for bit.
//!
//! `cargo test -p macrostep --features serde --test serde`
#![cfg(feature = "serde")]

use macrostep::nalgebra::{Matrix2, Vector3};
use macrostep::sim::FastParams;
use macrostep::zs::ZsParams;
use macrostep::{constrained, flavor, zs, State};

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
    let newton = zs::NewtonParams::<f64>::default();
    assert_eq!(round_trip(&newton), newton);
    let rattle = constrained::NewtonParams::<f32> {
        off_manifold: constrained::OffManifold::Project,
        ..Default::default()
    };
    assert_eq!(round_trip(&rattle), rattle);
    let fast = FastParams::thermal(Matrix2::new(4.0, 1.0, 1.0, 3.0), 0.5, 2.0);
    assert_eq!(round_trip(&fast), fast);
    let flavor = flavor::Params::new(0.1f64, 0.01).unwrap();
    assert_eq!(round_trip(&flavor), flavor);
}
