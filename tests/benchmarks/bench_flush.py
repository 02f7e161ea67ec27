"""Benchmark: the compiled flush-face solve of a revolute journal (``workbench.spatial.kernels._flush``,
the axial face's flush state, :func:`workbench.spatial.axial_contact.flush`) against its previous
form, kept here as the baseline (the same steps with numpy's ``det``, ``solve`` for the cubic's
coefficients, ``np.roots`` and ``lstsq`` per candidate), on the same loads, in one process.  A
script: prints, asserts nothing.

    python tests/benchmarks/bench_flush.py [--reps N]

Loads: the 300 random loads, faces and friction coefficients of
``tests/spatial/test_axial_contact.py::test_the_compiled_flush_solve_is_the_python_one`` (seed 1;
39 flush states).  Timed: CPU time per call from one compiled loop over the loads (no Python
dispatch), best of ``--reps``; the largest difference of the two forms' radial loads and face
points is printed beside the ratio.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
from numba import njit

from workbench.spatial import kernels as K
from workbench.spatial.axial_contact import FLUSH_SLACK

_axial_perp = K._axial_perp


# ---- the baseline: kernels._flush before 2026-12-07 (night) ----
@njit(cache=True)
def _columns_before(A, P2, P3, th, mode):
    s = math.sin(th); co = math.cos(th)
    C = np.empty((4, 3))
    for i in range(4):
        c1 = A[i, 0] * s + A[i, 1] * co
        c2 = A[i, 2] * s + A[i, 3] * co
        ct = -co * P2[i] + s * P3[i]
        cn = s * P2[i] + co * P3[i]
        if mode == 0:
            C[i, 0] = c1; C[i, 1] = c2; C[i, 2] = ct
        elif mode == 1:
            C[i, 0] = c2; C[i, 1] = ct; C[i, 2] = cn
        else:
            C[i, 0] = c1; C[i, 1] = ct; C[i, 2] = cn
    return C


@njit(cache=True)
def _mode_before(A, b0, P2, P3, mode, scale, f_scale):
    ts = np.array([-1.0, 0.0, 1.0, 2.0])
    V = np.empty((4, 4)); hv = np.empty(4)
    Cb = np.empty((4, 4))
    for k in range(4):
        th = math.atan(ts[k])
        C = _columns_before(A, P2, P3, th, mode)
        Cb[:, :3] = C
        Cb[:, 3] = b0
        hv[k] = np.linalg.det(Cb) / math.cos(th) ** 3
        for j in range(4):
            V[k, j] = ts[k] ** (3 - j)
    coef = np.linalg.solve(V, hv)
    cands = [math.pi / 2, -math.pi / 2]
    if np.any(coef != 0.0):
        for r in np.roots(coef.astype(np.complex128)):
            if abs(r.imag) <= 1e-9 * (1.0 + abs(r.real)):
                th = math.atan(r.real)
                cands.append(th)
                cands.append(th + math.pi)
    best_res = math.inf
    u = np.zeros(4)
    n3 = np.zeros(3)
    for th in cands:
        C = _columns_before(A, P2, P3, th, mode)
        x = np.linalg.lstsq(C, b0)[0]
        res = np.max(np.abs(C @ x - b0))
        if res > 1e-9 * scale:
            continue
        if mode == 0:
            F1 = x[0]; F2 = x[1]; nu = x[2]; sigma = 0.0
        elif mode == 1:
            F1 = 0.0; F2 = x[0]; nu = x[1]; sigma = x[2]
        else:
            F1 = x[0]; F2 = 0.0; nu = x[1]; sigma = x[2]
        if min(F1, F2) < -FLUSH_SLACK * f_scale or math.hypot(nu, sigma) > 1.0 + FLUSH_SLACK:
            continue
        if res < best_res:
            best_res = res
            F1 = max(F1, 0.0); F2 = max(F2, 0.0)
            u[0] = F1 * math.sin(th); u[1] = F1 * math.cos(th)
            u[2] = F2 * math.sin(th); u[3] = F2 * math.cos(th)
            n3[1] = -nu * math.cos(th) + sigma * math.sin(th)
            n3[2] = nu * math.sin(th) + sigma * math.cos(th)
    return best_res < math.inf, u, n3


@njit(cache=True)
def flush_before(A, b0, g3, g4, k_r, R, c):
    e2 = np.array([0.0, 1.0, 0.0]); e3 = np.array([0.0, 0.0, 1.0])
    P2 = _axial_perp(g3, g4, e2, k_r, R, c)
    P3 = _axial_perp(g3, g4, e3, k_r, R, c)
    scale = np.max(np.abs(b0))
    if scale == 0.0:
        scale = 1.0
    f_scale = abs(b0[0]) + abs(b0[1]) + (abs(b0[2]) + abs(b0[3])) / c
    if f_scale == 0.0:
        f_scale = 1.0
    for mode in range(3):
        found, u, n3 = _mode_before(A, b0, P2, P3, mode, scale, f_scale)
        if found:
            return True, u, n3
    return False, np.zeros(4), np.zeros(3)


@njit(cache=True)
def _loop_before(As, B, G, out):
    for i in range(B.shape[0]):
        ok, u, n3 = flush_before(As[i], B[i], G[i, 0], G[i, 1], G[i, 2], G[i, 3], G[i, 4])
        out[i, 0] = 1.0 if ok else 0.0
        out[i, 1:5] = u
        out[i, 5:8] = n3


@njit(cache=True)
def _loop_now(As, B, G, out):
    for i in range(B.shape[0]):
        ok, u, n3 = K._flush(As[i], B[i], G[i, 0], G[i, 1], G[i, 2], G[i, 3], G[i, 4])
        out[i, 0] = 1.0 if ok else 0.0
        out[i, 1:5] = u
        out[i, 5:8] = n3


def loads():
    """The test's random loads: stacked matrices ``A``, reactions ``b0`` and ``(g3, g4, k_r, R, c)``."""
    rng = np.random.default_rng(1)
    As, B, G = [], [], []
    for _ in range(300):
        c, k_r = rng.uniform(0.02, 0.5), rng.choice([0.0, rng.uniform(-0.3, 0.3)])
        As.append(K._radial_matrix(0.0, k_r, 0.05, c))
        B.append(rng.normal(size=4) * np.array([100.0, 100.0, 10.0, 10.0]))
        g = abs(rng.normal()) * rng.choice([1.0, 100.0])
        g3, g4 = (g, 0.0) if rng.random() < 0.5 else (0.0, g)
        G.append((g3, g4, k_r, 0.05, c))
    return np.array(As), np.array(B), np.array(G, dtype=float)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    As, B, G = loads()
    out0, out1 = np.zeros((len(B), 8)), np.zeros((len(B), 8))
    _loop_before(As, B, G, out0); _loop_now(As, B, G, out1)        # compile / load
    cost = {}
    for name, loop, out in (("before", _loop_before, out0), ("now", _loop_now, out1)):
        best = math.inf
        for _ in range(args.reps):
            t0 = time.process_time()
            loop(As, B, G, out)
            best = min(best, time.process_time() - t0)
        cost[name] = best / len(B)
    same = np.array_equal(out0[:, 0], out1[:, 0])
    diff = np.abs(out0[:, 1:] - out1[:, 1:]).max() / max(1.0, np.abs(out0[:, 1:5]).max())
    print(f"flush solve, {len(B)} loads ({int(out1[:, 0].sum())} flush): before {cost['before'] * 1e6:.1f} us, "
          f"now {cost['now'] * 1e6:.2f} us a call; ratio {cost['before'] / cost['now']:.1f}; "
          f"same states {same}, largest difference {diff:.2g}")


if __name__ == "__main__":
    main()
