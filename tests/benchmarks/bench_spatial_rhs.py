"""Benchmark: the cost of one right-hand side of the spatial engine against a hand-written
minimal-coordinate right-hand side of the same mechanism, on the same states, in one process.
A script: prints, asserts nothing.

    python tests/benchmarks/bench_spatial_rhs.py [--reps N]

Mechanisms:

* the Qi, Luo & Huang pendulum, frictionless (``tests/spatial/pendulum.py``: one bar on a
  cylindrical joint, 78 kg, 1 m): the spatial model has 13 states and 4 constraint rows; its
  minimal-coordinate model (:func:`minimal_pendulum_rhs`, written here from Newton-Euler about the
  shaft) has the bar angle ``phi`` and the slide ``s``: ``J_P phi'' = -m g l cos(phi)``,
  ``s'' = 0``;
* the same pendulum on the generated minimal-coordinate path (``[solver] formulation =
  "minimal"``, :mod:`workbench.spatial.minimal`): its generated ``rhs`` on the same states in its
  own coordinates (the same ``phi, s, phi', s'``, plus the two energy quadratures), called from the
  same kind of compiled loop; and the first-compile cost of the generation per mechanism (sympy's
  derivation, the source with ``cse``, numba's compile of the module without the disk cache) for
  the pendulum and for a double pendulum with a universal knee (3 coordinates);
* the ideal spatial slider-crank (``tests/spatial/slider_crank.py``, R-U-S-P, the crank driven):
  the spatial side only.  The driven crank leaves no degree of freedom, so a minimal-coordinate
  right-hand side has nothing to integrate (the crank moment is an output of inverse dynamics):
  there is no like-for-like minimal model to put beside it.

States: 1001 samples of a 1 s run (the pendulum) and 401 of two crank revolutions (the
slider-crank), integrated here with ``solve_ivp`` on the compiled right-hand side; the minimal
model gets the same states in its own coordinates (``phi = atan2(y, x)`` of the centre of mass,
``s = z``, ``phi' = omega_z``, ``s' = v_z``).

Timed, CPU time per call, best of ``--reps``:

* **compiled loop**: each right-hand side called from one compiled loop over the states (what
  the engine's compiled DOP853 loop pays: no Python in between).  For the spatial model two
  entries: the model's right-hand side alone (:func:`workbench.spatial.fast_rhs.rhs` with its
  workspace) and the loop's whole derivative (:func:`workbench.spatial.integrate.deriv`: the
  friction table, the clearance forces' slot and the right-hand side);
* **from Python**: one call per state from a Python loop (numba's dispatch included: the figure
  the earlier docs quoted).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "spatial"))
sys.path.insert(0, str(HERE.parent))


@njit(cache=False)
def minimal_pendulum_rhs(t, x, par, xd):
    """``xd = dx/dt`` of the frictionless pendulum in minimal coordinates ``x = (phi, s, phi',
    s')``; ``par = (m g l / J_P,)`` [1/s^2]."""
    xd[0] = x[2]
    xd[1] = x[3]
    xd[2] = -par[0] * np.cos(x[0])
    xd[3] = 0.0


@njit(cache=False)
def _minimal_loop(times, X, par, reps):
    xd = np.zeros(4)
    acc = 0.0
    for _ in range(reps):
        for k in range(times.shape[0]):
            minimal_pendulum_rhs(times[k], X[k], par, xd)
            acc += xd[2]
    return acc


def _spatial_setup(mech, t_end, n_out):
    """The model, its packed arrays, the loop's law arguments and ``n_out`` states of a run."""
    from scipy.integrate import solve_ivp

    from workbench.mbs.solution import SolverSettings
    from workbench.spatial import integrate as it
    from workbench.spatial.fast_rhs import of
    from workbench.spatial.kernels import pack
    from workbench.spatial.model import Model
    from workbench.spatial.solver import initial_state
    model = Model(mech)
    args = pack(model)
    s = SolverSettings(t_end=t_end)
    alpha, beta = s.baumgarte_alpha, s.baumgarte_beta
    y0 = initial_state(model, 0.0)
    laws = it.load(model, None)
    ws = of(args)
    out = np.empty(len(y0))
    dm = np.zeros(1)

    def f(t, y):
        y = np.ascontiguousarray(y)
        st = _call_deriv(it, t, y, dm, alpha, beta, args, laws, ws, out)
        assert st == 0
        return out.copy()
    times = np.linspace(0.0, t_end, n_out)
    sol = solve_ivp(f, (0.0, t_end), y0, method="DOP853", rtol=1e-10, atol=1e-12, t_eval=times)
    return model, args, laws, ws, alpha, beta, times, np.ascontiguousarray(sol.y.T)


def _call_deriv(it, t, y, dm, alpha, beta, args, laws, ws, out):
    cargs, jargs, nq, cfs, ffs = laws
    return it.deriv(t, y, dm, alpha, beta, args, cargs, jargs, nq, cfs, ffs, out, ws)


def _loops():
    """The compiled loops over the states (built here, after the engine's imports)."""
    from workbench.spatial import fast_rhs as fr
    from workbench.spatial import integrate as it

    @njit
    def rhs_loop(times, Y, alpha, beta, a, ftab, qx, reps, ws):
        yd = np.zeros(Y.shape[1])
        acc = 0.0
        for _ in range(reps):
            for k in range(times.shape[0]):
                fr.rhs(times[k], Y[k], alpha, beta, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
                       a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], ftab, qx, yd, ws)
                acc += yd[7]
        return acc

    @njit
    def deriv_loop(times, Y, alpha, beta, a, cargs, jargs, nq, cfs, ffs, reps, ws):
        out = np.zeros(Y.shape[1])
        dm = np.zeros(1)
        acc = 0.0
        for _ in range(reps):
            for k in range(times.shape[0]):
                it.deriv(times[k], Y[k], dm, alpha, beta, a, cargs, jargs, nq, cfs, ffs, out, ws)
                acc += out[7]
        return acc
    return rhs_loop, deriv_loop


