"""Dataset variables of the flexible beams and the slider-acceleration spectrum.

Called by :func:`workbench.results.simulation_to_dataset` when the run had beams.  Dimensions:
``beam``; ``beam_node`` (nodes of the beam with the most elements; the others are NaN-padded);
``axis`` (x, y); ``frequency``.
"""
from __future__ import annotations

import math

import numpy as np
import xarray as xr

#: the dominant frequency of the slider acceleration is looked for above this many crank
#: revolution frequencies (the rigid mechanism's own content is the crank's first harmonics)
HARMONIC_CUTOFF = 4.0


def _var(dims, data, units, long_name):
    return xr.Variable(dims, np.asarray(data), attrs={"units": units, "long_name": long_name})


def spectrum(t: np.ndarray, x: np.ndarray):
    """One-sided amplitude spectrum of the uniformly sampled signal ``x(t)`` (mean removed, Hann
    window, amplitude-corrected): ``(f [Hz], |X| [unit of x])``."""
    x = np.asarray(x, float) - np.mean(x)
    n = len(x)
    if n < 4:
        return np.zeros(0), np.zeros(0)
    w = np.hanning(n)
    X = np.fft.rfft(x * w) * 2.0 / w.sum()
    f = np.fft.rfftfreq(n, d=float(t[1] - t[0]))
    return f, np.abs(X)


def dominant_frequency(f, amp, f_min: float) -> float:
    """Frequency [Hz] of the largest amplitude above ``f_min`` [Hz] (NaN when none)."""
    sel = f > f_min
    return float(f[sel][np.argmax(amp[sel])]) if sel.any() else math.nan


def beam_variables(sim, mech):
    """``(variables, coordinates, attrs)`` of the beams of ``sim`` (its ``flex`` outputs)."""
    flex = sim.flex
    names = list(flex)
    nn = max(b["coordinates"].shape[1] for b in flex.values())
    nt = len(sim.time)
    pos = np.full((len(names), nn, 2, nt), np.nan)
    slope = np.full((len(names), nn, 2, nt), np.nan)
    s = np.full((len(names), nn), np.nan)
    mid = np.zeros((len(names), nt))
    for i, name in enumerate(names):
        c = flex[name]["coordinates"]
        k = c.shape[1]
        pos[i, :k] = np.moveaxis(c[:, :, 0:2], 0, -1)
        slope[i, :k] = np.moveaxis(c[:, :, 2:4], 0, -1)
        s[i, :k] = flex[name]["node_s"]
        mid[i] = flex[name]["midspan_deflection"]
    coords = {"beam": _var(("beam",), np.array(names, dtype=str), "1", "flexible beam (ANCF cable)"),
              "beam_node": _var(("beam_node",), np.arange(nn, dtype=np.int32), "1", "node of the beam")}
    v = {
        "beam_node_s": _var(("beam", "beam_node"), s, "m", "reference arc length of the beam node"),
        "beam_node_position": _var(("beam", "beam_node", "axis", "time"), pos, "m",
                                   "position of the beam node's centre line, global frame"),
        "beam_node_slope": _var(("beam", "beam_node", "axis", "time"), slope, "1",
                                "slope dr/ds of the beam's centre line at the node (ANCF gradient)"),
        "midspan_deflection": _var(("beam", "time"), mid, "m",
                                   "deflection of the centre line at mid-span from the chord of the "
                                   "beam's ends (positive to the left of the chord)"),
    }
    attrs = {}
    from ..results import _slider
    slider = _slider(mech) if mech is not None else None
    drv = mech.first_angle_driver() if mech is not None else None
    if slider is not None and slider[0] in sim.body_names and nt > 8:
        bi = sim.body_names.index(slider[0])
        ax = np.asarray(slider[1], float) / np.linalg.norm(slider[1])
        acc = sim.acceleration[:, bi, :2] @ ax
        f, amp = spectrum(sim.time, acc)
        f_crank = abs(drv.function.polynomial[1]) / (2 * math.pi) if (
            drv is not None and len(drv.function.polynomial) >= 2) else 0.0
        f_min = HARMONIC_CUTOFF * f_crank
        coords["frequency"] = _var(("frequency",), f, "Hz", "frequency")
        v["slider_acceleration_spectrum"] = _var(
            ("frequency",), amp, "m/s^2", "amplitude spectrum of the slider's acceleration along the guide "
            "(Hann window, mean removed)")
        v["slider_acceleration_dominant_frequency"] = _var(
            (), dominant_frequency(f, amp, f_min), "Hz",
            f"frequency of the largest slider-acceleration amplitude above {HARMONIC_CUTOFF:g} times the "
            "crank frequency (the impact and vibration content)")
        attrs["spectrum_cutoff_frequency"] = f_min
    return v, coords, attrs
