//! The MuJoCo peer of `arm-peers`: `host-tests/peers/mujoco_arm.py` (the arm as an MJCF model of
//! three hinges) run through `chain-peers`' script runner ([`run_script`]), which skips it with
//! the reason when `mujoco` cannot be imported.

use crate::experiments::chain_peers::mujoco::{run_script, MjPoint};

/// Runs the sweep over `span` against `refq` (`n_out` outputs of three joint angles,
/// flattened), down to `finest / 3` error.
///
/// # Errors
/// No MuJoCo, or the script's failure.
pub fn sweep(
    span: f64,
    n_out: usize,
    refq: &[f64],
    finest: f64,
    rounds: usize,
    max_run_seconds: f64,
) -> Result<Vec<MjPoint>, String> {
    debug_assert_eq!(refq.len(), 3 * n_out);
    let args = [
        "--span".to_string(),
        span.to_string(),
        "--gravity".into(),
        super::methods::G.to_string(),
        "--finest".into(),
        finest.to_string(),
        "--rounds".into(),
        rounds.to_string(),
        "--max-run-seconds".into(),
        max_run_seconds.to_string(),
    ];
    run_script("mujoco_arm.py", "arm-peers-ref", &args, refq, 3)
}