def _call_gen(mod, t, x):
    xd = np.empty_like(x)
    mod.rhs(t, x, xd)
    return xd


def _generated_loop(rhs):
    """A compiled loop over the states calling the generated right-hand side ``rhs``."""
    @njit
    def loop(times, X, reps):
        xd = np.zeros(X.shape[1])
        acc = 0.0
        for _ in range(reps):
            for k in range(times.shape[0]):
                rhs(times[k], X[k], xd)
                acc += xd[2]
        return acc
    return loop


def generation_cost(mech):
    """Wall time [s] of the minimal path's generation for ``mech`` from scratch: sympy's derivation
    (Kane's method, simplification), the source (``cse``), and numba's compile of its two functions
    (without the disk cache, on a copy of the text)."""
    from workbench.spatial.minimal import codegen, tree
    from workbench.spatial.minimal.derive import derive
    from workbench.spatial.model import Model
    from workbench.spatial.solver import initial_state
    model = Model(mech)
    y0 = initial_state(model, 0.0)
    R, A, _, _ = model.kinematics(y0)
    edges = tree.build(model, R, A)
    t0 = time.perf_counter()
    d = derive(model, edges)
    t1 = time.perf_counter()
    text = codegen.source(d, "benchmark")
    t2 = time.perf_counter()
    text = text.replace("from workbench.jit import njit", "from numba import njit").replace(
        "@njit(cache=True)", "@njit(cache=False)")
    ns = {}
    exec(compile(text, "<generated>", "exec"), ns)
    n = ns["N_COORD"]
    x = np.zeros(2 * n + 2)
    ns["rhs"](0.0, x, np.zeros_like(x))
    ns["kinematics"](x, np.zeros((ns["N_BODY"], 18)))
    t3 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2, n


def cpu_best(fn, reps):
    best = np.inf
    for _ in range(reps):
        t0 = time.process_time(); fn(); best = min(best, time.process_time() - t0)
    return best


