"""The schema of a sweep file (see :mod:`workbench.sweeps.spec` and ``docs/sweep_format.md``).

Top-level tables: ``[sweep]`` (:data:`SWEEP`), ``[set]`` (study key path = value, the same in
every case) and ``[grid]`` (study key path = a list of values, or a table :data:`ENTRY`).
"""
from __future__ import annotations

from .core import Key, Section

TOP_LEVEL = ("sweep", "set", "grid")

SWEEP = Section("sweep", "What the sweep is and which base study it varies.", (
    Key("title", "free_text", "", "short title, stored in the results (default: the file name)", None),
    Key("description", "free_text", "", "free text, stored in the results", ""),
    Key("base", "text", "", "the base study file, relative to this sweep file"),
    Key("summary", "texts", "", "summary quantities (reducers of `workbench.results.reducers`) computed per case "
        "(default: every reducer of the base study's kind)", None),
    Key("zip", "any", "", "groups of parameter names varied together (equal lengths, one dimension "
        "named after the group's first parameter), e.g. `[[\"clearance\", \"speed\"]]`", ()),
    Key("unset", "texts", "", "study key paths removed from the base study first (e.g. so that an "
        "alternative key can be swept)", ()),
    Key("case_timeout", "number", "s", "wall time allowed per case; a case running longer is stopped "
        "and recorded as timed_out (each case then runs in its own process; `workbench sweep "
        "--case-timeout` overrides it)", None, gt=0.0),
    Key("max_cases", "int", "1", "largest number of cases (the product of the grid's dimensions) the "
        "sweep may have; a larger grid is refused by `validate` and `sweep` before any case is "
        "built or written (`--max-cases` on the command line overrides it)", 10000, min=1),
))

ENTRY = Section("grid.\"<key>\"", (
    "A swept study key: either the list of values or this table. A key is a dotted path into the "
    "base study (`[i]` indexes an array of tables); every component must exist in the base study, "
    "except a last one that the study format (or, inside a model table, the model) defines."), (
    Key("values", "any", "", "the values put into the study, one case each (a non-empty list)"),
    Key("name", "text", "", "dimension name in the sweep dataset (default: the last key component, "
        "`<table>_model` for a `model` key)", None),
    Key("labels", "any", "", "coordinate labels, one per value (default: the values, or the `model` of "
        "table values)", None),
    Key("units", "free_text", "", "units of the coordinate (default: the unit the study format or the "
        "model gives the key)", None),
    Key("long_name", "free_text", "", "long name of the coordinate (default: `study key <key>`)", None),
))

SECTIONS = (SWEEP, ENTRY)
