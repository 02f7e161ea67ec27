"""Independent Exudyn model of a ball in a spherical socket (no workbench imports).

A rigid ball (mass ``m``, centre = centre of mass) flies from the socket's centre with velocity
``v0`` in 3-D, no gravity, and hits the socket: ``ObjectContactSphereSphere`` with
``isHollowSphere1=True`` (sphere 1 of the 0-based pair ``[ball, socket]``: the socket on the
ground is the hollow sphere), Exudyn's
``impactModel=1`` (Hunt-Crossley) with ``contactStiffness = K`` and exponent 1.5.  Exudyn's law,
``f = k d^n [1 + (3/2)(1 - e_res) d_dot / d_dot_minus]``, is Lankarani-Nikravesh's for
``e_res = (1 + e^2)/2`` (``tests/reference/exudyn_slider_crank.py`` derives it from Exudyn's
documentation and source).  Exudyn stores ``d_dot_minus`` at the end of the first step in contact,
not at the instant the gap closes: the peak converges with the step (RK67, constant step).

:func:`first_impact` returns the first contact's start time [s] (first step with a force) and
its peak force [N] (largest sampled force, refined by a parabola through its neighbours).
"""
from __future__ import annotations

import numpy as np


def first_impact(*, K, restitution, R_socket, R_ball, mass, v0, step=2e-8, t_end=None):
    import exudyn as exu
    import exudyn.itemInterface as ei
    from exudyn.utilities import InertiaSphere

    c = R_socket - R_ball
    speed = float(np.linalg.norm(v0))
    if t_end is None:
        t_end = 1.5 * c / speed
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.AddObject(ei.ObjectGround())
    m_socket = mbs.AddMarker(ei.MarkerBodyRigid(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    ball = mbs.CreateRigidBody(inertia=InertiaSphere(mass, R_ball), referencePosition=[0.0, 0.0, 0.0],
                               initialVelocity=list(map(float, v0)), gravity=[0.0, 0.0, 0.0])
    m_ball = mbs.AddMarker(ei.MarkerBodyRigid(bodyNumber=ball, localPosition=[0.0, 0.0, 0.0]))
    n_data = mbs.AddNode(ei.NodeGenericData(initialCoordinates=[c, 0, 0, 0], numberOfDataCoordinates=4))
    e_res = 1.0 - 0.5 * (1.0 - restitution ** 2)
    contact = mbs.AddObject(ei.ObjectContactSphereSphere(
        markerNumbers=[m_ball, m_socket], nodeNumber=n_data, spheresRadii=[R_ball, R_socket],
        isHollowSphere1=True, contactStiffness=K, contactStiffnessExponent=1.5, contactDamping=0.0,
        impactModel=1, restitutionCoefficient=e_res, minimumImpactVelocity=1e-3))
    sens = mbs.AddSensor(ei.SensorObject(objectNumber=contact, outputVariableType=exu.OutputVariableType.Force,
                                         storeInternal=True, writeToFile=False))
    mbs.Assemble()
    s = exu.SimulationSettings()
    n = int(round(t_end / step))
    s.timeIntegration.numberOfSteps = n
    s.timeIntegration.endTime = n * step
    s.timeIntegration.verboseMode = 0
    s.timeIntegration.generalizedAlpha.spectralRadius = 1.0
    s.timeIntegration.newton.relativeTolerance = 1e-10
    s.timeIntegration.newton.absoluteTolerance = 1e-12
    s.timeIntegration.discontinuous.maxIterations = 10
    s.timeIntegration.discontinuous.iterationTolerance = 1e10   # accept the step where the contact state switches (the data node is updated after it)
    s.solution.file.write = False
    s.solution.sensors.writePeriod = step * (1 - 1e-9)
    if not mbs.SolveDynamic(s, solverType=exu.DynamicSolverType.GeneralizedAlpha):
        raise RuntimeError("Exudyn solver failed")
    d = np.asarray(mbs.GetSensorStoredData(sens))
    t, F = d[:, 0], np.linalg.norm(d[:, 1:4], axis=1)
    k = int(np.argmax(F))
    on = np.flatnonzero(F > 0)
    t_start = t[on[0]] if len(on) else np.nan
    if 0 < k < len(F) - 1:
        a, b, cc = F[k - 1], F[k], F[k + 1]
        den = a - 2 * b + cc
        peak = b - 0.125 * (a - cc) ** 2 / den if den != 0 else b
    else:
        peak = F[k]
    return t_start, peak
