"""A contact law that pushes while the bodies are apart is a model fault, found before a run.

The solver calls a contact law's kernel only in contact (``delta > 0``,
:func:`workbench.mbs.clearance.clearance_forces_lubricated`), so a law returning a force at a
negative penetration (a sign error, a missing ``if delta <= 0``) would never show in a run's
numbers -- yet the same slip usually corrupts its force in contact too, and its results cannot be
trusted.  :func:`check_apart` calls each clearance joint's kernel, with the parameters packed for
that joint, at a few separations and approach speeds (nine calls of its plain-Python path: well
under a millisecond) when the study is loaded, so ``validate`` and ``run`` stop with a
:class:`~workbench.errors.ModelFault` (exit status 3) naming the model, the joint and the call.
The conformance suite (:func:`workbench.conformance.check_contact_law`) checks the same property
over a wider grid, for a plugin's author.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ModelFault
from ..mbs.mechanism import contact_geometry

#: separations probed, as fractions of the joint's clearance [1] (0: touching, not penetrating)
SEPARATIONS = (-0.5, -1e-3, 0.0)
#: normal approach speeds probed [m/s]
SPEEDS = (-1.0, 0.0, 1.0)
#: impact speed handed to the kernel [m/s]
IMPACT_SPEED = 1.0


def check_apart(mechanism) -> None:
    """Raise :class:`~workbench.errors.ModelFault` when the contact law of a clearance joint of
    ``mechanism`` returns a force other than 0 at a penetration ``delta <= 0``."""
    for i, c in enumerate(mechanism.clearance_joints):
        model = c.contact
        kernel = getattr(type(model), "kernel", None)
        kern = getattr(kernel, "py_func", kernel)
        if kern is None or not callable(kern):
            continue
        try:
            p = np.asarray(model.pack(contact_geometry(c)), dtype=float)
        except Exception:  # noqa: BLE001 - the pack check of study.checks reports it
            continue
        clearance = float(getattr(c, "clearance", 0.0)) or 1e-4
        for frac in SEPARATIONS:
            delta = frac * clearance
            for speed in SPEEDS:
                try:
                    f = float(kern(delta, speed, IMPACT_SPEED, p))
                except Exception:  # noqa: BLE001 - a kernel the plain path cannot run: the
                    return         # conformance suite and the solver's own checks cover it
                if f != 0.0 or not math.isfinite(f):
                    raise ModelFault(
                        f"[mechanism.clearance_joints[{i}].contact] the contact model '{model.name}' of "
                        f"clearance joint '{c.name}' returns {f:.6g} N at a penetration of {delta:.6g} m "
                        f"(delta_dot = {speed:g} m/s): the bodies are apart there, and a contact force "
                        f"while they are apart is a fault of the model (it must return exactly 0 for "
                        f"delta <= 0); its results cannot be trusted: fix the model or choose another "
                        f"(workbench.conformance.check_model finds such faults in a plugin's tests)")
