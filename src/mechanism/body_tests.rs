//! Unit tests of the body builder's range checks: the size bound `r, 1/r ≤ MAX^(1/4) / 2`
//! straddled from both sides, the inverse mass and inverse inertia, in `f32` and `f64`, and a
//! finite hinge readout for the largest and smallest accepted bodies; a body refused after some
//! of its nodes or rods would have fitted leaves the builder bit-identical; the cap on the total
//! mass and the total weight, and the finite energy of the heaviest mechanism accepted.

use super::*;
use crate::mechanism::Link;

macro_rules! gen_tests {
    ($($name:ident),* $(,)?) => {
        mod f32 { $(#[test] fn $name() { super::$name::<f32>(); })* }
        mod f64 { $(#[test] fn $name() { super::$name::<f64>(); })* }
    };
}

gen_tests!(
    plane_size_bound_is_straddled,
    space_size_bound_is_straddled,
    a_subnormal_inverse_mass_or_inertia_is_refused,
    the_extreme_accepted_bodies_read_out_finite_rates,
    a_refused_body_leaves_the_builder_unchanged,
    the_planar_izz_is_the_inertia_entry_bit_for_bit,
    a_total_mass_that_overflows_is_refused,
    a_total_weight_that_overflows_is_refused_at_build,
    the_heaviest_accepted_mechanism_has_finite_energy_at_unit_speed,
);

/// `MAX^(1/4) / 2`, computed in `f64` from the type's largest value (independent of the code's
/// own expression).
fn hi<T: Real>() -> f64 {
    T::max_value().unwrap().to_f64().powf(0.25) / 2.0
}

type Plane<T> = MechanismBuilder<T, 2, 6, 5, 0, 1, 1>;
type Space<T> = MechanismBuilder<T, 3, 12, 6, 0, 1, 0>;

fn plane<T: Real>(mass: f64, izz: f64) -> Result<usize, ConfigError> {
    let mut b = Plane::<T>::new()?;
    let l = T::lit;
    b.body(Body {
        mass: l(mass),
        com: [l(0.0), l(0.0)],
        inertia: [[l(izz), l(0.0)], [l(0.0), l(0.0)]],
    })
}

/// A sphere-like body: `J = a I` puts the nodes at `r = √(1.5 a / m)` from the COM.
fn space<T: Real>(mass: f64, a: f64) -> Result<usize, ConfigError> {
    let mut b = Space::<T>::new()?;
    let l = T::lit;
    let z = l(0.0);
    b.body(Body {
        mass: l(mass),
        com: [z, z, z],
        inertia: [[l(a), z, z], [z, l(a), z], [z, z, l(a)]],
    })
}

fn size_error(r: Result<usize, ConfigError>) -> bool {
    matches!(
        r,
        Err(ConfigError::OutOfRange {
            name: "sqrt(inertia / mass)",
            ..
        })
    )
}

fn plane_size_bound_is_straddled<T: Real>() {
    let h = hi::<T>();
    // I_zz = m r² with m = 1: r = 0.9 h and 1.1 h, then r = 1 / (0.9 h) and 1 / (1.1 h).
    for (r, ok) in [(0.9 * h, true), (1.1 * h, false)] {
        let got = plane::<T>(1.0, r * r);
        assert_eq!(got.is_ok(), ok, "r = {r:e}: {got:?}");
        assert!(ok || size_error(got), "{got:?}");
        let got = plane::<T>(1.0, 1.0 / (r * r));
        assert_eq!(got.is_ok(), ok, "r = {:e}: {got:?}", 1.0 / r);
        assert!(ok || size_error(got), "{got:?}");
    }
    // The fuzz case's inertia: r = √(2e300) in f64, far above the bound (and not finite in f32).
    assert!(plane::<T>(1.0, 2e300).is_err());
}

fn space_size_bound_is_straddled<T: Real>() {
    let h = hi::<T>();
    for (r, ok) in [(0.9 * h, true), (1.1 * h, false)] {
        let got = space::<T>(1.0, r * r / 1.5);
        assert_eq!(got.is_ok(), ok, "r = {r:e}: {got:?}");
        assert!(ok || size_error(got), "{got:?}");
        let got = space::<T>(1.0, 1.0 / (1.5 * r * r));
        assert_eq!(got.is_ok(), ok, "r = {:e}: {got:?}", 1.0 / r);
        assert!(ok || size_error(got), "{got:?}");
    }
}

fn a_subnormal_inverse_mass_or_inertia_is_refused<T: Real>() {
    let max = T::max_value().unwrap().to_f64();
    // A body of mass `1 / MAX` has nodes of mass `1 / (3 MAX)` whose inverse overflows.
    assert_eq!(
        plane::<T>(1.0 / max, 1.0 / max),
        Err(ConfigError::Overflow { name: "1 / mass" })
    );
    // The smallest normal number `t` as the mass (node inverse mass `3 / t < MAX`) and the
    // inertia `t / 8` (size `r = √(1/8)`, in range): only the inverse inertia overflows.
    let t = 4.0 / max;
    assert_eq!(
        plane::<T>(t, t / 8.0),
        Err(ConfigError::Overflow { name: "1 / I_zz" })
    );
    assert_eq!(
        space::<T>(t, t / 8.0),
        Err(ConfigError::Overflow { name: "inertia^-1" })
    );
    // The controls: the same mass with an inertia whose inverse is representable.
    assert!(plane::<T>(t, 8.0 * t).is_ok());
    assert!(space::<T>(t, 8.0 * t).is_ok());
}

fn the_extreme_accepted_bodies_read_out_finite_rates<T: Real>() {
    let h = hi::<T>();
    for r in [0.99 * h, 1.0 / (0.99 * h), 1.0] {
        let mut b = Plane::<T>::new().unwrap();
        let l = T::lit;
        let body = b
            .body(Body {
                mass: l(1.0),
                com: [l(0.0), l(0.0)],
                inertia: [[l(r * r), l(0.0)], [l(0.0), l(0.0)]],
            })
            .unwrap();
        // The pivot half a body size from the COM.
        let anchor = [l(0.0), l(0.5 * r)];
        let j = b
            .revolute(Link::Ground, Link::Body(body), anchor, [l(1.0), l(0.0)])
            .unwrap();
        let m = b.build().unwrap();
        let q = m.initial_state().q;
        let v = SVector::<T, 6>::from_fn(|i, _| l(0.1 * (i as f64 + 1.0)));
        let rate = m.joint_rate(j, &q, &v).unwrap();
        let angle = m.joint_angle(j, &q).unwrap();
        assert!(
            rate.finite() && angle.finite(),
            "r = {r:e}: {angle:?} {rate:?}"
        );
    }
}

/// A sphere-like body of mass 2 and `J = 0.3 I` at `com`.
fn ball<T: Real>(com: f64) -> Body<T, 3> {
    let (l, z) = (T::lit, T::zero());
    let a = l(0.3);
    Body {
        mass: l(2.0),
        com: [l(com), l(-0.5 * com), z],
        inertia: [[a, z, z], [z, a, z], [z, z, a]],
    }
}

/// FNV-1a of what is written into it.
struct Fnv(u64);

impl core::fmt::Write for Fnv {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        for &byte in s.as_bytes() {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        Ok(())
    }
}

/// A digest of the builder's `Debug` form: every field, floats printed to the bit (shortest
/// round trip). No `std` here to keep the text itself.
fn form<T: Real, const N: usize, const D: usize, const B: usize>(
    b: &MechanismBuilder<T, 3, N, D, 0, B, 0>,
) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    core::fmt::Write::write_fmt(&mut h, format_args!("{b:?}")).unwrap();
    h.0
}

/// `b.body(body)` is refused with `want` and leaves `b` as it was.
fn refused<T: Real, const N: usize, const D: usize, const B: usize>(
    b: &mut MechanismBuilder<T, 3, N, D, 0, B, 0>,
    body: Body<T, 3>,
    want: ConfigError,
) {
    let before = form(b);
    assert_eq!(b.body(body), Err(want));
    assert_eq!(form(b), before, "refused with {want:?}");
}

/// The refusals that come after some of the body's nodes or rods would fit: the fourth node
/// (a point node took three coordinates), the sixth rod, a second body, and rods whose ends
/// round to one point (the COM at `1e20`, the nodes `0.5` apart) — then the body that fits is
/// built as on a fresh builder.
fn a_refused_body_leaves_the_builder_unchanged<T: Real>() {
    let coords = ConfigError::Inconsistent {
        name: "coordinates = N",
    };
    let mut b = MechanismBuilder::<T, 3, 14, 6, 0, 1, 0>::new().unwrap();
    b.node(T::one(), [T::zero(); 3]).unwrap();
    refused(&mut b, ball(1.0), coords);

    let rods = ConfigError::Inconsistent { name: "rods = D" };
    let mut b = MechanismBuilder::<T, 3, 12, 5, 0, 1, 0>::new().unwrap();
    refused(&mut b, ball(1.0), rods);

    let coincide = ConfigError::Inconsistent {
        name: "rod ends coincide",
    };
    let mut b = Space::<T>::new().unwrap();
    refused(&mut b, ball(1e20), coincide);
    let mut fresh = Space::<T>::new().unwrap();
    assert_eq!(b.body(ball(1.0)), Ok(0));
    assert_eq!(fresh.body(ball(1.0)), Ok(0));
    assert_eq!(form(&b), form(&fresh));
    let bodies = ConfigError::Inconsistent {
        name: "bodies <= B",
    };
    refused(&mut b, ball(2.0), bodies);
}

/// `planar_izz` (a joint motor's torque in the plane) is `inertia(q)[(2, 2)]` to the bit, at the
/// build pose and at 100 states that stretch and shear the body's nodes.
fn the_planar_izz_is_the_inertia_entry_bit_for_bit<T: Real>() {
    let mut b = MechanismBuilder::<T, 2, 6, 3, 0, 1, 0>::new().unwrap();
    let l = T::lit;
    b.body(Body {
        mass: l(1.3),
        com: [l(0.7), l(-0.2)],
        inertia: [[l(0.037), l(0.0)], [l(0.0), l(0.0)]],
    })
    .unwrap();
    let rec = b.bodies[0];
    let q0 = b.build().unwrap().initial_state().q;
    let mut s = 0x2545_f491_4f6c_dd1d_u64;
    for k in 0..=100 {
        let q = q0.map(|x| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let d = if k == 0 {
                0.0
            } else {
                (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
            };
            x + l(0.3 * d)
        });
        let rho = rec.nodes(&q, &rec.com(&q));
        let want = rec.inertia(&q)[(2, 2)];
        assert_eq!(
            rec.planar_izz(&rho).to_f64().to_bits(),
            want.to_f64().to_bits(),
            "{k}"
        );
    }
}

/// `k · MAX` of the scalar.
fn of_max<T: Real>(k: f64) -> T {
    T::max_value().unwrap() * T::lit(k)
}

/// Two nodes of `0.75 MAX` each, or such a node and a body: the second is refused with
/// `"total mass"` and leaves the builder as it was; a lighter one then fits.
fn a_total_mass_that_overflows_is_refused<T: Real>() {
    let z = T::zero();
    let total = ConfigError::Overflow { name: "total mass" };
    let mut b = MechanismBuilder::<T, 3, 6, 0, 0, 1, 0>::new().unwrap();
    b.node(of_max(0.75), [z; 3]).unwrap();
    let before = form(&b);
    assert_eq!(b.node(of_max(0.75), [T::one(); 3]), Err(total));
    assert_eq!(
        b.rail_node(of_max(0.75), [z; 3], [T::one(), z, z], z),
        Err(total)
    );
    assert_eq!(form(&b), before);
    assert_eq!(b.node(of_max(0.2), [T::one(); 3]), Ok(1));

    let mut b = MechanismBuilder::<T, 3, 15, 6, 0, 1, 0>::new().unwrap();
    b.node(of_max(0.75), [z; 3]).unwrap();
    let mut heavy = ball::<T>(1.0);
    heavy.mass = of_max(0.75);
    // Its inertia scaled with its mass keeps its size (about 0.4) within the size bound.
    heavy.inertia = heavy.inertia.map(|r| r.map(|x| x * of_max::<T>(0.375)));
    refused(&mut b, heavy, total);
    heavy.mass = of_max(0.2);
    heavy.inertia = ball::<T>(1.0)
        .inertia
        .map(|r| r.map(|x| x * of_max::<T>(0.1)));
    assert_eq!(b.body(heavy), Ok(0));
}

/// Two nodes of `0.4 MAX` under `g = 2`: each weight (`0.8 MAX`) is finite, their sum is not.
fn a_total_weight_that_overflows_is_refused_at_build<T: Real>() {
    let z = T::zero();
    let mut b = MechanismBuilder::<T, 3, 6, 0>::new().unwrap();
    b.node(of_max(0.4), [z; 3]).unwrap();
    b.node(of_max(0.4), [T::one(); 3]).unwrap();
    b.gravity(T::lit(2.0)).unwrap();
    let want = ConfigError::Overflow {
        name: "g * total mass",
    };
    assert_eq!(b.build().err(), Some(want));
    b.gravity(T::lit(1.0)).unwrap();
    assert!(b.build().is_ok());
}

/// Three nodes of `0.3 MAX` (the total `0.9 MAX` is accepted): at unit speed the momentum is
/// `0.9 MAX`; at speed 1.3 the kinetic energy is `0.7605 MAX`, finite though `vᵀMv` is not.
fn the_heaviest_accepted_mechanism_has_finite_energy_at_unit_speed<T: Real>() {
    let z = T::zero();
    let mut b = MechanismBuilder::<T, 3, 9, 0>::new().unwrap();
    for k in 0..3 {
        b.node(of_max(0.3), [T::lit(k as f64), z, z]).unwrap();
    }
    let m = b.build().unwrap();
    let max = T::max_value().unwrap().to_f64();
    let along_x = |s: f64| SVector::<T, 9>::from_fn(|i, _| if i % 3 == 0 { T::lit(s) } else { z });
    let p = m.momentum(&along_x(1.0))[0].to_f64() / max;
    assert!((p - 0.9).abs() < 1e-6, "{p}");
    let ke = m.kinetic_energy(&along_x(1.3)).to_f64() / max;
    assert!((ke - 0.7605).abs() < 1e-6, "{ke}");
}
