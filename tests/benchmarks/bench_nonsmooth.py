"""Speed benchmark of the event-driven solver.  A script: prints, asserts nothing.

    python tests/benchmarks/bench_nonsmooth.py [--repeat N]

The crank-rocker of Wang, Wang & Zhuang (studies/crank_rocker_friction.toml, c = 0, and
crank_rocker_friction_damped.toml, c = 8 N m s/rad), two crank revolutions at rtol 1e-10, by

* the event-driven solver with set-valued Coulomb friction (workbench.nonsmooth.event_driven),
* the same solver's smooth mode with the regularised law tanh(v / v_eps), v_eps = 1e-4 m/s,
* the compiled fast path (workbench.mbs.solver.simulate) on the same mechanism with the
  regularised law on the joint (friction from the joint's reaction, workbench.mbs.joint_friction):
  the compliant path's cost of the same problem, the ratios' base,
* the fast path with the joint frictionless (the floor: the dynamics without any friction logic),

and the Flores slider-crank (studies/flores_slider_crank.toml, two crank revolutions, revolute
clearance joint) by Moreau-Jean time stepping (workbench.nonsmooth.moreau_jean, h = 10, 5 and
2.5 us) against the compliant fast path at the study's converged tolerances (rtol 1e-11).

Wall times are best-of-N in one process (so the ratios compare like with like on the same shared
machine), with the output sampling (1 ms) included as `simulate` does it.  Ratios are against
the fast path (crank-rocker: with the regularised friction).  tests/benchmarks/bench_dynamics.py
prints the same rows (:func:`crank_rocker_rows`, :func:`flores_rows`).
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from workbench.mbs.solver import simulate as fast_simulate  # noqa: E402
from workbench.nonsmooth.dataset import simulate  # noqa: E402
from workbench.nonsmooth.event_driven import strip_friction  # noqa: E402
from workbench.study.load import load_study  # noqa: E402


def best(fn, repeat):
    out, t = None, float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - t0)
    return t, out


def regularised(mech, v_eps=1e-4):
    """``mech`` with every set-valued joint law replaced by the regularised Coulomb law of the same
    ``mu`` (tanh, ``v_eps`` [m/s]): the compliant fast path's version of the same mechanism."""
    from workbench.nonsmooth.support import is_set_valued
    from workbench.plugins import build_registry
    reg = build_registry()
    joints = tuple(dataclasses.replace(j, friction=reg.create("friction", "coulomb",
                                                              {"mu": j.friction.params.mu, "v_eps": v_eps}))
                   if is_set_valued(getattr(j, "friction", None)) else j for j in mech.joints)
    return dataclasses.replace(mech, joints=joints)


def crank_rocker_rows(name, repeat):
    """``[(solver, wall [s], ratio to the fast path with regularised friction, steps, events)]`` of
    the crank-rocker study ``name`` (two crank revolutions, the study's tolerances)."""
    study = load_study(ROOT / "studies" / name)
    s = study.solver
    plain = strip_friction(study.mechanism)
    reg = regularised(study.mechanism)
    fast_settings = dataclasses.replace(s, path="fast")
    fast_simulate(plain, dataclasses.replace(s, t_end=0.01))          # compile outside the timing
    fast_simulate(reg, dataclasses.replace(s, t_end=0.01))
    simulate(study.mechanism, dataclasses.replace(s, t_end=0.01))
    t_fast, sim = best(lambda: fast_simulate(reg, fast_settings), repeat)
    rows = [("fast path, tanh v_eps=1e-4", t_fast, sim.stats.get("steps"), 0)]
    t, sim = best(lambda: fast_simulate(plain, fast_settings), repeat)
    rows.append(("fast path, frictionless", t, sim.stats.get("steps"), 0))
    t, (sim, run, _) = best(lambda: simulate(study.mechanism, s), repeat)
    rows.append(("event-driven, set-valued", t, run.stats["steps"], run.stats["events"]))
    t, (sim, run, _) = best(lambda: simulate(study.mechanism, s, regularisation=1e-4), repeat)
    rows.append(("event-driven, tanh v_eps=1e-4", t, run.stats["steps"], run.stats["events"]))
    return [(label, t, t / t_fast, steps, events) for label, t, steps, events in rows]


def flores_rows(repeat, steps=(1e-5, 5e-6, 2.5e-6)):
    """The same rows for the Flores slider-crank: the compliant fast path (ratio 1) and Moreau-Jean
    at the steps ``steps`` [s] ('events' = impacts, contact starts)."""
    from workbench.nonsmooth.mj_results import simulate as mj_simulate
    study = load_study(ROOT / "studies" / "flores_slider_crank.toml")
    s = study.solver
    fast_simulate(study.mechanism, dataclasses.replace(s, t_end=1e-4))     # compile outside
    t_fast, sim = best(lambda: fast_simulate(study.mechanism, s), max(1, repeat // 3))
    rows = [("fast path, compliant", t_fast, 1.0, sim.stats.get("steps"), len(sim.impact_time))]
    for h in steps:
        t, sim = best(lambda: mj_simulate(study.mechanism, s, step=h), repeat)
        rows.append((f"Moreau-Jean h={h:g}", t, t / t_fast, sim.stats["steps"], len(sim.impact_time)))
    return rows


def print_rows(name, rows):
    for label, t, ratio, steps, events in rows:
        print(f"{name:<36} {label:<28} {t:9.3f} {ratio:7.2f} {steps!s:>6} {events:>6}")


HEADER = f"{'study':<36} {'solver':<28} {'wall [s]':>9} {'ratio':>7} {'steps':>6} {'events':>6}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(HEADER)
    for name in ("crank_rocker_friction.toml", "crank_rocker_friction_damped.toml"):
        print_rows(name, crank_rocker_rows(name, args.repeat))
    # --- Moreau-Jean on the Flores slider-crank (owner: nonsmooth/moreau_jean): begin
    print_rows("flores_slider_crank.toml", flores_rows(args.repeat))
    # --- Moreau-Jean: end


if __name__ == "__main__":
    main()
