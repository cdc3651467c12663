//! See `macrostep_scenarios::ekf_cart_pole`: the same ticks, run the way a device runs them.
//!
//! Start-up (counted): the LQR gain from the Z&S linearisation and the Riccati solve, then the
//! loop object built and moved into a `static`. Then SysTick becomes a 1 ms timer and each
//! `SysTick` exception runs one tick (measurement, filter update, control law, plant step,
//! filter prediction) and measures it ([`fw::tick::Stats`]); the main thread sleeps in `wfi`
//! until the last tick, then prints the recorded states, the tick statistics and the summary.
//! A bare `cortex-m-rt` exception handler rather than RTIC or embassy: RTIC 2 needs a device
//! crate (PAC) with the board's interrupt vector for its dispatchers and embassy a time driver
//! for the board, and neither exists for `mps2-an386`; SysTick is in every Cortex-M core.

#![no_std]
#![no_main]

use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, Ordering};
use cortex_m::interrupt::{free, Mutex};
use cortex_m_rt::{entry, exception};
use macrostep::mechanism::Mechanism;
use macrostep::nalgebra::{ArrayStorage, SVector};
use macrostep::{ConfigError, State};
use macrostep_firmware as fw;
use macrostep_scenarios::{
    lqr_gain, mechanism, record_summary, EkfCartPole, LqrWeights, ScenarioError, Sink, CART_POLE_H,
    EKF_EVERY, EKF_SEED, EKF_SIGMA, EKF_TICKS,
};

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

/// States recorded by the tick handler: the initial one and one every `EKF_EVERY` ticks.
const RECORDS: usize = (EKF_TICKS / EKF_EVERY) as usize + 1;

/// `t = 0`, `q = v = 0`, as a constant (the initial contents of [`SHARED`]).
const ZERO_STATE: State<f32, 3> = State {
    t: 0.0,
    q: SVector::from_array_storage(ArrayStorage([[0.0; 3]; 1])),
    v: SVector::from_array_storage(ArrayStorage([[0.0; 3]; 1])),
};

/// What the tick handler shares with the main thread.
struct Shared {
    /// The mechanism the loop is built from (here rather than on the stack while it is built),
    /// or why it could not be: a `Result`, so [`mechanism`]'s result is written straight into it.
    mech: Result<Mechanism<f32, 2, 3, 1>, ConfigError>,
    /// The loop (in a static: its matrices are not on the stack).
    loop_: Option<EkfCartPole<f32>>,
    records: [State<f32, 3>; RECORDS],
    stats: fw::tick::Stats,
    error: Option<ScenarioError>,
    /// The SysTick read overhead, subtracted from every measurement.
    overhead: u32,
}

static SHARED: Mutex<RefCell<Shared>> = Mutex::new(RefCell::new(Shared {
    mech: Err(ConfigError::Inconsistent {
        name: "mechanism built before the loop",
    }),
    loop_: None,
    records: [ZERO_STATE; RECORDS],
    stats: fw::tick::Stats::new(),
    error: None,
    overhead: 0,
}));

/// Set by the handler after the last tick or an error.
static DONE: AtomicBool = AtomicBool::new(false);

#[entry]
fn main() -> ! {
    let Some(p) = cortex_m::Peripherals::take() else {
        defmt::error!("peripherals already taken");
        fw::exit_failure()
    };
    let mut syst = p.SYST;
    fw::tick::free_running(&mut syst);
    fw::tick::stopwatch_start();
    fw::report::preamble("ekf_cart_pole");
    let mut report = fw::Report::new();
    if let Err(e) = start(&mut report) {
        fw::report::finish(Err(e));
    }
    fw::tick::periodic(&mut syst);
    while !DONE.load(Ordering::Acquire) {
        cortex_m::asm::wfi();
    }
    fw::tick::stop(&mut syst);
    fw::report::finish(end(&mut report))
}

