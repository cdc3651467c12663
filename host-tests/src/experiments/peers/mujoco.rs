//! The MuJoCo peer through its Python package: `host-tests/peers/mujoco_peer.py` builds the
//! chain (`--model chain --n N`) or the 3-link arm (`--model arm --gravity G`) as an MJCF model,
//! sweeps MuJoCo's integrators and time steps on it and prints, per sweep point, the error
//! against the reference this harness hands it (a CSV file) and the thread CPU time measured
//! inside Python by `time.thread_time()` (one sample, for the chart); a second call times the
//! points [`found`] for the targets against each other in interleaved rounds (the table's
//! costs, see [`sweep`]).
//!
//! The interpreter is `$MACROSTEP_PEERS_PYTHON` (what `cargo xtask peers` sets after installing
//! `mujoco` in a virtual environment) or `python3`; when it cannot `import mujoco` the peer is
//! skipped with the reason.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// One sweep point of one MuJoCo integrator.
#[derive(Clone, Debug, PartialEq)]
pub struct MjPoint {
    /// `euler`, `rk4`, `implicit`, `implicitfast`.
    pub integrator: String,
    /// Time step.
    pub dt: f64,
    /// Max position error against the reference (`∞`: the run failed).
    pub err: f64,
    /// Median thread CPU seconds per unit simulated time (inside Python).
    pub cost: f64,
}

/// The path of `host-tests/peers/mujoco_peer.py`.
fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("peers")
        .join("mujoco_peer.py")
}

/// The Python interpreter with `mujoco`, or why there is none.
pub fn python() -> Result<String, String> {
    let py = std::env::var("MACROSTEP_PEERS_PYTHON").unwrap_or_else(|_| "python3".into());
    match Command::new(&py)
        .args(["-c", "import mujoco; print(mujoco.__version__)"])
        .output()
    {
        Ok(o) if o.status.success() => Ok(py),
        Ok(_) => Err(format!(
            "MuJoCo peer skipped: `{py}` cannot import mujoco (run `cargo xtask peers`, or set \
             MACROSTEP_PEERS_PYTHON to a Python with `pip install mujoco`)"
        )),
        Err(e) => Err(format!("MuJoCo peer skipped: cannot run `{py}`: {e}")),
    }
}

/// Parses the script's CSV (header, then `integrator,dt,error,cpu_per_unit_time,status`).
///
/// # Errors
/// A malformed line.
pub fn parse(text: &str) -> Result<Vec<MjPoint>, String> {
    let mut rows = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let num = |k: usize| -> Result<f64, String> {
            let s = f.get(k).ok_or_else(|| format!("short line `{line}`"))?;
            s.trim()
                .parse::<f64>()
                .map_err(|e| format!("`{s}` in `{line}`: {e}"))
        };
        let failed = f.get(4).is_some_and(|s| s.trim() != "ok");
        rows.push(MjPoint {
            integrator: f[0].to_string(),
            dt: num(1)?,
            err: if failed { f64::INFINITY } else { num(2)? },
            cost: num(3)?,
        });
    }
    Ok(rows)
}

/// The sweep's effort: how fine it goes, how long it times.
#[derive(Clone, Debug)]
pub struct SweepEffort {
    /// Simulated span.
    pub span: f64,
    /// The targets: the sweep stops two steps past the finest's third, and the points
    /// [`found`] for each are timed.
    pub targets: Vec<f64>,
    /// Timing rounds of the found points.
    pub rounds: usize,
    /// The CPU seconds one run may take before its integrator's sweep stops.
    pub max_run_seconds: f64,
}

