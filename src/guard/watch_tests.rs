//! The watch's construction: the guards it is given, validated, and given back.

use super::*;

/// A watch is built from guards that validate, or not at all: a bound that is not finite or
/// not positive is refused with the guard's name, as `set_guards` refuses it.
#[test]
fn a_watch_refuses_invalid_guards() {
    let bad = [
        (
            Guards {
                residual: Some(f64::NAN),
                ..Guards::default()
            },
            ConfigError::NonFinite {
                name: "guards.residual",
            },
        ),
        (
            Guards {
                energy_run: Some(0.0),
                ..Guards::default()
            },
            ConfigError::OutOfRange {
                name: "guards.energy_run",
                bound: "> 0",
            },
        ),
        (
            Guards {
                energy_step: Some(-1.0),
                ..Guards::off()
            },
            ConfigError::OutOfRange {
                name: "guards.energy_step",
                bound: "> 0",
            },
        ),
        (
            Guards {
                velocity_step: Some(f64::INFINITY),
                ..Guards::off()
            },
            ConfigError::NonFinite {
                name: "guards.velocity_step",
            },
        ),
        (
            Guards {
                energy_scale: Some(-0.0),
                ..Guards::default()
            },
            ConfigError::OutOfRange {
                name: "guards.energy_scale",
                bound: "> 0",
            },
        ),
    ];
    for (guards, error) in bad {
        assert_eq!(Watch::<f64, 2>::new(guards).map(|w| w.guards()), Err(error));
        let mut w = Watch::<f64, 2>::default();
        assert_eq!(w.set_guards(guards), Err(error));
        assert_eq!(w.guards(), Guards::default());
    }
}

#[test]
fn the_watch_returns_every_combination_of_guards_it_was_given() {
    for mask in 0..32u32 {
        let pick = |bit: u32, x: f32| {
            if mask & (1 << bit) != 0 {
                Some(x)
            } else {
                None
            }
        };
        let g = Guards {
            residual: pick(0, 0.05),
            energy_run: pick(1, 0.3),
            energy_step: pick(2, 1e-3),
            velocity_step: pick(3, 7.0),
            energy_scale: pick(4, 2.5e-30),
        };
        assert_eq!(
            Watch::<f32, 3>::new(g).map(|w| w.guards()),
            Ok(g),
            "mask {mask:05b}"
        );
        let mut w = Watch::<f32, 3>::default();
        assert_eq!(w.set_guards(g), Ok(()));
        assert_eq!(w.guards(), g, "mask {mask:05b}");
    }
}
