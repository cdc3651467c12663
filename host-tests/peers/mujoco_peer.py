#!/usr/bin/env python3
"""The MuJoCo peer of `reproduce chain-peers` and `reproduce arm-peers`: a planar mechanism of
hinge joints as an MJCF model, swept over MuJoCo's integrators and time steps.

    mujoco_peer.py --model chain --n N ...      # chain-peers
    mujoco_peer.py --model arm --gravity G ...  # arm-peers

- `chain`: the chain of n unit point masses on unit rods (g = 1, horizontal at rest). Observed:
  the positions (x, z) of the masses, one reference line per output time x1,z1,...,xn,zn;
  error = max |position - reference|.
- `arm`: the planar 3-link arm of planar_arm3.urdf (links 1.2 / 0.8 / 0.6 kg, the tool fused
  into the hand), released from its build pose (stretched along +x, at rest) under --gravity.
  Observed: the joint angles, one reference line per output time theta1,theta2,theta3 (relative
  angles, counter-clockwise in the x-z plane, i.e. about -y, zero at the build pose);
  error = max |wrap(theta - reference)|. The MJCF is written here rather than imported from the
  URDF: MuJoCo's URDF import turns the URDF's <limit> into joint ranges, which the free swing
  would hit (the harness's model has none), and the hinges here turn about -y so that qpos is
  the harness's angle. The links' masses, centres of mass and inertias about the hinge axis are
  the URDF's (the same numbers as arm_peers::methods::chain).

Called by the Rust harness (host-tests/src/experiments/peers/mujoco.rs) with the reference in a
CSV file (--reference), twice:

1. The sweep (default): for every integrator (Euler = semi-implicit Euler, RK4, implicit,
   implicitfast) the step is swept down from the output spacing by a factor 2^(1/4) until two
   consecutive steps meet the finest target with a factor 3 to spare (or a run costs more than
   --max-run-seconds). A point's cost here is one sample of at least --min-sample seconds: the
   sweep's own run when it lasted that long, otherwise the run repeated (every short point timed
   against the others in one interleaved round). These costs draw the chart.
2. The timing (--time integrator:dt,...): the points the harness found for its targets (per
   integrator and target, the coarsest step meeting the target with every finer step meeting
   it too), each run once (its error, and the calibration of its sample), then timed against
   each other in --rounds interleaved rounds rotated by round (a slow spell of the machine then
   hits one round of many points, not every sample of one point); a sample repeats its run
   until it lasts --min-sample seconds, and the median over the rounds is divided by the span.
   Only these costs enter the table and its ratios: timing every sweep point in rounds, as an
   earlier version did, cost four runs of each of the sweep's most expensive steps.

Each call prints one CSV line per point:

    integrator,dt,error,cpu_per_unit_time,status

error is inf when the run failed (a MuJoCo instability warning or a non-finite value). CPU time
is measured inside Python by time.thread_time() (the calling thread's CPU clock). The steps run
inside MuJoCo's C loop (mj_step with nstep = steps per output), so the Python overhead is one
call per output.
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

# The arm's links: (length to the next joint, mass, centre of mass along the link, inertia
# about it), m, kg, kg m^2.
ARM_LINKS = [(0.4, 1.2, 0.2, 0.01625), (0.3, 0.8, 0.15, 0.0061), (0.4, 0.6, 0.15, 0.0095)]


def mjcf(body, gravity):
    return (
        f'<mujoco><option gravity="0 0 -{gravity}"><flag contact="disable"/></option>'
        "<worldbody>" + body + "</worldbody></mujoco>"
    )


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
    return mjcf(body, 1)


def arm_xml(gravity):
    """Three bodies nested along +x; body k's frame is at joint k, its centre of mass at local
    (c, 0, 0); hinges about -y, gravity -z: the x-z plane. The inertia about the hinge axis is
    the link's; the other two principal moments are set equal to it (they do not enter the
    planar motion, and MuJoCo requires the triangle inequality)."""
    pos = "0 0 0"
    opened = []
    for length, mass, com, inertia in ARM_LINKS:
        opened.append(
            f'<body pos="{pos}"><joint type="hinge" axis="0 -1 0" damping="0" armature="0"/>'
            f'<inertial pos="{com} 0 0" mass="{mass}" diaginertia="{inertia} {inertia} {inertia}"/>'
        )
        pos = f"{length} 0 0"
    return mjcf("".join(opened) + "</body>" * len(ARM_LINKS), gravity)


def chain_observe(data, row):
    row[0::2] = data.site_xpos[:, 0]
    row[1::2] = data.site_xpos[:, 2]


def arm_observe(data, row):
    row[:] = data.qpos


def wrapped(d):
    return (d + np.pi) % (2 * np.pi) - np.pi


# Per model: the MJCF from the arguments, the observed width, the observer, the error of a
# difference, and the default finest step.
MODELS = {
    "chain": (lambda a: chain_xml(a.n), lambda m: 2 * m.nsite, chain_observe, np.abs, 1e-6),
    "arm": (lambda a: arm_xml(a.gravity), lambda m: m.nq, arm_observe,
            lambda d: np.abs(wrapped(d)), 1e-7),
}


def run(model, data, observe, width, steps_per_out, n_out):
    """The observed values at each output, or None when the run failed."""
    mujoco.mj_resetData(model, data)
    out = np.empty((n_out, width))
    for k in range(n_out):
        mujoco.mj_step(model, data, nstep=steps_per_out)
        observe(data, out[k, :])
    bad = data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number > 0
    if bad or not np.all(np.isfinite(out)):
        return None
    return out


def calibrate(f, min_sample, first):
    """Calls of f per sample so a sample lasts min_sample seconds of thread CPU; `first` is the
    CPU time of one call already measured (one call lasting min_sample is a sample)."""
    if first >= min_sample:
        return 1
    reps = 1
    while True:
        t0 = time.thread_time()
        for _ in range(reps):
            f()
        cpu = time.thread_time() - t0
        if cpu >= min_sample:
            return reps
        reps = int(math.ceil(reps * min(16.0, max(2.0, 1.2 * min_sample / max(cpu, 1e-9)))))


def cpu_per_call(fs, firsts, min_sample, rounds):
    """Median thread CPU seconds of one call of each f of fs, timed against each other: per round
    every f once, in the list's order rotated by the round; a sample repeats its f until it
    lasts min_sample. firsts: the CPU time of one call of each, already measured."""
    reps = [calibrate(f, min_sample, first) for f, first in zip(fs, firsts)]
    samples = [[] for _ in fs]
    for r in range(rounds):
        for j in range(len(fs)):
            i = (j + r) % len(fs)
            t0, calls = time.thread_time(), 0
            while calls == 0 or time.thread_time() - t0 < min_sample:
                for _ in range(reps[i]):
                    fs[i]()
                calls += reps[i]
            samples[i].append((time.thread_time() - t0) / calls)
    return [float(np.median(s)) for s in samples]


class Peer:
    """The model, its data and observer, the reference and the output grid."""

    def __init__(self, a):
        xml, width_of, observe, error_of, _ = MODELS[a.model]
        self.ref = np.loadtxt(a.reference, delimiter=",", ndmin=2)
        self.n_out = self.ref.shape[0]
        self.dt_out = a.span / self.n_out
        self.model = mujoco.MjModel.from_xml_string(xml(a))
        self.data = mujoco.MjData(self.model)
        self.width = width_of(self.model)
        self.observe, self.error_of = observe, error_of

    def runner(self, name, steps):
        """A call running integrator `name` at dt_out / steps over the span."""
        def f():
            self.model.opt.integrator = INTEGRATORS[name]
            self.model.opt.timestep = self.dt_out / steps
            return run(self.model, self.data, self.observe, self.width, steps, self.n_out)
        return f

    def point(self, name, steps):
        """(name, dt, steps, error, status, CPU seconds of the run)."""
        f = self.runner(name, steps)
        t0 = time.thread_time()
        obs = f()
        once = time.thread_time() - t0
        if obs is None:
            err, status = math.inf, "failed"
        else:
            err, status = float(np.max(self.error_of(obs - self.ref))), "ok"
        return (name, self.dt_out / steps, steps, err, status, once)


def sweep(peer, a, dt_min):
    """Every integrator's sweep, each point run once, with its curve cost (see the docs)."""
    points = []
    for name in a.integrators.split(","):
        raw, spare, last_steps = peer.dt_out, 0, 0
        while raw >= dt_min and spare < 2:
            steps = max(1, math.ceil(peer.dt_out / raw - 1e-9))
            raw /= 2 ** 0.25
            if steps == last_steps:
                continue
            last_steps = steps
            p = peer.point(name, steps)
            points.append(p)
            spare = spare + 1 if p[3] <= a.finest / 3 else 0
            if p[5] > a.max_run_seconds:
                break
    short = [k for k, p in enumerate(points) if p[5] < a.min_sample]
    costs = [p[5] for p in points]
    timed = cpu_per_call(
        [peer.runner(points[k][0], points[k][2]) for k in short],
        [points[k][5] for k in short], a.min_sample, 1)
    for k, c in zip(short, timed):
        costs[k] = c
    return points, costs


