"""Do the shipped studies give the same numbers as an earlier source tree?  A script.

    python tests/benchmarks/same_numbers.py --before DIR [--keep OUTDIR]

``DIR``: a source tree of the earlier state (``git archive <commit> | tar -x -C DIR``, or
``git worktree add DIR <commit>``).  Runs a short version of one study per engine (the Flores
slider-crank on the compiled path with its ideal twin, its Moreau-Jean twin, the stick-slip
oscillator on the event-driven engine, the flexible slider-crank on generalised-alpha) in a fresh
interpreter on each tree (its own numba cache: the earlier tree compiles cold, minutes) and
compares every variable bit for bit and the attributes (wall times aside).  Exit 1 on a difference.

Measured for the engine interface (issue 24 item 1) against be5f5a2: every variable of the four
datasets identical; attributes added ``engine``, ``engine_reason``; ``solver_settings`` gains
``engine = "auto"``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = r'''
import dataclasses, sys
from pathlib import Path
from workbench.study.load import load_study_text
from workbench.plugins import build_registry
from workbench import kinds
out, studies = Path(sys.argv[1]), Path(sys.argv[2])
reg = build_registry()
cases = {
    "flores": ("flores_slider_crank.toml", {"revolutions = 2 ": "revolutions = 0.1 "}, None),
    "moreau_jean": ("flores_slider_crank_moreau_jean.toml", {}, 2e-3),
    "oscillator": ("stick_slip_oscillator.toml", {}, 0.5),
    "flexible": ("flexible_slider_crank_c005.toml", {}, 2e-3),
}
for name, (f, rep, t_end) in cases.items():
    text = (studies / f).read_text()
    for a, b in rep.items():
        text = text.replace(a, b)
    s = load_study_text(text, file=f, registry=reg)
    if t_end is not None:
        s = dataclasses.replace(s, solver=dataclasses.replace(s.solver, t_end=s.solver.t_start + t_end))
    kinds.run(s, registry=reg).to_netcdf(out / f"{name}.nc")
    print(name, flush=True)
'''


def _run(tree: Path, out: Path, cache: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=str(cache))
    subprocess.run([sys.executable, "-c", RUN, str(out), str(ROOT / "studies")], env=env, check=True,
                   cwd=tempfile.gettempdir())


def _compare(a_dir: Path, b_dir: Path) -> bool:
    import xarray as xr
    same = True
    for f in sorted(a_dir.glob("*.nc")):
        a, b = xr.open_dataset(f).load(), xr.open_dataset(b_dir / f.name).load()
        differ = sorted(v for v in set(a.variables) | set(b.variables)
                        if v not in a.variables or v not in b.variables or not a[v].equals(b[v]))
        attrs = {}
        for k in sorted(set(a.attrs) | set(b.attrs)):
            x, y = a.attrs.get(k), b.attrs.get(k)
            if k in ("created",) or str(x) == str(y):
                continue
            try:
                dx, dy = json.loads(x), json.loads(y)
                keys = sorted(kk for kk in set(dx) | set(dy) if dx.get(kk) != dy.get(kk) and kk != "wall_time")
                if keys:
                    attrs[k] = keys
            except (TypeError, ValueError, AttributeError):
                if not k.endswith("wall_time"):
                    attrs[k] = "added" if x is None else "removed" if y is None else "changed"
        same &= not differ
        print(f"{f.stem}: variables {'identical' if not differ else 'DIFFER: ' + ', '.join(differ)}; "
              f"attributes {attrs or 'identical'}")
    return same


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--keep", type=Path, default=None)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="workbench-same-numbers-") as tmp:
        base = a.keep or Path(tmp)
        _run(a.before.resolve(), base / "before", base / "numba-before")
        _run(ROOT, base / "now", Path(os.environ.get("NUMBA_CACHE_DIR", base / "numba-now")))
        return 0 if _compare(base / "before", base / "now") else 1


if __name__ == "__main__":
    sys.exit(main())
