"""The ripple of a wear run's bushing profile per update, and how the next update heals it.  A
script: prints, asserts nothing (docs/validation.md, "Wear: the ripple of the deep study").

    python tests/benchmarks/ripple_healing.py RESULT.zarr [--joint B]

For every update: the deepest wear and ``profile_ripple`` (workbench.wear.ripple).  For every pair
of updates: the jump ``dN`` [cycles], and the regression slope ``s`` of the next increment's
Savitzky-Golay residual on the profile's residual over the pocket's bottom half (with their
correlation): ``s = -lambda dN`` for a contact that wears a ridge back at the rate ``lambda``
[1/cycle]; ``s < -1`` means the jump over-steps the healing (the ridge comes back with its sign
flipped), ``s < -2`` that the ripple grows.
"""
from __future__ import annotations

import argparse

import numpy as np


def residual(h: np.ndarray) -> np.ndarray:
    """The profile's residual about the ripple measure's cubic Savitzky-Golay smoothing [m]."""
    from scipy.signal import savgol_filter
    from workbench.wear.ripple import ORDER, WINDOW_DEG
    w = max(int(round(WINDOW_DEG / 360.0 * h.size)) | 1, ORDER + 2)
    return h - savgol_filter(h, w, ORDER, mode="wrap")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("result")
    ap.add_argument("--joint", default=None)
    a = ap.parse_args()
    from workbench.results.store_reader import open_store
    from workbench.wear.ripple import profile_ripple
    ds = open_store(a.result)
    joint = a.joint or str(ds["joint"].values[0])
    d = ds["wear_depth"].sel(joint=joint, surface="bushing").values
    c = ds["cycle"].values.astype(float)
    print(f"{a.result}, joint {joint}, bushing")
    for i in range(len(c)):
        if d[i].max() > 0:
            print(f"  cycles {c[i]:>9.0f}: deepest {1e6 * d[i].max():6.1f} um, ripple {100 * profile_ripple(d[i]):5.2f} %")
    for i in range(1, len(c) - 1):
        h, dh = d[i], d[i + 1] - d[i]
        rh, rd = residual(h), residual(dh)
        m = h >= h.min() + 0.5 * (h.max() - h.min())
        s = float(np.sum(rh[m] * rd[m]) / np.sum(rh[m] ** 2))
        dN = c[i + 1] - c[i]
        print(f"  update {i} -> {i + 1}: jump {dN:7.0f} cycles, slope {s:+.2f} (correlation "
              f"{np.corrcoef(rh[m], rd[m])[0, 1]:+.2f}), lambda {1e4 * -s / dN:.2f} per 1e4 cycles")
    ds.close()


if __name__ == "__main__":
    main()