def spatial_costs(setup, reps, inner):
    """Per-call CPU time [s]: the model's right-hand side and the loop's derivative in a compiled
    loop, and the right-hand side called from Python."""
    from workbench.spatial import fast_rhs as fr
    model, args, laws, ws, alpha, beta, times, Y = setup
    rhs_loop, deriv_loop = _loops()
    ftab = np.zeros((args[4].shape[0], 2)); qx = np.zeros(6 * args[0]); yd = np.zeros(Y.shape[1])
    cargs, jargs, nq, cfs, ffs = laws
    rhs_loop(times, Y, alpha, beta, args, ftab, qx, 1, ws)
    deriv_loop(times, Y, alpha, beta, args, cargs, jargs, nq, cfs, ffs, 1, ws)
    n = inner * len(times)
    t_rhs = cpu_best(lambda: rhs_loop(times, Y, alpha, beta, args, ftab, qx, inner, ws), reps) / n
    t_der = cpu_best(lambda: deriv_loop(times, Y, alpha, beta, args, cargs, jargs, nq, cfs, ffs, inner, ws),
                     reps) / n
    f = fr.rhs.dispatcher()   # the numba dispatcher itself, as the solve_ivp drivers call it

    def py():
        for k in range(len(times)):
            f(times[k], Y[k], alpha, beta, *args, ftab, qx, yd, ws)
    py()
    t_py = cpu_best(py, reps) / len(times)
    return t_rhs, t_der, t_py


def _part_loops():
    """Compiled loops over the states, each running the right-hand side's pieces up to one more:
    the kinematics; + the constraint rows; + the applied forces; + the Schur solve (the whole
    frictionless right-hand side but the writing of ``y_dot``)."""
    from workbench.spatial import schur, sparse_rows as sr

    @njit
    def parts(times, Y, alpha, beta, a, reps, ws, upto):
        R, A, V, W, Phi, Phit, gam, G, GB, Yw, S, dg, lam, Q, Fw, Nw, Jinv, acc, vec, _, _, _, first = ws
        nb, m = a[0], a[11]
        tot = 0.0
        for _ in range(reps):
            for k in range(times.shape[0]):
                y = Y[k]
                sr.kinematics_into(y, nb, R, A, V, W)
                if upto >= 1:
                    sr.rows_into(times[k], R, A, V, W, nb, a[4], a[5], a[6], a[7], a[8], a[9], a[10], m, Phi,
                                 Phit, gam, G, GB, vec)
                if upto >= 2:
                    sr.applied_into(nb, a[1], a[2], a[3], R, A, V, W, y, a[12], a[13], a[14], a[15], a[16],
                                    a[17], Q, Fw, Nw, vec)
                if upto >= 3:
                    schur.solve(nb, a[1], Jinv, G, GB, Q, y, 7 * nb, Phi, Phit, gam, alpha, beta, m,
                                Yw, S, dg, first, lam, acc)
                tot += W[0, 2] + Phi[0] + Q[0] + acc[0]
        return tot
    return parts


def part_costs(setup, reps, inner):
    """Per-call CPU time [s] of the right-hand side's pieces, cumulative (:func:`_part_loops`)."""
    model, args, laws, ws, alpha, beta, times, Y = setup
    parts = _part_loops()
    out = []
    for upto in range(4):
        parts(times, Y, alpha, beta, args, 1, ws, upto)
        out.append(cpu_best(lambda: parts(times, Y, alpha, beta, args, inner, ws, upto), reps) / (inner * len(times)))
    return out


