"""Speed benchmark of the dynamics core.  A script: prints, asserts nothing.

    python tests/benchmarks/bench_dynamics.py [--quick]

Two crank revolutions of the Flores study (studies/flores_slider_crank.toml), timed
(a) at rtol 1e-6 and (b) at the loosest tolerance whose first-impact peak force is within 0.05 %
of a converged reference (rtol 1e-12), for the compiled fast path, the scipy reference path and
Exudyn (tests/reference/exudyn_slider_crank.py: the standard redundant-coordinate model at the
step that gives 0.05 %, and the fastest Exudyn set-up found).  All in one run, so the ratios
compare like with like on the same (shared, noisy) machine; wall times are best-of-N.
Cold start (numba compiles everything into an empty cache) and warm start (a new process
with the cache filled) are measured in subprocesses.  Also: what locating each impact's peak on
the dense output costs, and what running the integrator in a worker thread (Ctrl-C, --max-time)
costs, as CPU-time ratios on the study's 2-revolution run.

The comparison with the minimal-coordinate model is printed for both compiled paths: the generic
one (the default) and the one specialised to the mechanism's structure (``[solver] specialise``,
:mod:`workbench.mbs.codegen`); ``--per-call`` prints that comparison alone.

On the shared 2-core machine the ratios move by 10-25 % from run to run (the load changes between
the timed pieces of one run): quote the median of 3 runs, and compare code states measured back to
back.
"""
from __future__ import annotations

import argparse
import inspect
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from reference import exudyn_slider_crank as exu_ref  # noqa: E402
from workbench.mbs.analysis import impact  # noqa: E402
from workbench.mbs.clearance import N_CREC  # noqa: E402
from workbench.mbs.equations import rhs, workspace  # noqa: E402
from workbench.mbs.solver import simulate  # noqa: E402
from workbench.plugins import build_registry  # noqa: E402
from workbench.study.load import load_study  # noqa: E402

STUDY = ROOT / "studies" / "flores_slider_crank.toml"
FIRST = 4e-4  # s: window holding the first impact
TARGET = 5e-4  # 0.05 % on the first-impact peak


def best_of(fn, n):
    best, out = np.inf, None
    for _ in range(n):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def first_peak(mech, settings, **kw):
    # the fast path's impact table locates the peak on the dense output; the reference path has
    # no table, so it samples every 1 ns (analysis.impact falls back to the samples)
    step = 1e-6 if kw.get("path", "fast") == "fast" else 1e-9
    s = replace(settings, t_end=FIRST, output_step=step, **kw)
    return impact(simulate(mech, s)).peak_force


def loosest_tolerance(mech, settings, path, ref):
    for rtol in (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10):
        err = abs(first_peak(mech, settings, rtol=rtol, atol=rtol * 1e-3, path=path) - ref) / ref
        if err < TARGET:
            return rtol, err
    return 1e-10, err


SNIPPET = """
import time, sys
t0 = time.perf_counter()
from workbench.plugins import build_registry
from workbench.study.load import load_study
from workbench.mbs.solver import simulate
st = load_study(sys.argv[1], build_registry())
t1 = time.perf_counter()
simulate(st.mechanism, st.solver)
print(t1 - t0, time.perf_counter() - t1)
"""


def start_times():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = []
        for _ in range(2):
            r = subprocess.run([sys.executable, "-c", SNIPPET, str(STUDY)], env=env, capture_output=True,
                               text=True, check=True)
            out.append([float(x) for x in r.stdout.split()])
    return out  # [[import, first run] cold, [import, first run] warm]


def cpu_best_of(fn, n):
    """Smallest process CPU time of ``n`` calls (robust on a shared machine; the integrator's
    worker thread is counted too)."""
    best = np.inf
    for _ in range(n):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def overheads(mech, base, reps):
    """CPU time of the 2-revolution run with / without the impact table's peak location, and with
    / without the worker thread that answers Ctrl-C and time limits (alternated, best of N)."""
    import workbench.mbs.solver as solver_mod
    on, off = base, replace(base, impact_peaks=False)
    t = {"table": [], "no table": [], "thread": [], "no thread": []}
    for _ in range(reps):
        t["table"].append(cpu_best_of(lambda: simulate(mech, on), 1))
        t["no table"].append(cpu_best_of(lambda: simulate(mech, off), 1))
        solver_mod.USE_WORKER_THREAD = False
        t["no thread"].append(cpu_best_of(lambda: simulate(mech, on), 1))
        solver_mod.USE_WORKER_THREAD = True
        t["thread"].append(cpu_best_of(lambda: simulate(mech, on), 1))
    return {k: min(v) for k, v in t.items()}


