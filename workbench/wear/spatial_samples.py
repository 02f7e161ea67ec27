"""Sample sources of the spatial wear loop (:mod:`.spatial_loop`): what loads each worn map.

* :func:`constant_load_rig` -- a journal turning at constant speed in a fixed bushing, pressed
  by a constant load with its axis tilted by a fixed angle against the bore (the spatial twin of
  ``studies/journal_wear_constant_load.toml``): every sample has the same load and slope, the
  slip per sample is ``R_j omega dt``; the analytic check of the worn maps (``docs/spatial.md``,
  "Worn maps");
* :func:`ball_rig` -- a ball turning at constant spin in a fixed socket under a constant load
  (the ball joint's analytic check);
* :func:`dynamics_source` -- a spatial mechanism's clearance dynamics on the current maps.
"""
from __future__ import annotations

import math

import numpy as np

from .spatial_cap import CapSamples
from .spatial_map import MapSamples


def constant_load_rig(load: float, tilt: float, speed_rpm: float, samples_per_cycle: int,
                      direction: float = -0.5 * math.pi, tilt_direction: float | None = None):
    """The sample source of the constant-load rig.

    load [N] pressing the journal onto the bushing along the bushing-frame angle ``direction``
    [rad]; tilt [rad] of the journal axis against the bore, in the plane of ``tilt_direction``
    [rad] (default: the load's plane, so the end ``z = +L/2`` is pressed deepest for a positive
    tilt); speed_rpm [rev/min] of the journal; samples_per_cycle [1] per revolution."""
    T = 60.0 / speed_rpm
    omega = 2.0 * math.pi / T
    td = direction if tilt_direction is None else tilt_direction
    F = load * np.array([math.cos(direction), math.sin(direction)])
    t = math.tan(tilt) * np.array([math.cos(td), math.sin(td)])

    def source(run, n_cycles: int, tighten: float = 1.0) -> dict:
        S = samples_per_cycle
        ns = n_cycles * S
        time = (T / S) * np.arange(ns)
        out = {}
        for j, w in run.worn.items():
            out[j] = MapSamples(load=np.tile(F, (ns, 1)), slope=np.tile(t, (ns, 1)), friction=np.zeros(ns),
                                phi_rel=omega * time, slip=np.full(ns, w.joint.radius_j * omega * T / S),
                                penetration=np.zeros(ns), time=time)
        return out
    return source


def dynamics_source(mechanism, settings, cycle_period: float):
    """The sample source of a spatial mechanism: its clearance dynamics on the current worn maps
    (:func:`workbench.spatial.clearance.run.simulate` with ``worn``), ``settle_cycles`` cycles of
    ``cycle_period`` [s] left out, then ``n`` averaging cycles of ``samples_per_cycle`` samples.

    Per sample and worn joint: the load and the axis slope in the bushing's section frame, the
    journal's turn (unwrapped), the slip ``|v_t| dt`` [m] of the faster rim and the friction
    force [N] (:mod:`workbench.spatial.clearance.worn`).  ``settings``: the spatial engine's
    settings (``t_start`` and tolerances are kept; ``t_end`` and ``output_step`` are set here)."""
    import dataclasses

    from ..spatial.clearance.run import simulate

    def source(run, n_cycles: int, tighten: float = 1.0) -> dict:
        cfg = run.cfg
        S = cfg.samples_per_cycle
        t0 = settings.t_start
        st = dataclasses.replace(settings, t_end=t0 + (cfg.settle_cycles + n_cycles) * cycle_period,
                                 output_step=cycle_period / S, rtol=settings.rtol * tighten,
                                 atol=settings.atol * tighten)
        sim = simulate(mechanism, st, worn=run.worn)
        a = cfg.settle_cycles * S
        b = a + n_cycles * S
        x = sim.extras
        dt = cycle_period / S
        out = {}
        for j, w in run.worn.items():
            # the joint's contact starts in the averaging window (the spatial impact table names
            # the joint by its index)
            starts = sim.impact_time[(sim.impact_joint == j) & (sim.impact_time >= sim.time[a])]
            if w.joint.type == "spherical":
                out[j] = CapSamples(load=x["clearance_ball_load"][a:b, j], spin=x["clearance_ball_spin"][a:b, j],
                                    dt=np.full(b - a, dt), friction=np.abs(sim.friction_force[a:b, j]),
                                    penetration=sim.penetration[a:b, j], time=sim.time[a:b], radius=w.joint.radius_j,
                                    contact_starts=starts)
                continue
            out[j] = MapSamples(load=x["clearance_section_load"][a:b, j], slope=x["clearance_axis_slope"][a:b, j],
                                friction=np.abs(sim.friction_force[a:b, j]),
                                phi_rel=np.unwrap(x["clearance_turn"][a:b, j]),
                                slip=np.abs(sim.slip_velocity[a:b, j]) * dt,
                                penetration=sim.penetration[a:b, j], time=sim.time[a:b], contact_starts=starts)
        return out
    return source


def ball_rig(load, spin, samples_per_cycle: int, period: float):
    """The sample source of the ball rig: a constant ``load`` (3,) [N] (the ball's push on the
    socket, socket frame) and a constant ``spin`` (3,) [rad/s] of the ball relative to the socket;
    ``samples_per_cycle`` samples per ``period`` [s] (one cycle)."""
    F = np.asarray(load, float)
    w = np.asarray(spin, float)

    def source(run, n_cycles: int, tighten: float = 1.0) -> dict:
        ns = n_cycles * samples_per_cycle
        dt = period / samples_per_cycle
        return {j: CapSamples(load=np.tile(F, (ns, 1)), spin=np.tile(w, (ns, 1)), dt=np.full(ns, dt),
                              friction=np.zeros(ns), penetration=np.zeros(ns), time=dt * np.arange(ns),
                              radius=m.joint.radius_j) for j, m in run.worn.items()}
    return source
