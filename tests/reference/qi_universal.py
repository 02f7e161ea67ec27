"""Independent reference: the bar hanging from a UNIVERSAL joint with regularised Coulomb friction in
both journals (Qi, Luo & Huang (2009) eqs. 54-58), both journals turning, without the workbench.

The bar, its journals and their contact systems are those of ``qi_universal_stick.py`` (its
``UBar``, ``journal_load``: each journal's across-axis contact system built numerically from its
points' forces and moments, the axial load on a face at the azimuth of their eq. 36, or on the
flush face where eq. 36 is 0/0).  Here the tilt ``psi`` is
free too: two coordinates, ``R = Rz(phi) Ry(psi)``, angular velocity ``omega = phi_d a + psi_d b``
(``a`` the ground's z, ``b = Rz(phi) y`` the bar's y), so ``omega_dot = phi_dd a + psi_dd b +
phi_d psi_d (a x b)``.

* Newton-Euler about the fixed point ``O``: the joint's moment on the bar ``M = I_O omega_dot +
  omega x I_O omega - r_c x m g_vec``, its force ``F = m a_c - m g_vec``.  ``M . a`` is journal 1's
  friction moment ``m1``, ``M . b`` journal 2's ``m2``, ``M . n`` the cross's constraint moment.
* Friction (the workbench's ``coulomb`` law, ``tanh`` regularisation, at the journal's slip speed
  ``v_k = omega_k R_k``): ``k_k = -mu tanh(omega_k R_k / v_eps)``, ``m_k = k_k R_k N_k``, ``N_k``
  the journal's load carrying the other journal's moment and ``M . n`` across its axis.
* ``(phi_dd, psi_dd)`` from the two equations ``M . a = k_1 R_1 N_1``, ``M . b = k_2 R_2 N_2``
  (secant iterations with Broyden's update to 1e-15 of the weight, Powell's hybrid method if they stall); the dissipated energy integrates
  ``-(m1 phi_d + m2 psi_d)``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import root

from qi_universal_stick import Journal, UBar, _cross, _rot, journal_load, load_of, reset


def _wrench(bar: UBar, phi, psi, dphi, dpsi, ddphi, ddpsi):
    """``(F, M, (a, b, n))``: the joint's force [N] and moment about O [N m] on the bar (world)."""
    R = _rot(phi, psi)
    IO = R @ bar.inertia_O() @ R.T
    a = np.array([0.0, 0.0, 1.0])
    b = R @ np.array([0.0, 1.0, 0.0])
    n = _cross(a, b)
    n /= np.linalg.norm(n)
    w = dphi * a + dpsi * b
    wd = ddphi * a + ddpsi * b + dphi * dpsi * _cross(a, b)
    rc = R @ np.array([bar.L / 2, 0.0, 0.0])
    gv = np.array([0.0, -bar.g, 0.0])
    M = IO @ wd + _cross(w, IO @ w) - _cross(rc, bar.m * gv)
    F = bar.m * (_cross(wd, rc) + _cross(w, _cross(w, rc))) - bar.m * gv
    return F, M, (a, b, n)


def _journals(bar: UBar, F, M, a, b, n, k1, k2):
    """``(m1, m2, N1, N2)``: the journals' moments (the joint moment's components) [N m] and loads [N]."""
    m1, m2 = M @ a, M @ b
    N1 = journal_load(F, m2 * b + (M @ n) * n, a, b, n, k1, bar.R1, bar.c1, 1)
    N2 = journal_load(F, (M @ n) * n + m1 * a, b, n, a, k2, bar.R2, bar.c2, 2)
    return m1, m2, N1, N2


def coefficients(bar: UBar, dphi, dpsi, v_eps):
    """The journals' friction coefficients ``k_k = -mu tanh(omega_k R_k / v_eps)`` [1]."""
    return (-bar.mu * math.tanh(dphi * bar.R1 / v_eps), -bar.mu * math.tanh(dpsi * bar.R2 / v_eps))