def against_minimal(mech, base, reps, specialise=False):
    """CPU time of the 2-revolution run against the hand-specialised minimal-coordinate model of
    the same mechanism (tests/reference/minimal_slider_crank.py: two degrees of freedom, its own
    Dormand-Prince), at converged tolerances: total and per right-hand-side call; ``specialise``:
    the workbench's path specialised to the structure."""
    from reference import minimal_slider_crank as ms
    rows = []
    for rtol in (1e-10, base.rtol):
        s = replace(base, rtol=rtol, atol=rtol * 1e-3, specialise=specialise)
        bw = bm = np.inf
        for _ in range(reps):
            t0 = time.process_time(); sim = simulate(mech, s); bw = min(bw, time.process_time() - t0)
            t0 = time.process_time(); r = ms.simulate(s.t_end, output_step=s.output_step, rtol=rtol,
                                                      atol=rtol * 1e-3)
            bm = min(bm, time.process_time() - t0)
        rows.append((rtol, bw, sim.stats["rhs_calls"], bm, r["rhs_calls"]))
    return rows


@njit
def _wb_rhs_loop(times, Y, DM, reps, alpha, beta, model):
    """The workbench right-hand side alone, at the states ``Y`` (impact speeds ``DM``), ``reps`` times."""
    ny = Y.shape[1]
    n = model.mass.shape[0]
    ydot = np.zeros(ny); lam = np.zeros(max(model.n_rows, 1))
    rec = np.zeros((max(model.clr_i.shape[0], 1), N_CREC))
    ws = workspace(model.mass, model.n_rows, ny - 2 * n - 4)
    acc = 0.0
    for _ in range(reps):
        for k in range(times.shape[0]):
            rhs(times[k], Y[k], DM[k], ydot, lam, rec, ws, alpha, beta, model)
            acc += ydot[n]
    return acc


@njit
def _min_rhs_loop(times, S, reps, par, rhs_min):
    """The minimal model's right-hand side alone, at the states ``S``, ``reps`` times."""
    sd = np.zeros(4); work = np.zeros(8)
    acc = 0.0
    for _ in range(reps):
        for k in range(times.shape[0]):
            rhs_min(times[k], S[k], 1.0, par, sd, work)
            acc += sd[2]
    return acc


def _specialised_rhs_loop(cm):
    """:func:`_wb_rhs_loop` compiled against the specialised right-hand side of ``cm``'s structure
    (the generated module's ``rhs``, inlined into a loop compiled here, uncached)."""
    from workbench.mbs import codegen_module
    mod, why = codegen_module.load(cm)
    if mod is None:
        raise RuntimeError(f"the benchmark mechanism cannot be specialised: {why}")
    g = dict(vars(mod))
    g.update(np=np, N_CREC=N_CREC, workspace=workspace)
    # the same loop's source, its global ``rhs`` now the specialised one
    src = "\n".join(line for line in inspect.getsource(_wb_rhs_loop.py_func).splitlines()
                    if not line.startswith("@"))
    exec(src, g)
    return njit(g["_wb_rhs_loop"])


