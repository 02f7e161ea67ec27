"""A dynamics study run by Moreau-Jean time stepping, and its dataset.

:func:`simulate` turns the steps of :func:`workbench.nonsmooth.moreau_jean.run` into the
dynamics kind's :class:`~workbench.mbs.solution.Simulation` (so the dataset, summary and plots
are the compliant solver's); :func:`workbench.kinds.dynamics_run.run_moreau_jean` is the dynamics kind's route for
``[solver] method = "moreau_jean"``.  Contact and friction forces are impulses over the step
(mean forces [N]); the contact "energy" is the work the impulses absorb (the impact losses).
"""
from __future__ import annotations

import numpy as np

from ..errors import SolverError
from .moreau_jean import MoreauJean, _rot, run


def simulate(mech, settings, *, step: float, restitution=None, lcp: str = "lemke",
             friction_events: list | None = None):
    """Run ``mech`` by Moreau-Jean with step ``step`` [s] from ``settings.t_start`` to
    ``settings.t_end`` [s]; return a :class:`~workbench.mbs.solution.Simulation` sampled every
    ``settings.output_step`` [s] (a whole multiple of ``step``).  Contact and friction forces
    are the step's impulses over ``h`` (mean forces [N]); the impact table lists contact starts
    (a step with ``P_N > 0`` after one without) with their approach speed ``-u_N-`` [m/s].
    ``friction_events``: a list to receive the contacts' friction events (stick start, stick ->
    slip, slip reversal; :func:`workbench.nonsmooth.moreau_jean.run`)."""
    from ..mbs.equations import mechanical_energy
    from ..mbs.solution import Simulation
    every = int(round(settings.output_step / step))
    if every < 1 or abs(every * step - settings.output_step) > 1e-9 * settings.output_step:
        raise SolverError(f"output.step = {settings.output_step:g} s must be a whole multiple of "
                          f"solver.step = {step:g} s for solver.method = 'moreau_jean'")
    stepper = MoreauJean(mech, restitution=restitution, lcp=lcp, t0=settings.t_start)
    o = run(stepper, settings.t_end, step, t0=settings.t_start, every=every)
    if friction_events is not None:
        friction_events.extend(o["friction_events"])
    cm, n, nb = stepper.cm, stepper.n, stepper.cm.nb
    t, Q, V = o["time"], o["q"], o["v"]
    nt, nc = len(t), len(stepper.contacts)
    KE, PE = np.zeros(nt), np.zeros(nt)
    ecc, pen, ang, rel = (np.zeros((nt, nc, 2)), np.zeros((nt, nc)), np.zeros((nt, nc)),
                          np.zeros((nt, nc)))
    dp, dv = np.zeros(nt), np.zeros(nt)
    for i in range(nt):
        KE[i], PE[i] = mechanical_energy(np.concatenate([Q[i], V[i]]), n, cm.mass, cm.gravity,
                                         cm.frc_i, cm.frc_f)
        Phi, J, Phit = stepper.constraints(t[i], Q[i], V[i])
        dp[i], dv[i] = np.linalg.norm(Phi), np.linalg.norm(J @ V[i] + Phit)
        for k, c in enumerate(stepper.contacts):
            g, _, _, e = stepper.gap(Q[i], c)
            phib = Q[i, 3 * c.bb + 2] if c.bb >= 0 else 0.0
            ecc[i, k] = _rot(phib).T @ e
            pen[i, k] = -g
            ang[i, k] = np.arctan2(ecc[i, k, 1], ecc[i, k, 0])
            rel[i, k] = Q[i, 3 * c.bj + 2] - phib
    lam = -o["Lambda"] / step                       # the multipliers of M q'' + J^T lambda = Q
    from ..mbs.solver import joint_reactions
    reac = joint_reactions(cm, Q, lam)
    imp_t, imp_v, imp_j = o["impacts"]
    acc = np.zeros((nt, nb, 3))
    acc[1:] = np.diff(V, axis=0).reshape(nt - 1, nb, 3) / np.diff(t)[:, None, None]
    stats = dict(o["stats"], restitution=[c.e_n for c in stepper.contacts])
    return Simulation(
        body_names=[b.name for b in mech.bodies], driver_names=[d.name for d in mech.drivers],
        joint_names=[j.name for j in mech.joints],
        clearance_names=[c.name for c in mech.clearance_joints],
        clearance_kinds=["revolute"] * nc, time=t, position=Q.reshape(nt, nb, 3).copy(),
        velocity=V.reshape(nt, nb, 3).copy(), acceleration=acc,
        driver_load=-lam[:, stepper.driver_rows] if len(stepper.driver_rows) else np.zeros((nt, 0)),
        joint_reaction=reac, contact_force=o["PN"] / step, friction_force=o["PT"] / step,
        penetration=pen, eccentricity=ecc, slip_velocity=np.nan_to_num(o["uT"]),
        contact_angle=ang, relative_rotation=rel, kinetic_energy=KE, potential_energy=PE,
        contact_energy=o["D_cont"], driver_work=o["W_drv"],
        dissipated_energy=o["D_fric"] + o["D_damp"], drift_position=dp,
        drift_velocity=dv, impact_time=imp_t, impact_velocity=imp_v,
        impact_joint=imp_j, impact_point=imp_j.copy(), stats=stats, status=o["status"])
