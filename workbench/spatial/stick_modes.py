"""Which of the stick units at rest stick: the coupled stick test of :mod:`.stick`.

When several set-valued units (cylindrical or revolute joints, journals of a universal joint) are
at rest at once (released at rest, reaching rest at the same instant, or one of them leaving the
stick bound while the others are stuck), the needed friction of each depends on which of the others
stick: a released unit's slip friction changes the loads the stuck ones must carry.  The stick
test is therefore one problem over all resting units ``S`` (Pfeiffer & Glocker (1996) §4.3, the
planar engine's mode enumeration of :mod:`workbench.nonsmooth.event_driven`):

1. lock every unit of ``S`` (their lock rows together) and project the velocities onto the locked
   manifold; the needed friction of each unit gives its slip direction if released,
   ``d_u = -(f_n, m_n / R) / T``;
2. enumerate the modes: each unit sticks or slips from rest (a one-component unit, a revolute
   joint or a journal, along ``d_u`` or against it; a cylindrical joint along ``d_u``); the modes
   are tried in order of fewer slipping units, then fewer units slipping against ``d_u``;
3. a mode is **consistent** when every sticking unit keeps ``T <= mu_static N`` (its needed
   friction computed with the slipping units' friction at their bound ``mu N``, their directions
   set by the mode) and every slipping unit's slip accelerates along its chosen direction (the
   rate of its slip speed along the direction, from a step of :data:`H` of the phase model, is not
   below :data:`ACC_TOL`);
4. the first consistent mode is taken.  When none is (it does not happen for a contraction, the
   friction coefficients below 1; a guard), the mode with the smallest violation is taken and
   counted (``stats['inconsistent_rest']``).

The enumeration costs ``prod(options)`` phase models at an event (9 for two one-component
units), each one right-hand side and one stick test: negligible beside the phases.  A cylindrical
joint's slip from rest is taken along its needed force (the slip vector's direction); the exact
direction of a two-component slip from rest is that of its acceleration, which differs when the
joint's inertia is anisotropic in ``(s, R theta)``: this reading is kept from the one-joint test.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

#: time step [s] of the difference that gives a slipping unit's acceleration along its direction
H = 1e-6
#: a slip from rest is consistent when its acceleration along its direction is at least this [m/s^2]
ACC_TOL = -1e-9


@dataclass
class RestModes:
    """The outcome of the coupled stick test: ``stuck`` unit -> held ``(slide, angle)``, ``seeds``
    unit -> slip direction ``(s_dot, omega R)``, the projected state, the energy the projection
    removed [J], the needed friction of the all-locked test per unit, and whether the mode is
    consistent."""
    stuck: dict
    seeds: dict
    y: object
    lost: float
    locked_need: dict
    consistent: bool = True
    tried: int = 0
    violation: float = 0.0
    need: dict = field(default_factory=dict)


def decide(ss, t, y, S, force_slip=()) -> RestModes:
    """The coupled stick test of the units ``S`` at rest at ``(t, y)`` (``ss``: the
    :class:`~.stick.StickSlip`); ``force_slip``: units that may not stick (their margin just
    crossed zero)."""
    c = ss.coordinates(y)
    trial = {u: c[u][:2] for u in S}
    m_all = ss.model(trial, {})
    y2, lost = ss.project(m_all, t, y)
    need_all = ss.needed(m_all, t, y2)
    c2 = ss.coordinates(y2)
    options = []
    for u in S:
        f_n, m_n = need_all[u][0], need_all[u][1]
        R = ss.radius(u)
        T = math.hypot(f_n, m_n / R)
        opts = [] if u in force_slip and T > 0 else [("stick", None, 0)]
        if T > 0:
            d = (-f_n / T, -m_n / R / T)
            opts.append(("slip", d, 0))
            if u[1] != 0 or ss.sv[u[0]].type == "revolute":
                opts.append(("slip", (-d[0], -d[1]), 1))
        options.append(opts)
    combos = sorted(itertools.product(*options),
                    key=lambda cb: (sum(o[0] == "slip" for o in cb), sum(o[2] for o in cb)))
    best = None
    for n_tried, combo in enumerate(combos, start=1):
        K = {u: trial[u] for u, o in zip(S, combo) if o[0] == "stick"}
        seeds = {u: o[1] for u, o in zip(S, combo) if o[0] == "slip"}
        m = ss.model(K, seeds)
        viol = 0.0
        need = ss.needed(m, t, y2) if K else {}
        for u in K:
            viol = max(viol, -need[u][4] / max(need[u][2], 1e-300))
        if seeds:
            yd = m.dynamics(t, y2, ss.alpha, ss.beta)
            c1 = ss.coordinates(y2 + H * yd)
            for u, d in seeds.items():
                acc = ((c1[u][2] - c2[u][2]) * d[0] + (c1[u][3] - c2[u][3]) * c2[u][4] * d[1]) / H
                viol = max(viol, ACC_TOL - acc)
        if viol <= 0.0:
            return RestModes(K, seeds, y2, lost, need_all, True, n_tried, 0.0, need)
        if best is None or viol < best.violation:
            best = RestModes(K, seeds, y2, lost, need_all, False, n_tried, viol, need)
    best.tried = len(combos)
    return best
