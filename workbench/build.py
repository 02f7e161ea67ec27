"""Mechanisms built in Python: a thin builder over the study file, for people who think in code::

    import workbench
    m = workbench.Mechanism(gravity=(0.0, -9.81), ground_points={"O": (0.0, 0.0)})
    m.add_body("crank", mass=0.30, inertia=1.0e-4, position=(0.025, 0.0),
               points={"O": (-0.025, 0.0), "A": (0.025, 0.0)})
    m.add_joint("O", "revolute", ("ground", "O"), ("crank", "O"))
    m.add_driver("crank_speed", body="crank", coordinate="phi", initial=0.0, speed_rpm=5000.0)
    study = m.study(title="a crank", solver={"revolutions": 1})   # a loaded, checked study
    print(m.to_toml(title="a crank", solver={"revolutions": 1}))   # the same, as a study file

Every method writes one table of the study file (``docs/study_format.md``) under the same key
names, so the file reference is the builder's reference too; nothing is checked here that the
loader does not check, and everything the loader checks (with the key path of the table) is
checked when :meth:`Mechanism.study` loads the text.  A model is a table too:
``contact=model("lankarani_nikravesh", restitution=0.9)``.  Values are SI, as in a study file.

A study built here is a study loaded from TOML text: :func:`workbench.run` runs it, its result
stores that text (``study_text``), and ``workbench rerun`` reproduces it like any other.
"""
from __future__ import annotations

import copy
from typing import Any

from .errors import StudyError


def model(name: str, **params) -> dict:
    """The table of a model (``contact = { model = "...", ... }``): its registry ``name`` and
    parameters in the model's units (``workbench plugins NAME`` lists them)."""
    return {"model": name, **params}


def _plain(value: Any) -> Any:
    """Tuples (and numpy arrays/scalars) as the lists and numbers TOML writes."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    return value


def _point(ref, role: str, joint: str) -> tuple[str, str]:
    """``("body", "point")`` of a joint end."""
    if isinstance(ref, (list, tuple)) and len(ref) == 2 and all(isinstance(x, str) for x in ref):
        return ref[0], ref[1]
    raise StudyError(f"joint '{joint}': {role} = {ref!r} is not a (body, point) pair of names, "
                     f"e.g. ('ground', 'O')")


class Mechanism:
    """A planar mechanism, table by table (``[mechanism]`` and its ``[[mechanism.*]]`` arrays).

    ``gravity`` [m/s²], ``ground_points`` {name: (x, y) [m]} and any other key of the
    ``[mechanism]`` table (``keys``) are written as given.
    """

    def __init__(self, *, gravity=(0.0, -9.81), ground_points: dict | None = None, **keys):
        self._top = _plain({"gravity": gravity, "ground_points": ground_points or {}, **keys})
        self._arrays: dict[str, list[dict]] = {}

    # -- the arrays of tables ------------------------------------------------------------------
    def add(self, table: str, **keys) -> str:
        """Append one ``[[mechanism.<table>]]`` (``bodies``, ``joints``, ``drivers``,
        ``clearance_joints``, ``forces``, ``beams`` ...) with ``keys``; returns its ``name``."""
        self._arrays.setdefault(table, []).append(_plain(keys))
        return keys.get("name", "")

    def add_body(self, name: str, *, mass: float, inertia: float, position=(0.0, 0.0), angle: float = 0.0,
                 points: dict | None = None, **keys) -> str:
        """A rigid body: ``mass`` [kg], ``inertia`` about its centre of mass [kg m²], ``position`` of
        the centre of mass [m] and ``angle`` [rad] at t = 0, ``points`` {name: (x, y)} in body
        coordinates [m]."""
        return self.add("bodies", name=name, mass=mass, inertia=inertia, position=position, angle=angle,
                        points=points or {}, **keys)

    def add_joint(self, name: str, type: str, i, j, **keys) -> str:
        """An ideal joint of ``type`` (``"revolute"``, ``"translational"`` ...) between the point
        ``i = (body, point)`` and ``j = (body, point)`` (the ground is the body ``"ground"``);
        ``keys``: the joint's own (``axis`` of a translational joint, ``friction`` ...)."""
        bi, pi = _point(i, "i", name)
        bj, pj = _point(j, "j", name)
        return self.add("joints", name=name, type=type, body_i=bi, point_i=pi, body_j=bj, point_j=pj, **keys)

    def add_driver(self, name: str, *, body: str, coordinate: str, **keys) -> str:
        """A driver of ``body``'s ``coordinate`` (``"x"``, ``"y"``, ``"phi"``); ``keys``: its
        motion (``initial`` [m or rad], ``speed_rpm`` [rev/min] ...)."""
        return self.add("drivers", name=name, body=body, coordinate=coordinate, **keys)

    def add_clearance_joint(self, name: str, type: str, *, bushing, journal, **keys) -> str:
        """A clearance joint of ``type`` (``"revolute"``, ``"translational"``) with its bushing at
        ``bushing = (body, point)`` and its journal at ``journal = (body, point)``; ``keys``:
        radii [m], ``length`` [m], materials, ``contact = model(...)``, ``friction = model(...)``."""
        bb, bp = _point(bushing, "bushing", name)
        jb, jp = _point(journal, "journal", name)
        return self.add("clearance_joints", name=name, type=type, bushing_body=bb, bushing_point=bp,
                        journal_body=jb, journal_point=jp, **keys)

    # -- the study file ------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The ``[mechanism]`` table as a dict (a copy)."""
        return copy.deepcopy({**self._top, **self._arrays})

    def document(self, *, title: str, kind: str = "dynamics", description: str | None = None,
                 solver: dict | None = None, output: dict | None = None, **tables) -> dict:
        """The whole study file as a dict: ``[study]`` (``kind``, ``title``, ``description``),
        this ``[mechanism]``, ``[solver]``, ``[output]`` and any other table (``wear={...}``,
        ``checks={...}``)."""
        head = {"kind": kind, "title": title}
        if description is not None:
            head["description"] = description
        doc = {"study": head, "mechanism": self.to_dict()}
        for key, table in (("solver", solver), ("output", output), *tables.items()):
            if table is not None:
                doc[key] = _plain(table)
        return doc

    def to_toml(self, **study) -> str:
        """The study file's text (:meth:`document`'s arguments)."""
        import tomli_w
        return tomli_w.dumps(self.document(**study))

    def study(self, *, registry=None, **study):
        """The study loaded and checked from :meth:`to_toml` (:func:`workbench.load_study`): a
        mistake is a :class:`~workbench.errors.StudyError` naming the key path, as for a file."""
        from .api import load_study
        return load_study(self.to_toml(**study), registry=registry)

    def __repr__(self) -> str:
        counts = ", ".join(f"{len(v)} {k}" for k, v in self._arrays.items())
        return f"Mechanism({counts or 'empty'})"


__all__ = ["Mechanism", "model"]
