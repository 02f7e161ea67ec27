"""Measured wear data for a calibration: worn profiles and worn volumes at given cycles, each value
with its measurement standard error.

**CSV** (comment lines start with ``#``; one observation per row; SI units, angles in degrees)::

    quantity,cycles,joint,surface,theta_deg,value,stderr
    wear_depth,2000,J,bushing,270.0,2.53e-6,1.0e-7
    wear_volume,2000,J,bushing,,2.67e-10,1.0e-11

=============  ==========================================================================
column         meaning
=============  ==========================================================================
quantity       ``wear_depth`` (one point of a worn profile) or ``wear_volume``
cycles         machine cycles at the measurement [1], >= 0
joint          the clearance joint's name (optional column: default the study's first worn joint)
surface        ``bushing`` or ``journal`` (optional column: default ``bushing``)
theta_deg      body-frame angle of a profile point [degree] (wear_depth rows only)
value          the measured depth [m] or volume [m^3], finite
stderr         its standard error [m] or [m^3], > 0
=============  ==========================================================================

**netCDF** (read with the workbench's engine): a variable ``wear_depth`` on the dimensions
``(cycles, theta)`` and/or ``wear_volume`` on ``(cycles,)``, each with a ``<name>_stderr`` of the
same shape (or a scalar), coordinates ``cycles`` [1] and ``theta`` [rad or degree, from its
``units`` attribute]; the attributes ``joint`` and ``surface`` (optional, as above).  NaN values
are skipped (a profile measured at fewer angles at some cycles).

Every problem is a :class:`DataError` naming the file, the line (CSV) or variable, the column and
the value.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import WorkbenchError

QUANTITIES = ("wear_depth", "wear_volume")
SURFACES = ("bushing", "journal")
COLUMNS = ("quantity", "cycles", "joint", "surface", "theta_deg", "value", "stderr")
REQUIRED = ("quantity", "cycles", "value", "stderr")
UNITS = {"wear_depth": "m", "wear_volume": "m^3"}


class DataError(WorkbenchError):
    """A measured-data file is wrong (file, line or variable, column, value)."""


@dataclass(frozen=True)
class Measurements:
    """Observations, one entry per measured value (arrays of equal length ``n``).

    quantity : 'wear_depth' or 'wear_volume'; cycles [1]; joint (name, '' = first worn joint);
    surface : 'bushing' or 'journal'; theta [rad] (NaN for volumes); value [m or m^3];
    stderr [m or m^3]; source : the file read (provenance).
    """
    quantity: np.ndarray
    cycles: np.ndarray
    joint: np.ndarray
    surface: np.ndarray
    theta: np.ndarray
    value: np.ndarray
    stderr: np.ndarray
    source: str = ""

    def __len__(self) -> int:
        return len(self.value)

    @classmethod
    def from_arrays(cls, quantity, cycles, value, stderr, *, theta=None, joint=None, surface=None,
                    source: str = "") -> "Measurements":
        """Build (and check) measurements from arrays (``theta`` in rad)."""
        n = len(np.atleast_1d(value))
        full = lambda x, d: np.broadcast_to(np.asarray(d if x is None else x, dtype=object), (n,)).astype(str)  # noqa: E731
        m = cls(quantity=full(quantity, "wear_depth"), cycles=np.broadcast_to(np.asarray(cycles, float), (n,)).copy(),
                joint=full(joint, ""), surface=full(surface, "bushing"),
                theta=np.broadcast_to(np.asarray(np.nan if theta is None else theta, float), (n,)).copy(),
                value=np.asarray(value, float).ravel(), stderr=np.broadcast_to(np.asarray(stderr, float), (n,)).copy(),
                source=source)
        m.check(source or "<arrays>")
        return m

    def check(self, where: str) -> None:
        for i in range(len(self)):
            _check_row(where, f"entry {i}", self.quantity[i], self.cycles[i], self.surface[i], self.theta[i],
                       self.value[i], self.stderr[i])
        if len(self) == 0:
            raise DataError(f"{where}: no observations")


def _check_row(where, row, quantity, cycles, surface, theta, value, stderr) -> None:
    if quantity not in QUANTITIES:
        raise DataError(f"{where}, {row}, column 'quantity': {quantity!r} is not one of {', '.join(QUANTITIES)}")
    if surface not in SURFACES:
        raise DataError(f"{where}, {row}, column 'surface': {surface!r} is not one of {', '.join(SURFACES)}")
    if not (math.isfinite(cycles) and cycles >= 0):
        raise DataError(f"{where}, {row}, column 'cycles': {cycles!r} must be a finite number >= 0")
    if quantity == "wear_depth" and not math.isfinite(theta):
        raise DataError(f"{where}, {row}, column 'theta_deg': a wear_depth row needs a finite angle, got {theta!r}")
    if not math.isfinite(value):
        raise DataError(f"{where}, {row}, column 'value': {value!r} must be finite")
    if not (math.isfinite(stderr) and stderr > 0):
        raise DataError(f"{where}, {row}, column 'stderr': {stderr!r} must be finite and > 0 "
                        f"(the measurement's standard error, {UNITS[quantity]})")


def _number(where, line, col, text):
    try:
        return float(text) if text.strip() != "" else math.nan
    except ValueError:
        raise DataError(f"{where}, line {line}, column '{col}': {text!r} is not a number") from None


def read_csv(path: Path) -> Measurements:
    where = str(path)
    rows = []
    with open(path, newline="") as fh:
        lines = [(i + 1, ln) for i, ln in enumerate(fh) if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise DataError(f"{where}: no header and no data")
    reader = csv.reader([ln for _, ln in lines])
    header = [h.strip() for h in next(reader)]
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        import difflib
        hint = difflib.get_close_matches(unknown[0], COLUMNS, n=1)
        raise DataError(f"{where}, line {lines[0][0]}: unknown column {unknown[0]!r}"
                        + (f" (did you mean {hint[0]!r}?)" if hint else "") + f"; valid: {', '.join(COLUMNS)}")
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise DataError(f"{where}, line {lines[0][0]}: missing column(s) {', '.join(missing)}; "
                        f"required: {', '.join(REQUIRED)}")
    for (line, _), rec in zip(lines[1:], reader):
        if len(rec) != len(header):
            raise DataError(f"{where}, line {line}: {len(rec)} fields, the header has {len(header)}")
        r = dict(zip(header, (x.strip() for x in rec)))
        q = r["quantity"]
        cyc = _number(where, line, "cycles", r["cycles"])
        th = _number(where, line, "theta_deg", r.get("theta_deg", ""))
        val = _number(where, line, "value", r["value"])
        se = _number(where, line, "stderr", r["stderr"])
        surf = r.get("surface", "") or "bushing"
        _check_row(where, f"line {line}", q, cyc, surf, th, val, se)
        rows.append((q, cyc, r.get("joint", ""), surf, math.radians(th) if math.isfinite(th) else math.nan, val, se))
    if not rows:
        raise DataError(f"{where}: a header but no data rows")
    cols = list(zip(*rows))
    return Measurements(np.array(cols[0]), np.array(cols[1], float), np.array(cols[2]), np.array(cols[3]),
                        np.array(cols[4], float), np.array(cols[5], float), np.array(cols[6], float), where)


def read_netcdf(path: Path) -> Measurements:
    import xarray as xr
    from ..results.dataset import ENGINE
    where = str(path)
    try:
        ds = xr.open_dataset(path, engine=ENGINE).load()
    except Exception as exc:   # noqa: BLE001 - any reader failure is a bad data file
        raise DataError(f"{where}: cannot read as netCDF ({exc})") from None
    if not any(q in ds for q in QUANTITIES):
        raise DataError(f"{where}: no variable {' or '.join(QUANTITIES)}; found {', '.join(map(str, ds.data_vars)) or 'none'}")
    joint, surface = str(ds.attrs.get("joint", "")), str(ds.attrs.get("surface", "bushing"))
    out = {k: [] for k in ("q", "c", "t", "v", "s")}
    for q in QUANTITIES:
        if q not in ds:
            continue
        var = ds[q]
        want = ("cycles", "theta") if q == "wear_depth" else ("cycles",)
        if tuple(var.dims) != want:
            raise DataError(f"{where}, variable '{q}': dimensions {tuple(var.dims)}, expected {want}")
        if f"{q}_stderr" not in ds:
            raise DataError(f"{where}, variable '{q}': no '{q}_stderr' (the measurement standard error, {UNITS[q]})")
        se = np.broadcast_to(ds[f"{q}_stderr"].values, var.shape)
        cyc = np.broadcast_to(ds["cycles"].values[:, None] if q == "wear_depth" else ds["cycles"].values, var.shape)
        if q == "wear_depth":
            units = str(ds["theta"].attrs.get("units", "rad"))
            if units not in ("rad", "radian", "degree", "degrees", "deg"):
                raise DataError(f"{where}, coordinate 'theta': units {units!r}, expected 'rad' or 'degree'")
            th = ds["theta"].values * (math.pi / 180.0 if units.startswith("deg") else 1.0)
            th = np.broadcast_to(th[None, :], var.shape)
        else:
            th = np.full(var.shape, math.nan)
        keep = np.isfinite(var.values)
        out["q"] += [q] * int(keep.sum())
        for k, a in (("c", cyc), ("t", th), ("v", var.values), ("s", se)):
            out[k] += list(np.asarray(a)[keep])
    for i in range(len(out["v"])):
        _check_row(where, f"variable '{out['q'][i]}' value {i}", out["q"][i], out["c"][i], surface,
                   out["t"][i], out["v"][i], out["s"][i])
    n = len(out["v"])
    return Measurements(np.array(out["q"]), np.array(out["c"], float), np.full(n, joint), np.full(n, surface),
                        np.array(out["t"], float), np.array(out["v"], float), np.array(out["s"], float), where)


def read_measurements(path) -> Measurements:
    """Read a CSV (``.csv``) or netCDF (``.nc``) data file (see the module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: no such data file")
    suffix = path.suffix.lower()
    if suffix in (".csv", ".txt"):
        m = read_csv(path)
    elif suffix in (".nc", ".nc4", ".netcdf"):
        m = read_netcdf(path)
    else:
        raise DataError(f"{path}: unknown data format {suffix!r}; use .csv or .nc")
    if len(m) == 0:
        raise DataError(f"{path}: no observations")
    return m


def write_csv(m: Measurements, path) -> Path:
    """Write measurements in the CSV format above (a new file only)."""
    path = Path(path)
    if path.exists():
        raise DataError(f"{path} exists: measured data are never overwritten")
    with open(path, "w", newline="") as fh:
        fh.write("# workbench calibration data: cycles [1], theta_deg [degree], value/stderr [m] (wear_depth) or [m^3] (wear_volume)\n")
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for i in range(len(m)):
            th = "" if not math.isfinite(m.theta[i]) else repr(math.degrees(m.theta[i]))
            w.writerow([m.quantity[i], repr(float(m.cycles[i])), m.joint[i], m.surface[i], th,
                        repr(float(m.value[i])), repr(float(m.stderr[i]))])
    return path
