//! Stepping a body mechanism with one of the three methods: Z&S and SyLiPN on the penalty form,
//! RATTLE on the exact constraints.

use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::mechanism::Mechanism;
use macrostep::model::Constraint;
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Integrator, Real, State, StepError};

/// A method under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Z&S on the penalty form.
    Zs,
    /// SyLiPN (Z&Ss) on the penalty form.
    Sylipn,
    /// RATTLE on the exact constraints.
    Rattle,
}

impl Method {
    /// All three, in report order.
    pub const ALL: [Self; 3] = [Self::Zs, Self::Sylipn, Self::Rattle];

    /// The figure-name key.
    pub const fn key(self) -> &'static str {
        match self {
            Self::Zs => "zs",
            Self::Sylipn => "sylipn",
            Self::Rattle => "rattle",
        }
    }
}

/// What a run measured.
#[derive(Clone, Debug)]
pub struct Outcome<T: Real, const N: usize> {
    /// The state at each sample (every `every` steps, the start included).
    pub samples: Vec<State<T, N>>,
    /// Max constraint residual over the run (the linkage's relative measure).
    pub max_residual: f64,
    /// Max `|E − E₀|` of the method's own Hamiltonian (penalised for Z&S/SyLiPN).
    pub max_de: f64,
    /// The step error that stopped the run, if any.
    pub error: Option<StepError>,
}

fn drive<T: Real, I: Integrator<T, N>, const N: usize>(
    integ: &mut I,
    s0: State<T, N>,
    steps: usize,
    every: usize,
    energy: impl Fn(&State<T, N>) -> T,
    residual: impl Fn(&State<T, N>) -> T,
) -> Outcome<T, N> {
    let mut s = s0;
    let e0 = energy(&s).to_f64();
    let mut out = Outcome {
        samples: vec![s],
        max_residual: residual(&s).to_f64(),
        max_de: 0.0,
        error: None,
    };
    for k in 1..=steps {
        if let Err(e) = integ.step(&mut s) {
            out.error = Some(e);
            break;
        }
        out.max_de = out.max_de.max((energy(&s).to_f64() - e0).abs());
        out.max_residual = out.max_residual.max(residual(&s).to_f64());
        if k % every.max(1) == 0 {
            out.samples.push(s);
        }
    }
    out
}

/// Runs `method` on `mech` from `s0` for `steps` steps of `h` (penalty `omega` for Z&S and
/// SyLiPN), sampling every `every` steps.
///
/// # Panics
/// When the method refuses the built mechanism (a bug).
#[allow(clippy::too_many_arguments)]
pub fn run<
    T: Real,
    const DIM: usize,
    const N: usize,
    const D: usize,
    const B: usize,
    const J: usize,
>(
    mech: &Mechanism<T, DIM, N, D, 0, B, J>,
    method: Method,
    s0: State<T, N>,
    h: f64,
    steps: usize,
    every: usize,
    omega: f64,
) -> Outcome<T, N> {
    let g = mech.constraint();
    let residual = |s: &State<T, N>| g.residual(&s.q);
    let h = T::lit(h);
    match method {
        Method::Zs | Method::Sylipn => {
            let pen = mech.penalised(T::lit(omega)).expect("penalty");
            let energy = |s: &State<T, N>| pen.energy(s);
            if method == Method::Zs {
                let mut i = ZhangSkeel::new(pen, h, ZsParams::default()).expect("Z&S");
                drive(&mut i, s0, steps, every, energy, residual)
            } else {
                let mut i = Sylipn::new(pen, h, ZsParams::default()).expect("SyLiPN");
                drive(&mut i, s0, steps, every, energy, residual)
            }
        }
        Method::Rattle => {
            let sys = mech.system();
            let energy = |s: &State<T, N>| sys.energy(s);
            let mut i = Rattle::new(sys, g, h, ConstraintNewtonParams::default()).expect("RATTLE");
            drive(&mut i, s0, steps, every, energy, residual)
        }
    }
}
