//! Any integrator of the crate as a FLAVOR legacy map: Zhang–Skeel (000 eq 1.3) wrapped by
//! [`Switched::new`], its stiffness switched through `system_mut()`. Z&S is symmetric, so the
//! wrapper uses it as its own adjoint and the symmetric FLAVOR (eq 2.47) can be built on it.

use host_tests::fixtures::system_2100;
use host_tests::measure::{integrator_defect, reversibility_error};
use host_tests::reference::reference_samples;
use macrostep::flavor::{LegacyMap, Nonintrusive, Params, Stiffness, Switched, Symmetric};
use macrostep::model::{Mass, Quadratic, Split, System};
use macrostep::nalgebra::{vector, SVector};
use macrostep::systems::QuarticBond;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{Integrator, State};

type Trimer = Split<f64, QuarticBond<f64, 3>, Quadratic<f64, 3>>;
type ZsMap = Switched<f64, ZhangSkeel<f64, Trimer, 3>, 3>;

/// Z&S (β = 0.4) at step `h` on system 2.100 with scale separation `eps`, as a legacy map.
fn zs_map(eps: f64, h: f64) -> ZsMap {
    let sys: System<f64, Trimer, 3> = system_2100::<f64>(eps, 1.1, 0.97);
    let zs = ZhangSkeel::new(sys, h, ZsParams::default()).unwrap();
    Switched::new(zs, 1.0 / eps, |i, a| i.system_mut().potential.alpha = a).unwrap()
}

fn s0() -> State<f64, 3> {
    State::new(0.0, vector![0.8, 0.811, 0.721], vector![0.1, -0.2, 0.3])
}

fn slow(s: &State<f64, 3>) -> f64 {
    (s.q[0] + s.q[1] + s.q[2]) / 3.0
}

/// The switch reaches the integrator: with the stiffness off Z&S integrates `x⁴` only (the
/// springs do not act on a stretched pair), with it on the springs pull it back.
#[test]
fn zs_stiffness_switch_acts() {
    let mut map = zs_map(1e-4, 1e-3);
    assert!(map.has_adjoint(), "Z&S is symmetric: its own adjoint");
    let start = State::new(0.0, vector![0.0, 0.1, 0.0], SVector::zeros());
    let mut off = start;
    map.step(&mut off, 1e-3, Stiffness::Off).unwrap();
    assert_eq!(
        off.q, start.q,
        "no soft force at x = 0, no stiff force when off"
    );
    let mut on = start;
    map.step(&mut on, 1e-3, Stiffness::On { clock: 0.0 })
        .unwrap();
    assert!(
        on.v[1] < -1.0,
        "stiff springs pull y back: v_y = {}",
        on.v[1]
    );
}

/// Structure is inherited (Theorems 2.2.2, 2.2.3): the symmetric FLAVOR over Z&S is symplectic
/// and time-reversible, the nonintrusive one symplectic but not reversible.
#[test]
fn flavor_over_zs_is_symplectic_and_the_symmetric_one_reversible() {
    let params = Params::new(0.01, 1e-3).unwrap();
    let mass = Mass::identity();
    let mut sym = Symmetric::new(zs_map(1e-4, 1e-3), params).unwrap();
    let mut non = Nonintrusive::new(zs_map(1e-4, 1e-3), params).unwrap();
    // The claims the measurements below check.
    const { assert!(Symmetric::<f64, ZsMap, 3>::SYMPLECTIC && Symmetric::<f64, ZsMap, 3>::SYMMETRIC) };
    // Central differences with step 1e-4 through a map with |DΦ| ~ 10 (stiff kick ατ = 10):
    // roundoff grows as 1/step (6.8e-9 at 1e-6, 9e-10 at 1e-5), truncation as step² (Z&S's
    // third-derivative term; 4e-10 at 3e-4); measured 6.5e-11 at 1e-4, the minimum.
    let d_sym = integrator_defect(&mut sym, &mass, &s0(), 5, 1e-4);
    let d_non = integrator_defect(&mut non, &mass, &s0(), 5, 1e-4);
    println!("symplecticity defect over Z&S: symmetric {d_sym:.2e}, nonintrusive {d_non:.2e}");
    assert!(d_sym <= 1e-9, "symmetric defect {d_sym:e}");
    assert!(d_non <= 1e-9, "nonintrusive defect {d_non:e}");
    let r_sym = reversibility_error(&mut sym, &s0(), 20);
    let r_non = reversibility_error(&mut non, &s0(), 20);
    println!("reversibility over Z&S: symmetric {r_sym:.2e}, nonintrusive {r_non:.2e}");
    assert!(r_sym <= 1e-12, "symmetric reversibility {r_sym:e}");
    assert!(
        r_non > 1e-4,
        "nonintrusive unexpectedly reversible: {r_non:e}"
    );
}

/// Accuracy (the setting of `reproduce flavor-3dof`, ε = 10⁻⁶, δ = 0.01, τ = 2·10⁻⁵, T = 5, at rest): the slow
/// variable of the FLAVOR over Z&S follows a DOP853 reference as closely as the FLAVOR over
/// symplectic Euler does (`tests/flavor.rs` bounds that one by 1e-2).
#[test]
fn flavor_over_zs_tracks_the_slow_variable() {
    let start = State::new(0.0, vector![0.8, 0.811, 0.721], SVector::zeros());
    let sys = system_2100::<f64>(1e-6, 1.1, 0.97);
    let reference = reference_samples(&sys, &start, 5.0, 0.01);
    let mut f = Nonintrusive::new(zs_map(1e-6, 2e-5), Params::new(0.01, 2e-5).unwrap()).unwrap();
    let mut s = start;
    let mut err: f64 = 0.0;
    for r in reference.iter().skip(1) {
        f.step(&mut s).unwrap();
        err = err.max((slow(&s) - slow(r)).abs());
    }
    println!("FLAVOR over Z&S: slow error over T = 5: {err:.3e}");
    assert!(err < 1e-2, "slow error {err:e}");
}
