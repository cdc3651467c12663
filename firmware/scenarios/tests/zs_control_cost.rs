//! `zs_control_cost` as built for the device against the host experiment's tick
//! (`reproduce zs-step-cost`): the recorded runs (plants built in place, the controlled tick a
//! [`Commanded`] step) equal, bit for bit in `f32` and `f64`, plants built by value and driven
//! by `set_force` then `step` as the host experiment drives them (a held case's states are its
//! free case's); and a controlled tick with a
//! non-finite command is refused with the state and the held force unchanged.
//! `cargo test --manifest-path firmware/scenarios/Cargo.toml --test zs_control_cost`

use macrostep::forcing::{Actuate, Actuated};
use macrostep::linalg::DenseKept;
use macrostep::mechanism::{LinkagePenalty, Mechanism, MechanismBuilder};
use macrostep::model::System;
use macrostep::model::ThirdDerivative;
use macrostep::nalgebra::SVector;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{ConfigError, ConstReal, Integrator, Real, State, StepError};
use macrostep_scenarios::{
    mechanism, zs_control_commands, zs_control_cost, Commanded, Sink, ZS_CONTROL_COST_COMMANDS,
    ZS_CONTROL_COST_EVERY, ZS_CONTROL_COST_TICKS,
};

/// Every recorded value of a run as `(case, step, bits)`.
struct Records(Vec<(&'static str, u32, Vec<u64>)>);

fn bits<T: Real, const N: usize>(s: &State<T, N>) -> Vec<u64> {
    let mut out = vec![s.t.to_f64().to_bits()];
    out.extend(s.q.iter().chain(s.v.iter()).map(|x| x.to_f64().to_bits()));
    out
}

impl<T: Real> Sink<T> for Records {
    fn begin(&mut self, _: &'static str, _: u32, _: u32) {}
    fn record<const N: usize>(&mut self, case: &'static str, step: u32, s: &State<T, N>) {
        self.0.push((case, step, bits(s)));
    }
}

/// The host experiment's arm (`step_cost::arm`), by value.
fn arm<T: Real>() -> Result<Mechanism<T, 2, 6, 3>, ConfigError> {
    let mut b = MechanismBuilder::<T, 2, 6, 3>::new()?;
    let n0 = b.node(T::lit(1.0), [T::lit(0.5), T::zero()])?;
    let n1 = b.node(T::lit(0.7), [T::lit(0.9), T::zero()])?;
    let n2 = b.node(T::lit(0.4), [T::lit(1.2), T::zero()])?;
    b.pin(n0, [T::zero(), T::zero()])?;
    b.rod(n1, n0)?;
    b.rod(n2, n1)?;
    b.gravity(T::lit(9.81))?;
    b.build()
}

type Plant<T, const N: usize, const D: usize> =
    ZhangSkeel<T, Actuated<T, LinkagePenalty<T, 2, N, D>, N>, N, DenseKept<T, N>>;

/// The host experiment's plant on `mech`, by value: penalised with `ω = 500`, `Actuated`, Z&S
/// with the default `β` and kept factors, `h = 1 ms`.
fn plant<T: Real, const N: usize, const D: usize>(mech: &Mechanism<T, 2, N, D>) -> Plant<T, N, D>
where
    LinkagePenalty<T, 2, N, D>: ThirdDerivative<T, N>,
{
    let pen = mech.penalised(T::lit(500.0)).expect("penalty");
    let sys = System::new(pen.mass, Actuated::new(pen.potential));
    ZhangSkeel::with_solver(sys, T::lit(1e-3), ZsParams::default(), DenseKept::new())
        .expect("plant")
}

/// The host experiment's ticks of one case, recorded like the scenario: the first command held
/// (`every_tick = None`: free), or command `k mod 7` of `every_tick` set before the `k`-th step
/// (the scenario's commands: controlled; the first command in every slot: held).
fn host_case<T: Real, const N: usize>(
    out: &mut Vec<(&'static str, u32, Vec<u64>)>,
    case: &'static str,
    mut plant: impl Integrator<T, N> + Actuate<T, N>,
    mut s: State<T, N>,
    first: SVector<T, N>,
    every_tick: Option<[SVector<T, N>; ZS_CONTROL_COST_COMMANDS]>,
) {
    plant.set_force(&first).expect("finite");
    out.push((case, 0, bits(&s)));
    for k in 0..ZS_CONTROL_COST_TICKS as usize {
        if let Some(commands) = &every_tick {
            plant
                .set_force(&commands[k % ZS_CONTROL_COST_COMMANDS])
                .expect("finite");
        }
        plant.step(&mut s).expect("step");
        let step = k as u32 + 1;
        if step.is_multiple_of(ZS_CONTROL_COST_EVERY) {
            out.push((case, step, bits(&s)));
        }
    }
}

fn scenario_is_the_host_tick<T: ConstReal>() {
    let mut device = Records(Vec::new());
    zs_control_cost::<T, _>(&mut device).expect("scenario");
    let mut host = Vec::new();
    let (z, cp, arm) = (
        T::zero(),
        mechanism::<T>().expect("cart-pole"),
        arm::<T>().expect("arm"),
    );
    let c = zs_control_commands([T::one(), z, z]);
    for (case, every_tick) in [
        ("cart_pole_free", None),
        ("cart_pole_held", Some([c[0]; ZS_CONTROL_COST_COMMANDS])),
        ("cart_pole_controlled", Some(c)),
    ] {
        host_case(
            &mut host,
            case,
            plant(&cp),
            cp.initial_state(),
            c[0],
            every_tick,
        );
    }
    let c = zs_control_commands([T::one(); 6]);
    for (case, every_tick) in [
        ("arm_free", None),
        ("arm_held", Some([c[0]; ZS_CONTROL_COST_COMMANDS])),
        ("arm_controlled", Some(c)),
    ] {
        host_case(
            &mut host,
            case,
            plant(&arm),
            arm.initial_state(),
            c[0],
            every_tick,
        );
    }
    assert_eq!(device.0.len(), 6 * 5, "six cases of five records");
    assert_eq!(device.0, host);
    // Holding the force the plant already holds changes nothing: a held case's states are its
    // free case's.
    let states = |case: &str| -> Vec<&Vec<u64>> {
        let case_records = device.0.iter().filter(|(c, _, _)| *c == case);
        case_records.map(|(_, _, b)| b).collect()
    };
    for plant in ["cart_pole", "arm"] {
        let free = states(&format!("{plant}_free"));
        assert_eq!(free.len(), 5, "{plant}");
        assert_eq!(states(&format!("{plant}_held")), free, "{plant}");
    }
}

#[test]
fn the_scenario_runs_the_host_experiments_ticks_bit_for_bit() {
    scenario_is_the_host_tick::<f32>();
    scenario_is_the_host_tick::<f64>();
}

/// The commands are `maskᵢ (0.5 + 0.1 i) sin(j + 1)`: spot values from their closed form.
#[test]
fn the_commands_are_the_host_experiments() {
    let c = zs_control_commands::<f64, 3>([1.0, 0.0, 1.0]);
    assert_eq!(c[0][0], 0.5 * 1.0f64.sin());
    assert_eq!(c[0][1], 0.0);
    assert!((c[6][2] - 0.7 * 7.0f64.sin()).abs() < 1e-15, "{}", c[6][2]);
    for j in 1..ZS_CONTROL_COST_COMMANDS {
        assert_ne!(c[j], c[j - 1], "consecutive commands {j} differ");
    }
}

fn non_finite_command_is_refused<T: Real>() {
    let cp = mechanism::<T>().expect("cart-pole");
    let mut plant = plant(&cp);
    let mut commands = zs_control_commands([T::one(), T::zero(), T::zero()]);
    commands[1][0] = T::lit(f64::NAN);
    let mut tick = Commanded::new(&mut plant, &commands);
    let mut s = cp.initial_state();
    tick.step(&mut s).expect("the first command is finite");
    let before = s;
    assert_eq!(tick.step(&mut s), Err(StepError::NonFiniteForce));
    assert_eq!(bits(&s), bits(&before), "the state is unchanged");
    assert_eq!(
        tick.plant.force(),
        &commands[0],
        "the held force is unchanged"
    );
}

#[test]
fn a_non_finite_command_is_refused_and_changes_nothing() {
    non_finite_command_is_refused::<f32>();
    non_finite_command_is_refused::<f64>();
}
