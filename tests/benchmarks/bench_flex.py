"""Speed benchmark of the flexible-link solver at matched accuracy.  A script: prints, asserts nothing.

    python tests/benchmarks/bench_flex.py [--quick] [--repeat N]

The flexible slider-crank of Wang, Chen, Ma & Sun (2016) with ideal joints (6 ANCF cable elements;
tests/reference/exudyn_flexible_slider_crank.py), two crank revolutions at E = 207 and 6 GPa, with
the flexible studies' protocol (studies/flexible_slider_crank_*.toml): the rod starts straight
with the rigid mechanism's velocities and has Kelvin-Voigt damping giving its axial mode 5 %
damping, and the figure of merit is what the studies report, the crank-moment peak over the LAST
revolution (sampled every 10 us).  Undamped, the stiff rod's axial mode (6.8 kHz at 207 GPa) rings
for ever and neither code converges that peak below about 1 %; damped, both do, so "matched
accuracy" is well defined:

* references: each code converged on its own at a constant step (Exudyn's generalised-alpha at
  h = 0.2 us, the workbench's at h = 0.25 us, rtol 1e-8 for its Newton tolerance; at 0.5 us it
  moves by 1e-7 at 207 GPa; an error-controlled run at rtol 1e-9 still carries about 6e-6 of
  step-sequence noise in the sampled moment, so it is no reference); the two converged peaks differ
  by the two elements' formulations (printed: Exudyn's curvature is ``r' x r'' / |r'|^2``, the
  workbench's ``/ |r'|^3`` of Gerstmayr & Irschik (2008); the difference is of the order of the
  axial strain);
* a work-precision table: Exudyn at constant steps h = 10 ... 1 us; the workbench error-controlled
  at rtol 1e-4 ... 1e-8 (atol = rtol x 1 mm; the studies' mode) and at constant steps h = 2.5, 2
  and 1 us (``max_step = first_step = h``, rtol 1e-7); wall time (median of ``--repeat`` runs) and the
  peak's error against the code's own reference;
* the comparison at equal error: for each workbench run, Exudyn's time at the same error,
  interpolated in log-log on Exudyn's work-precision front (its runs that no cheaper run beats),
  and the ratio workbench / Exudyn (below 1: the workbench is faster).  Errors outside the range
  of Exudyn's runs are not compared (no extrapolation);
* the rigid mechanism on the explicit fast path (the rod a rigid body of the same mass and
  inertia), for scale.

All in one process, so the ratios compare like with like on the same (shared, noisy) machine; the
first workbench run compiles (not timed: a warm-up run precedes).

Measured (2 revolutions, shared 2-core machine under load, median of 3; compiled step loop):
see docs/performance.md (flexible links) for the numbers of the last run.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "flex"))
sys.path.insert(0, str(ROOT / "tests" / "reference"))

from exudyn_flexible_slider_crank import FlexibleSliderCrank, simulate as exudyn_run  # noqa: E402
from test_flexible_mechanism import slider_crank  # noqa: E402
from workbench.flex.solver import simulate  # noqa: E402
from workbench.mbs.mechanism import Body  # noqa: E402
from workbench.mbs.solution import SolverSettings  # noqa: E402
from workbench.mbs.solver import simulate as rigid_simulate  # noqa: E402

REVS = 2
T_END = REVS * 60.0 / 5000.0          # s
SAMPLE = 1e-5                         # s, the studies' output step
EXU_STEPS = (1e-5, 5e-6, 2.5e-6, 2e-6, 1e-6)      # s, each divides SAMPLE
WB_RTOLS = (1e-4, 1e-5, 1e-6, 1e-7, 1e-8)
#: the workbench at constant steps [s]: max_step = first_step = h, rtol FIXED_RTOL (which sets the
#: Newton tolerance; at these steps the step control, which at rtol 1e-7 asks for about 3 us on
#: average, rejects a step or two per run); the error-controlled runs at rtol 1e-4 and 1e-5 take
#: the constant step 10 us (the output step, their largest)
WB_STEPS = (2.5e-6, 2e-6, 1e-6)
FIXED_RTOL = 1e-7
EXU_REF, WB_REF = 2e-7, 2.5e-7        # s: the references' constant steps (workbench: rtol 1e-8)


def axial_damping(E: float, zeta: float = 0.05) -> float:
    """Kelvin-Voigt time constant [s] giving the rod's axial mode (the slider on its end) the
    damping ratio ``zeta``: ``beta = 2 zeta / omega``, ``omega = sqrt((E A / L) / (m_slider +
    m_rod / 3))`` (the studies' estimate)."""
    d = FlexibleSliderCrank(rod_young=E)
    omega = math.sqrt(E * d.rod_area / d.rod_length / (d.slider_mass + d.rod_mass / 3.0))
    return 2.0 * zeta / omega


def last_peak(t, M) -> float:
    """Largest |crank moment| [N m] over the last revolution."""
    return float(np.abs(M[t >= T_END * (REVS - 1) / REVS - 1e-9]).max())


def run_exudyn(E, h):
    out = exudyn_run(FlexibleSliderCrank(rod_young=E, rod_damping=axial_damping(E)), step_size=h, t_end=T_END,
                     output_every=int(round(SAMPLE / h)))
    return last_peak(out["time"], out["driver_torque"])


def run_workbench(E, rtol, h=0.0):
    """The workbench's peak [N m] and run statistics: error-controlled at ``rtol`` (``h`` 0), or at
    the constant step ``h`` [s]."""
    sim = simulate(slider_crank(E, axial_damping(E)),
                   SolverSettings(t_end=T_END, output_step=SAMPLE, rtol=rtol, atol=rtol * 1e-3, max_step=h,
                                  first_step=h if h else 1e-6))
    return last_peak(sim.time, sim.driver_load[:, 0]), sim.stats


def front(runs):
    """The work-precision front: ``(time, error)`` of the runs no cheaper run beats in error,
    ordered by time."""
    out = []
    for t, e in sorted(runs):
        if e > 0 and (not out or e < out[-1][1]):
            out.append((t, e))
    return out


def time_at_error(fr, err):
    """Time [s] at the error ``err`` on the front ``fr``, interpolated in log-log; ``None`` outside
    the front's range."""
    for (t0, e0), (t1, e1) in zip(fr, fr[1:]):
        if e1 <= err <= e0:
            w = math.log(err / e0) / math.log(e1 / e0) if e1 != e0 else 0.0
            return math.exp(math.log(t0) + w * math.log(t1 / t0))
    if fr and err == fr[0][1]:
        return fr[0][0]
    return None


def run(quick: bool = False, repeat: int = 3):
    """Print the work-precision tables and the ratios at equal error (module docstring); returns the
    compared rows ``(E [Pa], workbench run, error, workbench time [s], Exudyn time at that error [s])``."""
    repeat = 1 if quick else max(1, repeat)
    exu_steps = EXU_STEPS[:3] if quick else EXU_STEPS
    wb_rtols = WB_RTOLS[:3] if quick else WB_RTOLS
    wb_steps = WB_STEPS[:1] if quick else WB_STEPS

    def timed(run):
        walls, out = [], None
        for _ in range(repeat):
            t0 = time.perf_counter()
            out = run()
            walls.append(time.perf_counter() - t0)
        return out, float(np.median(walls))

    simulate(slider_crank(207e9, 1e-6), SolverSettings(t_end=2e-4, output_step=1e-5))   # compile
    summary = []
    for E in (207e9, 6e9):
        beta = axial_damping(E)
        print(f"\n== E = {E / 1e9:g} GPa, {REVS} revolutions, Kelvin-Voigt {beta:.3g} s (5 % on the axial mode), "
              f"ideal joints; crank-moment peak over the last revolution ==")
        M_exu = run_exudyn(E, EXU_REF)
        t0 = time.perf_counter()
        M_wb, _ = run_workbench(E, 1e-8, WB_REF)
        t_ref = time.perf_counter() - t0
        print(f"references: Exudyn h = {EXU_REF * 1e6:g} us {M_exu:.6f} N m; workbench h = {WB_REF * 1e6:g} us "
              f"(rtol 1e-8) {M_wb:.6f} N m ({t_ref:.2f} s); the two formulations differ by "
              f"{abs(M_wb - M_exu) / M_exu:.2e}")
        exu = []
        for h in exu_steps:
            M, wall = timed(lambda: run_exudyn(E, h))
            err = abs(M - M_exu) / M_exu
            exu.append((wall, err))
            print(f"  Exudyn    h = {h * 1e6:5.3g} us   : {wall:7.3f} s, peak {M:.5f} N m, error {err:.2e}")
        fr = front(exu)
        runs = [(f"rtol {rtol:5.0e}     ", rtol, 0.0) for rtol in wb_rtols] + \
            [(f"h = {h * 1e6:5.3g} us  ", FIXED_RTOL, h) for h in wb_steps]
        for label, rtol, h in runs:
            (M, st), wall = timed(lambda: run_workbench(E, rtol, h))
            err = abs(M - M_wb) / M_wb
            t_e = time_at_error(fr, err)
            cmp = f"Exudyn at equal error {t_e:.3f} s: ratio {wall / t_e:.2f}" if t_e else \
                "outside Exudyn's range (not compared)"
            print(f"  workbench {label}: {wall:7.3f} s, peak {M:.5f} N m, error {err:.2e} "
                  f"({st['steps']} steps, {st['rejected_steps']} rejected, {st['factorizations']} LU); {cmp}")
            if t_e:
                summary.append((E, label.strip(), err, wall, t_e))
        m = slider_crank(E)
        rod = Body("rod", 0.21, 0.21 * 0.12 ** 2 / 12.0, (0.11, 0.0), 0.0, {"A": (-0.06, 0.0), "B": (0.06, 0.0)})
        rigid = dataclasses.replace(m, bodies=m.bodies + (rod,), beams=())
        rigid_simulate(rigid, SolverSettings(t_end=2e-4))
        _, wall = timed(lambda: rigid_simulate(rigid, SolverSettings(t_end=T_END)))
        print(f"  rigid mechanism, explicit fast path (rtol 1e-11): {wall:.3f} s")
    print("\n== at equal crank-moment-peak error: workbench time / Exudyn time (below 1: the workbench is faster) ==")
    for E, label, err, wall, t_e in summary:
        print(f"  E = {E / 1e9:3g} GPa, workbench {label:12s} error {err:.1e}: {wall:.3f} s vs {t_e:.3f} s = "
              f"{wall / t_e:.2f}")
    return summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer steps and tolerances, one repetition")
    ap.add_argument("--repeat", type=int, default=3, help="timed repetitions (median reported)")
    args = ap.parse_args()
    run(args.quick, args.repeat)


if __name__ == "__main__":
    main()
