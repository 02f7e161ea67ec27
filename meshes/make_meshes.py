"""Make the FE meshes the studies use (graded polar triangle meshes with named boundaries).

Run from the repository root:  python meshes/make_meshes.py

Writes VTU files (skfem's encoding keeps the named boundaries: ``bore`` and ``outer`` on a bushing,
``surface`` on a pin).  The generator is :mod:`workbench.fem.mesh`; the same call inside the FE
pressure model gives the identical mesh (same hash, same compliance cache entry), so a study can
use either the committed file or the generator.  Any meshio-readable triangle mesh with these
boundary names and uniformly spaced contact nodes can replace them.
"""
from __future__ import annotations

from pathlib import Path

from workbench.fem.mesh import bushing_mesh, pin_mesh

HERE = Path(__file__).resolve().parent

#: name -> (kind, radius [m], outer radius [m] or None, contact nodes)
MESHES = {
    # studies/winkler_vs_fem.toml, Persson validation: plate held at 20 R, pin R - 10 um
    "persson_plate_bushing_n720": ("bushing", 0.010, 0.200, 720),
    "persson_plate_pin_n720": ("pin", 0.010 - 10e-6, None, 720),
    # studies/winkler_vs_fem.toml, bronze bushing in a stiff housing (outer edge held at 1.5 R)
    "bronze_bushing_n720": ("bushing", 0.010, 0.015, 720),
}


def make(name: str):
    kind, r, r_out, n = MESHES[name]
    return bushing_mesh(r, r_out, n) if kind == "bushing" else pin_mesh(r, n)


def main() -> list[Path]:
    paths = []
    for name in MESHES:
        path = HERE / f"{name}.vtu"
        make(name).save(str(path))
        paths.append(path)
        print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)")
    return paths


if __name__ == "__main__":
    main()
