//! The cart-pole regulated through an extended Kalman filter at 1 kHz: the controller sees only
//! the noisy cart position and pole angle, the [`Ekf`] estimates `(s, θ, ṡ, θ̇)` with the
//! frozen-mass model's Z&S step and its exact linearisation, and the LQR acts on the estimate.

use crate::cart_pole::{mechanism, CART_POLE_H};
use crate::cart_pole_lqr::{frozen_model, lqr_gain, sin_cos, LqrWeights, Upright};
use crate::control_cart_pole::{plant_in, Plant};
use crate::{ScenarioError, Sink};
use macrostep::control::Ekf;
use macrostep::forcing::{Actuate, Actuated};
use macrostep::langevin::Normal;
use macrostep::mechanism::Mechanism;
use macrostep::nalgebra::{SMatrix, SVector};
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{ConfigError, ConstReal, Guards, Integrator, Real, State, StepError, Stepper};
use rand_pcg::rand_core::SeedableRng;
use rand_pcg::Pcg32;

/// Ticks of the run (`t = 5 s`).
pub const EKF_TICKS: u32 = 5000;
/// A state is recorded every this many ticks.
pub const EKF_EVERY: u32 = 500;
/// Standard deviation of the measurement noise on `s` (m) and `θ` (rad).
pub const EKF_SIGMA: f64 = 0.01;
/// Seed of the noise generator.
pub const EKF_SEED: u64 = 2026;
/// Process noise of the filter per step on the velocities (the frozen-mass model's mismatch
/// with the plant away from the upright); on the positions `1e-12`.
pub const EKF_PROCESS_V: f64 = 1e-7;
/// The settling band: settled once `|θ| ≤ 0.01 rad` and `|s| ≤ 0.01 m` for good.
pub const EKF_BAND: f64 = 0.01;
/// Estimation errors are averaged from this time on (s), after the filter's transient.
pub const EKF_RMS_FROM: f64 = 0.5;

/// The filter's model: Z&S on [`FrozenModel`](crate::FrozenModel), guards off (updates move the estimate off the
/// energy the guards would watch).
type Model<T> = ZhangSkeel<T, Actuated<T, Upright<T>, 2>, 2>;

/// The loop: plant, filter, model, gain and noise, one [`tick`](Self::tick) per control period.
///
/// Every part lives in this object, so a device keeps it in a `static` (the firmware does) and
/// the stack holds only a tick's temporaries. The mechanism is needed only to build it: its
/// force actuator's map is constant, kept as the generalized force of a unit command.
#[derive(Debug)]
pub struct EkfCartPole<T: Real> {
    /// The plant, built in place here ([`EkfCartPole::build_into`]); `None` only while it is
    /// built.
    plant: Option<Plant<T>>,
    /// The generalized force of a unit command (the actuator's constant map).
    unit: SVector<T, 3>,
    model: Model<T>,
    ekf: Ekf<T, 2, 4, 2>,
    gain: [T; 4],
    rng: Pcg32,
    state: State<T, 3>,
    /// `(s, θ, ṡ, θ̇)` of `state` ([`observe`]), kept from the end of the last tick.
    truth: [T; 4],
    u: SVector<T, 3>,
    sigma: T,
    ticks: u32,
    /// Time of the last tick that ended outside the settling band.
    unsettled: T,
    /// `Σ (θ̂ − θ)²` and `Σ (ŝ − s)²` from [`EKF_RMS_FROM`] on, and their count.
    sq_theta: T,
    sq_s: T,
    n: u32,
}

/// Two standard normals by Box–Muller, as [`Normal::pair`] (the same uniforms from two
/// `next_u64`), with the sine and cosine of `2πu₂` from [`sin_cos`]: in `f32` a single-precision
/// kernel instead of `libm`'s `sincosf` and its software `f64` (the sensor model's cost is part of
/// the tick). The draws differ from [`Normal::pair`]'s by at most a few ulp.
fn normal_pair<T: Real>(rng: &mut Pcg32) -> (T, T) {
    let u1 = T::lit(Normal::uniform_open0(rng));
    let u2 = T::lit(Normal::uniform(rng));
    let r = (-(T::one() + T::one()) * u1.ln()).sqrt();
    let (s, c) = sin_cos(T::two_pi() * u2);
    (r * c, r * s)
}

/// The true `(s, θ, ṡ, θ̇)` of the mechanism's state `(s, x_tip, y_tip)`.
fn observe<T: Real>(s: &State<T, 3>) -> [T; 4] {
    let (dx, dy) = (s.q[1] - s.q[0], s.q[2]);
    let (dvx, dvy) = (s.v[1] - s.v[0], s.v[2]);
    [
        s.q[0],
        dx.atan2(dy),
        s.v[0],
        (dvx * dy - dx * dvy) / (dx * dx + dy * dy),
    ]
}

