"""Approximate contact area: the load spread over the Hertz arc, ``A = s b``.

Wang & Liu (2015) eq. 22: the contact area of a revolute joint is ``A = s b`` with ``s`` the contact
arc and ``b`` the pin length, and the pressure is ``p = F / A``.  The arc is ``s = 2 a`` with ``a``
the Hertz half-width of two internal cylinders at the current load (Johnson (1985) §4.2:
``a = sqrt(4 P R_eff / (pi E*))``, ``1/R_eff = 1/R_pin - 1/R_hole``, ``P = F/b``), the clearance taken
from the gap in the load direction.  Over the arc, centred on the load, the pressure is

* ``"elliptical"`` (default): Hertz's semi-elliptical line-contact distribution
  ``p0 sqrt(1 - (x/a)^2)`` (Johnson (1985) §4.2), or
* ``"uniform"``: the block ``F/(s b)`` of Wang & Liu (2015) eq. 22.

**Nodal values.**  The distribution is not sampled at the nodes (a block sampled at the nodes jumps
whenever an arc edge crosses a node, and the wear it drives carves a sawtooth of the arc's width into
the bore).  It is integrated exactly over the intervals between neighbouring nodes, and the force of
each interval is split between its two end nodes so that its direction is kept:
``n(theta) = [sin(theta_{k+1} - theta) n_k + sin(theta - theta_k) n_{k+1}] / sin(dtheta)`` holds
exactly on ``[theta_k, theta_{k+1}]``, so node ``k`` receives
``w_k = (1/sin dtheta) int q(theta - phi) sin(theta_{k+1} - theta) dtheta`` from its right interval
(and the mirror image from its left one).  Then ``sum_k w_k n_k = int q n dtheta`` holds identically,
and scaling the nodal values ``p_k = A w_k / dtheta`` so that ``R b sum p_k n_k dtheta`` has the
length of ``F`` makes the pressure carry the load as a VECTOR, to rounding, at any load and any node
count (a narrow arc between two nodes included).  The nodal field is a continuous function of the
load angle and of the half-width (the kernel ``w_k`` is a convolution of the distribution with a
continuous hat).  The scalar ``R b sum p dtheta`` exceeds ``|F|`` by the arc factor
``int q / int q cos`` (``alpha/sin(alpha)`` uniform, ``alpha / (2 J1(alpha))`` elliptical), which
is the same arc factor a Winkler or FE pressure carries.

Why elliptical by default: it is the pressure the Hertz half-width belongs to, it vanishes at the arc
edges as an elastic contact does, and its wear profile has no steps at ``+-a`` (a uniform block,
even integrated exactly, wears a pocket with vertical flanks wherever the load dwells).

For a prescribed approach the force is the Hertz-type joint law ``F = K delta^1.5`` with ``K`` from
Wang, Chen, Ma & Sun (2016) eq. 11.

:meth:`ApproximateArea.solve_loads` (the batch of a wear update) is compiled over the samples
(:func:`approximate_area_batch`, Gauss-Legendre quadrature in ``t = asin(x/a)`` for the ellipse);
``solve_load`` is the reference path (adaptive ``scipy.integrate.quad``); tests keep them equal.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.plugin import (BoreSection, ContactGeometry, PressureModel, PressureSolution,
                              WorkbenchError, hookimpl, njit, parameter)


#: Gauss-Legendre rule of the compiled path (10 points: exact to rounding for the smooth
#: integrands cos^2(t) sin(h - alpha sin t) even over the widest t-interval, pi)
_GL_X, _GL_W = np.polynomial.legendre.leggauss(10)


@njit(cache=True)
def arc_weights(theta0, dtheta, n, angle, alpha, elliptical, idx, s_node, w):
    """Nodal weights ``w`` [rad] of the unit-height distribution over the arc ``|s| <= alpha``.

    ``theta0`` first node angle [rad], ``dtheta`` node spacing [rad], ``n`` nodes, ``angle`` load
    angle [rad], ``alpha`` half-angle [rad] (0 < alpha <= pi/2).  Fills ``idx`` (node index),
    ``s_node`` (node angle minus ``angle``, unwrapped [rad]) and ``w`` for the first ``count`` entries
    and returns ``count``: ``w_k = int q(s) W_k(s) ds`` with ``W_k`` the direction-keeping hat of node
    ``k`` (module docstring), so ``sum w_k n_k = int q n ds`` exactly.
    """
    k_lo = int(math.floor((angle - alpha - theta0) / dtheta))
    k_hi = int(math.floor((angle + alpha - theta0) / dtheta))
    count = k_hi - k_lo + 2
    for q in range(count):
        k = k_lo + q
        idx[q] = k % n
        s_node[q] = theta0 + k * dtheta - angle
        w[q] = 0.0
    sd = math.sin(dtheta)
    for q in range(count - 1):
        lo, hi = s_node[q], s_node[q + 1]
        a, b = max(lo, -alpha), min(hi, alpha)
        if b <= a:
            continue
        if elliptical:          # s = alpha sin t: q ds = alpha cos^2 t dt, smooth in t
            t1 = math.asin(min(max(a / alpha, -1.0), 1.0))
            t2 = math.asin(min(max(b / alpha, -1.0), 1.0))
            h, c = 0.5 * (t2 - t1), 0.5 * (t2 + t1)
            wl = 0.0
            wr = 0.0
            for g in range(_GL_X.size):
                t = c + h * _GL_X[g]
                x = alpha * math.sin(t)
                f = _GL_W[g] * math.cos(t) ** 2
                wl += f * math.sin(hi - x)
                wr += f * math.sin(x - lo)
            wl *= alpha * h
            wr *= alpha * h
        else:                   # int_a^b sin(hi - s) ds and int_a^b sin(s - lo) ds, no cancellation
            sh = 2.0 * math.sin(0.5 * (b - a))
            m = 0.5 * (a + b)
            wl = sh * math.sin(hi - m)
            wr = sh * math.sin(m - lo)
        w[q] += wl / sd
        w[q + 1] += wr / sd
    return count


@njit(cache=True)
def approximate_area_batch(theta, gaps, loads, R, b, hsum, elliptical):
    """Compiled ``solve_load`` of :class:`ApproximateArea` over ``ns`` samples.

    ``theta`` (n,) uniform node angles [rad]; ``gaps`` (ns, n) or (1, n) [m] (one row shared by all
    samples); ``loads`` (ns, 2) [N]; ``R`` bore radius [m]; ``b`` length [m]; ``hsum`` = ``h_bushing +
    h_journal`` [1/Pa]; ``elliptical`` the pressure shape.  Returns ``(p (ns, n) [Pa], e (ns, 2) [m],
    bad)`` with ``bad`` the first loaded sample whose clearance along its load is <= 0 (-1 if none).
    Same steps as the reference path (gap interpolated at the load angle, Hertz half-width, joint
    stiffness, nodal weights, vector scaling); only the nodes of the arc are visited.
    """
    n = theta.size
    ns = loads.shape[0]
    twopi = 2.0 * math.pi
    dtheta = twopi / n
    theta0 = theta[0]
    p = np.zeros((ns, n))
    ecc = np.zeros((ns, 2))
    w = np.zeros(n + 3)
    s_node = np.zeros(n + 3)
    idx = np.zeros(n + 3, dtype=np.int64)
    E_star = 1.0 / hsum
    for s in range(ns):
        F0, F1 = loads[s, 0], loads[s, 1]
        Fm = math.sqrt(F0 * F0 + F1 * F1)
        if Fm == 0.0:
            continue
        g = gaps[s] if gaps.shape[0] > 1 else gaps[0]
        angle = math.atan2(F1, F0)
        # linear interpolation of the periodic gap at the load angle (as ApproximateArea._clearance)
        x = (angle - theta0) % twopi + theta0
        j = min(max(int((x - theta0) / dtheta), 0), n - 1)
        while j > 0 and theta[j] > x:
            j -= 1
        while j < n - 1 and theta[j + 1] <= x:
            j += 1
        if j < n - 1:
            x1, g1 = theta[j + 1], g[j + 1]
        else:
            x1, g1 = theta0 + twopi, g[0]
        if x == x1:
            dR = g1
        else:
            dR = (g1 - g[j]) / (x1 - theta[j]) * (x - theta[j]) + g[j]
        if dR <= 0.0:
            return p, ecc, s
        Rj = R - dR
        K = 4.0 / (3.0 * hsum) * math.sqrt(R * Rj / (R - Rj))
        delta = (Fm / K) ** (1 / 1.5)
        ecc[s, 0] = (dR + delta) * F0 / Fm
        ecc[s, 1] = (dR + delta) * F1 / Fm
        R_eff = 1.0 / (1.0 / (R - dR) - 1.0 / R)
        a = math.sqrt(4.0 * Fm / b * R_eff / (math.pi * E_star))
        alpha = min(a / R, math.pi / 2)
        count = arc_weights(theta0, dtheta, n, angle, alpha, elliptical, idx, s_node, w)
        along = 0.0
        for q in range(count):
            along += w[q] * math.cos(s_node[q])
        scale = Fm / (R * b * dtheta * along)
        for q in range(count):
            p[s, idx[q]] += w[q] * scale
    return p, ecc, -1


class ApproximateArea(PressureModel):
    """Load over the Hertz arc, ``A = s b`` (Wang & Liu (2015) eq. 22), semi-elliptical (Hertz,
    Johnson (1985) §4.2) or uniform, integrated exactly over the node intervals; the nodal
    pressures carry the load as a vector.  Approach law: Wang, Chen, Ma & Sun (2016) eq. 11."""
    name = "approximate_area"
    reference = ("Wang & Liu (2015) eq. 22, A = s b; Hertz half-width and semi-elliptical pressure "
                 "of internal cylinders, Johnson (1985) §4.2; Wang, Chen, Ma & Sun (2016) eq. 11")

    @dataclass(frozen=True)
    class Params:
        distribution: str = parameter(
            "elliptical", unit="text", doc="pressure shape over the Hertz arc: 'elliptical' (Hertz "
            "p0 sqrt(1 - (x/a)^2), smooth wear profiles) or 'uniform' (F/(s b))",
            choices=("elliptical", "uniform"))

    def _clearance(self, section: BoreSection, angle: float) -> float:
        th = np.append(section.theta, section.theta[0] + 2 * math.pi)
        g = np.append(section.gap, section.gap[0])
        return float(np.interp(np.mod(angle - section.theta[0], 2 * math.pi) + section.theta[0], th, g))

    @staticmethod
    def _E_star(section: BoreSection) -> float:
        hsum = section.bushing.h + section.journal.h
        if hsum <= 0:
            raise WorkbenchError("approximate_area needs at least one elastic part")
        return 1.0 / hsum

    def half_angle(self, section: BoreSection, force: float, angle: float) -> float:
        """Half-angle ``a/R`` [rad] of the Hertz arc for force ``force`` [N] along ``angle`` [rad]."""
        dR = self._clearance(section, angle)
        R = section.radius
        if dR <= 0:
            return math.pi / 2
        R_eff = 1.0 / (1.0 / (R - dR) - 1.0 / R)
        a = math.sqrt(4.0 * force / section.length * R_eff / (math.pi * self._E_star(section)))
        return min(a / R, math.pi / 2)

    def shape(self, s):
        """The distribution's unit-peak shape ``q(s)`` [1] at ``s`` = angle from the load / half-angle."""
        s = np.asarray(s, float)
        inside = np.abs(s) <= 1.0
        if self.params.distribution == "uniform":
            return inside.astype(float)
        return np.sqrt(np.clip(1.0 - s * s, 0.0, None)) * inside

    def nodal_weights(self, section: BoreSection, angle: float, alpha: float) -> np.ndarray:
        """Reference nodal weights ``w_k`` [rad] (see :func:`arc_weights`), by adaptive quadrature."""
        from scipy.integrate import quad
        n = len(section.theta)
        dth = section.dtheta
        th0 = float(section.theta[0])
        w = np.zeros(n)
        elliptical = self.params.distribution == "elliptical"
        k_lo = math.floor((angle - alpha - th0) / dth)
        k_hi = math.floor((angle + alpha - th0) / dth)
        for k in range(k_lo, k_hi + 1):
            lo, hi = th0 + k * dth - angle, th0 + (k + 1) * dth - angle
            a, b = max(lo, -alpha), min(hi, alpha)
            if b <= a:
                continue
            if elliptical:
                t1, t2 = (math.asin(min(max(x / alpha, -1.0), 1.0)) for x in (a, b))
                f_l = lambda t: alpha * math.cos(t) ** 2 * math.sin(hi - alpha * math.sin(t))  # noqa: E731
                f_r = lambda t: alpha * math.cos(t) ** 2 * math.sin(alpha * math.sin(t) - lo)  # noqa: E731
                bounds = (t1, t2)
            else:
                f_l = lambda x: math.sin(hi - x)  # noqa: E731
                f_r = lambda x: math.sin(x - lo)  # noqa: E731
                bounds = (a, b)
            w[k % n] += quad(f_l, *bounds, epsabs=0.0, epsrel=1e-13)[0] / math.sin(dth)
            w[(k + 1) % n] += quad(f_r, *bounds, epsabs=0.0, epsrel=1e-13)[0] / math.sin(dth)
        return w

    def _distribute(self, section: BoreSection, force: float, angle: float, e) -> PressureSolution:
        R, b, dth = section.radius, section.length, section.dtheta
        p = np.zeros(len(section.theta))
        alpha = self.half_angle(section, force, angle) if force > 0 else 0.0
        if force > 0:
            w = self.nodal_weights(section, angle, alpha)
            along = float(w @ np.cos(section.theta - angle))
            p = w * (force / (R * b * dth * along))
        res = R * b * dth * (section.normals.T @ p)
        arc = 2 * alpha * R
        info = {"half_angle": alpha, "peak_pressure": float(p.max()),
                "area": arc * b,
                "nominal_pressure": force / (arc * b) if arc > 0 else 0.0}
        return PressureSolution(p, np.asarray(e, float), res, info)

    def _stiffness(self, section: BoreSection, angle: float) -> float:
        dR = self._clearance(section, angle)
        if dR <= 0:
            raise WorkbenchError("approximate_area needs a positive clearance in the contact direction")
        geo = ContactGeometry("cylindrical", section.radius - dR, section.radius, section.length,
                              section.journal, section.bushing)
        return geo.default_stiffness()

    def solve_load(self, section: BoreSection, load) -> PressureSolution:
        F = np.asarray(load, float)
        Fm = float(np.linalg.norm(F))
        if Fm == 0:
            return self._distribute(section, 0.0, 0.0, np.zeros(2))
        angle = math.atan2(F[1], F[0])
        dR = self._clearance(section, angle)
        delta = (Fm / self._stiffness(section, angle)) ** (1 / 1.5)
        return self._distribute(section, Fm, angle, (dR + delta) * F / Fm)

    def solve_loads(self, section: BoreSection, loads, gaps=None) -> tuple[np.ndarray, np.ndarray]:
        """Batch :meth:`solve_load` (see :class:`workbench.models.PressureModel`), compiled over the
        samples; equal to the per-sample loop to rounding."""
        L, G = self.batch_inputs(section, loads, gaps)
        gaps2 = np.ascontiguousarray(np.asarray(section.gap, float)[None, :]) if G is None else G
        if len(L) and np.any(L != 0.0):
            self._E_star(section)   # error when both parts are rigid
        p, e, bad = approximate_area_batch(np.ascontiguousarray(section.theta, dtype=float), gaps2, L,
                                           float(section.radius), float(section.length),
                                           float(section.bushing.h + section.journal.h),
                                           self.params.distribution == "elliptical")
        if bad >= 0:
            raise WorkbenchError(f"approximate_area needs a positive clearance in the contact direction "
                                 f"(sample {bad}, load {L[bad].tolist()} N)")
        return p, e

    def solve_approach(self, section: BoreSection, eccentricity) -> PressureSolution:
        """Pressure for the journal centre displaced by ``eccentricity`` [m]: the penetration is
        taken along the approach, ``|e| - gap(angle)`` with the gap interpolated as in
        :meth:`solve_load` (not at the nearest node), so that it inverts :meth:`solve_load`."""
        e = np.asarray(eccentricity, float)
        em = float(np.linalg.norm(e))
        angle = math.atan2(e[1], e[0]) if em > 0 else 0.0
        u = em - self._clearance(section, angle)
        if not u > 0:
            return self._distribute(section, 0.0, 0.0, e)
        force = self._stiffness(section, angle) * u ** 1.5
        return self._distribute(section, force, angle, e)


@hookimpl
def register_pressure_models(register):
    register(ApproximateArea)
