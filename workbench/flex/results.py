"""Dataset variables of the flexible beams and the slider-acceleration spectrum.

Called by :func:`workbench.kinds.dynamics_dataset.simulation_to_dataset` when the run had beams
(:func:`beam_variables`), and for a rigid run of at least three crank revolutions
(:func:`crank_revolution_variables`: the per-revolution statistics alone).  Dimensions:
``beam``; ``beam_node`` (nodes of the beam with the most elements; the others are NaN-padded);
``axis`` (x, y); ``frequency``; ``revolution`` (crank revolutions after the start-up one).

Per-revolution statistics: the impacting motion in clearance joints is chaotic (two runs differing
only in rounding drift apart after about one revolution), so a single revolution's crank-moment peak
is not reproducible at any tolerance, while its mean over revolutions is.  The run's revolutions
after the first (the start-up transient) each give a crank-moment peak and a dominant
slider-acceleration frequency; the dataset holds them and their mean, standard error
``std / sqrt(n)`` (revolutions taken as independent samples) and maximum.
"""
from __future__ import annotations

import math

import numpy as np

from ..mbs.mechanism import guided_slider
from ..results.variables import var as _var

#: the dominant frequency of the slider acceleration is looked for above this many crank
#: revolution frequencies (the rigid mechanism's own content is the crank's first harmonics)
HARMONIC_CUTOFF = 4.0


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


#: revolutions at the start of a run left out of the per-revolution statistics (start-up transient)
SKIP_REVOLUTIONS = 1


def mean_se(x) -> tuple[float, float]:
    """Mean and standard error ``std(ddof=1) / sqrt(n)`` of the samples ``x`` (SE NaN for n < 2)."""
    x = np.asarray(x, float)
    if len(x) < 2:
        return (float(x.mean()) if len(x) else math.nan), math.nan
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def per_revolution(t, moment, acc, period: float, f_min: float, skip: int = SKIP_REVOLUTIONS):
    """Crank-moment peak [unit of ``moment``] and dominant frequency of ``acc`` [Hz] (largest
    amplitude above ``f_min`` [Hz]; resolution ``1 / period``) in each whole crank revolution of
    ``period`` [s] from ``t[0]``, the first ``skip`` left out: ``(revolution, peak, frequency)``."""
    t = np.asarray(t, float)
    n = int(math.floor((t[-1] - t[0]) / period + 1e-6)) if len(t) > 1 else 0
    revs = np.arange(skip, max(n, skip), dtype=np.int32)
    peak = np.full(len(revs), np.nan)
    freq = np.full(len(revs), np.nan)
    for i, k in enumerate(revs):
        sel = (t >= t[0] + k * period - 1e-12) & (t < t[0] + (k + 1) * period - 1e-12)
        if sel.sum() < 8:
            continue
        peak[i] = np.abs(moment[sel]).max()
        f, amp = spectrum(t[sel], acc[sel])
        # bins fall on crank harmonics here: the bin AT f_min is left out whatever its rounding
        freq[i] = dominant_frequency(f, amp, f_min * (1.0 + 1e-6))
    return revs, peak, freq


def _per_revolution_variables(sim, acc, omega: float, f_min: float, v, coords, attrs) -> None:
    """Add the per-revolution crank-moment peaks and dominant frequencies to ``v``/``coords``/``attrs``."""
    period = 2.0 * math.pi / omega
    revs, peak, freq = per_revolution(sim.time, sim.driver_load[:, 0], acc, period, f_min)
    if len(revs) == 0:
        return
    coords["revolution"] = _var(("revolution",), revs, "1",
                                "crank revolution counted from the start of the run (0, the start-up "
                                "transient, left out)")
    v["crank_moment_peak_per_revolution"] = _var(("revolution",), peak, "N m",
                                                 "largest |crank driver moment| within the revolution")
    v["dominant_frequency_per_revolution"] = _var(
        ("revolution",), freq, "Hz",
        f"frequency of the largest slider-acceleration amplitude above {HARMONIC_CUTOFF:g} times the crank "
        f"frequency within the revolution (resolution {1.0 / period:.4g} Hz)")
    lines = []
    for name, x, unit, what in (("crank_moment_peak", peak, "N m", "crank-moment peak per revolution"),
                                ("dominant_frequency", freq, "Hz", "dominant slider-acceleration "
                                                                   "frequency per revolution")):
        m, se = mean_se(x[np.isfinite(x)])
        mx = float(np.nanmax(x)) if np.isfinite(x).any() else math.nan
        v[f"{name}_revolution_mean"] = _var((), m, unit, f"mean of the {what} over the revolutions")
        v[f"{name}_revolution_se"] = _var((), se, unit, f"standard error of the mean {what} "
                                          "(std / sqrt(n), revolutions as independent samples)")
        v[f"{name}_revolution_max"] = _var((), mx, unit, f"largest {what}")
        lines.append(f"{what}: {m:.4g} ± {se:.2g} {unit} (mean ± standard error), max {mx:.4g} {unit}"
                     if len(revs) > 1 else f"{what}: {m:.4g} {unit}")
    span = f"revolutions {int(revs[0])}-{int(revs[-1])} (n = {len(revs)})" if len(revs) > 1 else \
        f"revolution {int(revs[0])} (after the start-up one)"
    attrs["per_revolution_summary"] = span + ": " + "; ".join(lines)


def crank_revolution_variables(sim, mech, min_revolutions: int = 2):
    """``(variables, coordinates, attrs)``: the per-revolution crank-moment peaks and dominant
    slider-acceleration frequencies of a run WITHOUT beams (those with beams get them from
    :func:`beam_variables`), when its crank turns at constant speed, a slider runs on a ground guide
    and the run spans at least ``min_revolutions`` [1] whole revolutions after the start-up one;
    empty otherwise (a two-revolution rigid run's dataset is unchanged).  For rigid mechanisms
    whose impacts make the motion chaotic (studies/mixed_clearance_slider_crank_*.toml): a
    single trajectory's peak is not reproducible, the mean over revolutions with its standard
    error is."""
    v, coords, attrs = {}, {}, {}
    slider = guided_slider(mech) if mech is not None else None
    drv = mech.first_angle_driver() if mech is not None else None
    if slider is None or drv is None or slider[0] not in sim.body_names or len(sim.time) <= 8:
        return v, coords, attrs
    poly = drv.function.polynomial
    if len(poly) != 2 or drv.function.harmonics or poly[1] == 0.0 or mech.drivers[0] is not drv:
        return v, coords, attrs
    f_crank = abs(poly[1]) / (2 * math.pi)
    if math.floor((sim.time[-1] - sim.time[0]) * f_crank + 1e-6) - SKIP_REVOLUTIONS < min_revolutions:
        return v, coords, attrs
    bi = sim.body_names.index(slider[0])
    ax = np.asarray(slider[1], float) / np.linalg.norm(slider[1])
    acc = sim.acceleration[:, bi, :2] @ ax
    _per_revolution_variables(sim, acc, 2 * math.pi * f_crank, HARMONIC_CUTOFF * f_crank, v, coords, attrs)
    return v, coords, attrs


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
    slider = guided_slider(mech) if mech is not None else None
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
        constant_speed = drv is not None and len(drv.function.polynomial) <= 2 and not drv.function.harmonics
        if f_crank > 0.0 and constant_speed:
            _per_revolution_variables(sim, acc, 2 * math.pi * f_crank, f_min, v, coords, attrs)
    return v, coords, attrs
