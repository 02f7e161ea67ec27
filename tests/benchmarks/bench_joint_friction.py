"""Cost of friction in ideal joints (workbench.mbs.joint_friction) on the slider-crank.

Prints ratios against the same mechanism without joint friction, measured in this process:
the right-hand side alone (CPU time per call, a compiled loop over the sampled states of a
one-revolution run) and a whole one-revolution run (CPU time, right-hand-side calls).  Run:
``python tests/benchmarks/bench_joint_friction.py``.  Not a test: no timing is asserted.
"""
from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mechanisms import slider_crank  # noqa: E402
from workbench.mbs.clearance import N_CREC  # noqa: E402
from workbench.mbs.compiled import compile_mechanism  # noqa: E402
from workbench.mbs.equations import rhs, workspace  # noqa: E402
from workbench.mbs.mechanism import RevoluteJoint  # noqa: E402
from workbench.mbs.solution import SolverSettings  # noqa: E402
from workbench.mbs.solver import assemble, simulate  # noqa: E402
from workbench.plugins import build_registry  # noqa: E402


@njit
def _rhs_loop(times, Y, reps, model):
    ny = Y.shape[1]
    n = model.mass.shape[0]
    ydot = np.zeros(ny); lam = np.zeros(max(model.n_rows, 1))
    rec = np.zeros((max(model.clr_i.shape[0], 1), N_CREC)); dm = np.full(1, 1e-3)
    ws = workspace(model.mass, model.n_rows, ny - 2 * n - 4)
    acc = 0.0
    for _ in range(reps):
        for k in range(times.shape[0]):
            rhs(times[k], Y[k], dm, ydot, lam, rec, ws, 5.0, 5.0, model)
            acc += ydot[n]
    return acc


def cpu_best_of(f, reps):
    best = np.inf
    for _ in range(reps):
        t0 = time.process_time(); f(); best = min(best, time.process_time() - t0)
    return best


def friction_mechanism(mu=0.1, r=0.01, L=0.05):
    law = build_registry().create("friction", "coulomb", {"mu": mu, "v_eps": 1e-4})
    m = slider_crank(ideal=True)
    js = [replace(j, friction=law, pin_radius=r) if isinstance(j, RevoluteJoint)
          else replace(j, friction=law, slider_length=L) for j in m.joints]
    return replace(m, joints=tuple(js))


def per_call(mech, s, reps=5, inner=20):
    sim = simulate(mech, s)
    q0, _ = assemble(mech, 0.0)
    cm = compile_mechanism(mech, angles=q0[2::3])
    nt = len(sim.time)
    Y = np.zeros((nt, 6 * cm.nb + 4))
    Y[:, :3 * cm.nb] = sim.position.reshape(nt, -1)
    Y[:, 3 * cm.nb:6 * cm.nb] = sim.velocity.reshape(nt, -1)
    model = cm.model()
    _rhs_loop(sim.time, Y, 1, model)
    t = cpu_best_of(lambda: _rhs_loop(sim.time, Y, inner, model), reps)
    run = cpu_best_of(lambda: simulate(mech, s), 3)
    return t / (inner * nt), run, sim


def main():
    s = SolverSettings(t_end=0.012, output_step=1e-4)
    plain, fric = slider_crank(ideal=True), friction_mechanism()
    c0, r0, s0 = per_call(plain, s)
    c1, r1, s1 = per_call(fric, s)
    print(f"right-hand side alone: {c0 * 1e9:.0f} ns without, {c1 * 1e9:.0f} ns with joint friction "
          f"in all 4 joints: ratio {c1 / c0:.2f}")
    print(f"one revolution: {r0 * 1e3:.1f} ms, {s0.stats['rhs_calls']} calls without; {r1 * 1e3:.1f} ms, "
          f"{s1.stats['rhs_calls']} calls with: ratio {r1 / r0:.2f}")
    print("loop:", {k: v for k, v in s1.stats.items() if k.startswith("joint_friction")})


if __name__ == "__main__":
    main()