impl<T: ConstReal> EkfCartPole<T> {
    /// Builds into `slot` the loop on the mechanism `mech` ([`mechanism`]) with the gain `gain`
    /// (from [`lqr_gain`]), noise `sigma` and `seed`: the plant of `control_cart_pole` (the
    /// builder's cart-pole tilted 0.2 rad, penalised, Z&S with kept factors) from `mech`'s
    /// initial state, the filter started at the upright at rest with
    /// `P₀ = diag(0.01, 0.1, 0.01, 0.1)`, process noise `diag(1e-12, 1e-12, 1e-7, 1e-7)`,
    /// `R = σ² I`, measuring `(s, θ)`.
    ///
    /// Writes into a place rather than returning the object (≈ 1 KB): a device builds it
    /// straight into its `static`, the plant in place in it, without a copy of either on the
    /// stack. Not inlined: the builders' frames are gone before the loop runs.
    ///
    /// # Errors
    /// [`ScenarioError::Config`] for the models, [`ScenarioError::Control`] for the filter's
    /// matrices (`σ = 0` makes `R` singular: `NotPositiveDefinite`); `slot` is then `None`.
    #[inline(never)]
    pub fn build_into(
        slot: &mut Option<Self>,
        mech: &Mechanism<T, 2, 3, 1>,
        gain: [T; 4],
        sigma: T,
        seed: u64,
    ) -> Result<(), ScenarioError> {
        *slot = None;
        // The filter first, in this small frame: its input checks (eigenvalues) are the deepest
        // calls of the construction.
        // Used in place in its `Result` (moving it out would put a second copy in this frame).
        let built = filter(sigma);
        let ekf = match &built {
            Ok(ekf) => ekf,
            Err(e) => return Err(*e),
        };
        Self::assemble(slot, mech, ekf, gain, sigma, seed)
    }

    /// The rest of [`build_into`](Self::build_into), with the filter built.
    #[inline(never)]
    fn assemble(
        slot: &mut Option<Self>,
        mech: &Mechanism<T, 2, 3, 1>,
        ekf: &Ekf<T, 2, 4, 2>,
        gain: [T; 4],
        sigma: T,
        seed: u64,
    ) -> Result<(), ScenarioError> {
        let mut unit = SVector::zeros();
        mech.actuation(&[T::one()], &mech.initial_state().q, &mut unit)?;
        let h = T::lit(CART_POLE_H);
        let mut model = ZhangSkeel::new(frozen_model()?, h, ZsParams::default())?;
        model.set_guards(Guards::off())?;
        *slot = Some(Self {
            plant: None,
            unit,
            model,
            ekf: *ekf,
            gain,
            rng: Pcg32::seed_from_u64(seed),
            state: mech.initial_state(),
            truth: observe(&mech.initial_state()),
            u: SVector::zeros(),
            sigma,
            ticks: 0,
            unsettled: T::zero(),
            sq_theta: T::zero(),
            sq_s: T::zero(),
            n: 0,
        });
        // The plant in place in the slot (the rest of the object, without it, went through
        // this frame: ≈ 0.5 KB instead of ≈ 1 KB).
        let built = match slot {
            Some(s) => plant_in(mech, &mut s.plant).map(|_| ()),
            None => Ok(()),
        };
        if let Err(e) = built {
            *slot = None;
            return Err(e.into());
        }
        Ok(())
    }
}

impl<T: Real> EkfCartPole<T> {
    /// One control period: measure `(s, θ)` with noise, update the filter, `F = −K x̂`, one
    /// plant step under `F`, predict the filter with the model under `F`.
    ///
    /// # Errors
    /// [`ScenarioError::Control`] from the filter, [`ScenarioError::Step`] from the plant (the
    /// plant's state is then the one before the step).
    #[inline(never)]
    pub fn tick(&mut self) -> Result<(), ScenarioError> {
        self.tick_marked(&mut |_| {})
    }