def _print_parts(costs, t_rhs, t_der):
    names = ("kinematics (rotation matrices, world velocities)", "constraint rows (two blocks a row)",
             "applied forces", "Schur complement, Cholesky, accelerations")
    prev = 0.0
    for name, c in zip(names, costs):
        print(f"    {name:50s} {max(c - prev, 0.0) * 1e9:8.1f} ns")
        prev = c
    print(f"    {'y_dot written (the rest of fast_rhs.rhs)':50s} {max(t_rhs - prev, 0.0) * 1e9:8.1f} ns")
    print(f"    {'the loop derivative around it (deriv)':50s} {max(t_der - t_rhs, 0.0) * 1e9:8.1f} ns")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5, help="repeats, the best taken")
    a = ap.parse_args()
    import pendulum
    import slider_crank
    from pendulum import G, L, RHO
    A = pendulum.A
    m = RHO * L * A * A
    l = L / 2
    JP = m * (L * L + A * A) / 12 + m * l * l
    par = np.array([m * G * l / JP])

    setup = _spatial_setup(pendulum.mechanism(None), 1.0, 1001)
    times, Y = setup[6], setup[7]
    # the minimal coordinates of the same states: phi, s of the centre of mass, phi' the bar's
    # world angular velocity about z, s' its velocity along z
    from workbench.spatial.model import Model
    mdl = Model(pendulum.mechanism(None))
    X = np.zeros((len(times), 4))
    acc_spatial = np.zeros(len(times))
    for k in range(len(times)):
        R, _, V, W = mdl.kinematics(Y[k])
        X[k] = (np.arctan2(R[0][1], R[0][0]), R[0][2], W[0][2], V[0][2])
    # a check that both sides are the same mechanism: phi'' of the minimal model against the spatial
    # model's angular acceleration about z (world; the bar's body z stays the world z)
    from workbench.spatial.fast_rhs import rhs
    args, ws = setup[1], setup[3]
    yd = np.zeros(Y.shape[1]); xd = np.zeros(4)
    for k in range(len(times)):
        rhs(times[k], Y[k], setup[4], setup[5], *args, np.zeros((1, 2)), np.zeros(6), yd, ws)
        minimal_pendulum_rhs(times[k], X[k], par, xd)
        acc_spatial[k] = abs(yd[7 + 5] - xd[2])
    inner = 200
    _minimal_loop(times, X, par, 1)
    t_min = cpu_best(lambda: _minimal_loop(times, X, par, inner), a.reps) / (inner * len(times))
    xd = np.zeros(4)

    def py_min():
        for k in range(len(times)):
            minimal_pendulum_rhs(times[k], X[k], par, xd)
    py_min()
    t_min_py = cpu_best(py_min, a.reps) / len(times)
    t_rhs, t_der, t_py = spatial_costs(setup, a.reps, inner)
    # the generated minimal-coordinate rhs (workbench.spatial.minimal) on the same states: its
    # coordinates are the joint's angle and slide from the start (phi, s here), its speeds their rates
    from workbench.spatial.minimal.run import prepare
    _, _, mod, x0, _ = prepare(pendulum.mechanism(None))
    XG = np.zeros((len(times), 6))
    XG[:, :4] = X
    xg = np.zeros(6)
    gen_diff = 0.0
    for k in range(len(times)):
        mod.rhs(times[k], XG[k], xg)
        minimal_pendulum_rhs(times[k], X[k], par, xd)
        gen_diff = max(gen_diff, abs(xg[2] - xd[2]) + abs(xg[3] - xd[3]))
    gloop = _generated_loop(mod.rhs)
    gloop(times, XG, 1)
    t_gen = cpu_best(lambda: gloop(times, XG, inner), a.reps) / (inner * len(times))
    gdisp = mod.rhs.dispatcher()

    def py_gen():
        for k in range(len(times)):
            gdisp(times[k], XG[k], xg)
    py_gen()
    t_gen_py = cpu_best(py_gen, a.reps) / len(times)
    print("Qi pendulum, frictionless (1001 states of a 1 s run), CPU per call, best of", a.reps)
    print(f"  same mechanism: |phi'' minimal - omega_z' spatial| <= {acc_spatial.max():.1e} rad/s^2 over the states")
    print(f"  minimal-coordinate rhs: compiled loop {t_min * 1e9:8.1f} ns, from Python {t_min_py * 1e9:8.0f} ns")
    print(f"  spatial fast_rhs.rhs:   compiled loop {t_rhs * 1e9:8.1f} ns, from Python {t_py * 1e9:8.0f} ns")
    print(f"  spatial loop's deriv:   compiled loop {t_der * 1e9:8.1f} ns")
    print(f"  ratio spatial / minimal: rhs {t_rhs / t_min:.1f}x, deriv {t_der / t_min:.1f}x (compiled loops); "
          f"from Python {t_py / t_min_py:.1f}x")
    print(f"  generated minimal rhs:  compiled loop {t_gen * 1e9:8.1f} ns, from Python {t_gen_py * 1e9:8.0f} ns "
          f"(|accelerations - hand-written| <= {gen_diff:.1e} over the states)")
    print(f"  ratio generated / hand-written minimal: {t_gen / t_min:.2f}x (compiled loops; issue 28's goal <= 4x), "
          f"from Python {t_gen_py / t_min_py:.2f}x")
    print("  where the spatial call's time goes (cumulative loops, differences):")
    _print_parts(part_costs(setup, a.reps, inner), t_rhs, t_der)
    sys.path.insert(0, str(HERE.parent / "spatial"))
    from test_minimal import _double_universal
    # a tree with a configuration-dependent mass matrix (the unrolled L D L^T solve): no hand-written
    # model, the absolute path's rhs on the same states instead
    from workbench.spatial.minimal.run import absolute_states
    from scipy.integrate import solve_ivp
    dmech = _double_universal()
    dmodel, dy0, dmod, dx0, _ = prepare(dmech)
    dtimes = np.linspace(0.0, 1.0, 1001)
    xs = solve_ivp(lambda t, x: _call_gen(dmod, t, x), (0.0, 1.0), dx0, method="DOP853", rtol=1e-10,
                   atol=1e-12, t_eval=dtimes).y.T
    XD = np.ascontiguousarray(xs)
    YD = np.ascontiguousarray(absolute_states(dmodel, dmod, XD, dy0[3 * dmodel.nb:7 * dmodel.nb].reshape(-1, 4)))
    dsetup = _spatial_setup(dmech, 1.0, 3)
    dsetup = dsetup[:6] + (dtimes, YD)
    dl = _generated_loop(dmod.rhs)
    dl(dtimes, XD, 1)
    t_dgen = cpu_best(lambda: dl(dtimes, XD, inner), a.reps) / (inner * len(dtimes))
    t_drhs, t_dder, _ = spatial_costs(dsetup, a.reps, inner // 4)
    print("double pendulum, revolute hip + universal knee, frictionless (1001 states of a 1 s run; 3 coordinates, "
          "13 x 2 + 2 absolute states, 9 constraint rows)")
    print(f"  generated minimal rhs:  compiled loop {t_dgen * 1e9:8.1f} ns")
    print(f"  spatial fast_rhs.rhs:   compiled loop {t_drhs * 1e9:8.1f} ns ({t_drhs / t_dgen:.0f}x the generated one)")
    print("first-compile cost of the minimal path's generation (wall time; sympy, cse, numba without the disk cache)")
    for name, mech in (("Qi pendulum (cylindrical)", pendulum.mechanism(None)),
                       ("double pendulum, revolute hip + universal knee", _double_universal())):
        ds, dc, dn, n = generation_cost(mech)
        print(f"  {name}, {n} coordinates: derivation {ds:.2f} s, source {dc:.2f} s, numba {dn:.2f} s, "
              f"total {ds + dc + dn:.2f} s")

    sc = _spatial_setup(slider_crank.mechanism(), 2 * 2 * np.pi / slider_crank.OMEGA, 401)
    t_rhs, t_der, t_py = spatial_costs(sc, a.reps, inner // 4)
    print("ideal spatial slider-crank (401 states of two revolutions; no minimal model: the driven crank "
          "leaves no degree of freedom)")
    print(f"  spatial fast_rhs.rhs:   compiled loop {t_rhs * 1e9:8.1f} ns, from Python {t_py * 1e9:8.0f} ns")
    print(f"  spatial loop's deriv:   compiled loop {t_der * 1e9:8.1f} ns")
    print("  where the spatial call's time goes (cumulative loops, differences):")
    _print_parts(part_costs(sc, a.reps, inner // 4), t_rhs, t_der)


if __name__ == "__main__":
    main()
