"""The implicit solver of mechanisms with flexible beams: generalised-alpha with step-size control
and event location.

Why generalised-alpha: the beams' axial modes (kHz to tens of kHz) make the equations stiff, so
the explicit Dormand-Prince of the rigid path would crawl at its stability limit; the
generalised-alpha scheme of Chung & Hulbert (1993), in the index-3 form of Arnold & Brüls (2007)
(:mod:`workbench.flex.generalized_alpha`: the same predictor, corrector and iteration matrix), is
second order, unconditionally stable for linear problems and damps the unresolved high frequencies
by the spectral radius ``rho_inf`` (:data:`RHO_INF`, as the Exudyn reference model).  Newton's
method uses the iteration matrix ``M beta' + C gamma' + K + d(Phi_q^T lambda)/dq`` with the
beams' exact tangent (:func:`workbench.flex.ancf_cable.element_forces`), the constraints' exact
second derivative and the clearance forces' finite-difference tangent; the constraint rows and
multipliers are scaled by ``beta'`` (Bottasso, Bauchau & Cardona (2007)).  It stops when the
residual of the equations of motion is within :data:`NEWTON_FRACTION` of the forces in play and
the constraints within :data:`PHI_FRACTION` of the mechanism's size, independent of rtol/atol
(:func:`workbench.flex.newton.newton_kernel`).  The iteration is
compiled (:func:`workbench.flex.newton.newton_kernel`; :meth:`_Stepper.step_reference` is the
Python reference path).  Without clearance joints it is a modified Newton method (Arnold & Brüls
(2007)): the matrix's LU factors are kept across iterations and steps while ``beta'``
stays within :data:`REUSE_BP` of theirs and the corrections contract by :data:`REUSE_RATE` or
better; with clearance joints (whose forces' tangent changes within an impact) it is assembled
every iteration.

Step-size control: the local error of the positions is estimated by
``h^2 (beta - 1/6) (q''_{n+1} - q''_n)`` (Zienkiewicz & Xie (1991): the difference of the
scheme's position update from a third-order Taylor step), scaled per coordinate by
``atol_i + rtol |q_i|`` (``atol_i`` = ``atol`` [m, rad] on positions and angles, ``atol / l_e`` on
the beams' slopes [1]: the slope error whose position error across an element is ``atol``); a
step is accepted when the largest scaled error is <= 1 and the next step is ``h SAFETY
err^(-1/3)`` within ``[0.2 h, 2 h]`` (``SAFETY`` = 0.9), with the rules of
:func:`workbench.flex.loop.step_length` and :func:`~workbench.flex.loop.next_step`: no
sliver step before an output time, a step cut short to land there keeps its proposal, no growth
right after a rejection (without them a quarter of the 207 GPa slider-crank's steps were rejected
and the crank-moment peak's error grew as rtol tightened).  A step whose Newton iteration fails is
halved.  Without clearance joints the whole step loop and the output samples run compiled
(:func:`workbench.flex.loop.run_kernel`), with them the Newton iteration
(:func:`workbench.flex.clearance.newton_clearance_kernel`); :data:`COMPILED_LOOP` False runs
the Python loops, the reference path.

Event location: when a contact point's penetration passes zero inside a step, the step is redone
with shorter lengths (regula falsi with bisection safeguards on the step length) until the
penetration at its end lies in ``(0, critical_penetration]`` or the bracket is shorter than
``min_step``; the impact speed there is the contact law's ``delta_dot_minus``.

Steps land on the output times (no interpolation: the samples are converged states).

Start and bounds: the run starts from the ideal mechanism's configuration and velocity field on
the branch of the given positions (:mod:`workbench.flex.start`), and stops with a
:class:`~workbench.errors.SolverError` that keeps its samples when the constraint residual, a
beam's axial strain or the energy balance leaves its bounds (:mod:`workbench.flex.guard`).
"""
from __future__ import annotations

import math
import time as _time

import numpy as np

