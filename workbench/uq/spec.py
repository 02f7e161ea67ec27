"""UQ files: a base wear study, the uncertain parameters as distributions, and the sampling.

A UQ file is TOML (``workbench uq UQ_FILE -o OUT``; ``workbench validate UQ_FILE`` checks it)::

    [uq]
    title = "Slider-crank wear: k and clearance uncertain"   # optional
    base = "slider_crank_wear.toml"   # the base wear study, relative to this file
    base_samples = 8                  # Saltelli base sample N: N (d + 2) runs for d parameters
    cycles = 2.0e4                    # optional: the wear horizon of every run [cycles]
    level = 0.90                      # central probability of the bands (0.90: 5-95 %)
    surrogate = "pce"                 # optional: polynomial chaos fitted on the design's runs
    surrogate_order = 2               #   its total degree
    held_back = 8                     #   extra direct runs that check it (not used in the fit)

    [set]                             # optional: the same change in every run (as in a sweep)
    "wear.average_cycles" = 8

    [uncertainty]                     # study key = distribution
    "wear.law.wear_coefficient" = { dist = "lognormal", cov = 0.25 }
    "mechanism.clearance_joints[0].bushing_radius" = { dist = "normal", sd = 5.0e-6, name = "clearance" }

A distribution is centred on the base study's value unless it says otherwise: ``normal`` (mean
``mean`` [the key's unit], default the base value; spread ``sd`` [the key's unit] or ``cov`` [1],
``sd = cov * mean``), ``lognormal`` (median ``median``, default the base value; spread ``cov`` [1],
the coefficient of variation, ``sigma_ln = sqrt(ln(1 + cov^2))``, or ``sigma_log`` [1], the
standard deviation of the natural log), ``uniform`` (``low`` and ``high``, or ``half_width``
about the base value).  Draws come from the unit cube through each distribution's inverse CDF,
held inside its 0.01-99.99 % quantiles (a normal's unbounded tails would otherwise hand a run a
non-physical value from a Sobol' point at exactly 0).

Every problem of the file is reported at once (a :class:`~workbench.errors.StudyError` naming the
file, the key, the value and the valid choices).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # the calibration package imports xarray: not on validate's path of a study file
    from ..calibration.posterior import Prior
from ..errors import StudyError, choices_text
from ..schema.core import BAD, Key, Problems, Section, has_bad, read_table, unknown_tables
from ..schema.paths import checked_parts, key_units

TOP_LEVEL = ("uq", "set", "uncertainty")
DISTRIBUTIONS = ("normal", "lognormal", "uniform")
SURROGATES = ("none", "pce")
#: quantiles the draws are held inside (see the module docstring)
TAIL = 1.0e-4

UQ = Section("uq", "What the uncertainty propagation is and which base wear study it samples.", (
    Key("title", "free_text", "", "short title, stored in the results (default: the file name)", None),
    Key("description", "free_text", "", "free text, stored in the results", ""),
    Key("base", "text", "", "the base wear study, relative to this file"),
    Key("base_samples", "int", "1", "Saltelli base sample size N (a power of 2): N (d + 2) runs for d "
        "uncertain parameters", 8, min=2),
    Key("cycles", "number", "1", "wear horizon of every run [machine cycles] (default: the base study's "
        "wear.cycles)", None, gt=0.0),
    Key("level", "number", "1", "central probability of the prediction bands (0.90: the 5-95 % band)",
        0.90, gt=0.0, lt=1.0),
    Key("grid_points", "int", "1", "cycles at which the bands are given (evenly from 0 to the horizon)",
        21, min=2),
    Key("scatter_draws", "int", "1", "draws of the chaotic scatter per run (normal, the run's own "
        "standard error) pooled into the bands", 200, min=1),
    Key("seed", "int", "1", "seed of the Sobol' sequence's scrambling, the scatter draws and SALib's "
        "bootstrap", 0, min=0),
    Key("joint", "text", "", "the worn clearance joint whose bushing is reported (default: the first)", None),
    Key("case_timeout", "number", "s", "wall time allowed per run (as a sweep's case_timeout)", None, gt=0.0),
    Key("surrogate", "text", "", "a surrogate fitted on the design's runs and checked against held-back direct "
        "runs: \"none\" or \"pce\" (polynomial chaos, workbench.uq.surrogate)", "none", choices=SURROGATES),
    Key("surrogate_order", "int", "1", "total degree of the polynomial chaos (its terms must not outnumber "
        "the design's runs)", 2, min=1),
    Key("held_back", "int", "1", "direct runs at fresh random draws, not used in the fit, that check the "
        "surrogate (added to the N (d + 2) design runs)", 8, min=2),
    Key("surrogate_tolerance", "number", "1", "largest relative held-back error of the mean and of the band "
        "edges before the surrogate is flagged (beyond twice the runs' own statistical error)", 0.05, gt=0.0),
))

DIST = Section("uncertainty.\"<key>\"", (
    "An uncertain study key and its distribution (an inline table). The key is a dotted path into the "
    "base study, as in a sweep; its base value is the default centre."), (
    Key("dist", "text", "", "the distribution", choices=DISTRIBUTIONS),
    Key("mean", "number", "", "normal: the mean, in the key's unit (default: the base value)", None),
    Key("median", "number", "", "lognormal: the median, in the key's unit (default: the base value)", None, gt=0.0),
    Key("sd", "number", "", "normal: the standard deviation, in the key's unit", None, gt=0.0),
    Key("cov", "number", "1", "normal or lognormal: the coefficient of variation (sd / mean)", None, gt=0.0),
    Key("sigma_log", "number", "1", "lognormal: the standard deviation of the natural log", None, gt=0.0),
    Key("low", "number", "", "uniform: the lower bound, in the key's unit", None),
    Key("high", "number", "", "uniform: the upper bound, in the key's unit", None),
    Key("half_width", "number", "", "uniform: half the width about the base value, in the key's unit", None, gt=0.0),
    Key("name", "text", "", "the parameter's name in the results (default: the last key component)", None),
))

#: the spread keys each distribution takes (exactly one group)
SPREADS = {"normal": (("sd",), ("cov",)), "lognormal": (("cov",), ("sigma_log",)),
           "uniform": (("low", "high"), ("half_width",))}


@dataclass(frozen=True)
class Uncertain:
    """One uncertain study key: its ``name`` in the results, key ``path``, ``prior`` (a
    :class:`~workbench.calibration.posterior.Prior`: ``ppf`` maps the unit interval onto it),
    ``units`` and a one-line ``describe``."""
    name: str
    path: str
    prior: Prior
    units: str
    base_value: float

    def ppf(self, u):
        import numpy as np
        return self.prior.ppf(np.clip(u, TAIL, 1.0 - TAIL))

    def describe(self) -> str:
        p = self.prior
        what = {"normal": f"normal(mean {p.a:.6g}, sd {p.b:.4g})",
                "lognormal": f"lognormal(median {p.a:.6g}, sigma_ln {p.b:.4g})",
                "uniform": f"uniform({p.a:.6g}, {p.b:.6g})"}[p.kind]
        return f"{self.name} = {self.path} ~ {what} [{self.units or '1'}]"


@dataclass(frozen=True)
class UQSpec:
    """A loaded UQ file (see the module docstring)."""
    file: Path | None
    text: str
    title: str
    description: str
    base_file: Path
    base_doc: dict
    fixed: tuple            # ((path, value), ...) applied to every run
    parameters: tuple[Uncertain, ...]
    base_samples: int
    cycles: float
    level: float
    grid_points: int
    scatter_draws: int
    seed: int
    joint: str | None
    case_timeout: float | None
    surrogate: str = "none"
    surrogate_order: int = 2
    held_back: int = 0          # direct check runs (0 without a surrogate)
    surrogate_tolerance: float = 0.05

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.parameters]


def is_uq_file(path: str | Path) -> bool:
    """Whether ``path`` is a readable TOML file with a ``[uq]`` table."""
    from ..study.input import parse_toml, read_file_text
    try:
        doc = parse_toml(read_file_text(Path(path), "study file"), str(path))
    except StudyError:
        return False
    return isinstance(doc.get("uq"), dict)


def load_uq(path: str | Path, registry=None) -> UQSpec:
    """Read and check the UQ file ``path`` (its base study is read too)."""
    from ..study.input import read_file_text
    path = Path(path)
    return load_uq_text(read_file_text(path, "UQ file"), file=path, registry=registry)


def _walk(doc: dict, parts: tuple) -> Any:
    node: Any = doc
    for p in parts:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def load_uq_text(text: str, *, file: str | Path | None = None, registry=None) -> UQSpec:
    """Check a UQ file given as TOML text; a relative ``base`` is relative to ``file``'s folder."""
    from ..study.input import parse_toml, read_file_text
    fname = str(file) if file is not None else "<uq>"
    doc = parse_toml(text, fname)
    probs = Problems(fname)
    unknown_tables(doc, TOP_LEVEL, probs)
    head = read_table(doc.get("uq", {}), UQ, "uq", probs)
    if head is None or head["base"] is BAD:
        probs.raise_if_any()
    base_file = Path(str(head["base"]))
    if not base_file.is_absolute():
        base_file = (Path(file).parent if file is not None else Path.cwd()) / base_file
    try:
        base_doc = parse_toml(read_file_text(base_file, "base study"), str(base_file))
    except StudyError as exc:
        probs.add("uq.base", f"{exc}")
        probs.raise_if_any()
    kind = str(base_doc.get("study", {}).get("kind", "dynamics"))
    if kind != "wear":
        probs.add("uq.base", f"the base study {base_file} is a {kind} study; uncertainty propagation "
                             "samples a wear study (kind = \"wear\")")
    n = head["base_samples"]
    if n is not BAD and n & (n - 1):
        probs.add("uq.base_samples", f"{n} is not a power of 2 (Sobol' sequences balance only at powers "
                                     f"of 2): try {1 << (int(n).bit_length() - 1)} or {1 << int(n).bit_length()}")
    if registry is None:
        from ..plugins import build_registry
        registry = build_registry()
    fixed = []
    set_table = doc.get("set", {})
    if not isinstance(set_table, dict):
        probs.add("set", f"expected a table of study key = value, got {set_table!r}")
        set_table = {}
    for key, value in set_table.items():
        if checked_parts(key, base_doc, registry, f"set.{key}", probs) is not None:
            fixed.append((key, value))
    table = doc.get("uncertainty", {})
    if not isinstance(table, dict) or not table:
        probs.add("uncertainty", "no uncertain parameters: add an [uncertainty] table, e.g. "
                                 "\"wear.law.wear_coefficient\" = { dist = \"lognormal\", cov = 0.25 }")
        table = {}
    params = [p for key, entry in table.items()
              if (p := _uncertain(key, entry, base_doc, registry, probs)) is not None]
    names = [p.name for p in params]
    for nm in dict.fromkeys(names):
        if names.count(nm) > 1:
            probs.add("uncertainty", f"two parameters are named '{nm}'; give them distinct names with name = \"...\"")
    fixed_paths = {k for k, _ in fixed}
    for p in params:
        if p.path in fixed_paths:
            probs.add(f"set.{p.path}", f"'{p.path}' is both set and uncertain; keep it in one table")
    cycles = head["cycles"]
    if cycles is None and not has_bad(head):
        cycles = dict(fixed).get("wear.cycles", _walk(base_doc, ("wear", "cycles")))
    joint = head["joint"]
    joints = [j.get("name") for j in base_doc.get("mechanism", {}).get("clearance_joints", []) if isinstance(j, dict)]
    if joint not in (None, BAD) and joint not in joints:
        probs.add("uq.joint", f"'{joint}' is not a clearance joint of the base study; valid: {choices_text(joints)}")
    surrogate = head["surrogate"]
    if surrogate == "pce" and n is not BAD and head["surrogate_order"] is not BAD and params:
        from math import comb
        rows, d, order = int(n) * (len(params) + 2), len(params), int(head["surrogate_order"])
        if comb(d + order, order) > rows:
            fits = max(o for o in range(0, order) if comb(d + o, o) <= rows)
            probs.add("uq.surrogate_order", f"{order}: a polynomial chaos of order {order} in {d} inputs has "
                                            f"{comb(d + order, order)} terms, more than the {rows} design runs "
                                            f"that fit it; valid: 1 to {fits}, or a larger base_samples")
    probs.raise_if_any()
    return UQSpec(file=Path(file) if file is not None else None, text=text,
                  title=str(head["title"] or (Path(file).stem if file is not None else "uq")),
                  description=str(head["description"]), base_file=base_file, base_doc=base_doc,
                  fixed=tuple(fixed), parameters=tuple(params), base_samples=int(n),
                  cycles=float(cycles), level=float(head["level"]), grid_points=int(head["grid_points"]),
                  scatter_draws=int(head["scatter_draws"]), seed=int(head["seed"]), joint=joint,
                  case_timeout=head["case_timeout"], surrogate=str(surrogate),
                  surrogate_order=int(head["surrogate_order"]),
                  held_back=int(head["held_back"]) if surrogate != "none" else 0,
                  surrogate_tolerance=float(head["surrogate_tolerance"]))


