//! A real-time control loop around a macrostep integrator, written against embedded-hal 1.0.
//!
//! [`control_loop`] is generic over the board: an [`OutputPin`] raised before each `step` and
//! lowered after it (on real hardware a scope on that pin shows each step's duration and its
//! jitter), and a [`DelayNs`] that paces the loop to a fixed period (here 10 ms, 100 Hz: what is
//! left of the period after the step and the logging is waited out; a period that is already
//! used up counts as an overrun). A failed step leaves the state as it was: the loop logs the
//! error and stops. The model — Z&S on the penalised double pendulum of 000 §4.1 (`ω = 20`,
//! `β = 0.4`, `h = 0.01`, so simulated time follows the loop's time) — is simulated on the
//! device, as a controller with an internal model or an observer would.
//!
//! On `mps2-an386` the board shim of `macrostep_firmware::board` provides the pin (an LED bit of
//! the FPGA-IO register) and the delay (busy-wait on SysTick). Under QEMU with `-icount` the
//! "time" is virtual, tied to executed instructions: the loop's timing is deterministic, so its
//! defmt log is a golden file like the scenarios'.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{OutputPin, StatefulOutputPin};
use macrostep::systems::DoublePendulum;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{Integrator, State, StepError};
use macrostep_firmware::board::{Led, SysTickDelay, TICKS_PER_US};
use macrostep_firmware::{count, exit_failure, exit_success};

/// What a run of the loop did.
struct LoopStats {
    iterations: u32,
    overruns: u32,
    max_busy_us: u32,
    /// Largest deviation of a loop period (start to next start) from the nominal one, in ticks.
    max_jitter_ticks: u32,
}

/// Runs `iterations` periods of `period_us`: pin high, one step, pin low, wait out the period.
fn control_loop<P, D, I, const N: usize>(
    pin: &mut P,
    delay: &mut D,
    integrator: &mut I,
    state: &mut State<f32, N>,
    period_us: u32,
    iterations: u32,
) -> Result<LoopStats, StepError>
where
    P: OutputPin,
    D: DelayNs,
    I: Integrator<f32, N>,
{
    let mut stats = LoopStats {
        iterations: 0,
        overruns: 0,
        max_busy_us: 0,
        max_jitter_ticks: 0,
    };
    let mut previous: Option<count::Ticks> = None;
    for k in 0..iterations {
        let t0 = count::now();
        if let Some(p) = previous {
            let period = p.until(t0);
            stats.max_jitter_ticks = stats
                .max_jitter_ticks
                .max(period.abs_diff(period_us * TICKS_PER_US));
        }
        previous = Some(t0);
        // The pin is infallible on this board; a HAL whose pin can fail would report it here.
        pin.set_high().ok();
        let result = integrator.step(state);
        pin.set_low().ok();
        let busy_us = t0.until(count::now()).div_ceil(TICKS_PER_US);
        result?;
        stats.max_busy_us = stats.max_busy_us.max(busy_us);
        if k % 25 == 0 {
            // The whole state through its `defmt::Format` (macrostep's `defmt` feature).
            defmt::info!("k {=u32} busy_us {=u32} {}", k, busy_us, state);
        }
        // Deadline pacing: wait out what is left of the period after the step and the logging.
        let used_us = t0.until(count::now()).div_ceil(TICKS_PER_US);
        if used_us >= period_us {
            stats.overruns += 1;
        } else {
            delay.delay_us(period_us - used_us);
        }
        stats.iterations += 1;
    }
    Ok(stats)
}

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
macrostep_firmware::panic_never!();

#[entry]
fn main() -> ! {
    let Some(p) = cortex_m::Peripherals::take() else {
        exit_failure()
    };
    count::start(p.SYST);
    macrostep_firmware::stack::paint();
    let mut pin = Led::new(0);
    let mut delay = SysTickDelay;

    // The penalised double pendulum of 000 §4.1 (ω = 20, β = 0.4), stepped by Z&S at h = 0.01.
    let dp = DoublePendulum::<f32>::paper();
    let Ok(system) = dp.penalised(20.0) else {
        exit_failure()
    };
    // The integrator used in place (`&mut` into its `Result`): moving it out would copy it, and
    // the frame would hold it twice.
    let mut built = ZhangSkeel::new(system, 0.01, ZsParams::with_beta(0.4));
    let Ok(integrator) = &mut built else {
        exit_failure()
    };
    let mut state = dp.initial_state();
    let period_us = 10_000; // 100 Hz, and h = 0.01 s: simulated time follows the loop's time
    let result = control_loop(&mut pin, &mut delay, integrator, &mut state, period_us, 100);
    // The shim reads the register back: the pin must have been left low after the last step.
    let pin_low = pin.is_set_low().unwrap_or(false);
    defmt::info!("pin low after the loop {=bool}", pin_low);
    match result {
        Ok(_) if !pin_low => exit_failure(),
        Ok(s) => {
            // Times are virtual under QEMU -icount, wall-clock at 25 MHz on the board.
            defmt::info!(
                "iterations {=u32} overruns {=u32} max_busy_us {=u32} max_jitter_ticks {=u32}",
                s.iterations,
                s.overruns,
                s.max_busy_us,
                s.max_jitter_ticks
            );
            defmt::println!("stack_bytes {=u32}", macrostep_firmware::stack::used());
            defmt::println!("ok");
            exit_success()
        }
        Err(e) => {
            defmt::error!("step failed: {}", e);
            exit_failure()
        }
    }
}
