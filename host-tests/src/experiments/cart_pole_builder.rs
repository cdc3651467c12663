//! The built-in double pendulum and chain written with the mechanism builder, and the
//! bit-identity check of `reproduce cart-pole` (`builder.bit_identical`, issue 13 Show 6).

use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::mechanism::{Mechanism, MechanismBuilder};
use macrostep::systems::{Chain, DoublePendulum};
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{ConfigError, Integrator, State};

/// `DoublePendulum::paper()` with the builder: unit masses at `(0, −1)` and `(1, −2)`, a pin at
/// the origin, a rod between them (lengths measured: `1` and `√2`), `g = 1`.
pub fn double_pendulum() -> Result<Mechanism<f64, 2, 4, 2>, ConfigError> {
    let mut b = MechanismBuilder::<f64, 2, 4, 2>::new()?;
    let m1 = b.node(1.0, [0.0, -1.0])?;
    let m2 = b.node(1.0, [1.0, -2.0])?;
    b.pin(m1, [0.0, 0.0])?;
    // Link k ties node k to node k − 1, as `Distances::chain`.
    b.rod(m2, m1)?;
    b.gravity(1.0)?;
    b.build()
}

/// `Chain::<f64, N, D>::horizontal()` with the builder: unit masses at `(i, 0)`, rods of
/// length 1 (given), `g = 1`.
pub fn chain<const N: usize, const D: usize>() -> Result<Mechanism<f64, 2, N, D>, ConfigError> {
    let mut b = MechanismBuilder::<f64, 2, N, D>::new()?;
    for i in 0..D {
        let node = b.node(1.0, [(i + 1) as f64, 0.0])?;
        if i == 0 {
            b.pin_length(node, [0.0, 0.0], 1.0)?;
        } else {
            b.rod_length(node, node - 1, 1.0)?;
        }
    }
    b.gravity(1.0)?;
    b.build()
}

/// Steps two integrators `steps` times from the same start; `true` when every state is `==`.
fn same<I: Integrator<f64, N>, J: Integrator<f64, N>, const N: usize>(
    mut a: I,
    mut b: J,
    start: State<f64, N>,
    steps: usize,
) -> bool {
    let (mut sa, mut sb) = (start, start);
    for _ in 0..steps {
        let ra = a.step(&mut sa);
        let rb = b.step(&mut sb);
        if ra.is_err() || rb.is_err() || sa.q != sb.q || sa.v != sb.v || sa.t != sb.t {
            return false;
        }
    }
    true
}

/// Per model and method: the builder's trajectory equals the built-in model's bit for bit.
#[derive(Clone, Copy, Debug)]
pub struct BitIdentity {
    /// Double pendulum, Z&S on the penalty form (`ω = 20`, `h = 0.1`, `β = 0.4`).
    pub dp_zs: bool,
    /// Double pendulum, RATTLE (`h = 0.05`).
    pub dp_rattle: bool,
    /// Horizontal chain of 5, Z&S (`ω = 100`, `h = 0.01`).
    pub chain_zs: bool,
    /// Horizontal chain of 5, RATTLE (`h = 0.01`).
    pub chain_rattle: bool,
}

impl BitIdentity {
    /// All four.
    pub fn all(&self) -> bool {
        self.dp_zs && self.dp_rattle && self.chain_zs && self.chain_rattle
    }
}

/// Runs the four comparisons for `steps` steps each.
pub fn bit_identity(steps: usize) -> Result<BitIdentity, ConfigError> {
    let dp = DoublePendulum::<f64>::paper();
    let bdp = double_pendulum()?;
    let start = dp.initial_state();
    let same_start = bdp.initial_state().q == start.q;
    let zs = |sys| ZhangSkeel::new(sys, 0.1, ZsParams::default());
    let dp_zs = same_start
        && same(
            zs(dp.penalised(20.0)?)?,
            zs(bdp.penalised_distances(20.0)?)?,
            start,
            steps,
        );
    let rattle = |sys, g| Rattle::new(sys, g, 0.05, ConstraintNewtonParams::default());
    let dp_rattle = same(
        rattle(dp.system(), dp.constraint())?,
        Rattle::new(
            bdp.system(),
            bdp.distances()?,
            0.05,
            ConstraintNewtonParams::default(),
        )?,
        start,
        steps,
    );

    let ch = Chain::<f64, 10, 5>::horizontal();
    let bch = chain::<10, 5>()?;
    let start = ch.initial_state();
    let chain_start = bch.initial_state().q == start.q;
    let zs = |sys| ZhangSkeel::new(sys, 0.01, ZsParams::default());
    let chain_zs = chain_start
        && same(
            zs(ch.penalised(100.0)?)?,
            zs(bch.penalised_distances(100.0)?)?,
            start,
            steps,
        );
    let chain_rattle = same(
        Rattle::new(
            ch.system(),
            ch.constraint(),
            0.01,
            ConstraintNewtonParams::default(),
        )?,
        Rattle::new(
            bch.system(),
            bch.distances()?,
            0.01,
            ConstraintNewtonParams::default(),
        )?,
        start,
        steps,
    );
    Ok(BitIdentity {
        dp_zs,
        dp_rattle,
        chain_zs,
        chain_rattle,
    })
}
