"""Benchmark: the distributed contact's cost per call on a worn bore (not a timed test).

    python tests/benchmarks/bench_distributed.py [--repeat 3] [--no-cycle]

A worn five-bar-like bore (720 nodes, a 10 um scar on the bushing and an 8 um one on the journal,
both with node-scale roughness) is pressed by a journal at 2000 eccentricities round the scar.  It
prints, each as the median of ``--repeat`` runs measured in this process:

* the node data of the contact window: the node pass :func:`workbench.mbs.distributed_nodes.nodes`
  against the per-node spline evaluation ``_node`` (the reference it replaced): the ratio;
* one full contact call (:func:`workbench.mbs.distributed.distributed_contact`, no friction) on the
  worn bore against the same call on the unworn bore at the same load direction: the ratio (the
  cost of the wear), the worn call against the previous kernels (``--before DIR``: the same module of an earlier checkout, :mod:`earlier_tree`), and
  the segments of the window against those the overlap bound lets through;
* (unless ``--no-cycle``) the worn five-bar cycle (:mod:`bench_distributed_cycle`): the surfaces of
  studies/five_bar_wear_distributed.toml after its first wear update, one settle and one measured
  cycle against the same on the unworn joint (CPU time, steps, rejected steps, right-hand sides),
  and on that cycle's states the contact call and the largest-overlap search of the current
  kernels against the previous ones (of the earlier checkout given with ``--before DIR``), with their largest
  difference.
"""
from __future__ import annotations

import argparse
import os
import sys
import math
import statistics
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # bench_distributed_cycle, earlier_tree

import earlier_tree  # noqa: E402
from workbench.mbs import distributed as D, kernels  # noqa: E402
from workbench.mbs.distributed_nodes import bound, nodes  # noqa: E402
from workbench.mbs.distributed_reference import profile_row  # noqa: E402

RB, RJ, M = 0.0105, 0.0100, 720
C0 = RB - RJ


def worn_bore(seed=0):
    """Bushing and journal profiles [m]: Gaussian scars with 5 % node-scale roughness."""
    rng = np.random.default_rng(seed)
    psi = np.arange(M) * 2 * math.pi / M
    hb = 10e-6 * np.exp(-((psi - 1.0) / 0.15) ** 2) * (1 + 0.05 * rng.standard_normal(M))
    hj = 8e-6 * np.exp(-((psi - 2.5) / 0.2) ** 2) * (1 + 0.05 * rng.standard_normal(M))
    return np.maximum(hb, 0.0), np.maximum(hj, 0.0)


@njit(cache=True)
def _per_node(row, ecc, phis, reps):
    acc = 0.0
    for r in range(reps):
        for s in range(ecc.shape[0]):
            M_, c0, k_lo, k_hi, em, alpha, empty = D._window(row, ecc[s, 0], ecc[s, 1])
            for k in range(k_lo, k_hi + 1):
                acc += D._node(row, M_, k, phis[s], c0, True)[0]
    return acc


@njit(cache=True)
def _pass(row, ecc, phis, reps):
    acc = 0.0
    for r in range(reps):
        for s in range(ecc.shape[0]):
            M_, c0, k_lo, k_hi, em, alpha, empty = D._window(row, ecc[s, 0], ecc[s, 1])
            nd, umax = nodes(row, M_, k_lo, k_hi, phis[s], c0, True, ecc[s, 0], ecc[s, 1])
            acc += nd[0, 0]
    return acc


@njit(cache=True)
def _contact(row, cp, ecc, phis, fk, fp, reps):
    res = np.zeros(D.N_RES); tmp = np.zeros(2); acc = 0.0
    for r in range(reps):
        for s in range(ecc.shape[0]):
            D.distributed_contact(row, cp, ecc[s, 0], ecc[s, 1], 0.01, 0.0, phis[s], 50.0, 0.0, 0.5, 0.5,
                                  0.1, RB * cp[D.P_LEN], fk, fp.ctypes, 0.0, tmp, res, np.zeros(0))
            acc += res[D.R_FBX]
    return acc


def _contact_of(kernel):
    """A compiled loop over the states calling ``kernel`` (an earlier tree's distributed_contact)."""
    @njit
    def run(row, cp, ecc, phis, fk, fp, reps):
        res = np.zeros(D.N_RES); tmp = np.zeros(2); acc = 0.0
        for r in range(reps):
            for s in range(ecc.shape[0]):
                kernel(row, cp, ecc[s, 0], ecc[s, 1], 0.01, 0.0, phis[s], 50.0, 0.0, 0.5,
                       0.5, 0.1, RB * cp[D.P_LEN], fk, fp.ctypes, 0.0, tmp, res, np.zeros(0))
                acc += res[D.R_FBX]
        return acc
    return run


