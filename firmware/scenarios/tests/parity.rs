//! Firmware ↔ host parity: the Cortex-M4F results in `firmware/expected/<bin>.out` (written by
//! `cargo xtask firmware --bless` from the QEMU run) against the same scenario run on the host.
//!
//! - **f32, bit for bit.** The host runs each scenario of `macrostep-scenarios` in `f32` and
//!   every recorded value must have the firmware's bit pattern. This holds because both sides
//!   execute the same IEEE-754 single-precision operations in the same order (Rust never
//!   contracts `a*b + c` into an FMA on its own, and the M4F's FPU and x86-64's SSE both round
//!   to nearest-even with subnormals on), and every elementary function (`sqrt`, `sin`, …) comes
//!   from the same `libm` crate: on the device through nalgebra's `libm` feature, on the host
//!   through nalgebra's `libm-force` feature (simba's `libm_force`), which this crate's
//!   dev-dependencies switch on for its tests only. Run from the repository root, so that the
//!   firmware's `.cargo/config.toml` (which targets the Cortex-M4F) does not apply:
//!   `cargo test --manifest-path firmware/scenarios/Cargo.toml --test parity -- --nocapture`
//!   (`cargo xtask firmware` runs it). Living here rather than in `host-tests` keeps the
//!   rebuild with `libm-force` down to nalgebra, the core crate and the scenarios.
//! - **f32 against f64.** The same scenario in `f64`; the largest difference, relative to the
//!   value's size (floored at 1), must be within the scenario's tolerance from [`TOLERANCES`].

use macrostep::{ConstReal, Real, State};
use macrostep_scenarios::{Sink, NAMES};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// f32-vs-f64 tolerance per scenario: `max |x₃₂ − x₆₄| / max(1, |x₆₄|)` over every recorded
/// value (time, positions, velocities). Each is the f32 roundoff the run accumulates, with its
/// reason.
/// The Z&S cart-pole's f32-vs-f64 bound (see its entry in [`TOLERANCES`]).
const TOLERANCE_CART_POLE: f64 = 1e-2;

/// Relative agreement of two evaluations of the same mathematics that round differently in
/// `f32`: ε₃₂ ≈ 1.2e-7 accumulated about linearly over 10³ steps of a stable method.
const SAME_MATH: f64 = 1e-4;