def accelerations(bar: UBar, x, v_eps):
    """``(phi_dd, psi_dd)`` [rad/s^2] and ``(m1, m2, N1, N2)`` at the state ``x = (phi, psi, phi_d, psi_d)``."""
    phi, psi, dphi, dpsi = x[:4]
    k1, k2 = coefficients(bar, dphi, dpsi, v_eps)
    # the wrench is linear in the accelerations and the journals' matrices do not depend on them:
    # both once per state
    (F0, M0, (a, b, n)), (Fa, Ma, _), (Fb, Mb, _) = (_wrench(bar, phi, psi, dphi, dpsi, *dd)
                                                     for dd in ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0)))
    A1, A2 = Journal(a, b, n, k1, bar.c1, bar.R1, 1), Journal(b, n, a, k2, bar.c2, bar.R2, 2)

    def resid(dd, probe=None):
        # each journal's face state continues from its last call with the same slot: the
        # probes of the secant matrix (accelerations far from the solution) have slots of their own
        A1.slot, A2.slot = (1, probe), (2, probe)
        F = F0 + dd[0] * (Fa - F0) + dd[1] * (Fb - F0)
        M = M0 + dd[0] * (Ma - M0) + dd[1] * (Mb - M0)
        m1, m2 = M @ a, M @ b
        N1 = load_of(A1, F, m2 * b + (M @ n) * n)
        N2 = load_of(A2, F, (M @ n) * n + m1 * a)
        return [(m1 - k1 * bar.R1 * N1) / (bar.m * bar.g), (m2 - k2 * bar.R2 * N2) / (bar.m * bar.g)]

    # secant iterations from the secant matrix over a unit step from rest (the residual is nearly
    # linear: the friction moves it only through the loads' norms), Broyden-updated; Powell's
    # hybrid method when they stall
    r0 = np.array(resid([0.0, 0.0], 0))
    J = np.column_stack([np.array(resid(e, i + 1)) - r0 for i, e in enumerate(np.eye(2))])
    dd = np.linalg.solve(J, -r0)
    r_old, dd_old = r0, np.zeros(2)
    for _ in range(60):
        r = np.array(resid(dd))
        if np.max(np.abs(r)) <= 1e-15:
            break
        # Broyden's update of the secant matrix along the last step (fewer iterations than the
        # chord's; the same residual, the same convergence test)
        step = dd - dd_old
        J = J + np.outer(r - r_old - J @ step, step) / (step @ step)
        r_old, dd_old = r, dd
        dd = dd - np.linalg.solve(J, r)
    else:
        sol = root(resid, dd, method="hybr", options={"xtol": 1e-14})
        if not (sol.success or np.max(np.abs(sol.fun)) < 1e-13):
            raise RuntimeError(f"the reference's accelerations did not converge at {x}: {sol.message}")
        dd = sol.x
    F, M, (a, b, n) = _wrench(bar, phi, psi, dphi, dpsi, *dd)
    return dd, _journals(bar, F, M, a, b, n, k1, k2)


def solve(bar: UBar, x0, T: float, t_eval, *, v_eps=1e-4, rtol=1e-11, atol=1e-12) -> dict:
    """From ``x0 = (phi, psi, phi_d, psi_d)`` [rad, rad/s] to ``T`` [s]; at ``t_eval``: ``phi``,
    ``psi`` [rad], their rates [rad/s], ``dissipated`` [J], ``m1``, ``m2`` [N m], ``N1``, ``N2`` [N]."""
    reset()

    def f(t, y):
        (dd1, dd2), (m1, m2, N1, N2) = accelerations(bar, y, v_eps)
        return [y[2], y[3], dd1, dd2, -(m1 * y[2] + m2 * y[3])]

    r = solve_ivp(f, (0.0, T), list(x0) + [0.0], method="DOP853", t_eval=t_eval, rtol=rtol, atol=atol)
    if not r.success:
        raise RuntimeError(r.message)
    rec = np.array([accelerations(bar, y, v_eps)[1] for y in r.y.T])
    return {"t": r.t, "phi": r.y[0], "psi": r.y[1], "dphi": r.y[2], "dpsi": r.y[3], "dissipated": r.y[4],
            "m1": rec[:, 0], "m2": rec[:, 1], "N1": rec[:, 2], "N2": rec[:, 3]}
