"""Benchmark part of ``bench_distributed.py``: the worn five-bar cycle (not a timed test).

    python tests/benchmarks/bench_distributed_cycle.py [--repeat 3]

1. The worn surfaces: studies/five_bar_wear_distributed.toml run for its first wear update (into a
   temporary directory): the journal of joint B worn 8 um, the bushing 10 um after ~5e4 cycles.
2. One settle and one measured machine cycle of the worn mechanism and of the unworn one: CPU time
   of the measured cycle, accepted and rejected steps, right-hand-side calls, contact events; the
   ratio worn / unworn (median of ``--repeat`` runs, in this process).  The worn joint's dynamics
   is chaotic (impacts come and go): a change of the kernels at the rounding level gives another
   trajectory of the same statistics, so the step counts of single cycles differ between versions.
3. On the states of the worn cycle (4 samples per output step): the distributed contact call
   and the largest-overlap search (event detection) of the current kernels against the previous
   ones of an earlier checkout (``--before DIR``, loaded by :mod:`earlier_tree`), per call, CPU time of this thread (median of ``--repeat``),
   and the largest difference of their resultants relative to the force (the friction differs
   more than the normal force: where the slip speed along a patch crosses the regularised law's
   thresholds its integrand has kinks, which the two quadrature subdivisions resolve differently).
   Out of contact the previous contact call's largest overlap (negative) came from a partial search;
   the current one is :func:`distributed_gap`'s.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import earlier_tree  # noqa: E402
from workbench.mbs import distributed as current  # noqa: E402
from workbench.mbs.compiled import compile_mechanism  # noqa: E402
from workbench.mbs.distributed_joint import bushing_frame  # noqa: E402
from workbench.mbs.solver import assemble, simulate  # noqa: E402
from workbench.study.load import load_study  # noqa: E402

STUDY = Path(__file__).resolve().parents[2] / "studies" / "five_bar_wear_distributed.toml"


def worn_surfaces(study):
    """Bushing and journal depths [m] of joint B after the study's first wear update."""
    import xarray as xr
    from workbench.wear.loop import run_wear_study
    with tempfile.TemporaryDirectory() as d, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_wear_study(study, out=Path(d) / "w.zarr", max_updates=1)
        ds = xr.open_zarr(Path(d) / "w.zarr")
        last = dict(cycle=-1, joint=0)   # the depths measured at the update and the increment it applied
        w = np.asarray(ds.wear_depth.isel(last).values + ds.depth_increment.isel(last).values)
        ds.close()
    return w[0], w[1]


def _kernels(mod):
    @njit
    def contact(row, cp, E, fk, fp, reps):
        res = np.zeros(12); tmp = np.zeros(2); none = np.zeros(0); acc = 0.0
        for _ in range(reps):
            for s in range(E.shape[0]):
                e = E[s]
                mod.distributed_contact(row, cp, e[0], e[1], e[3], e[4], e[2], e[5], e[6], e[7], e[8], e[9],
                                        row[4] * cp[1], fk, fp.ctypes, 0.0, tmp, res, none)
                acc += res[0]
        return acc

    @njit
    def gap(row, E, reps):
        acc = 0.0
        for _ in range(reps):
            for s in range(E.shape[0]):
                acc += mod.distributed_gap(row, E[s, 0], E[s, 1], E[s, 2])[0]
        return acc

    @njit
    def results(row, cp, E, fk, fp):
        out = np.zeros((E.shape[0], 12)); tmp = np.zeros(2); none = np.zeros(0)
        for s in range(E.shape[0]):
            e = E[s]
            mod.distributed_contact(row, cp, e[0], e[1], e[3], e[4], e[2], e[5], e[6], e[7], e[8], e[9],
                                    row[4] * cp[1], fk, fp.ctypes, 0.0, tmp, out[s], none)
        return out
    return contact, gap, results


def _states(sim, row, bi, bj, T):
    """``(ebx, eby, phi_rel, edx, edy, phd, vrx, vry, wrel, dm)`` at the samples of the last cycle."""
    nb = sim.position.shape[1]
    k0 = int(np.searchsorted(sim.time, sim.time[-1] - T))
    pos = sim.position[k0:].reshape(-1, 3 * nb); vel = sim.velocity[k0:].reshape(-1, 3 * nb)
    out = []
    for q, qd in zip(pos, vel):
        ebx, eby, vrx, vry, phb, phj, wb, wj = bushing_frame(q, qd, bi, bj, row)
        out.append((ebx, eby, phj - phb, vrx + wb * eby, vry - wb * ebx, wj - wb, vrx, vry,
                    wj * row[5] - wb * row[4], 0.05))   # impact speed 0.05 m/s, about the median
    return np.array(out)


