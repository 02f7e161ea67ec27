"""Exudyn models of the spatial slider-crank: the peer engine of the spatial benchmarks
(``tests/benchmarks/bench_spatial_slider_crank.py``, ``bench_spatial_clearance.py``) and of the
first-impact check in ``tests/spatial/test_clearance_revolute.py``; no workbench imports (the
clearance law's parameters come in as numbers).

The Flores slider-crank (crank 0.05 m, rod 0.12 m, in-line slider, the data of
``studies/ideal_slider_crank.toml``) as the spatial chain of ``tests/spatial/slider_crank.py``:
every body an ``ObjectRigidBody`` with Euler parameters (``NodeType.RotationEulerParameters``),
Exudyn's own joints, gravity 9.81 m/s^2 along -y, started at the crank's dead centre with the ideal
mechanism's velocities (crank 523.6 rad/s, rod -218.2 rad/s).

* Crank on the ground, O: a ``GenericJoint`` with all six axes constrained and the rotation about z
  driven by its offset, ``omega t`` wrapped into (-pi, pi] (Exudyn's generic joint measures the
  relative rotation by Tait-Bryan angles), ``omega`` = 5000 rpm; the offset and its time derivative
  are symbolic user functions (evaluated in C++).
* Rod on the crank, A: a ``GenericJoint`` with the translations and the relative rotation about
  the joint frame's x locked (Tait-Bryan xyz: free about the frame's y, then about the turned z: a
  universal joint); the frame's y is the crank's z and its z the rod's y, as in the spatial model.
* :func:`ideal`: slider on the rod, B: ``SphericalJoint``; slider on the ground: ``PrismaticJoint``
  along x.
* :func:`clearance`: B is the revolute clearance joint of ``studies/spatial_slider_crank_clearance.toml``
  (journal R_j on the rod, bore R_i on the slider, aligned, axis z) as an
  ``ObjectConnectorRigidBodySpringDamper`` whose force and torque come from a symbolic user
  function (:func:`clearance_force_torque`): the Lankarani-Nikravesh law with the workbench's packed
  parameters (stiffness K of Wang, Chen, Ma & Sun (2016) eq. 11, exponent 1.5,
  ``chi = 3 (1 - e^2)/4``, impact-speed floor) along the line of centres and Ambrosio's friction
  (Wang, Chen, Ma & Sun (2016) eqs. 13-14: ``c_f c_d(|v_t|) f_n``, linear ramp between v0 and v1)
  against the slip speed of the contact points ``v_t = (v_j - v_i).t + R_j omega_z``.  The approach
  speed at the start of a contact ``delta_dot_minus`` is the one piece of memory of the law; a
  Python pre-step function (once per time step, not per evaluation; it is called with the time at
  the end of the coming step and sees the state at its start) keeps it in a named symbolic
  variable: open contact, it follows the current approach speed; at the first step that finds the
  journal in contact it is set to the speed at the zero crossing, interpolated linearly in the
  penetration between the last two step ends.

  The aligned journal under in-plane loads: its two rims are at equal penetration and carry the law
  once between them (``RIM_SHARE`` = 1/2 each in :mod:`workbench.spatial.clearance.geometry`), the
  journal stays in the plane (``z`` and the tilt stay 0), so its shoulders (axial clearance) never
  touch and are left out of the Exudyn connector.

Exudyn's solver settings are its defaults where they are the fastest: modified Newton (full Newton
gives the same clearance run 3.7-4.4 times slower), generalized-alpha with spectral radius 0.9.
"""
from __future__ import annotations

import math
import time

import numpy as np

OMEGA = 5000.0 * 2.0 * math.pi / 60.0   # rad/s
G = 9.81                                  # m/s^2


def _settings(exu, t_end, h, spectral_radius):
    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.numberOfSteps, ti.endTime, ti.verboseMode = int(round(t_end / h)), t_end, 0
    ti.generalizedAlpha.spectralRadius = spectral_radius
    ti.generalizedAlpha.computeInitialAccelerations = True
    ti.newton.relativeTolerance = 1e-12
    ti.newton.absoluteTolerance = 1e-12
    s.solution.file.write = False
    return s


