"""Independent Exudyn model of the flexible slider-crank of Wang, Chen, Ma & Sun (2016), ideal joints.

The peer-engine cross-check of the flexible links: built with Exudyn's ``ObjectANCFCable2D``
(Gerstmayr & Irschik (2008): the same elastic line the workbench's cable element uses) and no
workbench imports, so the two codes share nothing but the data.

Model (Wang, Chen, Ma & Sun (2016) Tables 1-2):
* crank 0.05 m, 0.30 kg, 1e-4 kg m^2 (``NodeRigidBody2D``), pinned to the ground at the origin and
  driven at 5000 rpm on velocity level (its Lagrange multiplier is the driving moment);
* connecting rod 0.12 m, 0.21 kg: ``n_el`` ANCF cable elements (``NodePoint2DSlope1``); its cross
  section is not given in the paper, so it is derived from the rod's mass with steel's density
  7800 kg/m^3 (A = m / (rho L) = 2.24e-4 m^2) and taken square (I = A^2 / 12 = 4.19e-9 m^4),
  with E a parameter (2 ... 207 GPa);
* slider 0.14 kg (``NodePoint2D`` + ``ObjectMassPoint2D``: it does not rotate), on the in-line
  guide y = 0, pinned to the rod's end (the rod's end node and the slider share x and y);
* gravity 9.81 m/s^2 along -y;
* optional Kelvin-Voigt damping of the rod, time constant ``rod_damping`` = beta [s]: Exudyn's axial
  and bending damping coefficients ``beta EA`` and ``beta EI`` (virtual work of the strain and
  curvature rates), the flexible studies' structural damping.
The rod starts straight along +x at crank angle 0 with the rigid mechanism's velocities (a node
at s moves with (0, r w (1 - s/l)), its slope with (0, -r w / l)): the undeformed start at full
speed excites the rod's axial mode, the "step load" of the flexible study protocol.

Exudyn's generalised-alpha (index 3) with a constant step and ``spectral_radius``.
"""
from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FlexibleSliderCrank:
    """Data, SI units."""
    crank_length: float = 0.05
    rod_length: float = 0.12
    crank_mass: float = 0.30
    crank_inertia: float = 1.0e-4
    rod_mass: float = 0.21
    slider_mass: float = 0.14
    rod_density: float = 7800.0       # kg/m^3, steel (assumed: the paper gives the rod's mass only)
    rod_young: float = 2.0e9          # Pa
    crank_speed: float = 5000.0 * 2.0 * math.pi / 60.0
    gravity: float = 9.81
    rod_damping: float = 0.0          # s, Kelvin-Voigt time constant beta (0: undamped)

    @property
    def rod_area(self) -> float:
        """m^2: from the rod's mass and length."""
        return self.rod_mass / (self.rod_density * self.rod_length)

    @property
    def rod_second_moment(self) -> float:
        """m^4: a square section of the rod's area."""
        return self.rod_area ** 2 / 12.0