from ..errors import SolverError
from ..mbs.mechanism import Mechanism
from ..mbs.run_control import RunInterrupted, SolverTimeLimit, current_deadline
from ..mbs.solution import Simulation, SolverSettings
from .mechanism import FlexModel
from .clearance import BAD_CONTACT, newton_clearance_kernel
from .loop import FAILED_NEWTON, next_step, step_length
from .newton import SINGULAR, index1_kernel, newton_kernel
from .record import _Recorder, beam_outputs  # noqa: F401  (beam_outputs: part of the API)
from .generalized_alpha import AlphaParameters
from .guard import RunGuard
from .start import mechanism_size as start_size

#: spectral radius at infinity of the generalised-alpha scheme [1]
RHO_INF = 0.8
MAX_NEWTON = 12
#: Newton stops when the residual of the equations of motion is below this fraction of the forces
#: in play (the largest inertia, applied/internal or constraint force) [1] ...
NEWTON_FRACTION = 1e-9
#: ... and the constraints' violation below this fraction of the mechanism's size [1]
PHI_FRACTION = 1e-12
#: safety factor of the step-size controller [1]
SAFETY = 0.9
#: modified Newton where there are no clearance joints (their forces' tangent changes too fast)
MODIFIED_NEWTON = True
#: modified Newton: the iteration matrix's factors are reused
#: while beta' (~ 1/h^2) is within this fraction of theirs [1] ...
REUSE_BP = 0.1
#: ... and every correction is at most this fraction of the one before [1]
REUSE_RATE = 0.25
#: step-size dead band: a proposed growth by a factor in [1, DEAD_BAND] keeps the step (and the
#: modified Newton iteration's factors; Hairer & Wanner (1996) Section IV.8) [1]; 1: off
DEAD_BAND = 1.0
#: the beams' slope coordinates get the absolute tolerance atol / l_e (False: atol, as positions)
SLOPE_WEIGHT = True
#: without clearance joints, the step loop between output times runs compiled
#: (:func:`workbench.flex.loop.run_kernel`), with them the Newton iteration
#: (:func:`workbench.flex.clearance.newton_clearance_kernel`); False: the Python loops (the
#: reference path)
COMPILED_LOOP = True
#: attempted steps per call of the compiled loop (between checks of the wall-time limit and Ctrl-C)
LOOP_ATTEMPTS = 20000
#: output samples per call of the compiled loop, checked against the run's bounds between calls
#: (:mod:`workbench.flex.guard`)
GUARD_SAMPLES = 200


class _NewtonFailed(Exception):
    pass


def assemble(fm: FlexModel, t0: float = 0.0, tol: float = 1e-13, max_iter: int = 50):
    """Consistent initial ``(q, v)`` at ``t0`` [s]: the ideal mechanism's configuration and
    velocity field (clearance joints centred, zero relative velocity; beams moved rigidly, then
    the least-strain correction), assembled on the branch of the given positions
    (:func:`workbench.flex.start.consistent_start`)."""
    from .start import consistent_start
    return consistent_start(fm, t0, tol, max_iter)


def _initial_acceleration(fm: FlexModel, q, v, t, stepper=None):
    """``(q'', lambda)`` of the index-1 equations at ``(q, v, t)``; compiled
    (:func:`workbench.flex.newton.index1_kernel`) when a :class:`_Stepper` is given."""
    if stepper is not None:
        w = stepper.work
        Gx = -fm.clearance(q, v)[0] if fm.n_clr else w[0]
        eps = 1e-7 * max(1.0, np.abs(q).max())
        # its own matrix: the step's (stepper.A) holds the factors a modified Newton iteration reuses
        sol = index1_kernel(q, v, float(t), *stepper.fixed, Gx, eps, *w[3:9], stepper.A1, stepper.rhs1)
        return sol[:fm.n].copy(), sol[fm.n:].copy()
    g, _, _ = fm.forces(q, v, t, with_tangent=False)
    n, m = fm.n, fm.m
    if m == 0:
        return np.linalg.solve(fm.M, -g), np.zeros(0)
    _, B, _ = fm.constraints(q, t)
    eps = 1e-7 * max(1.0, np.abs(q).max())
    Bp = fm.constraints(q + eps * v, t)[1]
    Bm = fm.constraints(q - eps * v, t)[1]
    conv = ((Bp - Bm) / (2 * eps)) @ v
    # d/dt (B v + Phi_t) = B a + conv + 2 B_t v (zero: B has no explicit t) + Phi_tt
    A0 = np.block([[fm.M, B.T], [B, np.zeros((m, m))]])
    sol = np.linalg.solve(A0, np.concatenate([-g, -conv - fm.driver_accelerations(t)]))
    return sol[:n], sol[n:]


