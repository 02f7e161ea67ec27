"""Hook specifications of the workbench (pluggy project name ``workbench``).

Every hook hands the plugin a ``register`` callback and expects the plugin to call it once per
model class it provides.  Hooks are called once, when the registry is built
(:func:`workbench.plugins.build_registry`), never inside the solver loop.  Call them with keyword
arguments only.

A plugin module is a few lines::

    from workbench.hookspecs import hookimpl
    from .my_law import MyLaw

    @hookimpl
    def register_contact_laws(register):
        register(MyLaw)

and is declared in its package's ``pyproject.toml``::

    [project.entry-points.workbench]
    my_law = "my_package.my_plugin_module"
"""
from __future__ import annotations

import pluggy

PROJECT = "workbench"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_contact_laws(register):
    """Register normal contact force laws.

    Called once when the registry is built.  ``register(cls)`` takes a subclass of
    :class:`workbench.models.ContactLaw` with ``name``, ``reference``, ``Params`` and a compiled
    ``kernel(delta, delta_dot, delta_dot_minus, p) -> F_n`` [N].  Returns nothing.
    """


@hookspec
def register_friction_laws(register):
    """Register tangential friction laws.

    Called once when the registry is built.  ``register(cls)`` takes a subclass of
    :class:`workbench.models.FrictionLaw` with ``name``, ``reference``, ``Params``, ``n_states``
    and a compiled ``kernel(v_t, f_n, z, p) -> (f_t, z_dot)``.  Returns nothing.
    """


@hookspec
def register_pressure_models(register):
    """Register contact-pressure models.

    Called once when the registry is built.  ``register(cls)`` takes a subclass of
    :class:`workbench.models.PressureModel` implementing ``solve_load`` and ``solve_approach``
    on a :class:`workbench.models.BoreSection`.  Returns nothing.
    """


@hookspec
def register_wear_laws(register):
    """Register wear laws.

    Called once when the registry is built.  ``register(cls)`` takes a subclass of
    :class:`workbench.models.WearLaw` implementing ``depth(pressure, slip, sliding_distance)``
    [m].  Returns nothing.
    """


@hookspec
def register_lubrication_models(register):
    """Register lubricated-joint models (hydrodynamic film, mixed lubrication).

    Called once when the registry is built.  ``register(cls)`` takes a subclass of
    :class:`workbench.models.LubricationModel` with ``name``, ``reference``, ``Params``, ``pack``
    and a compiled ``kernel(ex, ey, vx, vy, omega, p) -> (f_x, f_y, t_j)``.  Returns nothing.
    """


#: hook name -> model family it registers
HOOK_FAMILIES = {
    "register_contact_laws": "contact",
    "register_friction_laws": "friction",
    "register_pressure_models": "pressure",
    "register_wear_laws": "wear",
    "register_lubrication_models": "lubrication",
}