    /// [`tick`](Self::tick) calling `mark(i)` after its part `i` (profiling).
    #[inline(always)]
    pub fn tick_marked(&mut self, mark: &mut impl FnMut(usize)) -> Result<(), ScenarioError> {
        let x = self.truth;
        mark(0);
        let (n0, n1) = normal_pair::<T>(&mut self.rng);
        let y = SVector::<T, 2>::new(x[0] + self.sigma * n0, x[1] + self.sigma * n1);
        mark(1);
        self.ekf.update(&y)?;
        mark(2);
        let est = self.ekf.vector();
        if self.state.t >= T::lit(EKF_RMS_FROM) {
            let (et, es) = (est[1] - x[1], est[0] - x[0]);
            self.sq_theta += et * et;
            self.sq_s += es * es;
            self.n += 1;
        }
        let k = &self.gain;
        let f = -(k[0] * est[0] + k[1] * est[1] + k[2] * est[2] + k[3] * est[3]);
        if !f.finite() {
            return Err(StepError::NonFiniteForce.into());
        }
        mark(3);
        self.u = self.unit * f;
        let Some(plant) = self.plant.as_mut() else {
            return Err(UNBUILT.into());
        };
        plant.set_force(&self.u)?;
        plant.step(&mut self.state)?;
        mark(4);
        self.model.set_force(&SVector::<T, 2>::new(f, T::zero()))?;
        mark(5);
        self.ekf.predict(&mut self.model)?;
        mark(6);
        self.ticks += 1;
        self.truth = observe(&self.state);
        let after = self.truth;
        let band = T::lit(EKF_BAND);
        if after[1].abs() > band || after[0].abs() > band {
            self.unsettled = self.state.t;
        }
        mark(7);
        Ok(())
    }

    /// The plant's state.
    pub fn state(&self) -> &State<T, 3> {
        &self.state
    }

    /// Ticks taken.
    pub fn ticks(&self) -> u32 {
        self.ticks
    }

    /// `[settle time, RMS θ error, RMS s error]`: the time from which the pole stays within
    /// [`EKF_BAND`] (s), and the RMS estimation errors of `θ` (rad) and `s` (m) from
    /// [`EKF_RMS_FROM`] on.
    pub fn summary(&self) -> [T; 3] {
        let n = T::lit(f64::from(self.n.max(1)));
        [
            self.unsettled,
            (self.sq_theta / n).sqrt(),
            (self.sq_s / n).sqrt(),
        ]
    }
}

/// A loop whose plant was not built (cannot happen: [`EkfCartPole::build_into`] builds it or
/// leaves no loop).
const UNBUILT: ConfigError = ConfigError::Inconsistent {
    name: "plant built in its slot",
};

/// The filter of [`EkfCartPole::new`]. Not inlined (its validation's frames stay off the loop's).
#[inline(never)]
fn filter<T: Real>(sigma: T) -> Result<Ekf<T, 2, 4, 2>, ScenarioError> {
    let (a, b) = (T::lit(0.01), T::lit(0.1));
    let p0 = SMatrix::<T, 4, 4>::from_diagonal(&SVector::<T, 4>::new(a, b, a, b));
    let (qp, qv) = (T::lit(1e-12), T::lit(EKF_PROCESS_V));
    let q = SMatrix::<T, 4, 4>::from_diagonal(&SVector::<T, 4>::new(qp, qp, qv, qv));
    let r = SMatrix::<T, 2, 2>::identity() * (sigma * sigma);
    let mut hm = SMatrix::<T, 2, 4>::zeros();
    hm[(0, 0)] = T::one();
    hm[(1, 1)] = T::one();
    let x0 = State::at_rest(SVector::zeros());
    Ok(Ekf::new(x0, p0, q, r, hm)?)
}

/// The gain at start-up ([`lqr_gain`], recorded as `k`), then [`EKF_TICKS`] ticks of
/// [`EkfCartPole`] with `σ = 0.01`, the plant's state every [`EKF_EVERY`] ticks, and the
/// summary (`x summary 0 settle_time|rms_theta|rms_s 0`). The firmware runs the same ticks from
/// a 1 kHz timer interrupt (`firmware/src/bin/ekf_cart_pole.rs`).
///
/// # Errors
/// A configuration, control or step error (none is expected).
pub fn ekf_cart_pole<T: ConstReal, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    let gain = sink.startup("main", || {
        lqr_gain(T::lit(CART_POLE_H), &LqrWeights::cart_pole())
    })?;
    sink.values("main", "k", &gain);
    let mech = mechanism::<T>()?;
    let mut slot = None;
    EkfCartPole::build_into(&mut slot, &mech, gain, T::lit(EKF_SIGMA), EKF_SEED)?;
    let Some(l) = slot.as_mut() else {
        return Ok(());
    };
    sink.begin("main", EKF_TICKS, EKF_EVERY);
    sink.record("main", 0, l.state());
    for k in 1..=EKF_TICKS {
        l.tick()?;
        if k % EKF_EVERY == 0 {
            sink.record("main", k, l.state());
        }
    }
    sink.end("main");
    record_summary(sink, l);
    Ok(())
}

/// The summary values of `l` into `sink` (shared by the host run and the firmware).
pub fn record_summary<T: Real, S: Sink<T>>(sink: &mut S, l: &EkfCartPole<T>) {
    let [settle, rms_theta, rms_s] = l.summary();
    sink.values("summary", "settle_time", &[settle]);
    sink.values("summary", "rms_theta", &[rms_theta]);
    sink.values("summary", "rms_s", &[rms_s]);
}
