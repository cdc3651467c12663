#!/usr/bin/env python3
"""The MuJoCo peer of `reproduce arm-peers`: the planar 3-link arm of planar_arm3.urdf (links
1.2 / 0.8 / 0.6 kg, the tool fused into the hand) as an MJCF model of three hinges, released
from its build pose (stretched along +x, at rest) under g = 9.81, swept over MuJoCo's integrators
and time steps.

Called by the Rust harness (host-tests/src/experiments/arm_peers/mujoco.rs) with the reference
joint angles in a CSV file (one line per output time: theta1,theta2,theta3; relative angles,
counter-clockwise in the x-z plane, i.e. about -y, zero at the build pose). The MJCF is written
here rather than imported from the URDF: MuJoCo's URDF import turns the URDF's <limit> into
joint ranges, which the free swing would hit (the harness's model has none), and the hinges
here turn about -y so that qpos is the harness's angle. The links' masses, centres of mass and
inertias about the hinge axis are the URDF's (the same numbers as arm_peers::methods::chain).

The sweep, the output format and the CPU timing are mujoco_chain.py's (imported from it):

    integrator,dt,error,cpu_per_unit_time,status

error = max |wrap(theta - reference)| over the joints and outputs (inf when the run failed).
"""

import argparse
import math
import sys
import time

import mujoco
import numpy as np

from mujoco_chain import INTEGRATORS, cpu_per_call

# (length to the next joint, mass, centre of mass along the link, inertia about it), m, kg, kg m^2.
LINKS = [(0.4, 1.2, 0.2, 0.01625), (0.3, 0.8, 0.15, 0.0061), (0.4, 0.6, 0.15, 0.0095)]


def arm_xml(gravity):
    """Three bodies nested along +x; body k's frame is at joint k, its centre of mass at local
    (c, 0, 0); hinges about -y, gravity -z: the x-z plane. The inertia about the hinge axis is
    the link's; the other two principal moments are set equal to it (they do not enter the
    planar motion, and MuJoCo requires the triangle inequality)."""
    body, pos = "", "0 0 0"
    opened = []
    for length, mass, com, inertia in LINKS:
        opened.append(
            f'<body pos="{pos}"><joint type="hinge" axis="0 -1 0" damping="0" armature="0"/>'
            f'<inertial pos="{com} 0 0" mass="{mass}" diaginertia="{inertia} {inertia} {inertia}"/>'
        )
        pos = f"{length} 0 0"
    body = "".join(opened) + "</body>" * len(LINKS)
    return (
        f'<mujoco><option gravity="0 0 -{gravity}"><flag contact="disable"/></option>'
        "<worldbody>" + body + "</worldbody></mujoco>"
    )


def run(model, data, steps_per_out, n_out):
    """Joint angles at each output, or None when the run failed."""
    mujoco.mj_resetData(model, data)
    out = np.empty((n_out, model.nq))
    for k in range(n_out):
        mujoco.mj_step(model, data, nstep=steps_per_out)
        out[k, :] = data.qpos
    bad = data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number > 0
    if bad or not np.all(np.isfinite(out)):
        return None
    return out


def wrapped(d):
    return np.abs((d + np.pi) % (2 * np.pi) - np.pi)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--span", type=float, required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--finest", type=float, required=True)
    ap.add_argument("--gravity", type=float, default=9.81)
    ap.add_argument("--min-sample", type=float, default=2e-3)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--max-run-seconds", type=float, default=5.0)
    ap.add_argument("--dt-min", type=float, default=1e-7)
    ap.add_argument("--integrators", default="euler,rk4,implicit,implicitfast")
    a = ap.parse_args()
    ref = np.loadtxt(a.reference, delimiter=",", ndmin=2)
    n_out = ref.shape[0]
    dt_out = a.span / n_out
    model = mujoco.MjModel.from_xml_string(arm_xml(a.gravity))
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
            model.opt.timestep = dt_out / steps
            t0 = time.thread_time()
            q = run(model, data, steps, n_out)
            once = time.thread_time() - t0
            if q is None:
                err, status = math.inf, "failed"
            else:
                err, status = float(np.max(wrapped(q - ref))), "ok"
            cost = cpu_per_call(lambda: run(model, data, steps, n_out), a.min_sample, a.rounds)
            print(
                f"{name},{dt_out / steps:.17g},{err:.17g},{cost / a.span:.17g},{status}",
                flush=True,
            )
            spare = spare + 1 if err <= a.finest / 3 else 0
            if once > a.max_run_seconds:
                break


if __name__ == "__main__":
    sys.exit(main())
