//! Machine-readable output of a scenario, over defmt.
//!
//! Lines (decoded on the host by `defmt-print`; `cargo xtask firmware` diffs them against
//! `firmware/expected/<bin>.out`, and `scenarios/tests/parity.rs` parses them):
//!
//! ```text
//! scenario <bin>
//! calibration loop_instructions <2n> ticks <t> overhead_ticks <o>
//! startup <case> instructions <i>
//! x <case> 0 <name> <index> <f32 bits as 0x…> <decimal>   (values the scenario computed)
//! case <case> steps <n> every <k>
//! x <case> <step> <t|q|v> <index> <f32 bits as 0x…> <decimal>
//! instructions <case> first <i₁> min <i> max <i> mean <i>
//! stack_bytes <high-water mark of the stack>
//! ok
//! ```
//!
//! `startup` counts the instructions of the scenario's start-up computation (e.g. a Riccati
//! solve, [`Sink::startup`]). `first` is the first step (which fills the first-same-as-last cache); `min`/`max`/`mean` are
//! over the remaining steps, each counted from SysTick (see [`crate::count`]) around one call of
//! `Integrator::step`, the read overhead subtracted.

use crate::count;
use core::hint::black_box;
use macrostep::{Integrator, State, StepError};
use macrostep_scenarios::{ScenarioError, Sink};

/// Per-step instruction statistics of one case.
#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    steps: u32,
    first: u32,
    min: u32,
    max: u32,
    total: u64,
}

/// The firmware's sink: prints states, counts instructions per step.
#[derive(Debug)]
pub struct Report {
    overhead: u32,
    stats: Stats,
}

impl Report {
    /// A report; SysTick must be running ([`count::start`]).
    pub fn new() -> Self {
        Self {
            overhead: count::overhead(),
            stats: Stats::default(),
        }
    }
}

impl Default for Report {
    fn default() -> Self {
        Self::new()
    }
}

fn print_value(case: &str, step: u32, name: &str, index: usize, x: f32) {
    defmt::println!(
        "x {=str} {=u32} {=str} {=usize} {=u32:#010x} {=f32}",
        case,
        step,
        name,
        index,
        x.to_bits(),
        x
    );
}

#[inline(never)]
fn timed_step<I: Integrator<f32, N>, const N: usize>(
    integrator: &mut I,
    state: &mut State<f32, N>,
) -> (Result<(), StepError>, u32) {
    let integrator = black_box(integrator);
    let state = black_box(state);
    let t0 = count::now();
    let r = integrator.step(state);
    let r = black_box(r);
    let t1 = count::now();
    (r, t0.until(t1))
}

/// Runs `f` between two SysTick reads: `(its result, ticks)`.
#[inline(never)]
fn timed<R>(f: impl FnOnce() -> R) -> (R, u32) {
    let t0 = count::now();
    let r = black_box(f());
    let t1 = count::now();
    (r, t0.until(t1))
}

impl Sink<f32> for Report {
    fn values(&mut self, case: &'static str, name: &'static str, xs: &[f32]) {
        for (i, &x) in xs.iter().enumerate() {
            print_value(case, 0, name, i, x);
        }
    }

    fn startup<R>(&mut self, case: &'static str, f: impl FnOnce() -> R) -> R {
        let (r, ticks) = timed(f);
        let n = count::instructions(ticks.saturating_sub(self.overhead));
        defmt::println!("startup {=str} instructions {=u32}", case, n);
        r
    }

    fn begin(&mut self, case: &'static str, steps: u32, every: u32) {
        self.stats = Stats {
            min: u32::MAX,
            ..Stats::default()
        };
        defmt::println!("case {=str} steps {=u32} every {=u32}", case, steps, every);
    }

    fn record<const N: usize>(&mut self, case: &'static str, step: u32, state: &State<f32, N>) {
        print_value(case, step, "t", 0, state.t);
        for (i, &x) in state.q.iter().enumerate() {
            print_value(case, step, "q", i, x);
        }
        for (i, &x) in state.v.iter().enumerate() {
            print_value(case, step, "v", i, x);
        }
    }

