"""The study-file schema of the ``kind = "pressure"`` study: static pin-in-bushing contact,
every pressure model against the FE model and the closed forms.

The tables (checked by :func:`workbench.kinds.pressure_config.parse_pressure`, documented in
``docs/study_format.md`` from here)::

    [study]    kind = "pressure", title, description
    [grid]     theta_nodes
    [output]   vtu
    [compare]  baseline, reference
    [[cases]]  name, bore_radius, clearance | clearances, length, outer_radius, bushing, journal,
               loads | persson_half_angles_deg, worn_depth, worn_half_angle, worn_profile,
               bushing_mesh, pin_mesh
    [models.<label>]  plugin, fit_to, fit_load, and the pressure model's parameters
"""
from __future__ import annotations

from ..study.schema import MATERIAL, STUDY
from .core import Key, Section

#: closed forms a pressure study can add as models (their labels are reserved)
REFERENCES = ("persson", "hertz")
TOP_LEVEL = ("study", "grid", "compare", "cases", "models", "output")

GRID = Section("grid", "The contact nodes on the bore.", (
    Key("theta_nodes", "int", "1", "contact nodes theta_k = 2 pi k / n on the bore (a multiple of 4, "
        "so that the load line and its normal fall on nodes)", 720, min=24),
))

OUTPUT = Section("output (kind = \"pressure\")", "What the pressure study writes besides its dataset.", (
    Key("vtu", "bool", "", "write the FE displacement and stress fields at the largest load (VTU files "
        "for ParaView, next to the results)", False),
))

COMPARE = Section("compare", "What the errors of a pressure study are relative to.", (
    Key("baseline", "text", "", "label of the model (a `[models.<label>]` table) the errors are "
        "relative to", "fem"),
    Key("reference", "texts", "", "closed forms added as models: `persson` (Persson (1964), conforming "
        "pin in a plate) and `hertz` (Johnson (1985) internal line contact)", REFERENCES,
        choices=REFERENCES),
))

CASE = Section("cases[]", (
    "One static contact case (pin in a bushing held at `outer_radius`). Give exactly one of "
    "`clearance` and `clearances` (one case each), and exactly one of `loads` and "
    "`persson_half_angles_deg`."), (
    Key("name", "text", "", "unique case name (a case of `clearances` gets `_c<clearance>` appended)"),
    Key("bore_radius", "number", "m", "bore radius R of the bushing", gt=0.0),
    Key("clearance", "number", "m", "radial clearance, below R/2", None, min=0.0),
    Key("clearances", "numbers", "m", "radial clearances, one case each, below R/2", None, min=0.0),
    Key("length", "number", "m", "axial contact length b", gt=0.0),
    Key("outer_radius", "number", "m", "radius where the bushing (or plate) is held, above 1.05 R", gt=0.0),
    Key("bushing", "table", "", "material of the bushing (see `material`)", None),
    Key("journal", "table", "", "material of the pin (see `material`)", None),
    Key("loads", "numbers", "N", "loads pressing the pin on the bushing", None, gt=0.0),
    Key("persson_half_angles_deg", "numbers", "deg", "instead of `loads`: the loads giving these Persson "
        "(1964) contact half-angles (the one conversion from degrees)", None, gt=0.0),
    Key("worn_depth", "number", "m", "depth of a cos^2 crescent of wear centred on the load line", 0.0, min=0.0),
    Key("worn_half_angle", "number", "rad", "half-angle of the worn crescent", 0.5, gt=0.0),
    Key("worn_profile", "table", "", "the bushing wear profile of a wear result instead of the crescent "
        "(see `cases[].worn_profile`)", None),
    Key("bushing_mesh", "free_text", "", "mesh file of the bushing for the `fem` model, relative to the "
        "study file", None),
    Key("pin_mesh", "free_text", "", "mesh file of the pin for the `fem` model, relative to the study file",
        None),
))

WORN_PROFILE = Section("cases[].worn_profile", (
    "A bushing wear profile taken from a wear result (a zarr store or a netCDF export), turned so "
    "that `load_angle` lies on the load line."), (
    Key("file", "text", "", "the wear result, relative to the study file"),
    Key("joint", "text", "", "the worn joint (default: the first)", None),
    Key("cycle", "int", "1", "row of the wear history (index; negative counts from the end)", -1),
    Key("load_angle", "number", "rad", "angle of the bushing frame put on the load line (default: the "
        "deepest wear)", None),
))

MODEL = Section("models.<label>", (
    "A pressure model compared in the study, under the label `<label>`; the other keys of the "
    "table are the model's parameters (`workbench plugins --family pressure`)."), (
    Key("plugin", "text", "", "registry name of the pressure model"),
    Key("fit_to", "text", "", "`\"fem\"` on a `winkler` model: fit its foundation stiffness to the FE "
        "half-angle", None, choices=("fem",)),
    Key("fit_load", "int", "1", "index of the load to fit at (default: fit at every load)", None, min=0),
))

SECTIONS = (GRID, OUTPUT, COMPARE, CASE, WORN_PROFILE, MODEL)

#: table path -> section (see :data:`workbench.study.schema.TREE`)
TREE: dict = {
    "study": STUDY, "grid": GRID, "output": OUTPUT, "compare": COMPARE, "cases[]": CASE,
    "cases[].worn_profile": WORN_PROFILE, "cases[].bushing": MATERIAL, "cases[].journal": MATERIAL,
    "models.*": MODEL, "models.*.<parameters>": ("model", "pressure"),
}