/// Runs `mujoco_peer.py` with `model` (its model arguments) and `args`, the reference `refq`
/// (rows of `row` values, one per output) in a CSV file named by `tag`, and parses its output.
fn call(
    py: &str,
    model: &[String],
    args: &[String],
    (tag, refq, row): (&str, &[f64], usize),
) -> Result<Vec<MjPoint>, String> {
    let path = std::env::temp_dir().join(format!("macrostep-{tag}-{}.csv", std::process::id()));
    let mut file = std::fs::File::create(&path).map_err(|e| format!("{path:?}: {e}"))?;
    for r in refq.chunks(row.max(1)) {
        let line: Vec<String> = r.iter().map(|x| format!("{x:.17e}")).collect();
        writeln!(file, "{}", line.join(",")).map_err(|e| e.to_string())?;
    }
    drop(file);
    let out = Command::new(py)
        .arg(script())
        .args(model)
        .args(args)
        .arg("--reference")
        .arg(&path)
        .output()
        .map_err(|e| format!("running {:?}: {e}", script()))?;
    let _ = std::fs::remove_file(&path);
    if !out.status.success() {
        return Err(format!(
            "MuJoCo script failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    parse(&String::from_utf8_lossy(&out.stdout))
}

/// Runs `mujoco_peer.py` on `model` (its model arguments, e.g. `["--model", "chain", "--n",
/// "5"]`) against `refq` (rows of `row` values, one per output; `tag` names the temporary file):
/// first its sweep (every point's error, and a one-sample cost for the chart), then the points
/// [`found`] for `effort.targets` timed against each other in `effort.rounds` interleaved
/// rounds, whose costs replace the sweep's at those points (see the script's docs).
///
/// # Errors
/// No MuJoCo (see [`python`]), or the script's failure.
pub fn sweep(
    model: &[String],
    tag: &str,
    refq: &[f64],
    row: usize,
    effort: SweepEffort,
) -> Result<Vec<MjPoint>, String> {
    let py = python()?;
    let finest = effort.targets.iter().copied().fold(f64::INFINITY, f64::min);
    let common = [
        "--span".to_string(),
        effort.span.to_string(),
        "--rounds".into(),
        effort.rounds.to_string(),
    ];
    let mut args = common.to_vec();
    args.extend([
        "--finest".into(),
        finest.to_string(),
        "--max-run-seconds".into(),
        effort.max_run_seconds.to_string(),
    ]);
    let mut points = call(&py, model, &args, (tag, refq, row))?;
    let chosen = to_time(&points, &effort.targets);
    if chosen.is_empty() {
        return Ok(points);
    }
    let list: Vec<String> = chosen
        .iter()
        .map(|&k| format!("{}:{:.17e}", points[k].integrator, points[k].dt))
        .collect();
    let mut args = common.to_vec();
    args.extend(["--time".into(), list.join(",")]);
    let timed = call(&py, model, &args, (tag, refq, row))?;
    if timed.len() != chosen.len() {
        return Err(format!(
            "MuJoCo timing returned {} points for {} asked",
            timed.len(),
            chosen.len()
        ));
    }
    for (k, t) in chosen.into_iter().zip(timed) {
        let p = &mut points[k];
        let same = t.integrator == p.integrator && (t.dt / p.dt - 1.0).abs() < 1e-9;
        // MuJoCo is deterministic: the timed run repeats the sweep's, error and all.
        if !same || t.err.to_bits() != p.err.to_bits() {
            return Err(format!("MuJoCo timing ran {t:?} for {p:?}"));
        }
        p.cost = t.cost;
    }
    Ok(points)
}

/// The indices into `points` of every point [`found`] for some target, each once, in order.
fn to_time(points: &[MjPoint], targets: &[f64]) -> Vec<usize> {
    let mut chosen: Vec<usize> = targets
        .iter()
        .flat_map(|&e| found(points, e))
        .filter_map(|(_, p)| p)
        .filter_map(|p| points.iter().position(|q| std::ptr::eq(q, p)))
        .collect();
    chosen.sort_unstable();
    chosen.dedup();
    chosen
}

/// Per integrator, the coarsest step meeting `target` with every finer step meeting it too (the
/// harness's rule, on the script's grid: no bisection), as `(integrator, point)`.
pub fn found(points: &[MjPoint], target: f64) -> Vec<(&str, Option<&MjPoint>)> {
    let mut names: Vec<&str> = points.iter().map(|p| p.integrator.as_str()).collect();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let pts: Vec<&MjPoint> = points.iter().filter(|p| p.integrator == name).collect();
            let hit = match pts.iter().rposition(|p| p.err > target || p.err.is_nan()) {
                None => pts.first().copied(),
                Some(k) => pts.get(k + 1).copied(),
            };
            (name, hit)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "integrator,dt,error,cpu_per_unit_time,status\n\
        rk4,0.5,0.3,1e-5,ok\nrk4,0.25,0.02,2e-5,ok\nrk4,0.125,0.05,4e-5,ok\nrk4,0.0625,0.001,8e-5,ok\n\
        euler,0.5,inf,1e-6,failed\neuler,0.25,0.09,2e-6,ok\n";

    #[test]
    fn parses_and_applies_the_every_finer_step_rule() {
        let pts = parse(CSV).unwrap();
        assert_eq!(pts.len(), 6);
        assert!(pts[4].err.is_infinite());
        let f = found(&pts, 0.1);
        // rk4: 0.25 meets 0.1 and every finer step does; euler: only its finest step.
        assert_eq!(f[0].1.unwrap().dt, 0.25);
        assert_eq!(f[1].1.unwrap().dt, 0.25);
        // At 1e-2, rk4's lucky 0.25 (0.02 > 0.01 anyway) and 0.125 miss: only 0.0625 counts.
        let f = found(&pts, 1e-2);
        assert_eq!(f[0].1.unwrap().dt, 0.0625);
        assert!(f[1].1.is_none());
        assert!(parse("h\nrk4,x,1,1,ok\n").is_err());
        // The points timed in rounds: each target's found point per integrator, once.
        assert_eq!(to_time(&pts, &[0.1, 1e-2]), vec![1, 3, 5]);
        assert_eq!(to_time(&pts, &[1e-6]), Vec::<usize>::new());
    }
}
