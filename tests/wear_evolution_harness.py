"""A quasi-static harness around the wear loop's own steps, for the analytic wear-evolution cases.

It replaces only the dynamics of the wear loop (:mod:`workbench.wear.loop`): a rigid journal turns at
constant speed under a constant load whose direction is fixed in the bushing frame, so each cycle's
contact samples are known in closed form (force ``F``, contact direction ``angle``, relative rotation
``phi_rel`` from 0 to 2 pi, slip ``2 pi R_j / S`` per sample).  Everything else is the loop's code:

* surfaces: :class:`workbench.wear.surfaces.WornJoint` (bushing and journal depth on body nodes);
* pressure: the study's pressure model through :func:`workbench.wear.increment.pressure_field`
  (the same checked call the loop makes, on the worn gap);
* wear law and split: :func:`workbench.wear.increment.wear_rate` (law depth, bushing/journal share,
  journal depths carried to the journal nodes);
* cycle jump: the loop's depth-step rule (:func:`workbench.wear.loop.choose_jump`: the largest
  ``dN`` keeping the deepest increment below ``depth_step`` times the radial clearance) and
  :func:`workbench.wear.increment.jump_increment`.

The dynamics it leaves out is trivial for these cases (steady, frictionless, the load carried
exactly: ``tests/wear/test_wear_loop.py`` measures the loop's mean contact force at 1e-6 of F), and
``test_wear_evolution.py`` checks the harness against the loop on the constant-load rig.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from workbench.wear.increment import ContactSamples, jump_increment, wear_rate
from workbench.wear.surfaces import WornJoint


@dataclasses.dataclass
class Evolution:
    """Rows after each update: cycles [1], bushing and journal depth [m] (rows, M)."""
    cycles: np.ndarray
    bushing: np.ndarray
    journal: np.ndarray


def cycle_samples(worn: WornJoint, force: float, angle: float, samples: int = 72,
                  period: float = 0.1) -> ContactSamples:
    """One cycle of a rigid journal turning once under a fixed load (see the module docstring)."""
    S = samples
    phi = 2.0 * math.pi * np.arange(S) / S
    R = worn.joint.journal_radius
    return ContactSamples(force=np.full(S, float(force)), friction=np.zeros(S), angle=np.full(S, float(angle)),
                          phi_rel=phi, slip=np.full(S, 2.0 * math.pi * R / S), penetration=np.zeros(S),
                          time=period * np.arange(S) / S)


def run(worn: WornJoint, pressure, law, *, force: float, angle: float, cycles: float, depth_step: float,
        share: float, samples: int = 72, stop=None) -> Evolution:
    """Wear ``worn`` for ``cycles`` cycles with the loop's pure steps; ``stop(worn)`` ends early."""
    N, rows = 0.0, [(0.0, worn.h_bushing.copy(), worn.h_journal.copy())]
    c = worn.clearance
    while N < cycles and not (stop and stop(worn)):
        s = cycle_samples(worn, force, angle, samples)
        rate = wear_rate(worn, s, 1, pressure, law, share)
        dN = cycles - N
        if rate.deepest > 0.0:   # the loop's depth-step bound (workbench.wear.loop.choose_jump)
            dN = min(dN, max(1.0, math.floor(depth_step * c / rate.deepest)))
        db, dj, dsl, _, _ = jump_increment(worn, rate, dN, law, share, pressure)
        worn = dataclasses.replace(worn, h_bushing=worn.h_bushing + db, h_journal=worn.h_journal + dj,
                                   sliding_bushing=worn.sliding_bushing + dsl)
        N += dN
        rows.append((N, worn.h_bushing.copy(), worn.h_journal.copy()))
    return Evolution(np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
                     np.array([r[2] for r in rows]))


# ------------------------------------------------------------------------------ the wearing cam
@dataclasses.dataclass
class CamEvolution:
    """Rows after each update: cycles [1] and the cam's radius profile about its initial centre [m]."""
    cycles: np.ndarray
    radius: np.ndarray      # (rows, M) r(beta) of the worn cam about the initial geometric centre
    beta: np.ndarray        # (M,) node angles [rad] in the cam frame, from the eccentricity direction


