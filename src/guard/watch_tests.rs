//! The watch's construction: the guards it is given, validated, and given back.

use super::*;
use core::fmt::Write;
use nalgebra::vector;

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

/// Kinetic energy only, `½|v|²`.
struct Kinetic;

impl<T: Real> Probe<T, 2> for Kinetic {
    fn energy(&self, s: &State<T, 2>) -> Option<(T, T)> {
        Some((s.v.norm_squared() * T::lit(0.5), T::zero()))
    }
    fn residual(&self, _: &SVector<T, 2>) -> Option<T> {
        None
    }
}

/// The `Debug` form of a watch, written without `std`.
struct Text {
    bytes: [u8; 2048],
    len: usize,
}

impl Write for Text {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len + s.len();
        self.bytes
            .get_mut(self.len..end)
            .ok_or(core::fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// The step number the watch's run has reached (read from its `Debug` form).
fn steps<T: Real>(w: &Watch<T, 2>) -> u32 {
    let mut text = Text {
        bytes: [0; 2048],
        len: 0,
    };
    write!(text, "{w:?}").unwrap();
    let text = core::str::from_utf8(&text.bytes[..text.len]).unwrap();
    let at = text.find("steps: ").unwrap() + "steps: ".len();
    let digits = text[at..].split(|c: char| !c.is_ascii_digit()).next();
    digits.unwrap().parse().unwrap()
}

/// An edit of a state: one component moved by `next_up`, or set to `±big`.
type Edit<T> = fn(&mut State<T, 2>, fn(T) -> T, T);

/// A run continues from the state the watch committed last and from no other: a state that
/// differs in one component by one unit in the last place (the smallest subnormal next to a
/// zero), or by more than the scalar's range, starts a new run, in `f32` and in `f64`.
fn a_run_continues_only_from_the_state_it_committed<T: Real>(next_up: fn(T) -> T, big: T) {
    let start = State::new(
        T::zero(),
        vector![T::one(), T::zero()],
        vector![T::one(), T::zero()],
    );
    let h = T::lit(0.01);
    let step = |s: &State<T, 2>| State::new(s.t + h, s.q + s.v * h, s.v);
    let mut w = Watch::<T, 2>::default();
    let mut s = start;
    for n in 1..=3 {
        let next = step(&s);
        w.commit(&mut s, &next, h, T::zero(), &Kinetic).unwrap();
        assert_eq!(steps(&w), n);
    }
    let edits: [Edit<T>; 6] = [
        |s, up, _| s.t = up(s.t),
        |s, up, _| s.q[0] = up(s.q[0]),
        |s, up, _| s.q[1] = up(s.q[1]),
        |s, up, _| s.v[1] = up(s.v[1]),
        |s, _, big| s.q[1] = big,
        |s, _, big| {
            s.q[0] = big;
            s.q[1] = -big;
        },
    ];
    for (i, edit) in edits.iter().enumerate() {
        let mut w = w;
        let mut edited = s;
        edit(&mut edited, next_up, big);
        let next = step(&edited);
        w.commit(&mut edited, &next, h, T::zero(), &Kinetic)
            .unwrap();
        assert_eq!(steps(&w), 1, "edit {i}");
    }
    let next = step(&s);
    w.commit(&mut s, &next, h, T::zero(), &Kinetic).unwrap();
    assert_eq!(steps(&w), 4);
}

#[test]
fn a_run_continues_only_from_the_state_it_committed_f32_and_f64() {
    a_run_continues_only_from_the_state_it_committed::<f32>(f32::next_up, f32::MAX);
    a_run_continues_only_from_the_state_it_committed::<f64>(f64::next_up, f64::MAX);
}