class _Stepper:
    """One generalised-alpha step of a :class:`FlexModel` (Arnold & Brüls (2007) Algorithm 1)."""

    def __init__(self, fm: FlexModel, settings: SolverSettings):
        self.fm = fm
        self.am, self.af, self.gamma, self.beta = AlphaParameters(RHO_INF).coefficients
        self.rtol, self.atol = float(settings.rtol), float(settings.atol)
        self.newton_iterations = 0
        n, m = fm.n, fm.m
        self.A = np.zeros((n + m, n + m))      # the iteration matrix, reassembled in place
        self.rhs = np.zeros(n + m)
        self.A1, self.rhs1 = np.zeros((n + m, n + m)), np.zeros(n + m)    # the index-1 solve's
        # the compiled step's constant arrays and its work arrays (newton.newton_kernel)
        rpf = fm.rigid_point_forces
        rpf_i = np.array([i for i, _, _ in rpf], np.int64)
        rpf_f = np.array([(*s, *F) for _, s, F in rpf], float).reshape(-1, 4)
        bm_i = np.array([(o, cb.n_el) for _, cb, o in fm.beams], np.int64).reshape(-1, 2)
        bm_f = np.array([(cb.le, cb.ea, cb.ei, float(bm.damping), cb.pw) for bm, cb, _ in fm.beams],
                        float).reshape(-1, 5)
        self.fixed = (np.ascontiguousarray(fm.M), -(fm.f_gravity + fm.const_force), rpf_i, rpf_f, bm_i, bm_f,
                      *fm.carrays.args())
        self.reuse = MODIFIED_NEWTON    # modified Newton where there are no clearance joints
        self.lu_info = np.zeros(3)      # modified Newton: factors valid (1), for beta' [1/s^2], count
        self.piv = np.zeros(n + m, np.int64)
        # Gx, Kx, Cx (zero without clearance joints), then G, K, C, Phi, B, Pt, A, rhs
        self.work = (np.zeros(n), np.zeros((n, n)), np.zeros((n, n)), np.zeros(n), np.zeros((n, n)),
                     np.zeros((n, n)), np.zeros(m), np.zeros((m, n)), np.zeros(m), self.A, self.rhs)
        # the compiled loop's parameters (loop.PAR_NAMES)
        from .start import mechanism_size
        self.phi_tol = PHI_FRACTION * mechanism_size(fm)
        self.par = np.array([self.am, self.af, self.gamma, self.beta, self.rtol, self.atol, SAFETY,
                             self.phi_tol, NEWTON_FRACTION, REUSE_BP, REUSE_RATE, MAX_NEWTON,
                             float(self.reuse), DEAD_BAND])
        self.deadline = math.inf
        # the compiled samples' index-1 solve uses the inverse of the constant mass matrix
        try:
            self.Minv = np.linalg.inv(fm.M)
        except np.linalg.LinAlgError:
            self.Minv = None        # (a body without mass or inertia) the Python loop's index-1 solve
        # absolute tolerance per coordinate: atol [m, rad] on positions and angles; on the beams'
        # slopes [1] atol / l_e, the slope error whose position error across an element is atol
        self.atol_v = np.full(n, self.atol)
        if SLOPE_WEIGHT:
            for _, cb, o in fm.beams:
                for k in range(cb.n_el + 1):
                    self.atol_v[o + 4 * k + 2:o + 4 * k + 4] = self.atol / cb.le

    def run(self, state, tt, out_times, kk, hmax, hmin, max_steps, stats, rec):
        """Steps from ``tt[0]`` with the proposed step ``tt[1]`` through the output times
        ``out_times[kk[0]:]``, storing the samples in ``rec``'s arrays, by the compiled loop
        (:func:`workbench.flex.loop.run_kernel`; ``state`` = ``(q, v, q'', a, lambda)`` updated in
        place, ``stats`` counted) until the end, an error or the wall-time limit.  Returns the
        kernel's status."""
        from .loop import run_kernel
        w = self.work
        cnt = np.array([stats["steps"], stats["rejected_steps"], self.newton_iterations], np.int64)
        while True:
            status = run_kernel(*state, tt, out_times, kk, float(hmax), float(hmin), self.par, self.atol_v, *self.fixed,
                                *w,
                                self.lu_info, self.piv, cnt, int(max_steps), LOOP_ATTEMPTS, self.Minv, self.rhs1,
                                rec.Q, rec.V, rec.A, rec.L, rec.KE, rec.PE, rec.DP, rec.DV)
            stats["steps"], stats["rejected_steps"], self.newton_iterations = int(cnt[0]), int(cnt[1]), int(cnt[2])
            if status != 0 or _time.monotonic() >= self.deadline:
                return status

    def scale(self, q):
        """``atol_i + rtol |q_i|``: the error scale of each coordinate."""
        return self.atol_v + self.rtol * np.abs(q)

    def predict(self, q, v, acc, a, t, h):
        """The generalised-alpha predictor (Arnold & Bruls (2007) eqs 9-11 with q''_{n+1} = q''_n):
        ``(beta', gamma', t + h, q, v)`` at the start of the Newton iteration."""
        am, af, gamma, beta = self.am, self.af, self.gamma, self.beta
        a_new = (acc - am * a) / (1.0 - am)
        q1 = q + h * v + h * h * (0.5 - beta) * a + h * h * beta * a_new
        v1 = v + h * (1.0 - gamma) * a + h * gamma * a_new
        return ((1.0 - am) / (h * h * beta * (1.0 - af)), gamma / (h * beta), t + h, q1, v1)

    def step(self, q, v, acc, a, lam, t, h):
        """One step by the compiled Newton iteration (:func:`workbench.flex.newton.newton_kernel`);
        the same arithmetic as :meth:`step_reference`.  Returns ``(q, v, q'', a, lambda, err)``."""
        fm, am, af, beta = self.fm, self.am, self.af, self.beta
        bp, gp, t1, q1, v1 = self.predict(q, v, acc, a, t, h)
        acc1 = acc.copy()
        lam1 = lam.copy()
        sc = self.scale(q)
        w = self.work
        phi_tol = self.phi_tol
        try:
            if not fm.n_clr:
                status = newton_kernel(q1, v1, acc1, lam1, t1, bp, gp, *self.fixed, w[0], w[1], w[2], sc,
                                       phi_tol, NEWTON_FRACTION, MAX_NEWTON, *w[3:], int(self.reuse), REUSE_BP,
                                       REUSE_RATE, self.lu_info, self.piv)
                self.newton_iterations += MAX_NEWTON if status in (0, SINGULAR) else abs(status)
            elif COMPILED_LOOP:
                # the clearance forces (plugins' kernels through proxy bodies) and their tangent
                # evaluated every iteration, compiled (clearance.newton_clearance_kernel)
                out = np.zeros(2, np.int64)
                args = (q1, v1, acc1, lam1, t1, bp, gp, *self.fixed, sc, phi_tol, NEWTON_FRACTION, MAX_NEWTON,
                        *w[3:], self.lu_info, self.piv, *fm.clearance_args(), out)
                # the compiled entry point (clearance.ClearanceProxy._entry): no type resolution
                status = fm._entry(newton_clearance_kernel, args)(*args)
                self.newton_iterations += int(out[0])
                if status == BAD_CONTACT:
                    raise fm.fault(int(out[1]))
            else:
                # the clearance forces (plugins' kernels through proxy bodies) held fixed per iteration
                for _ in range(MAX_NEWTON):
                    Qc, active = fm.clearance(q1, v1)
                    if active:
                        Kc, Cc = fm.clearance_tangent(q1, v1, Qc)
                    else:
                        Kc, Cc = w[1], w[2]
                    status = newton_kernel(q1, v1, acc1, lam1, t1, bp, gp, *self.fixed, -Qc, Kc, Cc, sc,
                                           phi_tol, NEWTON_FRACTION, 1, *w[3:], 0, 0.0, 0.0, self.lu_info,
                                           self.piv)
                    self.newton_iterations += 1
                    if status != 0:
                        break
        except np.linalg.LinAlgError:
            raise _NewtonFailed from None
        if status <= 0:
            raise _NewtonFailed
        a1 = ((1.0 - af) * acc1 + af * acc - am * a) / (1.0 - am)
        err = np.max(h * h * abs(beta - 1.0 / 6.0) * np.abs(acc1 - acc) / np.maximum(sc, self.scale(q1)))
        return q1, v1, acc1, a1, lam1, err

    def step_reference(self, q, v, acc, a, lam, t, h):
        """One step with the Newton iteration in Python (the reference path of :meth:`step`)."""
        fm, am, af, beta = self.fm, self.am, self.af, self.beta
        n, m = fm.n, fm.m
        bp, gp, t1, q1, v1 = self.predict(q, v, acc, a, t, h)
        acc1 = acc.copy()
        lam1 = lam.copy()
        sc = self.scale(q)
        A, rhs = self.A, self.rhs
        for it in range(1, MAX_NEWTON + 1):
            g, K, C = fm.forces(q1, v1, t1)
            Ma = fm.M @ acc1
            r = Ma + g
            fmax = max(np.abs(Ma).max(), np.abs(g).max())
            phimax = 0.0
            if m:
                phi, B, _ = fm.constraints(q1, t1)
                Bl = B.T @ lam1
                r += Bl
                fmax = max(fmax, np.abs(Bl).max())
                phimax = np.abs(phi).max()
            # converged: the residual within NEWTON_FRACTION of the forces in play (newton_kernel)
            if np.abs(r).max() <= NEWTON_FRACTION * fmax and phimax <= self.phi_tol:
                break
            if m:
                fm.constraint_hessian(q1, lam1, K)
                # [[M + (C gp + K + H) / bp, B^T], [B, 0]] (rows and multipliers scaled by bp)
                np.multiply(C, gp / bp, out=A[:n, :n])
                A[:n, :n] += K * (1.0 / bp)
                A[:n, :n] += fm.M
                A[:n, n:] = B.T
                A[n:, :n] = B
                A[n:, n:] = 0.0
                rhs[:n] = r * (1.0 / bp)
                rhs[n:] = phi
            else:
                np.multiply(C, gp, out=A)
                A += K
                A += fm.M * bp
                rhs[:] = r
            try:
                d = np.linalg.solve(A, rhs)
            except np.linalg.LinAlgError:
                raise _NewtonFailed from None
            dq = d[:n]
            q1 -= dq
            v1 -= gp * dq
            acc1 -= bp * dq
            if m:
                lam1 -= bp * d[n:]
            self.newton_iterations += 1
            if not np.all(np.isfinite(q1)):
                raise _NewtonFailed
        else:
            raise _NewtonFailed
        a1 = ((1.0 - af) * acc1 + af * acc - am * a) / (1.0 - am)
        err = np.max(h * h * abs(beta - 1.0 / 6.0) * np.abs(acc1 - acc) / np.maximum(sc, self.scale(q1)))
        return q1, v1, acc1, a1, lam1, err