const TOLERANCES: &[(&str, f64)] = &[
    // 200 Verlet steps of a stable linear oscillator: roundoff (ε₃₂ ≈ 1.2e-7) accumulates about
    // linearly in the phase, ≲ 200 × a few ε; SAME_MATH.
    ("verlet_oscillator", SAME_MATH),
    // 10 000 Verlet steps on the penalised double pendulum: ten times SAME_MATH's 10³ steps.
    ("verlet_double_pendulum", 10.0 * SAME_MATH),
    // 500 Z&S steps on the penalised double pendulum (a regular, non-chaotic swing under the
    // physical gravity sign, see macrostep::systems::DoublePendulum): roundoff grows about
    // linearly, ≲ 500 × a few ε₃₂ — SAME_MATH. A chaotic start would need a shorter run.
    ("zs_double_pendulum", SAME_MATH),
    // 200 Z&Ss steps per chain (n = 5 and 10) with the banded solve: the penalty force
    // ω²·gᵢ·∇gᵢ multiplies the roundoff of gᵢ = |pᵢ − pᵢ₋₁|² − Lᵢ² (coordinates up to ≈ 22, rods
    // √5) by ω² = 400; measured 2.6e-4, so ten times SAME_MATH.
    ("sylipn_chain", 10.0 * SAME_MATH),
    // 1000 FLAVOR steps (t = 10) and 2000 symplectic Euler steps on system 2.100 with ε = 1e-4:
    // the stiff kick τα∇U = 5·(K q) turns the roundoff of the small spring extensions
    // (y − x ~ 1e-2, from coordinates ~ 1) into velocity errors ~5× larger, and the fast
    // oscillation then carries them in phase over 10³ steps; measured 1.8e-4, so ten times
    // SAME_MATH.
    ("flavor_trimer", 10.0 * SAME_MATH),
    // 2000 SIM1 steps on the FPU chain (ω = 200, H = 0.01): the stiff modes' exact maps (cos and
    // sin of ωH, rounded once at construction in f32) carry a phase error of a few ε₃₂ per step,
    // and roundoff grows about linearly, ≲ 2000 × a few ε₃₂ on O(1) velocities; measured 6.4e-5,
    // within SAME_MATH for f32.
    ("sim_fpu", SAME_MATH),
    // 500 linearised Z&S steps on SO(3) (000 §4.5): the penalty force 2ω²(RRᵀR − R) with
    // 2ω² = 200 turns the roundoff of the small defect RᵀR − I into velocity errors, carried
    // in phase by the slow motion; measured 1.18e-3 (velocities at t = 50), so twenty times
    // SAME_MATH.
    ("so3_attitude", 20.0 * SAME_MATH),
    // 5000 closed-loop ticks (LQR + Z&S on the penalised cart-pole, ω = 500, h = 1 ms): the
    // loop is stable, so roundoff does not grow, but the rod's penalty force ω²·g·∇g turns the
    // f32 roundoff of g = |d|² − L² (≈ ε₃₂·L² = 3e-8) into ±ω²·3e-8·2L ≈ 8e-3 N on a 0.1 kg
    // tip, which the fast rod mode carries as tip-velocity noise; measured 1.1e-3 (tip
    // velocities), so TOLERANCE_CART_POLE = 1e-2.
    ("control_cart_pole", TOLERANCE_CART_POLE),
    // The same plant (penalty amplification as above) regulated through the EKF, 5000 ticks;
    // the noise is the same sequence in both (drawn in f64, rounded to the scalar), so the
    // difference is roundoff carried by the stable loop: TOLERANCE_CART_POLE.
    ("ekf_cart_pole", TOLERANCE_CART_POLE),
    // The same loop with RATTLE (exact rod, Newton tol 1000 ε₃₂): no penalty amplification;
    // measured 5.2e-5, bound 1e-3.
    ("rattle_cart_pole", 1e-3),
    // 3000 ticks of the PD-controlled 3-link arm (Z&S on the penalised joints and bodies,
    // ω = 10⁴, h = 1 ms): the penalty force ω²·g·∇g turns the f32 roundoff of each row
    // (ε₃₂·r² with r ≈ 0.1 m) into ≈ 1e8·1e-9·0.2 ≈ 2e-2 N of force noise, which the bodies'
    // fast modes carry as node-velocity noise of a few 1e-3 m/s; the loop is stable, so it
    // does not grow. Measured 2.3e-3 (node velocities), so TOLERANCE_CART_POLE = 1e-2.
    ("arm3_pd", TOLERANCE_CART_POLE),
    // 1000 Z&S ticks per case of the penalised cart-pole and 3-link arm (ω = 500, h = 1 ms)
    // falling under gravity and the held commands, no controller: the rods' penalty force turns
    // the f32 roundoff of each row into rod-mode velocity noise (as for control_cart_pole), and
    // the falling pole and the swinging arm (speeds of a few m/s) carry it; measured 4.2e-4
    // (the cart-pole tip's velocity at t = 1 s; the arm's largest 3.7e-4), so twenty times
    // SAME_MATH.
    ("zs_control_cost", 20.0 * SAME_MATH),
];

type Key = (String, u32, String, usize);

/// Records every state value (and every value a scenario computed, e.g. a gain) of a run, keyed
/// like the firmware's `x` lines.
struct Recorder<T> {
    values: Vec<(Key, T)>,
}

impl<T: Real> Sink<T> for Recorder<T> {
    fn begin(&mut self, _case: &'static str, _steps: u32, _every: u32) {}

    fn values(&mut self, case: &'static str, name: &'static str, xs: &[T]) {
        for (i, &x) in xs.iter().enumerate() {
            self.values
                .push(((case.to_string(), 0, name.to_string(), i), x));
        }
    }

    fn record<const N: usize>(&mut self, case: &'static str, step: u32, s: &State<T, N>) {
        let mut push = |name: &str, i: usize, x: T| {
            self.values
                .push(((case.to_string(), step, name.to_string(), i), x));
        };
        push("t", 0, s.t);
        for (i, &x) in s.q.iter().enumerate() {
            push("q", i, x);
        }
        for (i, &x) in s.v.iter().enumerate() {
            push("v", i, x);
        }
    }
}

fn host_run<T: ConstReal>(name: &str) -> Vec<(Key, T)> {
    let mut rec = Recorder { values: Vec::new() };
    match macrostep_scenarios::run::<T, _>(name, &mut rec) {
        Some(Ok(())) => rec.values,
        Some(Err(e)) => panic!("{name}: host run failed: {e:?}"),
        None => panic!("{name}: unknown scenario"),
    }
}

/// The firmware's `x <case> <step> <name> <index> <0xbits> <decimal>` lines.
fn golden(name: &str) -> Vec<(Key, u32)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../expected")
        .join(format!("{name}.out"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run `cargo xtask firmware --bless` to create it)",
            path.display()
        )
    });
    let mut out = Vec::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let ["x", case, step, var, index, bits, decimal] = w.as_slice() else {
            continue;
        };
        let bits = u32::from_str_radix(bits.trim_start_matches("0x"), 16)
            .unwrap_or_else(|e| panic!("{name}: bad bits in {line:?}: {e}"));
        // The decimal is the same value printed shortest-round-trip: the file must agree.
        let dec: f32 = decimal
            .parse()
            .unwrap_or_else(|e| panic!("{name}: bad decimal in {line:?}: {e}"));
        assert_eq!(
            dec.to_bits(),
            bits,
            "{name}: decimal and bits disagree in {line:?}"
        );
        let key = (
            case.to_string(),
            step.parse().expect("step"),
            var.to_string(),
            index.parse().expect("index"),
        );
        out.push((key, bits));
    }
    assert!(
        !out.is_empty(),
        "{name}: no state lines in {}",
        path.display()
    );
    out
}