def timed(peer, a):
    """The points of --time, each run once, then timed against each other in --rounds rounds."""
    points = []
    for item in a.time.split(","):
        name, dt = item.split(":")
        steps = max(1, round(peer.dt_out / float(dt)))
        points.append(peer.point(name, steps))
    costs = cpu_per_call([peer.runner(p[0], p[2]) for p in points], [p[5] for p in points],
                         a.min_sample, a.rounds)
    return points, costs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=sorted(MODELS), required=True)
    ap.add_argument("--n", type=int, help="chain: number of pendula")
    ap.add_argument("--gravity", type=float, default=9.81, help="arm: g (m/s^2)")
    ap.add_argument("--span", type=float, required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--finest", type=float, help="the sweep's finest target")
    ap.add_argument("--time", help="integrator:dt,... to time in rounds instead of sweeping")
    ap.add_argument("--min-sample", type=float, default=2e-3)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--max-run-seconds", type=float, default=5.0)
    ap.add_argument("--dt-min", type=float, help="finest step (chain 1e-6, arm 1e-7)")
    ap.add_argument("--integrators", default="euler,rk4,implicit,implicitfast")
    a = ap.parse_args()
    if a.model == "chain" and a.n is None:
        ap.error("--model chain needs --n")
    if a.time is None and a.finest is None:
        ap.error("the sweep needs --finest")
    dt_min = a.dt_min if a.dt_min is not None else MODELS[a.model][4]
    peer = Peer(a)
    points, costs = timed(peer, a) if a.time else sweep(peer, a, dt_min)
    print("integrator,dt,error,cpu_per_unit_time,status")
    for (name, dt, _, err, status, _), cost in zip(points, costs):
        print(f"{name},{dt:.17g},{err:.17g},{cost / a.span:.17g},{status}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