def simulate(mech: Mechanism, settings: SolverSettings, *, surfaces: dict | None = None,
             geometries: dict | None = None, initial=None) -> Simulation:
    """Run a mechanism with beams; return the sampled :class:`Simulation`, whose attribute
    ``flex`` holds the beams' outputs (nodal coordinates, mid-span deflection; see
    :func:`beam_outputs`).  Errors, time limit and Ctrl-C as :func:`workbench.mbs.solver.simulate`.
    ``initial``: ``(q, v)`` at ``t_start`` instead of the consistent start (:func:`assemble`);
    ``settings.ramp`` > 0 [s] finds it by the speed-ramp pre-roll (:mod:`workbench.flex.ramp`)."""
    wall = _time.perf_counter()
    if initial is None and getattr(settings, "ramp", 0.0) > 0.0:
        from .ramp import ramped_start
        initial = ramped_start(mech, settings, surfaces=surfaces, geometries=geometries)
    fm = FlexModel(mech, surfaces=surfaces, geometries=geometries)
    t = float(settings.t_start)
    q, v = assemble(fm, t) if initial is None else (np.array(initial[0], float), np.array(initial[1], float))
    acc, lam = _initial_acceleration(fm, q, v, t)
    a = acc.copy()
    stepper = _Stepper(fm, settings)
    n_out = int(np.floor((settings.t_end - settings.t_start) / settings.output_step + 1e-9)) + 1
    out_times = settings.t_start + settings.output_step * np.arange(n_out)
    deadline = min(current_deadline(), _time.monotonic() + settings.max_wall_time
                   if settings.max_wall_time > 0 else math.inf)
    hmax = settings.max_step if settings.max_step > 0 else settings.output_step
    h = min(settings.first_step, hmax)
    hmin = 1e-14 * max(1.0, settings.t_end)
    rec = _Recorder(fm, out_times, stepper)
    if fm.n_clr:
        g0, gd0 = fm.gaps(q, v)
        fm.dm[:len(g0)][g0 > 0] = np.maximum(gd0[g0 > 0], 1e-6)
    rec.sample(0, t, q, v, acc, lam)
    k_out = 1
    guard = RunGuard(fm, rec, start_size(fm))

    def guarded(k_end):
        # stop a run that left its bounds (workbench.flex.guard), keeping its samples up to the bad one
        bad = guard.check(k_end)
        if bad is not None:
            k, why = bad
            raise SolverError(f"the flexible run left its bounds and was stopped: {why}",
                              partial=rec.simulation(k + 1, stats, "failed"))

    compiled = COMPILED_LOOP and not fm.n_clr and stepper.reuse and stepper.Minv is not None
    after_reject = False
    stepper.deadline = deadline
    q, v, acc, a, lam = (np.ascontiguousarray(x, float).copy() for x in (q, v, acc, a, lam))
    stats = {"steps": 0, "rejected_steps": 0, "events": 0}
    guarded(1)
    try:
        while k_out < n_out:
            if _time.monotonic() >= deadline:
                raise SolverTimeLimit(f"stopped at the wall-time limit at t = {t:.9g} s of {settings.t_end:g} s "
                                      f"(the run had produced {k_out} of {n_out} output samples)",
                                      partial=rec.simulation(k_out, stats, "time_limit"))
            if stats["steps"] + stats["rejected_steps"] >= settings.max_steps:
                raise SolverError(f"the flexible solver took more than max_steps = {settings.max_steps} steps "
                                  f"by t = {t:.9g} s", partial=rec.simulation(k_out, stats, "failed"))
            t_next = out_times[k_out]
            if compiled:
                tt, kk = np.array([t, h, float(after_reject)]), np.array([k_out], np.int64)
                # GUARD_SAMPLES output samples per call, checked between calls
                status = stepper.run((q, v, acc, a, lam), tt, out_times[:k_out + GUARD_SAMPLES], kk, hmax, hmin,
                                     settings.max_steps, stats, rec)
                t, h, k_out, after_reject = float(tt[0]), float(tt[1]), int(kk[0]), bool(tt[2])
                guarded(k_out)
                if status == FAILED_NEWTON:
                    raise SolverError(f"the flexible solver's Newton iteration failed at t = {t:.9g} s with "
                                      f"steps down to {2 * h:.3g} s", partial=rec.simulation(k_out, stats, "failed"))
                continue
            hs, land = step_length(h, t_next - t)
            if land:
                hs = t_next - t
            cut = hs < h
            try:
                q1, v1, acc1, a1, lam1, err = stepper.step(q, v, acc, a, lam, t, hs)
            except (_NewtonFailed, FloatingPointError):
                stats["rejected_steps"] += 1
                after_reject = True
                h = 0.5 * hs
                if h < hmin:
                    raise SolverError(f"the flexible solver's Newton iteration failed at t = {t:.9g} s with "
                                      f"steps down to {hs:.3g} s", partial=rec.simulation(k_out, stats, "failed"))
                continue
            if err > 1.0 and hs > 16 * hmin:
                stats["rejected_steps"] += 1
                after_reject = True
                h = hs * max(0.2, SAFETY * err ** (-1.0 / 3.0))
                continue
            # contact starts inside the step: locate them
            if fm.n_clr:
                g_old, _ = fm.gaps(q, v)
                g_new, gd_new = fm.gaps(q1, v1)
                new = (g_old <= 0.0) & (g_new > 0.0)
                if new.any() and g_new[new].max() > settings.critical_penetration:
                    out = _locate(stepper, fm, q, v, acc, a, lam, t, hs, g_old, settings)
                    if out is not None:
                        hs, (q1, v1, acc1, a1, lam1, err) = out
                        land = cut = False
                        g_new, gd_new = fm.gaps(q1, v1)
                        new = (g_old <= 0.0) & (g_new > 0.0)
                for p in np.flatnonzero(new):
                    fm.dm[p] = max(gd_new[p], 1e-6)
                    rec.impact(t + hs, gd_new[p], p)
                    stats["events"] += 1
            q, v, acc, a, lam = q1, v1, acc1, a1, lam1
            t = t_next if land else t + hs
            stats["steps"] += 1
            if fm.n_clr:
                fm.clearance(q, v)
                rec.track_peaks(t, fm.rec)
            if land:
                rec.sample(k_out, t, q, v, acc, lam)
                k_out += 1
                guarded(k_out)
            h = next_step(h, hs, cut, err, SAFETY, DEAD_BAND, after_reject, hmax)
            after_reject = False
    except KeyboardInterrupt:
        raise RunInterrupted(f"interrupted (Ctrl-C) at t = {t:.9g} s (the run had produced {k_out} of "
                             f"{n_out} output samples)", partial=rec.simulation(k_out, stats, "interrupted")) from None
    stats["newton_iterations"] = stepper.newton_iterations
    stats["factorizations"] = int(stepper.lu_info[2]) if stepper.reuse and not fm.n_clr else stepper.newton_iterations
    stats["integrator"] = "generalized_alpha"
    stats["rho_inf"] = RHO_INF
    sim = rec.simulation(n_out, stats, "complete")
    sim.stats["wall_time"] = _time.perf_counter() - wall
    sim.stats["path"] = "flex"
    return sim