def rhs_alone(mech, base, reps, specialise=False):
    """CPU time per right-hand-side call without the integrator: each model's right-hand side in
    a compiled loop over the sampled states of its own 2-revolution run (the minimal model's
    velocities by finite differences of its samples; contact where the run had it).  Splits the
    per-call ratio of :func:`against_minimal` into the right-hand side and what the integrator
    adds around it."""
    from reference import minimal_slider_crank as ms
    from workbench.mbs.compiled import compile_mechanism
    from workbench.mbs.integrator import OPEN_MODE
    from workbench.mbs.solver import assemble
    s = replace(base, rtol=1e-10, atol=1e-13)
    sim = simulate(mech, s)
    q0, _ = assemble(mech, s.t_start)
    cm = compile_mechanism(mech, angles=q0[2::3])
    nt = len(sim.time)
    Y = np.zeros((nt, 6 * cm.nb + cm.n_points + 4))
    Y[:, :3 * cm.nb] = sim.position.reshape(nt, -1)
    Y[:, 3 * cm.nb:6 * cm.nb] = sim.velocity.reshape(nt, -1)
    DM = np.full((nt, max(cm.n_points, 1)), OPEN_MODE)
    DM[sim.penetration.max(axis=1) > 0.0, :] = 1.0
    r = ms.simulate(s.t_end, output_step=s.output_step, rtol=1e-10, atol=1e-13)
    S = np.column_stack([r["phi"], r["x"], np.gradient(r["phi"], r["time"]), np.gradient(r["x"], r["time"])])
    model = cm.model()
    args_wb = (sim.time, Y, DM)
    loop = _specialised_rhs_loop(cm) if specialise else _wb_rhs_loop
    loop(*args_wb, 1, s.baumgarte_alpha, s.baumgarte_beta, model)
    _min_rhs_loop(r["time"], S, 1, ms.PAR, ms.rhs)
    inner = 20
    tw = cpu_best_of(lambda: loop(*args_wb, inner, s.baumgarte_alpha, s.baumgarte_beta, model), reps)
    tm = cpu_best_of(lambda: _min_rhs_loop(r["time"], S, inner, ms.PAR, ms.rhs), reps)
    return tw / (inner * nt), tm / (inner * len(r["time"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats, skip the cold start")
    ap.add_argument("--per-call", action="store_true",
                    help="only the per-call comparison with the minimal-coordinate model")
    args = ap.parse_args()
    reps = 2 if args.quick else 5
    reg = build_registry()
    study = load_study(STUDY, reg)
    mech, base = study.mechanism, study.solver
    simulate(mech, replace(base, t_end=1e-4))  # compile / load the cache

    simulate(mech, replace(base, t_end=1e-4, specialise=True))  # generate / compile / load it
    print("workbench vs a hand-specialised minimal-coordinate model (CPU time, best of N):")
    for label, spec in (("generic (default)", False), ("specialised (specialise = true)", True)):
        print(f" {label}:")
        for rtol, bw, nw, bm, nm in against_minimal(mech, base, reps, specialise=spec):
            print(f"  rtol {rtol:g}: workbench {bw:.4f} s ({nw} rhs calls, {bw / nw * 1e9:.0f} ns/call), "
                  f"minimal {bm:.4f} s ({nm} calls, {bm / nm * 1e9:.0f} ns/call): total {bw / bm:.1f}x, "
                  f"per call {(bw / nw) / (bm / nm):.1f}x")
        rw, rm = rhs_alone(mech, base, reps, specialise=spec)
        print(f"  right-hand side alone (compiled loop over the run's states, no integrator): workbench "
              f"{rw * 1e9:.0f} ns/call, minimal {rm * 1e9:.0f} ns/call: {rw / rm:.1f}x")
    if args.per_call:
        return
    ref = first_peak(mech, base, rtol=1e-12, atol=1e-15)
    print(f"reference first-impact peak (fast path, rtol 1e-12): {ref:.6f} N")
    tol_fast, e_fast = loosest_tolerance(mech, base, "fast", ref)
    tol_scipy, e_scipy = loosest_tolerance(mech, base, "scipy", ref)
    print(f"(b) loosest rtol within 0.05 %: fast {tol_fast:g} (error {e_fast:.1e}), "
          f"scipy DOP853 {tol_scipy:g} (error {e_scipy:.1e})")

    ov = overheads(mech, base, 3 if args.quick else 10)
    print(f"impact table (peaks on the dense output): {ov['table']:.4f} s CPU vs {ov['no table']:.4f} s "
          f"without: ratio {ov['table'] / ov['no table']:.3f}")
    print(f"worker thread (Ctrl-C, --max-time): {ov['thread']:.4f} s CPU vs {ov['no thread']:.4f} s in the "
          f"calling thread: ratio {ov['thread'] / ov['no thread']:.3f}")

    rows = []
    for label, rtol_f, rtol_s in (("(a) rtol 1e-6", 1e-6, 1e-6), ("(b) 0.05 % first impact", tol_fast, tol_scipy)):
        tf, sf = best_of(lambda: simulate(mech, replace(base, rtol=rtol_f, atol=rtol_f * 1e-3)), reps)
        ts, _ = best_of(lambda: simulate(mech, replace(base, rtol=rtol_s, atol=rtol_s * 1e-3, path="scipy")),
                        1 if args.quick else 2)
        rows.append((label, tf, ts, sf.stats))

    t_end = base.t_end
    mu = 0.01  # the study's Ambrosio c_f; Exudyn: Coulomb with a linear zone up to v1 = 1e-2 m/s
    exu_times = {}
    for name, kw in exu_ref.BENCHMARK_CONFIGS.items():
        t, res = best_of(lambda: exu_ref.simulate_exudyn(t_end=t_end, friction=mu, **kw), 2 if args.quick else 3)
        exu_times[name] = (t, res.get("wall_time", float("nan")), res["first_impact"]["peak_force"])

    print()
    print(f"{'case':28s} {'fast [s]':>10s} {'scipy [s]':>10s} {'scipy/fast':>11s}")
    for label, tf, ts, st in rows:
        print(f"{label:28s} {tf:10.4f} {ts:10.3f} {ts / tf:11.1f}   ({st['steps']} steps, {st['rhs_calls']} rhs)")
    tf_b = rows[1][1]
    print()
    print(f"{'Exudyn configuration (same accuracy as (b))':46s} {'wall [s]':>9s} {'solve [s]':>9s} "
          f"{'peak err':>9s} {'Exudyn/fast(b)':>15s}")
    for name, (t, solve, peak) in exu_times.items():
        print(f"{name:46s} {t:9.3f} {solve:9.3f} {abs(peak - ref) / ref:9.1e} {t / tf_b:15.1f}")
    if not args.quick:
        (ci, cr), (wi, wr) = start_times()
        print()
        print(f"cold start (empty numba cache): import {ci:.2f} s + first run {cr:.2f} s = {ci + cr:.2f} s")
        print(f"warm start (cache filled, new process): import {wi:.2f} s + first run {wr:.2f} s = {wi + wr:.2f} s")



# --- non-smooth rows (owner: nonsmooth): begin
def nonsmooth_lines(quick: bool) -> None:
    """The crank-rocker (two crank revolutions, c = 0 and c = 8 N m s/rad: event-driven set-valued
    and regularised, against the compiled fast path with the regularised joint friction) and the
    Flores slider-crank by Moreau-Jean (against the compliant fast path), as wall-time ratios in
    this process (tests/benchmarks/bench_nonsmooth.py's functions)."""
    sys.path.insert(0, str(ROOT / "tests" / "benchmarks"))
    import bench_nonsmooth as bn
    repeat = 1 if quick else 3
    print()
    print("non-smooth solvers against the compiled fast path on the same mechanism (wall, best of "
          f"{repeat}):")
    print(bn.HEADER)
    for name in ("crank_rocker_friction.toml", "crank_rocker_friction_damped.toml"):
        bn.print_rows(name, bn.crank_rocker_rows(name, repeat))
    bn.print_rows("flores_slider_crank.toml", bn.flores_rows(repeat, steps=(1e-5,) if quick else (1e-5, 5e-6)))
# --- non-smooth rows: end


if __name__ == "__main__":
    main()
    nonsmooth_lines("--quick" in sys.argv)  # non-smooth rows (owner: nonsmooth)


# ---- flexible links (begin): the flexible slider-crank at matched accuracy ----------------------
# Wang, Chen, Ma & Sun (2016) with a 6-element ANCF rod, 2 revolutions, E = 207 and 6 GPa, the
# studies' protocol (5 % damping of the rod's axial mode): the workbench's generalised-alpha
# against Exudyn's on the same model at equal error of the last revolution's crank-moment peak,
# and the rigid mechanism (tests/benchmarks/bench_flex.py, which runs the same on its own).
if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_flex  # noqa: E402

    print("\n== flexible slider-crank (bench_flex.py) ==")
    bench_flex.run(quick="--quick" in sys.argv)
# ---- flexible links (end) -----------------------------------------------------------------------
