"""Compare two wear results at equal cycles (a rigid and a flexible connecting rod, say): worn
volume, deepest wear and the worn profile, each difference with its standard error and whether it
is significant.

Each store carries the standard errors of its cumulative wear (``wear_volume_stderr``,
``wear_depth_stderr``: the updates' variances added, :mod:`workbench.wear.loop`).  The two runs are
independent simulations, so the difference ``d = b - a`` has the standard error
``sigma_d = sqrt(sigma_a^2 + sigma_b^2)``; it is called significant when ``|d| > 2 sigma_d``
(about 95 % two-sided for a normal estimate).

* worn volume [m^3]: the surface's ``wear_volume`` at the last row;
* deepest wear [m]: the largest ``wear_depth`` of the surface; its standard error is the one of the
  deepest node of each run;
* profile [m]: the RMS over the nodes of ``d(theta) = h_b(theta) - h_a(theta)``, against the RMS of
  ``sigma_d(theta)``: under the hypothesis of equal profiles ``E[mean d^2] = mean sigma_d^2``, so
  ``rms d > 2 rms sigma_d`` is the same two-sigma test on the whole profile.

Run ``python -m workbench.wear.flex_compare A.zarr B.zarr`` to print the table.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from ..errors import WorkbenchError

#: a difference is significant above this many of its standard errors [1]
SIGMAS = 2.0


def _last(ds, name, joint, surface):
    return np.asarray(ds[name].isel(cycle=-1).sel(joint=joint, surface=surface).values, float)


def compare(a, b, *, joint: str | None = None, surface: str = "bushing") -> dict:
    """The differences ``b - a`` of two wear datasets (module docstring) for worn joint ``joint``
    (default: the first of ``a``) and ``surface`` (``bushing`` or ``journal``).  Returns
    ``{quantity: {a, se_a, b, se_b, d, se_d, significant, units}}`` for ``volume`` [m^3],
    ``deepest`` [m] and ``profile`` [m] (``a``/``b``: the profiles' RMS depth), plus ``cycles``."""
    joint = str(a["joint"].values[0]) if joint is None else joint
    for name, ds in (("a", a), ("b", b)):
        if joint not in ds["joint"].values:
            raise WorkbenchError(f"wear result {name} ({ds.attrs.get('study_file') or '?'}) has no worn joint "
                                 f"'{joint}'; valid: {', '.join(map(str, ds['joint'].values))}")
    ca = float(a.cycle.values[-1]) + float(a.cycle_jump.values[-1])
    cb = float(b.cycle.values[-1]) + float(b.cycle_jump.values[-1])
    if not math.isclose(ca, cb, rel_tol=1e-9) or a.sizes["theta"] != b.sizes["theta"]:
        raise WorkbenchError(f"the two wear results differ in cycles ({ca:.6g} and {cb:.6g}) or profile "
                             f"nodes ({a.sizes['theta']} and {b.sizes['theta']}); compare runs of equal cycles "
                             f"and nodes")

    def entry(va, sa, vb, sb, units):
        d, se = vb - va, math.hypot(sa, sb)
        return {"a": va, "se_a": sa, "b": vb, "se_b": sb, "d": d, "se_d": se,
                "significant": bool(abs(d) > SIGMAS * se), "units": units}

    out = {"cycles": ca, "joint": joint, "surface": surface}
    vol = [float(_last(ds, name, joint, surface)) for ds in (a, b) for name in ("wear_volume", "wear_volume_stderr")]
    out["volume"] = entry(*vol, "m^3")
    ha, hb = _last(a, "wear_depth", joint, surface), _last(b, "wear_depth", joint, surface)
    sa, sb = _last(a, "wear_depth_stderr", joint, surface), _last(b, "wear_depth_stderr", joint, surface)
    ia, ib = int(np.argmax(ha)), int(np.argmax(hb))
    out["deepest"] = entry(float(ha[ia]), float(sa[ia]), float(hb[ib]), float(sb[ib]), "m")
    rms = lambda x: float(np.sqrt(np.mean(np.square(x))))   # noqa: E731
    d = hb - ha
    se = np.hypot(sa, sb)
    out["profile"] = {"a": rms(ha), "se_a": rms(sa), "b": rms(hb), "se_b": rms(sb), "d": rms(d), "se_d": rms(se),
                      "significant": bool(rms(d) > SIGMAS * rms(se)), "units": "m"}
    return out


def table(result: dict, names=("a", "b")) -> str:
    """A Markdown table of :func:`compare`'s result (volumes in mm^3, depths in um)."""
    scale = {"volume": (1e9, "mm^3"), "deepest": (1e6, "um"), "profile": (1e6, "um (RMS over the nodes)")}
    rows = [f"| quantity ({result['joint']}, {result['surface']}, {result['cycles']:.4g} cycles) | {names[0]} | "
            f"{names[1]} | difference | significant (abs(d) > {SIGMAS:g} sigma_d) |", "|---|---|---|---|---|"]
    for q in ("volume", "deepest", "profile"):
        e, (k, u) = result[q], scale[q]
        rows.append(f"| {q} [{u}] | {e['a'] * k:.4g} ± {e['se_a'] * k:.2g} | "
                    f"{e['b'] * k:.4g} ± {e['se_b'] * k:.2g} | "
                    f"{e['d'] * k:+.3g} ± {e['se_d'] * k:.2g} | {'yes' if e['significant'] else 'no'} |")
    return "\n".join(rows)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m workbench.wear.flex_compare A.zarr B.zarr   (differences B - A)", file=sys.stderr)
        return 2
    from .store import open_store
    a, b = open_store(argv[0]), open_store(argv[1])
    print(table(compare(a, b), names=(argv[0], argv[1])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
