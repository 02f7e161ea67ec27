"""One declarative schema for every input file of the workbench.

* :mod:`~workbench.schema.core` -- :class:`Key`, :class:`Section`, :class:`Problems` and the one
  value check (:func:`check_value`) that study keys, sweep keys and model parameters go through;
* :mod:`workbench.study.schema` -- the tables of the dynamics and wear study kinds;
* :mod:`~workbench.schema.pressure` -- the tables of the pressure study kind;
* :mod:`~workbench.schema.sweep` -- the tables of a sweep file;
* :mod:`~workbench.schema.paths` -- study key paths (``mechanism.clearance_joints[0].clearance``);
* :mod:`~workbench.schema.docs` and :mod:`~workbench.schema.jsonschema` -- the Markdown reference
  and the JSON Schemas for editors, generated from the sections.

The package spans two layers (``docs/architecture.md``): :mod:`~workbench.schema.core` is a
foundation (model parameters go through it too); the tables of the study and sweep files and the
references generated from them sit with the study kinds.
"""
from .core import BAD, REQUIRED, Key, Problems, Section, check_value, read_table  # noqa: F401
