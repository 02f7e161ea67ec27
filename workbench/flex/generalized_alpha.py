"""Generalised-alpha time integration of constrained mechanical systems (index 3).

The equations ``M q'' + g(q, q', t) + Phi_q(q)^T lambda = 0``, ``Phi(q, t) = 0`` with a constant
mass matrix ``M`` are integrated by the generalised-alpha scheme of Chung & Hulbert (1993) in the
form of Arnold & Brüls (2007) (their eqs 9-11, with the acceleration-like variable ``a``):

    (1 - am) a_{n+1} + am a_n = (1 - af) q''_{n+1} + af q''_n
    q_{n+1}  = q_n + h q'_n + h^2 (1/2 - beta) a_n + h^2 beta a_{n+1}
    q'_{n+1} = q'_n + h (1 - gamma) a_n + h gamma a_{n+1}

and the equations of motion and the constraints (positions) at ``t_{n+1}``, solved by Newton's
method with the iteration matrix ``M beta' + C_t gamma' + K_t`` (the constraint forces' own
q-derivative is left out: Newton then converges linearly where the constraints are nonlinear) (``beta' = (1 - am) / (h^2 beta
(1 - af))``, ``gamma' = gamma / (h beta)``; Arnold & Brüls (2007) eq. 13), the constraint rows
scaled by ``beta'`` for a condition number independent of ``h`` (Bottasso, Bauchau & Cardona
(2007)).  The parameters follow from the spectral radius at infinity ``rho_inf`` in [0, 1]:
``am = (2 rho - 1)/(rho + 1)``, ``af = rho/(rho + 1)``, ``gamma = 1/2 + af - am``,
``beta = (gamma + 1/2)^2 / 4`` -- second order, unconditionally stable for linear problems, with
high-frequency damping set by ``rho_inf`` (1: none, trapezoidal rule).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.linalg as sla


@dataclass(frozen=True)
class AlphaParameters:
    """Generalised-alpha coefficients for the spectral radius at infinity ``rho_inf`` [-]."""
    rho_inf: float = 0.9

    def __post_init__(self):
        if not 0.0 <= self.rho_inf <= 1.0:
            raise ValueError(f"rho_inf = {self.rho_inf} must lie in [0, 1]")

    @property
    def coefficients(self) -> tuple[float, float, float, float]:
        r = self.rho_inf
        am = (2.0 * r - 1.0) / (r + 1.0)
        af = r / (r + 1.0)
        gamma = 0.5 + af - am
        beta = 0.25 * (gamma + 0.5) ** 2
        return am, af, gamma, beta


@dataclass
class ConstrainedSystem:
    """``M q'' + g(q, v, t) + Phi_q^T lambda = 0``, ``Phi(q, t) = 0``.

    Attributes
    ----------
    M : (n, n) constant mass matrix [kg, kg m, kg m^2 blocks].
    forces : ``(q, v, t) -> (g, K_t, C_t)``: the internal minus external forces ``g`` [N] and
        their Jacobians with respect to q and v.
    constraints : ``(q, t) -> (Phi, Phi_q)`` (m equations) or ``None``.
    """
    M: np.ndarray
    forces: Callable
    constraints: Callable | None = None


@dataclass
class AlphaResult:
    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    newton_iterations: np.ndarray


class NewtonFailure(RuntimeError):
    """Newton's method did not converge in a step."""


def integrate(system: ConstrainedSystem, q0, v0, t_end: float, h: float, *,
              params: AlphaParameters = AlphaParameters(), tol: float = 1e-10,
              max_newton: int = 25) -> AlphaResult:
    """Integrate from ``t = 0`` to ``t_end`` [s] with the fixed step ``h`` [s].

    ``q0`` and ``v0`` must satisfy the constraints (positions and velocities); the initial
    accelerations and multipliers are computed from the index-1 equations.  Newton stops when
    the scaled correction falls below ``tol`` (relative to the state's size).
    """
    am, af, gamma, beta = params.coefficients
    M = np.asarray(system.M, float)
    n = M.shape[0]
    q = np.array(q0, float)
    v = np.array(v0, float)
    steps = int(round(t_end / h))
    if steps < 1 or abs(steps * h - t_end) > 1e-9 * t_end:
        raise ValueError(f"t_end = {t_end} s must be a whole number of steps h = {h} s")
    m = 0 if system.constraints is None else system.constraints(q, 0.0)[0].size
    # consistent initial acceleration: [M Phi_q^T; Phi_q 0] [a; lam] = [-g; -(Phi_q v)_q v]
    g, K, C = system.forces(q, v, 0.0)
    if m:
        phi, B = system.constraints(q, 0.0)
        eps = 1e-7 * max(1.0, np.abs(q).max())
        # convective term (Phi_q v)_q v by a directional difference of Phi_q along v
        Bp = system.constraints(q + eps * v, 0.0)[1]
        Bm = system.constraints(q - eps * v, 0.0)[1]
        conv = ((Bp - Bm) / (2 * eps)) @ v
        A0 = np.block([[M, B.T], [B, np.zeros((m, m))]])
        sol = np.linalg.solve(A0, np.concatenate([-g, -conv]))
        acc, lam = sol[:n], sol[n:]
    else:
        acc, lam = np.linalg.solve(M, -g), np.zeros(0)
    a = acc.copy()
    bp = (1.0 - am) / (h * h * beta * (1.0 - af))
    gp = gamma / (h * beta)
    ts = [0.0]
    qs, vs, ls, its = [q.copy()], [v.copy()], [lam.copy()], [0]
    for k in range(steps):
        t1 = (k + 1) * h
        # predictor: q''_{n+1} = q''_n (Arnold & Brüls (2007) Algorithm 1)
        a_new = (acc - am * a) / (1.0 - am)
        q1 = q + h * v + h * h * (0.5 - beta) * a + h * h * beta * a_new
        v1 = v + h * (1.0 - gamma) * a + h * gamma * a_new
        acc1 = acc.copy()
        lam1 = lam.copy()
        for it in range(1, max_newton + 1):
            g, K, C = system.forces(q1, v1, t1)
            r = M @ acc1 + g
            if m:
                phi, B = system.constraints(q1, t1)
                r = r + B.T @ lam1
                S = np.block([[M * bp + C * gp + K, B.T], [B * bp, np.zeros((m, m))]])
                rhs = np.concatenate([r, phi * bp])
            else:
                S = M * bp + C * gp + K
                rhs = r
            d = -sla.solve(S, rhs)
            dq = d[:n]
            q1 += dq
            v1 += gp * dq
            acc1 += bp * dq
            if m:
                lam1 += d[n:]
            if np.abs(dq).max() <= tol * max(1.0, np.abs(q1).max()) and (
                    not m or np.abs(phi).max() <= tol * max(1.0, np.abs(q1).max())):
                break
        else:
            raise NewtonFailure(f"generalised-alpha: Newton did not converge at t = {t1:.6g} s "
                                f"(step h = {h} s); reduce h")
        a = ((1.0 - af) * acc1 + af * acc - am * a) / (1.0 - am)
        q, v, acc, lam = q1, v1, acc1, lam1
        ts.append(t1)
        qs.append(q.copy())
        vs.append(v.copy())
        ls.append(lam.copy())
        its.append(it)
    return AlphaResult(np.array(ts), np.array(qs), np.array(vs), np.array(ls), np.array(its))