def _uncertain(key: str, entry: Any, base_doc: dict, registry, probs: Problems) -> Uncertain | None:
    where = f"uncertainty.{key}"
    parts = checked_parts(key, base_doc, registry, where, probs)
    if parts is None:
        return None
    if not isinstance(entry, dict):
        probs.add(where, f"expected a distribution table such as {{ dist = \"normal\", sd = 5.0e-6 }}, got {entry!r}")
        return None
    v = read_table(entry, DIST, where, probs)
    if has_bad(v):
        return None
    dist = v["dist"]
    base = _walk(base_doc, parts)
    numeric = isinstance(base, (int, float)) and not isinstance(base, bool)
    centre_key = {"normal": "mean", "lognormal": "median", "uniform": None}[dist]
    if not numeric and (centre_key is None or v[centre_key] is None) and v["half_width"] is None \
            and not (v["low"] is not None and v["high"] is not None):
        probs.add(where, f"the base study has no number at '{key}' (got {base!r}) to centre the "
                         f"{dist} distribution on; give {centre_key or 'low and high'}")
        return None
    given = {k for k in ("sd", "cov", "sigma_log", "low", "high", "half_width") if v[k] is not None}
    groups = SPREADS[dist]
    ok = [g for g in groups if set(g) == given]
    if not ok:
        valid = " or ".join(" and ".join(f"'{k}'" for k in g) for g in groups)
        probs.add(where, f"a {dist} distribution takes {valid} (got {', '.join(sorted(given)) or 'none'})")
        return None
    for k, d in (("mean", "normal"), ("median", "lognormal")):
        if v[k] is not None and dist != d:
            probs.add(f"{where}.{k}", f"'{k}' belongs to a {d} distribution, not {dist}")
            return None
    from ..calibration.posterior import Prior
    try:
        if dist == "normal":
            mean = float(v["mean"] if v["mean"] is not None else base)
            sd = float(v["sd"]) if v["sd"] is not None else float(v["cov"]) * abs(mean)
            prior = Prior("normal", mean, sd)
        elif dist == "lognormal":
            med = float(v["median"] if v["median"] is not None else base)
            if not med > 0:
                probs.add(where, f"a lognormal distribution needs a positive median, got {med!r} (the base value)")
                return None
            s = float(v["sigma_log"]) if v["sigma_log"] is not None else math.sqrt(math.log1p(float(v["cov"]) ** 2))
            prior = Prior("lognormal", med, s)
        else:
            lo, hi = ((float(v["low"]), float(v["high"])) if v["half_width"] is None
                      else (float(base) - float(v["half_width"]), float(base) + float(v["half_width"])))
            if not hi > lo:
                probs.add(where, f"uniform: low {lo!r} must be below high {hi!r}")
                return None
            prior = Prior("uniform", lo, hi)
    except Exception as exc:  # noqa: BLE001 - Prior's own check (e.g. a negative lower bound)
        probs.add(where, str(exc))
        return None
    strs = [p for p in parts if isinstance(p, str)]
    name = v["name"] or strs[-1]
    return Uncertain(name=name, path=key, prior=prior, units=str(key_units(base_doc, parts, registry) or ""),
                     base_value=float(base) if numeric else math.nan)