def simulate(d: FlexibleSliderCrank, *, n_el: int = 6, step_size: float = 1e-6, t_end: float = 0.012,
             spectral_radius: float = 0.8, output_every: int = 1) -> dict:
    """Run the model; returns arrays ``time`` [s], ``crank_angle`` [rad], ``driver_torque`` [N m]
    (the moment the driver applies to the crank), ``slider_x`` [m], ``slider_acceleration``
    [m/s^2], ``midspan_deflection`` [m] (of the rod's middle node from the chord of its ends,
    ``n_el`` even), and ``wall_time`` [s]."""
    import exudyn as exu
    import exudyn.itemInterface as ei

    if n_el < 1 or n_el % 2:
        raise ValueError(f"n_el = {n_el}: an even number of elements >= 2 is needed (mid-span node)")
    r, l, w = d.crank_length, d.rod_length, d.crank_speed
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.AddObject(ei.ObjectGround(referencePosition=[0, 0, 0]))
    n_ground = mbs.AddNode(ei.NodePointGround(referenceCoordinates=[0, 0, 0]))
    m_gc = mbs.AddMarker(ei.MarkerNodeCoordinate(nodeNumber=n_ground, coordinate=0))

    n_crank = mbs.AddNode(ei.NodeRigidBody2D(referenceCoordinates=[0.5 * r, 0, 0],
                                             initialVelocities=[0, 0.5 * r * w, w]))
    b_crank = mbs.AddObject(ei.ObjectRigidBody2D(nodeNumber=n_crank, mass=d.crank_mass,
                                                 inertia=d.crank_inertia))
    mbs.AddLoad(ei.LoadMassProportional(markerNumber=mbs.AddMarker(ei.MarkerBodyMass(bodyNumber=b_crank)),
                                        loadVector=[0, -d.gravity, 0]))
    mbs.AddObject(ei.ObjectJointRevolute2D(markerNumbers=[
        mbs.AddMarker(ei.MarkerBodyRigid(bodyNumber=ground, localPosition=[0, 0, 0])),
        mbs.AddMarker(ei.MarkerBodyRigid(bodyNumber=b_crank, localPosition=[-0.5 * r, 0, 0]))]))
    m_phi = mbs.AddMarker(ei.MarkerNodeCoordinate(nodeNumber=n_crank, coordinate=2))
    driver = mbs.AddObject(ei.ObjectConnectorCoordinate(markerNumbers=[m_gc, m_phi], offset=w,
                                                        velocityLevel=True))

    le = l / n_el
    ea = d.rod_young * d.rod_area
    eI = d.rod_young * d.rod_second_moment
    rho_a = d.rod_mass / l
    nodes = []
    for k in range(n_el + 1):
        s = k * le
        nodes.append(mbs.AddNode(ei.NodePoint2DSlope1(
            referenceCoordinates=[r + s, 0.0, 1.0, 0.0],
            initialVelocities=[0.0, r * w * (1 - s / l), 0.0, -r * w / l])))
    cables = []
    for k in range(n_el):
        c = mbs.AddObject(ei.ObjectANCFCable2D(length=le, massPerLength=rho_a,
                                               bendingStiffness=eI, axialStiffness=ea,
                                               bendingDamping=d.rod_damping * eI,
                                               axialDamping=d.rod_damping * ea,
                                               nodeNumbers=[nodes[k], nodes[k + 1]]))
        cables.append(c)
        mbs.AddLoad(ei.LoadMassProportional(markerNumber=mbs.AddMarker(ei.MarkerBodyMass(bodyNumber=c)),
                                            loadVector=[0, -d.gravity, 0]))
    # crank pin -> rod's first node
    mbs.AddObject(ei.ObjectJointRevolute2D(markerNumbers=[
        mbs.AddMarker(ei.MarkerBodyRigid(bodyNumber=b_crank, localPosition=[0.5 * r, 0, 0])),
        mbs.AddMarker(ei.MarkerNodePosition(nodeNumber=nodes[0]))]))
    # slider: a point mass on the guide y = 0, pinned to the rod's end node
    n_sl = mbs.AddNode(ei.NodePoint2D(referenceCoordinates=[r + l, 0.0]))
    b_sl = mbs.AddObject(ei.ObjectMassPoint2D(mass=d.slider_mass, nodeNumber=n_sl))
    mbs.AddLoad(ei.LoadMassProportional(markerNumber=mbs.AddMarker(ei.MarkerBodyMass(bodyNumber=b_sl)),
                                        loadVector=[0, -d.gravity, 0]))
    for coord in (0, 1):
        mbs.AddObject(ei.ObjectConnectorCoordinate(markerNumbers=[
            mbs.AddMarker(ei.MarkerNodeCoordinate(nodeNumber=nodes[-1], coordinate=coord)),
            mbs.AddMarker(ei.MarkerNodeCoordinate(nodeNumber=n_sl, coordinate=coord))]))
    mbs.AddObject(ei.ObjectConnectorCoordinate(markerNumbers=[
        m_gc, mbs.AddMarker(ei.MarkerNodeCoordinate(nodeNumber=n_sl, coordinate=1))]))

    OV = exu.OutputVariableType

    def sensor(**kw):
        if "nodeNumber" in kw:
            return mbs.AddSensor(ei.SensorNode(storeInternal=True, writeToFile=False, **kw))
        return mbs.AddSensor(ei.SensorObject(storeInternal=True, writeToFile=False, **kw))
    s_phi = sensor(nodeNumber=n_crank, outputVariableType=OV.Coordinates)
    s_drv = sensor(objectNumber=driver, outputVariableType=OV.Force)
    s_x = sensor(nodeNumber=n_sl, outputVariableType=OV.Coordinates)
    s_a = sensor(nodeNumber=n_sl, outputVariableType=OV.Coordinates_tt)
    s_mid = sensor(nodeNumber=nodes[n_el // 2], outputVariableType=OV.Coordinates)
    s_a0 = sensor(nodeNumber=nodes[0], outputVariableType=OV.Coordinates)
    mbs.Assemble()

    st = exu.SimulationSettings()
    n_steps = int(round(t_end / step_size))
    ti = st.timeIntegration
    ti.numberOfSteps = n_steps
    ti.endTime = n_steps * step_size
    ti.verboseMode = 0
    ti.generalizedAlpha.spectralRadius = spectral_radius
    ti.generalizedAlpha.computeInitialAccelerations = True
    ti.newton.relativeTolerance = 1e-10
    ti.newton.absoluteTolerance = 1e-12
    st.solution.file.write = False
    st.solution.sensors.writePeriod = step_size * output_every * (1 - 1e-9)
    t0 = _time.perf_counter()
    ok = mbs.SolveDynamic(st, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    wall = _time.perf_counter() - t0
    if not ok:
        raise RuntimeError(f"Exudyn solver failed (step {step_size} s)")

    def get(s):
        return np.asarray(mbs.GetSensorStoredData(s))
    phi = get(s_phi)
    xs = get(s_x)
    mid = get(s_mid)
    a0 = get(s_a0)
    # node coordinates are displacements from the reference configuration
    end_x, end_y = xs[:, 1] + r + l, xs[:, 2]
    a_x, a_y = a0[:, 1] + r, a0[:, 2]
    m_x, m_y = mid[:, 1] + r + 0.5 * l, mid[:, 2]
    chord = np.hypot(end_x - a_x, end_y - a_y)
    defl = ((end_x - a_x) * (m_y - a_y) - (end_y - a_y) * (m_x - a_x)) / chord
    return {"time": phi[:, 0], "crank_angle": phi[:, 3], "driver_torque": -get(s_drv)[:, 1],
            "slider_x": end_x, "slider_acceleration": get(s_a)[:, 1], "midspan_deflection": defl,
            "wall_time": wall}
