//! Circuits (004 §7.1): the circuit constructor and its setters, the variational integrator
//! [`CircuitVi`] and the noisy one [`NoisyCircuitVi`], on the four-branch, two-mesh topology of
//! the seed's LC circuit with random or hostile loop matrices, inductances, inverse
//! capacitances, resistances (singular `𝕃 + hD` included: a branch without inductor and
//! without resistor), noise amplitudes, sources and steps.
//!
//! Checked: a refused setter leaves the circuit as it was (its `Debug` form, every float
//! exactly); [`CircuitVi`] commits through the guard watch with the circuit as the probe, so
//! for a lossless circuit the energy run guard's promise `|E − E_ref − W| ≤ r·S` is replayed,
//! `W` the work of the sources set between steps, summed step by step (the guard accounts it
//! as `−Δfᵀq̃` at each change); the noisy integrator: finiteness and the guarded clock.

use super::cases::{step, stochastic, MAX_STEPS};
use super::{built, case, run, step_sizes, Entry, Expect, Gen, Outcome};
use macrostep::circuit::{Circuit, CircuitParams, CircuitVi, NoisyCircuitVi};
use macrostep::nalgebra::SVector;
use macrostep::{Integrator, State};
use rand_pcg::Pcg64;
use std::cell::Cell;

/// The circuit entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "circuit::Circuit::{new,set_source,set_inverse_capacitance}",
        run: setters,
    },
    Entry {
        name: "circuit::CircuitVi set_source",
        run: variational,
    },
    Entry {
        name: "circuit::NoisyCircuitVi (StochasticIntegrator)",
        run: noisy,
    },
];

type Params = CircuitParams<f64, 4, 2>;

/// Around the seed's LC circuit: branch values from natural ranges (zero with probability
/// 0.2 each, so degenerate `𝕃` and singular `𝕃 + hD` occur), sometimes a random loop matrix,
/// hostile values in hostile cases.
fn params(g: &mut Gen<'_>) -> Params {
    let mut p = Params::lc_paper(g.positive(1e-3, 1e3), g.positive(1e-3, 1.0));
    let value = |g: &mut Gen<'_>, lo: f64, hi: f64| {
        if g.chance(0.2) {
            0.0
        } else {
            g.positive(lo, hi)
        }
    };
    for i in 0..4 {
        if g.chance(0.5) {
            p.inductance[i] = value(g, 1e-3, 1e3);
            p.inverse_capacitance[i] = value(g, 1e-3, 1e3);
            p.resistance[i] = value(g, 1e-3, 10.0);
            p.noise[i] = value(g, 1e-3, 1.0);
        }
        p.source[i] = g.uniform(-5.0, 5.0);
    }
    if g.chance(0.2) {
        p.loops = g.matrix(-1.5, 1.5);
    }
    p
}

/// A refused call must leave the circuit's `Debug` form unchanged.
fn untouched<X: std::fmt::Debug, R>(
    x: &mut X,
    f: impl FnOnce(&mut X) -> Result<R, macrostep::ConfigError>,
) -> Result<(), Outcome> {
    let before = format!("{x:?}");
    if f(x).is_err() && format!("{x:?}") != before {
        return Err(Outcome::Violation(format!(
            "a refused call changed {before} -> {x:?}"
        )));
    }
    Ok(())
}

fn setters(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let p = params(&mut g);
        let mut c = built(Circuit::new(p))?;
        for _ in 0..3 {
            if g.chance(0.5) {
                let src: SVector<f64, 4> = g.vector(-5.0, 5.0);
                untouched(&mut c, |c| c.set_source(src))?;
            } else {
                let branch = g.rng_range(0..6);
                let value: f64 = g.positive(1e-3, 1e3);
                untouched(&mut c, |c| c.set_inverse_capacitance(branch, value))?;
            }
        }
        Ok(Outcome::Ok)
    })
}

fn variational(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let circuit = built(Circuit::new(params(&mut g)))?;
        let h = step(&mut g, 1e-3, 2.0);
        let mut vi = built(CircuitVi::new(circuit, h))?;
        let s0 = g.state(SVector::<f64, 2>::new(1.0, 0.0), 2.0);
        let hs = step_sizes(&mut g, h, MAX_STEPS);
        let plan: Vec<Option<SVector<f64, 4>>> = (0..hs.len())
            .map(|k| (k > 0 && g.chance(0.5)).then(|| g.vector(-5.0, 5.0)))
            .collect();
        // The guard's promise for a lossless circuit, `|E − E_ref − W| ≤ r·S` with
        // `E = ½ṽᵀ𝕃ṽ + ½q̃ᵀSq̃`, `E_ref` the start's `E − f₀ᵀq̃₀` and `W = Σ fₖᵀ(q̃ₖ₊₁ − q̃ₖ)` the
        // work of the held sources (the guard accounts it as `−Δfᵀq̃` at each change).
        let f = Cell::new(*circuit.source_force());
        let start = circuit.source_force().dot(&s0.q);
        let work = Cell::new(0.0);
        let broken = Cell::new(None);
        let energy = |s: &State<f64, 2>| {
            let v = circuit.electric_energy(s) - start - work.get();
            (circuit.magnetic_energy(s), v)
        };
        let exp = Expect {
            energy: if circuit.is_lossless() {
                Some(&energy)
            } else {
                None
            },
            residual: None,
            exchanged: None,
            clock: true,
        };
        let mut k = 0;
        let o = run(s0, &hs, &exp, |s, hk| {
            if let Some(src) = plan[k] {
                let before = format!("{:?}", vi.circuit());
                if vi.set_source(src).is_ok() {
                    f.set(*vi.circuit().source_force());
                } else if format!("{:?}", vi.circuit()) != before {
                    broken.set(Some("a refused set_source changed the circuit"));
                }
            }
            k += 1;
            let q0 = s.q;
            let r = if hk.to_bits() == h.to_bits() {
                vi.step(s)
            } else {
                vi.step_by(s, hk)
            };
            if r.is_ok() {
                work.set(work.get() + f.get().dot(&(s.q - q0)));
            }
            r
        });
        Ok(match broken.take() {
            Some(msg) => Outcome::Violation(msg.into()),
            None => o,
        })
    })
}

fn noisy(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let circuit = built(Circuit::new(params(&mut g)))?;
        let h = step(&mut g, 1e-3, 2.0);
        let mut m = built(NoisyCircuitVi::new(circuit, h))?;
        let s = g.state(SVector::<f64, 2>::new(1.0, 0.0), 2.0);
        Ok(stochastic(&mut g, &mut m, s))
    })
}