/// The LQR gain computed at start-up in f32 (on the device, and on the host bit for bit) against
/// the same computation in f64: `max |k₃₂ − k₆₄| / max |k₆₄|`. The Riccati solve at `h = 1 ms`
/// works with `A = I + O(h)`, so the gain's relative error is the f32 roundoff amplified by about
/// `1/(h·|λ|)` of the closed loop's slowest mode; measured 2.1e-6 (componentwise at most 1.3e-5,
/// on `k₂`), bound 1e-5 ≈ 84 ε₃₂.
const GAIN_TOLERANCE: f64 = 1e-5;

/// The `k` values (the LQR gain) of a run.
fn gain<T: Copy>(run: &[(Key, T)]) -> Vec<T> {
    run.iter()
        .filter(|((_, _, var, _), _)| var == "k")
        .map(|(_, x)| *x)
        .collect()
}

#[test]
fn on_device_lqr_gain_matches_the_host_in_f32_bitwise_and_f64_within_tolerance() {
    for name in ["control_cart_pole", "ekf_cart_pole"] {
        let fw: Vec<u32> = gain(&golden(name));
        let h32: Vec<u32> = gain(&host_run::<f32>(name))
            .iter()
            .map(|x| x.to_bits())
            .collect();
        let h64 = gain(&host_run::<f64>(name));
        assert_eq!(fw.len(), 4, "{name}: the firmware printed no gain");
        assert_eq!(
            fw, h32,
            "{name}: on-device gain differs from the host's f32 gain"
        );
        let scale = h64.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let err = fw.iter().zip(&h64).fold(0.0f64, |m, (b, x)| {
            m.max((f64::from(f32::from_bits(*b)) - x).abs())
        });
        println!(
            "figure firmware.{name}.gain_f32_f64_rel_diff {:.3e}",
            err / scale
        );
        assert!(
            err <= GAIN_TOLERANCE * scale,
            "{name}: |k32 - k64| = {err:.3e} > {GAIN_TOLERANCE:.0e} * {scale}"
        );
    }
}

#[test]
fn firmware_f32_equals_host_f32_and_f64_within_tolerance() {
    let tolerances: BTreeMap<&str, f64> = TOLERANCES.iter().copied().collect();
    let mut mismatches = 0usize;
    let mut compared = 0usize;
    let mut failures = Vec::new();
    for &name in NAMES {
        let fw = golden(name);
        let h32 = host_run::<f32>(name);
        let h64 = host_run::<f64>(name);
        assert_eq!(
            fw.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            h32.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            "{name}: the firmware recorded other states than the host run"
        );
        for ((key, bits), (_, x)) in fw.iter().zip(&h32) {
            compared += 1;
            if *bits != x.to_bits() {
                mismatches += 1;
                println!(
                    "mismatch {name} {key:?}: firmware {bits:#010x} ({}) host {:#010x} ({x})",
                    f32::from_bits(*bits),
                    x.to_bits()
                );
            }
        }
        // Mixed absolute/relative difference: |x₃₂ − x₆₄| / max(1, |x₆₄|) per value.
        let rel = h32.iter().zip(&h64).fold(0.0f64, |m, ((_, a), (_, b))| {
            m.max((f64::from(*a) - b).abs() / b.abs().max(1.0))
        });
        let tol = *tolerances
            .get(name)
            .unwrap_or_else(|| panic!("{name}: no entry in TOLERANCES"));
        println!("figure firmware.parity.{name}.f32_f64_max_rel_diff {rel:.3e}");
        println!("figure firmware.parity.{name}.f32_f64_tolerance {tol:.1e}");
        if rel > tol {
            failures.push(format!("{name}: |f32 − f64| = {rel:.3e} > {tol:.1e}"));
        }
    }
    println!("figure firmware.parity.values_compared {compared}");
    println!("figure firmware.parity.f32_bit_mismatches {mismatches}");
    assert_eq!(mismatches, 0, "firmware f32 differs from host f32");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
