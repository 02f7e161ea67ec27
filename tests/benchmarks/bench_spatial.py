"""Benchmark: the spatial engine against Exudyn on the Qi, Luo & Huang pendulum, frictionless
(Exudyn has no friction from the joint reactions), at matched accuracy.

The bar (78 kg, 1 m) on a cylindrical joint along z, released horizontal with 1 m/s along the
axis, 1 s.  Accuracy: the error of the centre of mass at t = 1 s against the minimal-coordinate
reference (tests/reference/qi_pendulum.py, rtol 1e-13).  Exudyn: ``ObjectRigidBody`` with Euler
parameters and a ``GenericJoint`` free in z-translation and z-rotation, generalized-alpha
(spectral radius 1, second order) at constant steps; the workbench: the spatial engine, fast path
(compiled right-hand side, DOP853) at a range of tolerances.  For each workbench tolerance the
Exudyn step whose error is closest from below is found, and the wall-time ratio printed.

Run: ``NUMBA_CACHE_DIR=... python tests/benchmarks/bench_spatial.py`` (a warm-up run first loads
the compiled kernels).
"""
from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reference")); sys.path.insert(0, str(HERE.parent / "spatial"))

T_END = 1.0


def reference():
    from qi_pendulum import QiPendulum, solve
    p = QiPendulum(mu=0.0)
    r = solve(p, T_END, np.array([T_END]), rtol=1e-13, atol=1e-14)
    phi, s = float(r["phi"][-1]), float(r["s"][-1])
    return np.array([p.l * np.cos(phi), p.l * np.sin(phi), s])


def exudyn_run(h):
    import exudyn as exu
    from exudyn.utilities import RigidBodyInertia
    from pendulum import A, G, L, RHO
    m = RHO * L * A * A
    J = np.diag([m * 2 * A * A / 12, m * (L * L + A * A) / 12, m * (L * L + A * A) / 12])
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.CreateGround()
    body = mbs.CreateRigidBody(inertia=RigidBodyInertia(mass=m, inertiaTensor=J),
                               referencePosition=[L / 2, 0.0, 0.0], initialVelocity=[0.0, 0.0, 1.0],
                               gravity=[0.0, -G, 0.0], nodeType=exu.NodeType.RotationEulerParameters)
    mbs.CreateGenericJoint(itemNumbers=[ground, body], position=[0.0, 0.0, 0.0],
                           constrainedAxes=[1, 1, 0, 1, 1, 0])
    mbs.Assemble()
    s = exu.SimulationSettings()
    n = int(round(T_END / h))
    ti = s.timeIntegration
    ti.numberOfSteps, ti.endTime, ti.verboseMode = n, T_END, 0
    ti.generalizedAlpha.spectralRadius = 1.0
    ti.generalizedAlpha.computeInitialAccelerations = True
    ti.newton.relativeTolerance = 1e-12
    ti.newton.absoluteTolerance = 1e-12
    s.solution.file.write = False
    t0 = time.perf_counter()
    ok = mbs.SolveDynamic(s, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    wall = time.perf_counter() - t0
    assert ok
    pos = np.asarray(mbs.GetObjectOutputBody(body, exu.OutputVariableType.Position, localPosition=[0, 0, 0]))
    return pos, wall


def workbench_run(rtol):
    from pendulum import mechanism
    from workbench.mbs.solution import SolverSettings
    from workbench.spatial.solver import simulate
    s = SolverSettings(t_end=T_END, output_step=T_END, rtol=rtol, atol=rtol * 1e-2)
    sim = simulate(mechanism(None), s)
    return sim.position[-1, 0, :3], sim.stats["wall_time"], sim.stats["rhs_calls"]


def main():
    ref = reference()
    workbench_run(1e-6)   # warm-up: load the compiled kernels
    ex = []
    for h in (1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5):
        pos, wall = min((exudyn_run(h) for _ in range(2)), key=lambda r: r[1])
        ex.append((h, float(np.linalg.norm(pos - ref)), wall))
        print(f"exudyn    h = {h:8.1e} s: error {ex[-1][1]:.3e} m, wall {wall:.4f} s")
    print()
    for rtol in (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10):
        pos, wall, calls = min((workbench_run(rtol) for _ in range(2)), key=lambda r: r[1])
        err = float(np.linalg.norm(pos - ref))
        match = [e for e in ex if e[1] <= err]
        ratio = f"{match[0][2] / wall:.2f}x (Exudyn h = {match[0][0]:.0e}, error {match[0][1]:.2e} m)" \
            if match else "no Exudyn step as accurate"
        print(f"workbench rtol = {rtol:.0e}: error {err:.3e} m, wall {wall:.4f} s, {calls} rhs calls, "
              f"{wall / calls * 1e6:.1f} us/call; Exudyn time / workbench time at matched accuracy: {ratio}")


if __name__ == "__main__":
    main()
