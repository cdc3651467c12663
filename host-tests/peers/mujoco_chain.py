#!/usr/bin/env python3
"""The MuJoCo peer of `reproduce chain-peers`: the planar chain of n unit point masses on unit
rods (g = 1, horizontal at rest) as an MJCF model of hinge joints, swept over MuJoCo's
integrators and time steps.

Called by the Rust harness (host-tests/src/experiments/chain_peers/mujoco.rs) with the rigid
reference positions in a CSV file (one line per output time: x1,y1,...,xn,yn). For every
integrator (Euler = semi-implicit Euler, RK4, implicit, implicitfast) the step is swept down from
the output spacing by a factor 2^(1/4) until two consecutive steps meet the finest target with a
factor 3 to spare (or a run costs more than --max-run-seconds). Prints one CSV line per sweep point:

    integrator,dt,error,cpu_per_unit_time,status

error = max |position - reference| over the outputs (inf when the run failed: a MuJoCo
instability warning or a non-finite position). CPU time is measured inside Python by
time.thread_time() (the calling thread's CPU clock): each run is repeated until a sample lasts
--min-sample seconds, and the median over --rounds samples is divided by the span. The steps run
inside MuJoCo's C loop (mj_step with nstep = steps per output), so the Python overhead is one call
per output.
"""

import argparse
import math
import sys
import time

import mujoco
import numpy as np

INTEGRATORS = {
    "euler": mujoco.mjtIntegrator.mjINT_EULER,
    "rk4": mujoco.mjtIntegrator.mjINT_RK4,
    "implicit": mujoco.mjtIntegrator.mjINT_IMPLICIT,
    "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST,
}


def chain_xml(n):
    """n bodies nested along +x; body i's frame is at joint i, its point mass (diagonal inertia
    1e-9, MuJoCo refuses zero) at local (1, 0, 0); hinges about y, gravity -z: the x-z plane."""
    body = ""
    for _ in range(n):
        body = (
            '<body pos="{pos}"><joint type="hinge" axis="0 1 0" damping="0" armature="0"/>'
            '<inertial pos="1 0 0" mass="1" diaginertia="1e-9 1e-9 1e-9"/>'
            '<site pos="1 0 0"/>{inner}</body>'
        ).format(pos="{pos}", inner=body)
    # The outermost body (the first link) sits at the origin; every other one at (1, 0, 0).
    body = body.replace("{pos}", "0 0 0", 1).replace("{pos}", "1 0 0")
    return (
        '<mujoco><option gravity="0 0 -1"><flag contact="disable"/></option>'
        "<worldbody>" + body + "</worldbody></mujoco>"
    )


def run(model, data, steps_per_out, n_out):
    """Positions (x, z) of the masses at each output, or None when the run failed."""
    mujoco.mj_resetData(model, data)
    out = np.empty((n_out, 2 * model.nsite))
    for k in range(n_out):
        mujoco.mj_step(model, data, nstep=steps_per_out)
        out[k, 0::2] = data.site_xpos[:, 0]
        out[k, 1::2] = data.site_xpos[:, 2]
    bad = data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number > 0
    if bad or not np.all(np.isfinite(out)):
        return None
    return out


def cpu_per_call(f, min_sample, rounds):
    """Median thread CPU seconds of one call of f (repeats until a sample lasts min_sample)."""
    reps = 1
    while True:
        t0 = time.thread_time()
        for _ in range(reps):
            f()
        cpu = time.thread_time() - t0
        if cpu >= min_sample:
            break
        reps = int(math.ceil(reps * min(16.0, max(2.0, 1.2 * min_sample / max(cpu, 1e-9)))))
    samples = [cpu / reps]
    for _ in range(rounds - 1):
        t0 = time.thread_time()
        for _ in range(reps):
            f()
        samples.append((time.thread_time() - t0) / reps)
    return float(np.median(samples))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--span", type=float, required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--finest", type=float, required=True)
    ap.add_argument("--min-sample", type=float, default=2e-3)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--max-run-seconds", type=float, default=5.0)
    ap.add_argument("--dt-min", type=float, default=1e-6)
    ap.add_argument("--integrators", default="euler,rk4,implicit,implicitfast")
    a = ap.parse_args()
    ref = np.loadtxt(a.reference, delimiter=",", ndmin=2)
    n_out = ref.shape[0]
    dt_out = a.span / n_out
    model = mujoco.MjModel.from_xml_string(chain_xml(a.n))
    data = mujoco.MjData(model)
    print("integrator,dt,error,cpu_per_unit_time,status")
    for name in a.integrators.split(","):
        model.opt.integrator = INTEGRATORS[name]
        raw, spare, last_steps = dt_out, 0, 0
        while raw >= a.dt_min and spare < 2:
            steps = max(1, math.ceil(dt_out / raw - 1e-9))
            raw /= 2 ** 0.25
            if steps == last_steps:
                continue
            last_steps = steps
            dt = dt_out / steps
            model.opt.timestep = dt
            t0 = time.thread_time()
            pos = run(model, data, steps, n_out)
            once = time.thread_time() - t0
            if pos is None:
                err, status = math.inf, "failed"
            else:
                err, status = float(np.max(np.abs(pos - ref))), "ok"
            cost = cpu_per_call(lambda: run(model, data, steps, n_out), a.min_sample, a.rounds)
            print(f"{name},{dt:.17g},{err:.17g},{cost / a.span:.17g},{status}", flush=True)
            spare = spare + 1 if err <= a.finest / 3 else 0
            if once > a.max_run_seconds:
                break


if __name__ == "__main__":
    sys.exit(main())
