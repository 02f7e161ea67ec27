"""Speed benchmark of the event-driven solver.  A script: prints, asserts nothing.

    python tests/benchmarks/bench_nonsmooth.py [--repeat N]

The crank-rocker of Wang, Wang & Zhuang (studies/crank_rocker_friction.toml, c = 0, and
crank_rocker_friction_damped.toml, c = 8 N m s/rad), two crank revolutions at rtol 1e-10, by

* the event-driven solver with set-valued Coulomb friction (workbench.nonsmooth.event_driven),
* the same solver's smooth mode with the regularised law tanh(v / v_eps), v_eps = 1e-4 m/s,
* the compiled fast path (workbench.mbs.solver.simulate) on the same mechanism with the joint
  frictionless: in this build the compliant path carries no friction on ideal joints, so this is
  the cost of the same mechanism's dynamics without the friction logic (the floor).

and the Flores slider-crank (studies/flores_slider_crank.toml, two crank revolutions, revolute
clearance joint) by Moreau-Jean time stepping (workbench.nonsmooth.moreau_jean, h = 10, 5 and
2.5 us) against the compliant fast path at the study's converged tolerances (rtol 1e-11).

Wall times are best-of-N in one process (so the ratios compare like with like on the same shared
machine), with the output sampling (1 ms) included as `simulate` does it.  Ratios are against
the fast path.
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
from workbench.study import load_study  # noqa: E402


def best(fn, repeat):
    out, t = None, float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - t0)
    return t, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'study':<36} {'solver':<28} {'wall [s]':>9} {'ratio':>7} {'steps':>6} {'events':>6}")
    # (Flores rows: 'events' = impacts, contact starts)
    for name in ("crank_rocker_friction.toml", "crank_rocker_friction_damped.toml"):
        study = load_study(ROOT / "studies" / name)
        s = study.solver
        plain = strip_friction(study.mechanism)
        fast_settings = dataclasses.replace(s, path="fast")
        fast_simulate(plain, dataclasses.replace(s, t_end=0.01))          # compile outside the timing
        simulate(study.mechanism, dataclasses.replace(s, t_end=0.01))
        t_fast, sim = best(lambda: fast_simulate(plain, fast_settings), args.repeat)
        rows = [("fast path, frictionless joint", t_fast, sim.stats.get("steps"), 0)]
        t, (sim, run, _) = best(lambda: simulate(study.mechanism, s), args.repeat)
        rows.append(("event-driven, set-valued", t, run.stats["steps"], run.stats["events"]))
        t, (sim, run, _) = best(lambda: simulate(study.mechanism, s, regularisation=1e-4), args.repeat)
        rows.append(("event-driven, tanh v_eps=1e-4", t, run.stats["steps"], run.stats["events"]))
        for label, t, steps, events in rows:
            print(f"{name:<36} {label:<28} {t:9.3f} {t / t_fast:7.1f} {steps!s:>6} {events:>6}")
    # --- Moreau-Jean on the Flores slider-crank (owner: nonsmooth/moreau_jean): begin
    from workbench.nonsmooth.mj_results import simulate as mj_simulate
    name = "flores_slider_crank.toml"
    study = load_study(ROOT / "studies" / name)
    s = study.solver
    fast_simulate(study.mechanism, dataclasses.replace(s, t_end=1e-4))     # compile outside
    t_fast, sim = best(lambda: fast_simulate(study.mechanism, s), max(1, args.repeat // 3))
    print(f"{name:<36} {'fast path, compliant':<28} {t_fast:9.3f} {1.0:7.1f} "
          f"{sim.stats.get('steps')!s:>6} {len(sim.impact_time):>6}")
    for h in (1e-5, 5e-6, 2.5e-6):
        t, sim = best(lambda: mj_simulate(study.mechanism, s, step=h), args.repeat)
        print(f"{name:<36} {f'Moreau-Jean h={h:g}':<28} {t:9.3f} {t / t_fast:7.3f} "
              f"{sim.stats['steps']!s:>6} {len(sim.impact_time):>6}")
    # --- Moreau-Jean: end


if __name__ == "__main__":
    main()