def _cpu(f, *args, reps):
    f(*args, 1)
    t = time.thread_time(); f(*args, reps); return time.thread_time() - t


def main(repeat: int = 3, before: Path | None = None) -> int:
    study = load_study(STUDY)
    T = study.wear.cycle_period
    mech = study.mechanism
    print("worn five-bar cycle: making the surfaces (the study's first wear update) ...", flush=True)
    hb, hj = worn_surfaces(study)
    print(f"  bushing {1e6 * hb.max():.2f} um, journal {1e6 * hj.max():.2f} um deep", flush=True)
    settings = dataclasses.replace(study.solver, t_end=study.solver.t_start + 2 * T, output_step=T / 2880)
    rows = {}
    for label, surf in (("unworn", None), ("worn", {0: (hb, hj)})):
        cpu, st = [], None
        for _ in range(repeat):
            c = time.process_time()
            sim = simulate(mech, settings, surfaces=surf)
            cpu.append(time.process_time() - c)
            st = sim.stats
        rows[label] = (statistics.median(cpu) / 2, st, sim)
        print(f"  {label}: {rows[label][0]:.2f} s CPU per cycle (settle + measured cycle / 2), steps "
              f"{st['steps']}, rejected {st['rejected_steps']}, rhs calls {st['rhs_calls']}, events "
              f"{st['events']}; {1e6 * rows[label][0] * 2 / st['rhs_calls']:.2f} us per rhs call", flush=True)
    print(f"worn / unworn cycle: {rows['worn'][0] / rows['unworn'][0]:.2f} (median of {repeat})")
    q0, _ = assemble(mech, 0.0)
    cm = compile_mechanism(mech, angles=q0[2::3], surfaces={0: (hb, hj)})
    model = cm.model()
    row = np.ascontiguousarray(model.clr_f[0]); cp = np.ascontiguousarray(model.cpar[0])
    fp = np.ascontiguousarray(model.fpar[0]); fk = model.fkern[0]
    c = mech.clearance_joints[0]
    E = _states(rows["worn"][2], row, mech.body_index(c.bushing_body), mech.body_index(c.journal_body), T)
    if before is None:
        print("  contact call against earlier kernels: not measured (give --before DIR, an earlier checkout)")
        return 0
    previous = earlier_tree.load_module(before, "workbench.mbs.distributed")
    new, old = _kernels(current), _kernels(previous)
    Rn, Ro = new[2](row, cp, E, fk, fp), old[2](row, cp, E, fk, fp)
    F = np.maximum(np.hypot(Ro[:, 0], Ro[:, 1]), 1.0)
    rel = lambda cols: max(float(np.max(np.abs(Rn[:, k] - Ro[:, k]) / F)) for k in cols)  # noqa: E731
    touch = Ro[:, 0] ** 2 + Ro[:, 1] ** 2 > 0
    print(f"  {len(E)} states of the worn cycle, {np.mean(touch):.0%} in contact; largest difference / force: "
          f"normal resultant {rel((0, 1, 11)):.1e}, friction {rel((3, 4, 5)):.1e}; of the largest overlap in "
          f"contact {np.max(np.abs(Rn[touch, 8] - Ro[touch, 8])):.1e} m; patch counts equal: "
          f"{bool(np.all(Rn[:, 10] == Ro[:, 10]))}", flush=True)
    reps = 10
    rc, rg = [], []
    for _ in range(repeat):
        tn = _cpu(new[0], row, cp, E, fk, fp, reps=reps); to = _cpu(old[0], row, cp, E, fk, fp, reps=reps)
        gn = _cpu(new[1], row, E, reps=reps); go = _cpu(old[1], row, E, reps=reps)
        rc.append(tn / to); rg.append(gn / go)
        per = 1e6 / (reps * len(E))
        print(f"  contact call: current {per * tn:.2f} us, previous {per * to:.2f} us; largest overlap: "
              f"current {per * gn:.2f} us, previous {per * go:.2f} us", flush=True)
    print(f"current / previous contact call: {statistics.median(rc):.3f}, largest-overlap search: "
          f"{statistics.median(rg):.3f} (median of {repeat})")
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs of each measurement (the median is printed)")
    ap.add_argument("--before", type=Path, default=None, metavar="DIR",
                    help="an earlier checkout (git worktree add DIR <commit>) whose kernels are timed beside these")
    args = ap.parse_args()
    raise SystemExit(main(args.repeat, args.before))
