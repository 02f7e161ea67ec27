"""One event table for the non-smooth solvers' datasets: impacts and friction events together.

Dimension ``event`` (in the order of time); per row its time [s], its kind (``event_kind``, a
flag: :data:`EVENT_NAMES`), the joint, a normal force [N] and an approach speed [m/s]:

* ``impact``: a clearance joint's contact start (from the dataset's ``impact`` table: its time,
  joint, approach speed, and peak contact force where the solver located it, else NaN);
* ``slip_reversal``, ``stick_start``, ``stick_to_slip``, ``side_switch``: the set-valued friction
  events of an ideal joint (event-driven solver), with the joint's normal multiplier just after
  the event (a pin: its load ``|lambda|``) and no approach speed (NaN); or of a clearance joint's
  contact under Moreau-Jean time stepping (:func:`.moreau_jean.run`: the contact's state after
  each step with an impulse, stick when ``u_T+ = 0``, and its changes, at the step's end; the
  normal force is ``P_N / h``; a reversal inside one step shows as one step of stick; a contact's
  first step sets its state without an event).

The event-driven and Moreau-Jean datasets carry it.  The compiled fast path's dataset keeps its
``impact`` table alone: its friction laws are regularised, so it has no friction events, and its
impact table (peaks located on the dense output, read by the reducers and plots) is its event
table already.
"""
from __future__ import annotations

import numpy as np

from ..results.variables import var as _var

EV_IMPACT, EV_REVERSAL, EV_STICK, EV_BREAKAWAY, EV_SIDE = 0, 1, 2, 3, 4
EVENT_NAMES = {EV_IMPACT: "impact", EV_REVERSAL: "slip_reversal", EV_STICK: "stick_start",
               EV_BREAKAWAY: "stick_to_slip", EV_SIDE: "side_switch"}
#: the variables of the table (dropped and rebuilt by :func:`event_table`)
EVENT_VARS = ("event", "event_time", "event_kind", "event_joint", "event_normal_force", "event_velocity")


def event_table(ds, friction=(), joint_names=()):
    """``ds`` with the event table of its impacts (``impact_*`` variables, when present) and of
    the friction events ``friction`` (``(time [s], friction-joint index, kind, normal force [N])``
    rows; ``joint_names[k]`` the name of friction joint ``k``)."""
    rows = []
    if "impact_time" in ds:
        t = np.asarray(ds["impact_time"].values, float)
        j = [str(x) for x in ds["impact_joint"].values]
        v = np.asarray(ds["impact_velocity"].values, float)
        pk = (np.asarray(ds["impact_peak_force"].values, float) if "impact_peak_force" in ds
              else np.full(len(t), np.nan))
        rows += [(t[i], EV_IMPACT, j[i], pk[i], v[i]) for i in range(len(t))]
    rows += [(float(t), int(kind), str(joint_names[k]), float(N), np.nan) for t, k, kind, N in friction]
    rows.sort(key=lambda r: r[0])          # stable: simultaneous events keep their order
    ds = ds.drop_vars([v for v in EVENT_VARS if v in ds.variables])
    kinds = sorted(EVENT_NAMES)
    ds = ds.assign_coords(event=_var(("event",), np.arange(len(rows), dtype=np.int32), "1",
                                     "event index (impacts and friction events in the order of time)"))
    ds["event_time"] = _var(("event",), np.array([r[0] for r in rows], float), "s",
                            "time of the event (located by root finding or on the step)")
    ds["event_kind"] = _var(("event",), np.array([r[1] for r in rows], np.int8), "1",
                            "kind of event", flag_values=np.array(kinds, np.int8),
                            flag_meanings=" ".join(EVENT_NAMES[k] for k in kinds))
    ds["event_joint"] = _var(("event",), np.array([r[2] for r in rows], dtype=str), "1",
                             "joint of the event (clearance joint of an impact, ideal joint of a "
                             "friction event)")
    ds["event_normal_force"] = _var(("event",), np.array([r[3] for r in rows], float), "N",
                                    "friction event: the joint's normal multiplier lambda_N just after "
                                    "it (a pin: its load |lambda|); impact: the peak contact force "
                                    "(NaN where not located)")
    ds["event_velocity"] = _var(("event",), np.array([r[4] for r in rows], float), "m/s",
                                "impact: approach speed at the contact start; friction event: NaN")
    return ds