/// The gain (counted as start-up), the loop built into [`SHARED`], the initial state recorded.
fn start(report: &mut fw::Report) -> Result<(), ScenarioError> {
    let h = CART_POLE_H as f32;
    let gain = report.startup("main", || lqr_gain(h, &LqrWeights::cart_pole()))?;
    report.values("main", "k", &gain);
    install(gain)?;
    report.begin("main", EKF_TICKS, EKF_EVERY);
    // `try_borrow*` throughout: a `RefCell` borrow that could panic would not link.
    let first = free(|cs| {
        let shared = SHARED.borrow(cs).try_borrow().ok()?;
        shared.loop_.as_ref().map(|l| *l.state())
    });
    if let Some(s) = first {
        report.record("main", 0, &s);
    }
    Ok(())
}

/// Builds the mechanism and then the loop into [`SHARED`], in place, each in a frame of its own
/// (not inlined: the builders' frames are gone before the ticks).
fn install(gain: [f32; 4]) -> Result<(), ScenarioError> {
    install_mechanism()?;
    install_loop(gain)
}

/// Stopwatch ticks between two back-to-back reads: subtracted from every measurement.
#[inline(never)]
fn stopwatch_overhead() -> u32 {
    let w0 = fw::tick::stopwatch();
    let w1 = fw::tick::stopwatch();
    w0.wrapping_sub(w1)
}

/// The mechanism into [`SHARED`].
#[inline(never)]
fn install_mechanism() -> Result<(), ScenarioError> {
    let overhead = stopwatch_overhead();
    free(|cs| {
        let Ok(mut shared) = SHARED.borrow(cs).try_borrow_mut() else {
            return Ok(());
        };
        shared.overhead = overhead;
        shared.mech = mechanism::<f32>();
        match &shared.mech {
            Ok(_) => Ok(()),
            Err(e) => Err((*e).into()),
        }
    })
}

/// The loop into [`SHARED`], from its mechanism.
#[inline(never)]
fn install_loop(gain: [f32; 4]) -> Result<(), ScenarioError> {
    free(|cs| {
        let Ok(mut shared) = SHARED.borrow(cs).try_borrow_mut() else {
            return Ok(());
        };
        let shared = &mut *shared;
        let Ok(mech) = shared.mech.as_ref() else {
            return Ok(());
        };
        let (sigma, seed) = (EKF_SIGMA as f32, EKF_SEED);
        EkfCartPole::build_into(&mut shared.loop_, mech, gain, sigma, seed)
    })
}

/// After the last tick: the recorded states, the tick statistics, the summary. Not inlined: its
/// locals are not in `main`'s frame under the start-up and the ticks.
#[inline(never)]
fn end(report: &mut fw::Report) -> Result<(), ScenarioError> {
    free(|cs| {
        let Ok(shared) = SHARED.borrow(cs).try_borrow() else {
            return Ok(());
        };
        if let Some(e) = shared.error {
            return Err(e);
        }
        for (i, s) in shared.records.iter().enumerate().skip(1) {
            report.record("main", i as u32 * EKF_EVERY, s);
        }
        shared.stats.print("main");
        if let Some(l) = shared.loop_.as_ref() {
            record_summary(report, l);
        }
        Ok(())
    })
}

/// One control period.
#[exception]
fn SysTick() {
    // The reload that raised this exception set COUNTFLAG: clear it, so that it tells at the
    // end whether the next period started during the tick.
    let entry = fw::tick::now();
    let _ = fw::tick::wrapped();
    free(|cs| {
        let Ok(mut shared) = SHARED.borrow(cs).try_borrow_mut() else {
            return;
        };
        let shared = &mut *shared;
        let Some(l) = shared.loop_.as_mut() else {
            return;
        };
        if l.ticks() >= EKF_TICKS || shared.error.is_some() {
            return;
        }
        let w0 = fw::tick::stopwatch();
        let r = core::hint::black_box(l.tick());
        let w1 = fw::tick::stopwatch();
        let overran = fw::tick::wrapped();
        shared.stats.record(w0, w1, entry, shared.overhead, overran);
        if let Err(e) = r {
            shared.error = Some(e);
            DONE.store(true, Ordering::Release);
            return;
        }
        let k = l.ticks();
        if k % EKF_EVERY == 0 {
            if let Some(slot) = shared.records.get_mut((k / EKF_EVERY) as usize) {
                *slot = *l.state();
            }
        }
        if k >= EKF_TICKS {
            DONE.store(true, Ordering::Release);
        }
    });
}