    fn step<I: Integrator<f32, N>, const N: usize>(
        &mut self,
        integrator: &mut I,
        state: &mut State<f32, N>,
    ) -> Result<(), StepError> {
        let (r, ticks) = timed_step(integrator, state);
        let n = count::instructions(ticks.saturating_sub(self.overhead));
        let s = &mut self.stats;
        if s.steps == 0 {
            s.first = n;
        } else {
            s.min = s.min.min(n);
            s.max = s.max.max(n);
            s.total += u64::from(n);
        }
        s.steps += 1;
        r
    }

    fn end(&mut self, case: &'static str) {
        let s = self.stats;
        let rest = u64::from(s.steps.saturating_sub(1).max(1));
        let mean = ((s.total + rest / 2) / rest) as u32;
        let min = if s.steps > 1 { s.min } else { 0 };
        defmt::println!(
            "instructions {=str} first {=u32} min {=u32} max {=u32} mean {=u32}",
            case,
            s.first,
            min,
            s.max,
            mean
        );
    }
}

/// Runs scenario `name`: starts SysTick, prints the calibration, runs `scenario` with a
/// [`Report`], and exits QEMU with success, or with failure on any error.
pub fn run(name: &str, scenario: impl FnOnce(&mut Report) -> Result<(), ScenarioError>) -> ! {
    let Some(p) = cortex_m::Peripherals::take() else {
        defmt::error!("peripherals already taken");
        crate::exit_failure()
    };
    count::start(p.SYST);
    crate::stack::paint();
    defmt::println!("scenario {=str}", name);
    let n = 1000;
    let ticks = count::calibrate(n);
    defmt::println!(
        "calibration loop_instructions {=u32} ticks {=u32} overhead_ticks {=u32}",
        2 * n,
        ticks,
        count::overhead()
    );
    let mut report = Report::new();
    match scenario(&mut report) {
        Ok(()) => {
            defmt::println!("stack_bytes {=u32}", crate::stack::used());
            defmt::println!("ok");
            crate::exit_success()
        }
        Err(ScenarioError::Config(e)) => {
            defmt::error!("configuration error: {}", e);
            crate::exit_failure()
        }
        Err(ScenarioError::Step(e)) => {
            defmt::error!("step error: {}", e);
            crate::exit_failure()
        }
        Err(ScenarioError::Control(e)) => {
            defmt::error!("control error: {}", e);
            crate::exit_failure()
        }
    }
}

/// What [`run`] does before the scenario, for a binary that drives its scenario itself (from a
/// timer interrupt): paints the stack, prints the `scenario` and `calibration` lines. SysTick
/// must be free-running ([`crate::tick::free_running`]).
pub fn preamble(name: &str) {
    crate::stack::paint();
    defmt::println!("scenario {=str}", name);
    let n = 1000;
    let ticks = count::calibrate(n);
    defmt::println!(
        "calibration loop_instructions {=u32} ticks {=u32} overhead_ticks {=u32}",
        2 * n,
        ticks,
        count::overhead()
    );
}

/// What [`run`] does after the scenario: `stack_bytes` and `ok`, exit with success; or the typed
/// error, exit with failure.
pub fn finish(result: Result<(), ScenarioError>) -> ! {
    match result {
        Ok(()) => {
            defmt::println!("stack_bytes {=u32}", crate::stack::used());
            defmt::println!("ok");
            crate::exit_success()
        }
        Err(ScenarioError::Config(e)) => {
            defmt::error!("configuration error: {}", e);
            crate::exit_failure()
        }
        Err(ScenarioError::Step(e)) => {
            defmt::error!("step error: {}", e);
            crate::exit_failure()
        }
        Err(ScenarioError::Control(e)) => {
            defmt::error!("control error: {}", e);
            crate::exit_failure()
        }
    }
}
