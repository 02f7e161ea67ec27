"""Tutorial 3: Winkler against finite elements with `workbench compare` (docs/tutorials/winkler_vs_fem.md).

Run it from anywhere:  python docs/tutorials/winkler_vs_fem.py [OUTPUT_FOLDER]
"""
import subprocess
import sys
from pathlib import Path

import workbench

out = Path(sys.argv[1] if len(sys.argv) > 1 else "tutorial_output")
out.mkdir(parents=True, exist_ok=True)

# 1. One contact case, two studies: a steel pin in a bronze bushing held at its outer edge.
CASE = """
[[cases]]
name = "bronze_bushing"
bore_radius = 0.010          # m
clearance = 50e-6            # m
length = 0.020               # m
outer_radius = 0.015         # m: the bushing is held at its outer edge
bushing = { E = 110e9, nu = 0.34 }
journal = { E = 207e9, nu = 0.3 }
loads = [2000.0, 20000.0]    # N
"""

WINKLER = """
[study]
kind = "pressure"
title = "Winkler foundation, calibrated to Persson"

[grid]
theta_nodes = 120            # nodes on the bore (a short run; the shipped study uses 720)

[compare]
baseline = "winkler"
reference = ["persson"]      # Persson (1964)'s closed form, drawn beside it

[models.winkler]
plugin = "winkler"
calibrate = "persson"        # foundation stiffness fitted to Persson's half-angle at each load
""" + CASE

FEM = """
[study]
kind = "pressure"
title = "Plane-strain finite elements"

[grid]
theta_nodes = 120

[compare]
baseline = "fem"
reference = []

[models.fem]
plugin = "fem"               # scikit-fem, frictionless contact (Hintermüller, Ito & Kunisch (2003))
""" + CASE

# 2. Write the two study files and run them: a study file is what a colleague can rerun.
results = []
for name, text in (("winkler", WINKLER), ("fem", FEM)):
    path = out / f"{name}.toml"
    path.write_text(text)
    ds = workbench.run(workbench.load_study(path), out=out / f"{name}.nc")
    peak = ds["peak_pressure"].sel(case="bronze_bushing").isel(load=-1)
    print(f"{ds.attrs['title']}: peak pressure at 20 kN "
          + ", ".join(f"{m} {float(v) / 1e6:.0f} MPa" for m, v in zip(ds["model"].values, peak.values)))
    results.append(out / f"{name}.nc")

# 3. Overlay them: one figure per case (a panel per load) and the peak pressure against the load,
#    the legend from the studies' titles.  The same as typing `workbench compare ... -o ...`.
cmd = [sys.executable, "-m", "workbench.cli.main", "compare", *map(str, results),
       "-o", str(out / "compare"), "--format", "svg"]
done = subprocess.run(cmd, capture_output=True, text=True)
print(done.stdout + done.stderr)
assert done.returncode == 0
figures = sorted(p.name for p in (out / "compare").iterdir())
print("figures:", figures)
assert "compare_pressure_bronze_bushing.svg" in figures
