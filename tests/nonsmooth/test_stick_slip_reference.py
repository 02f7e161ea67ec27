"""The exact stick-slip oscillator (tests/reference/stick_slip_oscillator.py) against an
independent event-driven integration, and its limit cycle's closed-form amplitude."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

sys.path.insert(0, str(Path(__file__).parents[1] / "reference"))
from stick_slip_oscillator import Oscillator, solve  # noqa: E402


def _integrate(osc, x0, v0, t_end):
    """DOP853 with sticking handled by events (no closed forms used)."""
    t, y, ts, xs = 0.0, np.array([x0, v0]), [], []
    w2 = osc.k / osc.m
    while t < t_end:
        rel = osc.v_belt - y[1]
        if abs(rel) < 1e-9 and abs(osc.k * y[0]) < osc.mu_s * osc.N * (1 - 1e-9):
            tau = (osc.mu_s * osc.N / osc.k - y[0]) / osc.v_belt
            tt = np.linspace(t, min(t + tau, t_end), 50)
            ts.append(tt); xs.append(y[0] + osc.v_belt * (tt - t))
            t, y = t + tau, np.array([osc.mu_s * osc.N / osc.k, osc.v_belt])
            continue
        s = math.copysign(1.0, rel) if abs(rel) >= 1e-9 else (1.0 if y[0] > 0 else -1.0)
        ev = lambda _t, yy: yy[1] - osc.v_belt
        ev.terminal = True
        ev.direction = 1.0 if s > 0 else -1.0
        sol = solve_ivp(lambda _t, yy: [yy[1], -w2 * yy[0] + s * osc.mu_k * osc.N / osc.m],
                        (t, t_end), y, method="DOP853", rtol=1e-12, atol=1e-14, events=ev,
                        dense_output=True, first_step=1e-8)
        tt = np.linspace(t, sol.t[-1], 400)
        ts.append(tt); xs.append(sol.sol(tt)[0])
        t, y = sol.t[-1], sol.y[:, -1].copy()
        if sol.status == 1:
            y[1] = osc.v_belt
    return np.concatenate(ts), np.concatenate(xs)


def test_exact_solution_matches_integration():
    osc = Oscillator()
    t_num, x_num = _integrate(osc, 0.0, 0.0, 5.0)
    x_ex, _, ph = solve(osc, 0.0, 0.0, t_num)
    kinds = [p[0] for p in ph]
    assert kinds.count("stick") >= 3 and kinds.count("slip") >= 3
    assert np.max(np.abs(x_ex - x_num)) < 1e-8


def test_limit_cycle_amplitude_closed_form():
    # On the limit cycle the slip starts at x_s = mu_s N / k with x' = v_belt, around
    # x_e = mu_k N / k: amplitude A = hypot(x_s - x_e, v_belt / w), so the block swings between
    # x_e - A and x_e + A, and sticks again at 2 x_e - x_s (Popp & Stelter (1990)).
    osc = Oscillator()
    w = math.sqrt(osc.k / osc.m)
    xs_, xe = osc.mu_s * osc.N / osc.k, osc.mu_k * osc.N / osc.k
    A = math.hypot(xs_ - xe, osc.v_belt / w)
    t = np.linspace(3.0, 6.0, 300001)
    x, v, ph = solve(osc, 0.0, 0.0, t)
    assert x.min() == pytest.approx(xe - A, rel=1e-9)
    assert x.max() == pytest.approx(xe + A, rel=1e-9)
    stick_starts = [p[2] for p in ph if p[0] == "stick"]
    assert stick_starts[-1] == pytest.approx(2 * xe - xs_, rel=1e-9)
    assert v.max() == pytest.approx(osc.v_belt, rel=1e-12)
