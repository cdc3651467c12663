//! Every linearised method against central differences, its symplectic defect, and the
//! cost of a linearisation against a step (thread CPU time, one run each).

use super::cases::{self, Methods};
use super::fd;
use super::tangent;
use macrostep::forcing::Actuate;
use macrostep::linearise::Linearise;
use macrostep::{Guards, Integrator, State, Stepper};

/// One method's measurements.
#[derive(Clone, Debug)]
pub struct MethodRow {
    /// The method's figure name.
    pub name: &'static str,
    /// Whether the method is symplectic (its defect is a claim).
    pub symplectic: bool,
    /// Max over the starts of [`fd::rel_err`].
    pub fd_rel_err: f64,
    /// Max over the starts of the symplectic defect.
    pub symplectic_defect: f64,
    /// CPU time of one linearisation ÷ one step.
    pub cost_ratio: f64,
}

/// The starts: the cases' start, one near the spring's centre, one far out and reversed.
pub fn starts() -> [State<f64, 2>; 3] {
    let s = cases::start::<f64>();
    [
        s,
        State::new(
            0.0,
            macrostep::nalgebra::vector![-0.1, 0.3],
            macrostep::nalgebra::vector![2.0, -1.0],
        ),
        State::new(5.0, macrostep::nalgebra::vector![1.7, 0.9], -s.v),
    ]
}

/// CPU time of the calling thread (ns), from `/proc/thread-self/schedstat` (Linux); `NaN`
/// elsewhere.
pub fn thread_cpu_ns() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .next()
                .and_then(|x| x.parse::<f64>().ok())
        })
        .unwrap_or(f64::NAN)
}

/// CPU time per call of `f` (ns): calls in batches of 64 until the thread's CPU time has
/// advanced by at least `min_ns` (the kernel updates it at scheduler events, so a measurement
/// must span many of them).
fn per_call(mut f: impl FnMut(), min_ns: f64) -> f64 {
    let t0 = thread_cpu_ns();
    let mut n = 0usize;
    loop {
        for _ in 0..64 {
            f();
        }
        n += 64;
        let dt = thread_cpu_ns() - t0;
        if dt >= min_ns || dt.is_nan() {
            return dt / n as f64;
        }
    }
}

/// CPU time of a linearisation ÷ CPU time of a step of a run from the start (each measured over
/// at least `min_ns` of CPU time).
fn cost_ratio<I: Linearise<f64, 2> + Clone>(m: &I, min_ns: f64) -> f64 {
    let s0 = cases::start::<f64>();
    let mut run = m.clone();
    run.set_guards(Guards::off()).expect("guards off");
    let mut s = s0;
    let t_step = per_call(
        || {
            // A failed step restarts the run (the spring run does not fail; kept total).
            if run.step(&mut s).is_err() {
                s = s0;
            }
        },
        min_ns,
    );
    std::hint::black_box(s);
    let t_lin = per_call(
        || {
            std::hint::black_box(m.linearise(std::hint::black_box(&s0)).ok());
        },
        min_ns,
    );
    t_lin / t_step
}

/// The larger of a running maximum and a new value, NaN once either is NaN: `f64::max` drops a
/// NaN operand, so a failed start followed by a successful one would otherwise read as a pass.
fn worst(acc: f64, x: f64) -> f64 {
    if acc.is_nan() || x.is_nan() {
        f64::NAN
    } else {
        acc.max(x)
    }
}

fn row<I: Linearise<f64, 2> + Actuate<f64, 2> + Clone>(
    name: &'static str,
    m: &I,
    symplectic: bool,
    min_ns: f64,
) -> MethodRow {
    let (mut fd_rel_err, mut symplectic_defect) = (0.0f64, 0.0f64);
    for s in starts() {
        match fd::check(m, &s, &cases::mass()) {
            Ok(c) => {
                fd_rel_err = worst(fd_rel_err, c.fd_rel_err);
                symplectic_defect = worst(symplectic_defect, c.symplectic_defect);
            }
            Err(_) => fd_rel_err = f64::NAN,
        }
    }
    MethodRow {
        name,
        symplectic,
        fd_rel_err,
        symplectic_defect,
        cost_ratio: cost_ratio(m, min_ns),
    }
}

/// Every method at step `h` on the spring of stiffness `k`; each timing over at least `min_ns`
/// of CPU time.
///
/// # Panics
/// When a built-in configuration is refused (a bug).
pub fn rows(h: f64, k: f64, min_ns: f64) -> Vec<MethodRow> {
    let m = Methods::<f64>::new(h, k).expect("methods");
    vec![
        row("zs", &m.zs, true, min_ns),
        row("sylipn", &m.sylipn, false, min_ns),
        row("stiff_sylipn", &m.stiff_sylipn, false, min_ns),
        row("verlet", &m.verlet, true, min_ns),
        row("symplectic_euler_kd", &m.euler_kd, true, min_ns),
        row("symplectic_euler_dk", &m.euler_dk, true, min_ns),
        row("damped_split_zs", &m.damped_zs, false, min_ns),
        row("damped_zs_in_solve", &m.zs_in_solve, false, min_ns),
        row("damped_sylipn_in_solve", &m.sylipn_in_solve, false, min_ns),
        row(
            "damped_stiff_sylipn_in_solve",
            &m.stiff_in_solve,
            false,
            min_ns,
        ),
        row("newmark", &m.newmark, false, min_ns),
        row("push_forward_newmark", &m.push_forward, true, min_ns),
        row("newmark_one_iteration", &m.newmark_one, false, min_ns),
        rattle_row(h, min_ns),
    ]
}

/// RATTLE on the Cartesian double pendulum with a nonlinear spring and a held force
/// ([`tangent::chain_rattle`]), linearised in the tangent coordinates of its solution manifold:
/// max over [`tangent::chain_starts`] against central differences along the projected tangent
/// basis, the symplectic defect in those coordinates, and the cost against a step.
fn rattle_row(h: f64, min_ns: f64) -> MethodRow {
    let m = tangent::chain_rattle(h);
    let starts = tangent::chain_starts(&m);
    let (mut fd_rel_err, mut symplectic_defect, mut failed) = (0.0f64, 0.0f64, false);
    for s in &starts {
        match tangent::check::<_, _, 4, 2, 2>(&m, s) {
            Ok(c) => {
                fd_rel_err = worst(fd_rel_err, c.fd_rel_err);
                symplectic_defect = worst(symplectic_defect, c.symplectic_defect);
            }
            Err(_) => failed = true,
        }
    }
    let s0 = starts[0];
    let mut run = m;
    run.set_guards(Guards::off()).expect("guards off");
    let mut s = s0;
    let t_step = per_call(
        || {
            if run.step(&mut s).is_err() {
                s = s0;
            }
        },
        min_ns,
    );
    std::hint::black_box(s);
    let t_lin = per_call(
        || {
            std::hint::black_box(m.linearise_tangent::<2>(std::hint::black_box(&s0)).ok());
        },
        min_ns,
    );
    MethodRow {
        name: "rattle",
        symplectic: true,
        fd_rel_err: if failed { f64::NAN } else { fd_rel_err },
        symplectic_defect,
        cost_ratio: t_lin / t_step,
    }
}

#[cfg(test)]
mod tests {
    use super::worst;

    #[test]
    fn a_failed_start_stays_visible_after_later_successes() {
        let acc = [1e-9, f64::NAN, 2e-9].into_iter().fold(0.0, worst);
        assert!(acc.is_nan());
        let acc = [1e-9, 3e-9, 2e-9].into_iter().fold(0.0, worst);
        assert_eq!(acc, 3e-9);
    }
}
