"""The samples, impacts and per-impact peaks of a run of :func:`workbench.flex.solver.simulate`,
turned into a :class:`~workbench.mbs.solution.Simulation` with the beams' outputs."""
from __future__ import annotations

import numpy as np

from ..mbs.clearance import C_EX, C_EY, C_FN, C_FT, C_PEN, C_PHI, C_PSI, C_VT
from ..mbs.mechanism import RevoluteClearanceJoint
from ..mbs.solution import Simulation
from .mechanism import FlexModel


class _Recorder:
    """Samples, impacts and the per-impact peaks of one run, turned into a :class:`Simulation`."""

    def __init__(self, fm: FlexModel, times, stepper=None):
        self.fm = fm
        self.stepper = stepper
        nt, n = len(times), fm.n
        self.times = times
        self.Q = np.zeros((nt, n)); self.V = np.zeros((nt, n)); self.A = np.zeros((nt, n))
        self.L = np.zeros((nt, max(fm.m, 1)))
        self.R = np.zeros((nt, max(fm.n_clr, 1), 9))
        self.KE = np.zeros(nt); self.PE = np.zeros(nt); self.DP = np.zeros(nt); self.DV = np.zeros(nt)
        self.imp = []          # [time, speed, joint, point, peak force, peak time, max penetration]
        self.open = {}         # joint -> index of its open impact

    def sample(self, k, t, q, v, acc, lam):
        """Store the state at sample ``k``.  The accelerations and multipliers stored are the
        index-1 solution at the converged ``(q, v)`` (:func:`_initial_acceleration`): the index-3
        scheme's own multipliers carry spikes where the step size changes (measured: a 2 GPa
        slider-crank's crank moment peaked at 5800 N m instead of 300 N m; Exudyn avoids them with
        a constant step), the index-1 ones are those of the state."""
        from .solver import _initial_acceleration
        fm = self.fm
        acc, lam = _initial_acceleration(fm, q, v, t, self.stepper)
        self.Q[k], self.V[k], self.A[k] = q, v, acc
        self.L[k, :fm.m] = lam
        if fm.n_clr:
            fm.clearance(q, v)
            self.R[k, :fm.n_clr] = fm.rec
        self.KE[k], self.PE[k] = fm.energies(q, v)
        if fm.m:
            phi, B, pt = fm.constraints(q, t)
            self.DP[k] = np.linalg.norm(phi)
            self.DV[k] = np.linalg.norm(B @ v + pt)

    def impact(self, t, speed, p):
        j = int(self.fm.cmodel.pt_joint[p])
        self.imp.append([t, speed, j, p, 0.0, t, 0.0])
        self.open[j] = len(self.imp) - 1

    def track_peaks(self, t, rec):
        for j, i in list(self.open.items()):
            fn, pen = rec[j, C_FN], rec[j, C_PEN]
            row = self.imp[i]
            if fn > row[4]:
                row[4], row[5] = fn, t
            row[6] = max(row[6], pen)
            if fn <= 0.0 and t > row[0]:
                del self.open[j]

    def simulation(self, k, stats, status) -> Simulation:
        fm, mech = self.fm, self.fm.mech
        nb, nc = fm.nb, fm.n_clr
        n3 = 3 * nb
        Q, V, A, L, R = self.Q[:k], self.V[:k], self.A[:k], self.L[:k], self.R[:k]
        reac = np.zeros((k, len(mech.joints), 2))
        for jj, (kind, pi, pj, extra, r) in enumerate(fm.joint_list):
            if kind == "rev":
                reac[:, jj] = -L[:, r:r + 2]
            else:
                nprime, bi, _, _ = extra
                phi = Q[:, 3 * bi + 2] if bi >= 0 else np.zeros(k)
                nx = np.cos(phi) * nprime[0] - np.sin(phi) * nprime[1]
                ny = np.sin(phi) * nprime[0] + np.cos(phi) * nprime[1]
                reac[:, jj, 0] = -nx * L[:, r]; reac[:, jj, 1] = -ny * L[:, r]
        drv = -L[:, fm.driver_rows] if fm.driver_rows else np.zeros((k, 0))
        # driver work by the trapezoidal rule over the samples
        rates = np.zeros((k, len(fm.driver_list)))
        for i, (col, rel, drow, _) in enumerate(fm.driver_list):
            rates[:, i] = [fm.driver_values(drow, tt)[1] for tt in self.times[:k]]
        power = (drv * rates).sum(axis=1)
        work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(self.times[:k]))]) \
            if k else np.zeros(0)
        imp = np.array(self.imp, float).reshape(-1, 7)
        sim = Simulation(
            body_names=[b.name for b in mech.bodies], driver_names=[d.name for d in mech.drivers],
            joint_names=[j.name for j in mech.joints], clearance_names=[c.name for c in mech.clearance_joints],
            clearance_kinds=["revolute" if isinstance(c, RevoluteClearanceJoint) else "translational"
                             for c in mech.clearance_joints],
            time=self.times[:k].copy(),
            position=Q[:, :n3].reshape(k, nb, 3).copy(), velocity=V[:, :n3].reshape(k, nb, 3).copy(),
            acceleration=A[:, :n3].reshape(k, nb, 3).copy(),
            driver_load=drv, joint_reaction=reac,
            contact_force=R[:, :nc, C_FN].copy(), friction_force=R[:, :nc, C_FT].copy(),
            penetration=R[:, :nc, C_PEN].copy(), eccentricity=R[:, :nc, C_EX:C_EY + 1].copy(),
            slip_velocity=R[:, :nc, C_VT].copy(),
            contact_angle=R[:, :nc, C_PSI].copy(), relative_rotation=R[:, :nc, C_PHI].copy(),
            kinetic_energy=self.KE[:k].copy(), potential_energy=self.PE[:k].copy(),
            # not integrated on this path (NaN): the contact work and the friction/damping losses
            contact_energy=np.full(k, np.nan), driver_work=work, dissipated_energy=np.full(k, np.nan),
            drift_position=self.DP[:k].copy(), drift_velocity=self.DV[:k].copy(),
            impact_time=imp[:, 0], impact_velocity=imp[:, 1], impact_joint=imp[:, 2].astype(np.int64),
            impact_point=imp[:, 3].astype(np.int64), impact_peak_force=imp[:, 4].copy(),
            impact_peak_time=imp[:, 5].copy(), impact_max_penetration=imp[:, 6].copy(),
            stats=dict(stats), status=status)
        sim.flex = beam_outputs(fm, Q, V, A)
        return sim


def beam_outputs(fm: FlexModel, Q, V, A) -> dict:
    """Per beam: ``coordinates``, ``velocities``, ``accelerations`` (nt, nodes, 4) [m, 1 | m/s, 1/s |
    m/s^2, 1/s^2] (node position x, y and slope x, y) and ``midspan_deflection`` (nt,) [m]."""
    out = {}
    for bi, (bm, cb, o) in enumerate(fm.beams):
        sl = slice(o, o + cb.n)
        nodes = cb.n_el + 1
        out[bm.name] = {
            "coordinates": Q[:, sl].reshape(len(Q), nodes, 4).copy(),
            "velocities": V[:, sl].reshape(len(Q), nodes, 4).copy(),
            "accelerations": A[:, sl].reshape(len(Q), nodes, 4).copy(),
            "midspan_deflection": fm.midspan_deflection(Q, bi) if len(Q) else np.zeros(0),
            "node_s": np.arange(nodes) * cb.le,
        }
    return out