@njit(cache=True)
def _screen(row, ecc, phis):
    n_win = 0; n_pass = 0
    for s in range(ecc.shape[0]):
        M_, c0, k_lo, k_hi, em, alpha, empty = D._window(row, ecc[s, 0], ecc[s, 1])
        if empty:
            continue
        nd, umax = nodes(row, M_, k_lo, k_hi, phis[s], c0, True, ecc[s, 0], ecc[s, 1])
        dth = 2 * math.pi / M_
        for i in range(k_hi - k_lo):
            n_win += 1
            if bound(nd, i, dth, math.cos(dth), math.sin(dth), em) > min(umax, 0.0):
                n_pass += 1
    return n_win, n_pass


def _time(f, *args, reps):
    """CPU time [s] of this thread (the machine is shared: wall time counts the waits)."""
    f(*args, 1)
    t = time.thread_time(); f(*args, reps); return time.thread_time() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs of each measurement (the median is printed)")
    ap.add_argument("--no-cycle", action="store_true", help="skip the worn five-bar cycle")
    ap.add_argument("--before", type=Path, default=None, metavar="DIR",
                    help="an earlier checkout (git worktree add DIR <commit>): its distributed-contact "
                         "kernels are timed beside the current ones")
    a = ap.parse_args(argv)
    previous = None
    if a.before is not None:
        previous = _contact_of(earlier_tree.load_module(a.before, "workbench.mbs.distributed").distributed_contact)
    hb, hj = worn_bore()
    worn = profile_row(RB, RJ, hb, hj)
    fresh = profile_row(RB, RJ, np.zeros(M), np.zeros(M))
    rng = np.random.default_rng(1)
    n = 2000
    ang = 1.0 + 0.3 * rng.standard_normal(n)
    ecc = np.column_stack([np.cos(ang), np.sin(ang)]) * (C0 + rng.uniform(0.5e-6, 12e-6, n))[:, None]
    phis = rng.uniform(-math.pi, math.pi, n)
    cp = np.array([1e13, 0.01, 0.75 * (1 - 0.81), 1e-4, 4.0, 4.0])
    fk = kernels.no_friction(); fp = np.zeros(1)
    reps = 20
    r_nodes, r_wear, r_prev = [], [], []
    for _ in range(a.repeat):
        t_ref = _time(_per_node, worn, ecc, phis, reps=reps)
        t_new = _time(_pass, worn, ecc, phis, reps=reps)
        t_worn = _time(lambda *x: _contact(worn, cp, ecc, phis, fk, fp, x[-1]), None, reps=reps)
        t_fresh = _time(lambda *x: _contact(fresh, cp, ecc, phis, fk, fp, x[-1]), None, reps=reps)
        t_prev = (math.nan if previous is None else
                  _time(lambda *x: previous(worn, cp, ecc, phis, fk, fp, x[-1]), None, reps=reps))
        r_nodes.append(t_new / t_ref); r_wear.append(t_worn / t_fresh); r_prev.append(t_worn / t_prev)
        print(f"node data: pass {1e6 * t_new / (n * reps):.2f} us, per node {1e6 * t_ref / (n * reps):.2f} us per call;"
              f" contact call worn {1e6 * t_worn / (n * reps):.2f} us (previous kernels {1e6 * t_prev / (n * reps):.2f} us),"
              f" unworn {1e6 * t_fresh / (n * reps):.2f} us")
    n_win, n_pass = _screen(worn, ecc, phis)
    print(f"node pass / per-node reference: {statistics.median(r_nodes):.3f} (median of {a.repeat})")
    print(f"worn / unworn contact call: {statistics.median(r_wear):.2f} (median of {a.repeat})")
    if previous is None:
        print("worn contact call against earlier kernels: not measured (give --before DIR, an earlier checkout)")
    else:
        print(f"worn contact call, current / previous kernels: {statistics.median(r_prev):.3f} (median of {a.repeat})")
    print(f"window segments per call {n_win / n:.1f}, through the overlap bound {n_pass / n:.1f}")
    if not a.no_cycle:
        import bench_distributed_cycle
        bench_distributed_cycle.main(a.repeat, a.before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