def _chain(exu, mbs):
    """Ground, the three bodies, the driven crank joint O and the universal joint A; returns
    (ground, crank, rod, slider, O, symbolic functions to keep alive)."""
    from exudyn.advancedUtilities import CreateSymbolicUserFunction
    from exudyn.utilities import RigidBodyInertia
    esym = exu.symbolic
    g = [0.0, -G, 0.0]
    ep = exu.NodeType.RotationEulerParameters
    ground = mbs.CreateGround()
    w_rod = -0.05 * OMEGA / 0.12
    crank = mbs.CreateRigidBody(inertia=RigidBodyInertia(0.30, np.diag([1e-4] * 3)),
                                referencePosition=[0.025, 0.0, 0.0],
                                initialVelocity=[0.0, 0.025 * OMEGA, 0.0], initialAngularVelocity=[0.0, 0.0, OMEGA],
                                gravity=g, nodeType=ep)
    rod = mbs.CreateRigidBody(inertia=RigidBodyInertia(0.21, np.diag([2.5e-4] * 3)), referencePosition=[0.11, 0.0, 0.0],
                              initialVelocity=[0.0, 0.05 * OMEGA + 0.06 * w_rod, 0.0],
                              initialAngularVelocity=[0.0, 0.0, w_rod], gravity=g, nodeType=ep)
    slider = mbs.CreateRigidBody(inertia=RigidBodyInertia(0.14, np.diag([1e-4] * 3)),
                                 referencePosition=[0.17, 0.0, 0.0], gravity=g, nodeType=ep)

    def offset(mbs, t, itemNumber, offsetUserFunctionParameters):
        a = OMEGA * t
        return [0, 0, 0, 0, 0, esym.atan2(esym.sin(a), esym.cos(a))]

    def offset_t(mbs, t, itemNumber, offsetUserFunctionParameters):
        return [0, 0, 0, 0, 0, OMEGA]

    jO = mbs.CreateGenericJoint(itemNumbers=[ground, crank], position=[0.0, 0.0, 0.0], constrainedAxes=[1] * 6)
    keep = []
    for fn, name in ((offset, "offsetUserFunction"), (offset_t, "offsetUserFunction_t")):
        keep.append(CreateSymbolicUserFunction(mbs, fn, name, jO))
        mbs.SetObjectParameter(jO, name, keep[-1])
    # universal joint: frame x = -e_x, y = e_z (crank axis), z = e_y (rod axis)
    axes = np.column_stack([[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    mbs.CreateGenericJoint(itemNumbers=[crank, rod], position=[0.05, 0.0, 0.0], rotationMatrixAxes=axes,
                           constrainedAxes=[1, 1, 1, 1, 0, 0])
    mbs.CreatePrismaticJoint(itemNumbers=[ground, slider], position=[0.17, 0.0, 0.0], axis=[1.0, 0.0, 0.0])
    return ground, crank, rod, slider, jO, keep


def ideal(t_end, h, *, spectral_radius=1.0, sample=1e-4):
    """The ideal R-U-S-P slider-crank, ``t_end`` [s] at the constant step ``h`` [s]; returns
    (times [s], crank moment [N m] about z sampled every ``sample`` s, wall time of
    ``SolveDynamic`` [s])."""
    import exudyn as exu
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground, crank, rod, slider, jO, keep = _chain(exu, mbs)
    mbs.CreateSphericalJoint(itemNumbers=[slider, rod], position=[0.17, 0.0, 0.0])
    sens = mbs.AddSensor(exu.itemInterface.SensorObject(objectNumber=jO, storeInternal=True,
                                                         outputVariableType=exu.OutputVariableType.TorqueLocal))
    mbs.Assemble()
    s = _settings(exu, t_end, h, spectral_radius)
    s.solution.sensors.writePeriod = sample
    t0 = time.perf_counter()
    ok = mbs.SolveDynamic(s, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    wall = time.perf_counter() - t0
    if not ok:
        raise RuntimeError(f"Exudyn failed at h = {h}")
    d = np.asarray(mbs.GetSensorStoredData(sens))
    return d[:, 0], d[:, 3], wall


def clearance_force_torque(esym, law, fric, Rj, c, dm):
    """The symbolic user function of the clearance connector (module docstring).  ``law``: the
    contact law's packed slots (K [N/m^1.5], n = 1.5, chi [1], v_floor [m/s]); ``fric``: the
    friction law's (c_f [1], v0 [m/s], v1 [m/s], ramp 0 = linear); ``Rj`` [m] the journal radius,
    ``c`` [m] the radial clearance; ``dm``: the named symbolic variable holding delta_dot_minus."""
    K, n, chi, vfloor = (float(x) for x in law[:4])
    cf, v0, v1, ramp = (float(x) for x in fric[:4])
    if n != 1.5 or ramp != 0.0:
        raise ValueError("the Exudyn connector implements exponent 1.5 and the linear ramp only")
    R = esym.Real
    zero = R(0.0)

    def uf(mbs, t, itemNumber, displacement, rotation, velocity, angularVelocity, stiffness, damping,
           rotJ0, rotJ1, offset):
        dx, dy = displacement[0], displacement[1]
        e = esym.sqrt(dx * dx + dy * dy + R(1e-300))
        nx, ny = dx / e, dy / e
        delta = e - c
        vn = velocity[0] * nx + velocity[1] * ny
        vt = -velocity[0] * ny + velocity[1] * nx + Rj * angularVelocity[2]
        dpos = esym.max(delta, zero)
        fn = esym.max(K * dpos * esym.sqrt(dpos) * (R(1.0) + chi * vn / esym.max(dm, R(vfloor))), zero)
        speed = esym.abs(vt)
        cd = esym.IfThenElse(speed < v1, esym.max(speed - v0, zero) / (v1 - v0), R(1.0))
        ft = -cf * cd * fn * esym.sign(vt)       # on the journal, along t = z x n
        fx = -fn * nx - ft * ny
        fy = -fn * ny + ft * nx
        # the connector's user function returns the restoring force and torque (minus the load on marker 1)
        return [-fx, -fy, 0, 0, 0, -Rj * ft]
    return uf


def clearance(t_end, h, law, fric, *, Rj=0.0100, Ri=0.0105, spectral_radius=0.9, newton_rtol=1e-9, verbose=0):
    """The slider-crank with the revolute clearance joint B (module docstring), ``t_end`` [s] at the
    constant step ``h`` [s].  Returns a dict: ``ecc`` the journal centre minus the bore centre at
    ``t_end`` [m] (3,), ``impacts`` rows (time [s], approach speed [m/s], peak normal force [N] at
    the step ends), ``wall`` [s] of ``SolveDynamic``, ``prestep`` [s] spent in the Python pre-step
    function.  ``newton_rtol``: Newton's relative tolerance (absolute 1e-10)."""
    import exudyn as exu
    from exudyn.advancedUtilities import CreateSymbolicUserFunction
    esym = exu.symbolic
    c = Ri - Rj
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground, crank, rod, slider, jO, keep = _chain(exu, mbs)
    dm = esym.Real("delta_dot_minus", 0.0)
    co = mbs.CreateRigidBodySpringDamper(itemNumbers=[slider, rod], localPosition0=[0.0, 0.0, 0.0],
                                         localPosition1=[0.06, 0.0, 0.0], useIntrinsicFormulation=False)
    keep.append(CreateSymbolicUserFunction(mbs, clearance_force_torque(esym, law, fric, Rj, c, dm),
                                           "springForceTorqueUserFunction", co))
    mbs.SetObjectParameter(co, "springForceTorqueUserFunction", keep[-1])
    K, _, chi, vfloor = (float(x) for x in law[:4])
    st = {"closed": False, "prev": None, "impacts": [], "spent": 0.0}
    D, V = exu.OutputVariableType.DisplacementLocal, exu.OutputVariableType.VelocityLocal

    def prestep(mbs, t):
        w0 = time.perf_counter()
        t = t - h           # the function gets the end of the coming step; the state is at its start
        d = mbs.GetObjectOutput(co, D)
        v = mbs.GetObjectOutput(co, V)
        e = math.hypot(d[0], d[1])
        delta = e - c
        vn = (v[0] * d[0] + v[1] * d[1]) / e if e > 0.0 else 0.0
        if delta <= 0.0:
            st["closed"] = False
            dm.SetValue(max(vn, 0.0))
        else:
            if not st["closed"]:
                st["closed"] = True
                if st["prev"] is not None and st["prev"][1] <= 0.0:
                    tp, dp, vp = st["prev"]
                    s = -dp / (delta - dp)
                    vc = vp + s * (vn - vp)
                    tc = tp + s * (t - tp)
                else:
                    vc, tc = vn, t
                dm.SetValue(max(vc, 0.0))
                st["impacts"].append([tc, max(vc, 0.0), 0.0])
            f = K * delta * math.sqrt(delta) * (1.0 + chi * vn / max(st["impacts"][-1][1], vfloor))
            st["impacts"][-1][2] = max(st["impacts"][-1][2], f)
        st["prev"] = (t, delta, vn)
        st["spent"] += time.perf_counter() - w0
        return True

    mbs.SetPreStepUserFunction(prestep)
    mbs.Assemble()
    s = _settings(exu, t_end, h, spectral_radius)
    # Newton to 1e-9 relative, 1e-10 absolute: tighter, it stalls on round-off in the impacts
    # (contact forces of 5e4 N; at 1e-12 in the first impact, at 1e-10 with steps of 2e-7 s)
    s.timeIntegration.newton.relativeTolerance = newton_rtol
    s.timeIntegration.newton.absoluteTolerance = 1e-10
    s.timeIntegration.verboseMode = verbose
    t0 = time.perf_counter()
    ok = mbs.SolveDynamic(s, solverType=exu.DynamicSolverType.GeneralizedAlpha, showHints=verbose > 0)
    wall = time.perf_counter() - t0
    if not ok:
        raise RuntimeError(f"Exudyn failed at h = {h}")
    pj = np.asarray(mbs.GetObjectOutputBody(rod, exu.OutputVariableType.Position, localPosition=[0.06, 0.0, 0.0]))
    pi = np.asarray(mbs.GetObjectOutputBody(slider, exu.OutputVariableType.Position, localPosition=[0.0, 0.0, 0.0]))
    return {"ecc": pj - pi, "impacts": np.array(st["impacts"]).reshape(-1, 3), "wall": wall, "prestep": st["spent"]}
