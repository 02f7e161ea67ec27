"""A hand-specialised, minimal-coordinate model of the Flores slider-crank with a revolute
clearance joint between rod and slider (Flores & Ambrósio 2004; `studies/flores_slider_crank.toml`).

Written independently of the workbench's solver, for two jobs:

* the **speed baseline** of `tests/benchmarks/bench_dynamics.py`: the least work a right-hand side
  of this mechanism can do, so the workbench's general absolute-coordinate right-hand side is
  measured against it per call;
* an **independent trajectory** of the same mechanism (first impact, slider motion), integrated
  with its own Dormand-Prince 5(4) and contact-start location.

Model.  The crank turns at the constant driven speed ``omega`` (crank angle ``omega t``), so the
mechanism has two degrees of freedom: the rod angle ``phi`` (the rod is pinned to the crank at A)
and the slider position ``x`` (the guide holds the slider at ``y = 0`` without rotation).  The
kinetic energy is ``T = m2/2 |c_dot|^2 + I2/2 phi_dot^2 + m3/2 x_dot^2`` with the rod centre
``c = A(t) + a u(phi)``, ``u = (cos phi, sin phi)``, ``a`` = distance A to the rod's centre; since
``u_perp . u = 0`` the mass matrix is diagonal:

    (m2 a^2 + I2) phi_dd = Q_phi - m2 a u_perp . A_dd(t)          m3 x_dd = Q_x

with the generalised forces ``Q`` of gravity on the rod and of the clearance-joint contact force
acting at the contact points (journal: the rod's end B; bushing: the slider).  Contact force:
Lankarani & Nikravesh (1990) ``F = K delta^1.5 (1 + 3 (1 - e^2)/4 delta_dot/delta_dot_minus)``
with ``K`` of Wang, Chen, Ma & Sun (2016) eq. 11; friction: Ambrósio (2003) Coulomb with the
linear dynamic correction between v0 and v1.  Contact points and the relative velocity follow
Flores & Ambrósio (2004): points ``P + R n`` on both bodies, ``n`` along the eccentricity.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

OMEGA = 5000.0 * 2.0 * math.pi / 60.0   # rad/s, crank speed
R_CRANK = 0.05                          # m, crank O-A
L_ROD = 0.12                            # m, rod A-B
A_ROD = 0.06                            # m, A to the rod's centre of mass
M_ROD, I_ROD = 0.21, 2.5e-4             # kg, kg m^2
M_SLIDER = 0.14                         # kg
G = 9.81                                # m/s^2, gravity along -y
R_B, R_J = 0.0105, 0.0100               # m, bushing (slider) and journal (rod) radii
E_MOD, NU = 207e9, 0.3                  # Pa, 1: both parts
RESTITUTION = 0.9
C_F, V0, V1 = 0.01, 1e-4, 1e-2          # Ambrosio friction: coefficient [1], ramp [m/s]
V_FLOOR = 1e-4                          # m/s, floor of the impact speed in the damping term


def stiffness() -> float:
    """``K`` [N/m^1.5] of Wang, Chen, Ma & Sun (2016) eq. 11 for the pin in the bore."""
    h = (1.0 - NU ** 2) / E_MOD
    return 4.0 / (3.0 * (h + h)) * math.sqrt(R_B * R_J / (R_B - R_J))


PAR = np.array([stiffness(), 0.75 * (1.0 - RESTITUTION ** 2)])


@njit(cache=True)
def _contact(t, s, dm, par, out):
    """Forces of the clearance joint at state ``s = [phi, x, phi_dot, x_dot]``; ``out`` gets
    ``[delta, delta_dot, Fn, Ft, Q_phi, Q_x]``."""
    ph, x, w, xd = s[0], s[1], s[2], s[3]
    ca = math.cos(OMEGA * t); sa = math.sin(OMEGA * t)
    Ax = R_CRANK * ca; Ay = R_CRANK * sa
    Avx = -R_CRANK * OMEGA * sa; Avy = R_CRANK * OMEGA * ca
    cp = math.cos(ph); sp = math.sin(ph)
    Bx = Ax + L_ROD * cp; By = Ay + L_ROD * sp
    ex = Bx - x; ey = By
    e = math.sqrt(ex * ex + ey * ey)
    delta = e - (R_B - R_J)
    nx = ex / e if e > 0.0 else 1.0
    ny = ey / e if e > 0.0 else 0.0
    # contact points: journal (rod) at B + R_J n, bushing (slider) at (x, 0) + R_B n
    qjx = Bx + R_J * nx; qjy = By + R_J * ny
    cx = Ax + A_ROD * cp; cy = Ay + A_ROD * sp
    cvx = Avx - A_ROD * sp * w; cvy = Avy + A_ROD * cp * w
    vjx = cvx - w * (qjy - cy); vjy = cvy + w * (qjx - cx)
    vrx = vjx - xd; vry = vjy
    vn = vrx * nx + vry * ny
    vt = -vrx * ny + vry * nx
    fn = 0.0
    if delta > 0.0 and dm >= 0.0:
        vm = dm if dm > V_FLOOR else V_FLOOR
        fn = par[0] * delta ** 1.5 * (1.0 + par[1] * vn / vm)
        if fn < 0.0:
            fn = 0.0
    ft = 0.0
    sp_ = abs(vt)
    if sp_ > V0:
        cd = 1.0 if sp_ >= V1 else (sp_ - V0) / (V1 - V0)
        ft = -C_F * cd * fn if vt > 0.0 else C_F * cd * fn
    # force on the rod at qj: -fn n + ft t  (t = (-ny, nx)); on the slider the opposite
    fx = -fn * nx - ft * ny
    fy = -fn * ny + ft * nx
    # generalised forces: rod point qj moves with d/dphi = w x (qj - A)
    Qphi = fx * (-(qjy - Ay)) + fy * (qjx - Ax)
    Qx = -fx
    out[0] = delta; out[1] = vn; out[2] = fn; out[3] = ft; out[4] = Qphi; out[5] = Qx


@njit(cache=True)
def rhs(t, s, dm, par, sd, work):
    """``sd = ds/dt`` of the minimal model (see the module docstring)."""
    _contact(t, s, dm, par, work)
    ph = s[0]
    ca = math.cos(OMEGA * t); sa = math.sin(OMEGA * t)
    Aax = -R_CRANK * OMEGA * OMEGA * ca; Aay = -R_CRANK * OMEGA * OMEGA * sa
    cp = math.cos(ph); sp = math.sin(ph)
    # u_perp = (-sin, cos); gravity on the rod centre: Q = -m2 g a cos(phi)
    Qphi = work[4] - M_ROD * G * A_ROD * cp - M_ROD * A_ROD * (-sp * Aax + cp * Aay)
    sd[0] = s[2]
    sd[1] = s[3]
    sd[2] = Qphi / (M_ROD * A_ROD * A_ROD + I_ROD)
    sd[3] = work[5] / M_SLIDER


@njit(cache=True)
def gap(t, s, par, work):
    _contact(t, s, -1.0, par, work)
    return work[0], work[1]


# Dormand-Prince 5(4) (Dormand & Prince 1980) with the continuous extension of Shampine (1986)
_C = np.array([0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0])
_A = np.array([
    [0, 0, 0, 0, 0, 0],
    [1 / 5, 0, 0, 0, 0, 0],
    [3 / 40, 9 / 40, 0, 0, 0, 0],
    [44 / 45, -56 / 15, 32 / 9, 0, 0, 0],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]], dtype=np.float64)
_E = np.array([71 / 57600, 0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40])
_P = np.array([
    [1.0, -8048581381.0 / 2820520608.0, 8663915743.0 / 2820520608.0, -12715105075.0 / 11282082432.0],
    [0.0, 0.0, 0.0, 0.0],
    [0.0, 131558114200.0 / 32700410799.0, -68118460800.0 / 10900136933.0, 87487479700.0 / 32700410799.0],
    [0.0, -1754552775.0 / 470086768.0, 14199869525.0 / 1410260304.0, -10690763975.0 / 1880347072.0],
    [0.0, 127303824393.0 / 49829197408.0, -318862633887.0 / 49829197408.0, 701980252875.0 / 199316789632.0],
    [0.0, -282668133.0 / 205662961.0, 2019193451.0 / 616988883.0, -1453857185.0 / 822651844.0],
    [0.0, 40617522.0 / 29380423.0, -110615467.0 / 29380423.0, 69997945.0 / 29380423.0]])


@njit(cache=True)
def _dense(s, K, h, th, out):
    t2 = th * th; t3 = t2 * th; t4 = t3 * th
    for i in range(4):
        acc = 0.0
        for k in range(7):
            acc += K[k, i] * (_P[k, 0] * th + _P[k, 1] * t2 + _P[k, 2] * t3 + _P[k, 3] * t4)
        out[i] = s[i] + h * acc


@njit(cache=True)
def integrate(t1, out_times, rtol, atol, par):
    """Integrate from the assembled start at t = 0 to ``t1``; contact starts are located on the
    dense output by bisection and the step is cut there (the contact mode is frozen over a trial
    step).  Returns ``(S, impacts, rhs_calls)``: states at ``out_times``, impact (time, approach
    speed) pairs, right-hand-side calls."""
    s = np.array([0.0, R_CRANK + L_ROD, -R_CRANK * OMEGA / L_ROD, 0.0])
    nout = out_times.shape[0]
    S = np.zeros((nout, 4))
    imp = np.zeros((10000, 2)); n_imp = 0
    K = np.zeros((7, 4)); tmp = np.zeros(4); snew = np.zeros(4); work = np.zeros(6)
    t = 0.0; h = 1e-6
    g0, _ = gap(t, s, par, work)
    dm = -1.0 if g0 <= 0.0 else 1e-3
    rhs(t, s, dm, par, K[0], work); calls = 1
    k_out = 0
    while k_out < nout and out_times[k_out] <= 0.0:
        S[k_out] = s; k_out += 1
    while t < t1:
        last = False
        if t + h >= t1:
            h = t1 - t; last = True
        for st in range(1, 7):
            for i in range(4):
                acc = 0.0
                for k in range(st):
                    acc += _A[st, k] * K[k, i]
                tmp[i] = s[i] + h * acc
            if st < 6:
                rhs(t + _C[st] * h, tmp, dm, par, K[st], work)
            else:
                snew[:] = tmp
                rhs(t + h, snew, dm, par, K[6], work)
        calls += 6
        err = 0.0
        for i in range(4):
            e = 0.0
            for k in range(7):
                e += _E[k] * K[k, i]
            sc = atol + rtol * max(abs(s[i]), abs(snew[i]))
            err += (h * e / sc) ** 2
        err = math.sqrt(err / 4)
        if err > 1.0:
            h *= max(0.2, 0.9 * err ** -0.2)
            continue
        g1, _ = gap(t + h, snew, par, work)
        th = 1.0; event = False
        if (g0 > 0.0) != (g1 > 0.0):
            lo = 0.0; hi = 1.0
            for it in range(200):
                mid = 0.5 * (lo + hi)
                _dense(s, K, h, mid, tmp)
                gm, _ = gap(t + mid * h, tmp, par, work)
                if (gm > 0.0) == (g1 > 0.0):
                    hi = mid
                else:
                    lo = mid
                if (hi - lo) * h <= 2e-16 * max(1.0, t) or hi - lo < 1e-15:
                    break
            th = hi; event = True
            if th < 1.0:
                _dense(s, K, h, th, snew)
                last = False
        t_new = t + th * h
        while k_out < nout and out_times[k_out] <= t_new:
            _dense(s, K, h, (out_times[k_out] - t) / h, S[k_out])
            k_out += 1
        s[:] = snew
        t = t1 if last else t_new
        fac = 10.0 if err == 0.0 else min(10.0, max(0.2, 0.9 * err ** -0.2))
        h_next = h * fac
        if event:
            g0, gd = gap(t, s, par, work)
            if g0 > 0.0:
                dm = gd if gd > 1e-6 else 1e-6
                if n_imp < imp.shape[0]:
                    imp[n_imp, 0] = t; imp[n_imp, 1] = gd; n_imp += 1
            else:
                dm = -1.0
            rhs(t, s, dm, par, K[0], work); calls += 1
            h_next = max(h_next, 1e-12)
        else:
            g0 = g1
            K[0, :] = K[6, :]
        h = h_next
    while k_out < nout:
        S[k_out] = s; k_out += 1
    return S, imp[:n_imp], calls


def simulate(t_end: float, output_step: float = 1e-5, rtol: float = 1e-11, atol: float = 1e-14):
    """Run the minimal model; returns ``dict(time, phi, x, impacts, rhs_calls)`` (SI units)."""
    n = int(math.floor(t_end / output_step + 1e-9)) + 1
    times = output_step * np.arange(n)
    S, imp, calls = integrate(t_end, times, rtol, atol, PAR)
    return {"time": times, "phi": S[:, 0], "x": S[:, 1], "impacts": imp, "rhs_calls": calls}