def _locate(stepper, fm, q, v, acc, a, lam, t, h, g_old, settings):
    """Shorten the step until the first new contact's penetration lies in (0, eps]; returns
    ``(h, step result)`` or ``None`` when the bracket collapses without a result."""
    eps = settings.critical_penetration
    lo, hi = 0.0, h
    glo = float(np.max(np.where(g_old <= 0.0, g_old, -np.inf)))
    res_hi = None
    ghi = None
    for _ in range(60):
        if ghi is None:
            hm = 0.5 * (lo + hi)
        else:
            w = hi - lo
            hm = lo + w * min(max(-glo / (ghi - glo), 0.05), 0.95)
        try:
            res = stepper.step(q, v, acc, a, lam, t, hm)
        except (_NewtonFailed, FloatingPointError):
            hi = hm
            ghi = None
            continue
        g, _ = fm.gaps(res[0], res[1])
        G = float(np.max(np.where(g_old <= 0.0, g, -np.inf)))
        if 0.0 < G <= eps:
            return hm, res
        if G <= 0.0:
            lo, glo = hm, G
        else:
            hi, ghi, res_hi = hm, G, res
        if hi - lo < settings.min_step * 1e-3 and res_hi is not None:
            return hi, res_hi
    return (hi, res_hi) if res_hi is not None else None
