"""Exact solution of the classic stick-slip oscillator: a mass on a spring dragged by a belt.

A block of mass ``m`` [kg] on a belt moving at ``v_belt`` [m/s] > 0 is held by a spring of
stiffness ``k`` [N/m] anchored at x = 0; the belt presses it with ``N`` [N] and rubs it with
Coulomb friction, kinetic ``mu_k`` and static ``mu_s >= mu_k`` (the set-valued law of Pfeiffer &
Glocker (1996) §4.3; the oscillator as in Popp & Stelter (1990)).

* **Slip**, relative velocity ``v_belt - x' != 0`` with sign ``s``:  ``m x'' + k x = s mu_k N``,
  so ``x = x_e + a cos(w tau) + (v/w) sin(w tau)``, ``w = sqrt(k/m)``, ``x_e = s mu_k N / k``.
  It ends when ``x' = v_belt``: ``R cos(w tau + phi) = v_belt`` with ``R = hypot(a w, v)``,
  ``phi = atan2(a w, v)`` -- solved in closed form.
* **Stick**, ``x' = v_belt``: ``x = x_s + v_belt tau`` while the needed friction ``k x`` stays
  within ``mu_s N``; it ends at ``x = mu_s N / k``.

At the end of a slip phase the block sticks if ``|k x| <= mu_s N``, else it keeps slipping with
the other sign.  Every phase is evaluated from its closed form; nothing is integrated.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Oscillator:
    m: float = 1.0        # kg
    k: float = 100.0      # N/m
    N: float = 9.80665    # N, normal force
    mu_s: float = 0.4     # static friction coefficient [-]
    mu_k: float = 0.3     # kinetic friction coefficient [-]
    v_belt: float = 0.1   # m/s


def _slip_end(w: float, a: float, v: float, vb: float) -> float:
    """Smallest tau > 0 with x'(tau) = -a w sin(w tau) + v cos(w tau) = vb; inf if never."""
    R = math.hypot(a * w, v)
    if R < vb * (1 - 1e-15):
        return math.inf
    phi = math.atan2(a * w, v)
    base = math.acos(max(-1.0, min(1.0, vb / R)))
    best = math.inf
    for k in range(-1, 3):
        for root in (base - phi + 2 * math.pi * k, -base - phi + 2 * math.pi * k):
            tau = root / w
            if tau > 1e-12 / w and tau < best:
                best = tau
    return best


def phases(osc: Oscillator, x0: float, v0: float, t_end: float) -> list[tuple]:
    """The phases up to ``t_end`` [s]: (kind, t_start, x_start, v_start, sign) tuples."""
    w = math.sqrt(osc.k / osc.m)
    out = []
    t, x, v = 0.0, float(x0), float(v0)
    x_break = osc.mu_s * osc.N / osc.k
    while t < t_end:
        rel = osc.v_belt - v
        if abs(rel) < 1e-12 and abs(osc.k * x) <= osc.mu_s * osc.N * (1 + 1e-12) and x < x_break * (1 - 1e-12):
            out.append(("stick", t, x, osc.v_belt, 0.0))
            tau = (x_break - x) / osc.v_belt
            t, x, v = t + tau, x_break, osc.v_belt
            continue
        # slipping: the sign is the relative velocity's, or at rel = 0 the one the spring drives
        s = math.copysign(1.0, rel) if abs(rel) >= 1e-12 else (1.0 if osc.k * x > 0 else -1.0)
        xe = s * osc.mu_k * osc.N / osc.k
        out.append(("slip", t, x, v, s))
        tau = _slip_end(w, x - xe, v, osc.v_belt)
        if not math.isfinite(tau):
            break
        a = x - xe
        x, v = xe + a * math.cos(w * tau) + v / w * math.sin(w * tau), osc.v_belt
        t += tau
    return out


def solve(osc: Oscillator, x0: float, v0: float, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
    """Position [m] and velocity [m/s] at the times ``t`` [s] (sorted), and the phase list."""
    t = np.asarray(t, dtype=float)
    ph = phases(osc, x0, v0, float(t[-1]) if t.size else 0.0)
    w = math.sqrt(osc.k / osc.m)
    x = np.empty_like(t)
    v = np.empty_like(t)
    starts = np.array([p[1] for p in ph])
    idx = np.searchsorted(starts, t, side="right") - 1
    for i, (kind, t0, xs, vs, s) in enumerate(ph):
        sel = idx == i
        tau = t[sel] - t0
        if kind == "stick":
            x[sel] = xs + osc.v_belt * tau
            v[sel] = osc.v_belt
        else:
            xe = s * osc.mu_k * osc.N / osc.k
            a = xs - xe
            x[sel] = xe + a * np.cos(w * tau) + vs / w * np.sin(w * tau)
            v[sel] = -a * w * np.sin(w * tau) + vs * np.cos(w * tau)
    return x, v, ph