def cam_contact(radius: np.ndarray, beta: np.ndarray, e0: float, phi: float):
    """Node index of the contact with a flat follower whose face normal is +y, and the face height
    ``y`` [m] above the rotation centre, for the cam turned by ``phi`` [rad].  A node's position in
    space is ``R(phi) (e0 x + r(beta) u(beta))`` (the initial geometric centre at ``e0`` from the
    rotation centre); the contact is the node of largest ``y``, refined by a parabola."""
    y = e0 * math.sin(phi) + radius * np.sin(beta + phi)
    k = int(np.argmax(y))
    M = len(y)
    a, b, c = y[k - 1], y[k], y[(k + 1) % M]
    den = a - 2.0 * b + c
    off = 0.5 * (a - c) / den if den < 0.0 else 0.0
    return k + off, b - 0.25 * (a - c) * off


def run_cam(law, *, radius: float, eccentricity: float, line_load: float, cycles: float,
            depth_step: float, nodes: int = 720, samples: int = 720, patch: float = math.radians(3.0),
            pressure: str = "patch", stiffness: float = 5.0e12) -> CamEvolution:
    """A circular cam (``radius`` R0 [m], its centre ``eccentricity`` e0 [m] from the rotation
    centre) turning under a flat-faced follower pressed with a constant ``line_load`` [N/m]; the
    cam wears, the follower does not.

    Each sample: the contact node on the current worn profile (:func:`cam_contact`), a
    semi-elliptical pressure patch of half-angle ``patch`` about it carrying the line load
    (``sum p r dbeta = P``; the patch is wider than the Hertz width so that it sweeps the nodes
    smoothly, and the depth a node collects over a cycle does not depend on the patch's shape),
    the slip ``omega y dt`` of a flat-faced follower (the cam's material speed along the face at
    the contact, ``y`` the face height above the rotation centre), and the depth from the study's
    wear law (``law.depth``, the loop's call).  The cycle jump is the loop's depth-step rule with
    ``depth_step`` [m] of depth per update, and the increment ``dN`` times the rate
    (:func:`workbench.wear.increment.jump_increment` for a law without running-in).  Depths are
    applied along the radius from the initial centre (the normal, to first order in the centre's
    shift over the radius).

    ``pressure = "winkler"`` replaces the patch by a Winkler foundation on the follower's face,
    ``p = stiffness * (y_node - y_face)`` where positive, the face height found so that the
    pressure carries the line load: a pressure that sees the worn geometry (``stiffness`` [Pa/m];
    5e12 gives a contact half-width of about 3 degrees on the 20 mm cam)."""
    M, S = nodes, samples
    beta = 2.0 * math.pi * np.arange(M) / M
    r = np.full(M, float(radius))
    N, rows = 0.0, [(0.0, r.copy())]
    dphi = 2.0 * math.pi / S
    while N < cycles:
        p = np.zeros((S, M))
        slip = np.zeros(S)
        for s in range(S):
            phi = s * dphi
            k, y = cam_contact(r, beta, eccentricity, phi)
            if pressure == "winkler":
                yn = eccentricity * math.sin(phi) + r * np.sin(beta + phi)
                w8 = r * (2.0 * math.pi / M)
                load = lambda yf: stiffness * float(np.sum(np.maximum(yn - yf, 0.0) * w8)) - line_load  # noqa: E731
                lo, hi = y - 1e-3, y
                for _ in range(60):     # bisection on the face height (1e-3 m / 2^60: below rounding)
                    mid = 0.5 * (lo + hi)
                    lo, hi = (mid, hi) if load(mid) > 0.0 else (lo, mid)
                p[s] = stiffness * np.maximum(yn - 0.5 * (lo + hi), 0.0)
            else:
                x = (beta - k * 2.0 * math.pi / M + math.pi) % (2.0 * math.pi) - math.pi
                w = np.sqrt(np.clip(1.0 - (x / patch) ** 2, 0.0, None))
                p[s] = line_load * w / float(np.sum(w * r * (2.0 * math.pi / M)))
            slip[s] = y * dphi          # omega y dt with omega dt = dphi
        rate = law.depth(p, slip[:, None], np.zeros((1, M))).sum(axis=0)   # [m/cycle] per node
        dN = min(cycles - N, max(1.0, math.floor(depth_step / rate.max())))
        r = r - dN * rate
        N += dN
        rows.append((N, r.copy()))
    return CamEvolution(np.array([q[0] for q in rows]), np.array([q[1] for q in rows]), beta)


def fit_circle(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Least-squares circle through the points (Kasa's algebraic fit): centre (xc, yc), radius [m]."""
    A = np.column_stack([x, y, np.ones_like(x)])
    sol, *_ = np.linalg.lstsq(A, x ** 2 + y ** 2, rcond=None)
    xc, yc = 0.5 * sol[0], 0.5 * sol[1]
    return float(xc), float(yc), float(math.sqrt(sol[2] + xc ** 2 + yc ** 2))
