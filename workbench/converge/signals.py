"""What a crank mechanism's dynamics run reports beyond its impacts, for ``workbench converge``.

The flexible slider-crank studies (studies/flexible_slider_crank*.toml) and the rigid
mixed-clearance ones report the crank moment and the slider's acceleration: their peaks, the
crank moment's peak with the high-frequency ringing filtered out, and, where a run spans several
crank revolutions, per-revolution statistics (the mean over the revolutions after the start-up
one of each revolution's crank-moment peak and of its dominant slider-acceleration frequency,
with standard errors: :func:`workbench.flex.results.per_revolution`).

* **raw peaks**: the largest ``|M(t)|`` of the crank driver's moment [N m] and the largest
  ``|a(t) . e|`` of the slider's acceleration along its guide [m/s^2], on the output samples of
  :func:`window` (with beams: after the start-up revolution; rigid: the whole run);
* **low-pass crank-moment peak**: the largest ``|M_f(t)|`` of the moment filtered by a
  zero-phase Butterworth low-pass (:data:`LOWPASS_ORDER`-th order, applied forward and backward
  by ``scipy.signal.sosfiltfilt``, so the magnitude response is the filter's squared: -6 dB at
  the cut-off, no phase shift), cut-off :data:`LOWPASS_HZ` [Hz] by default (twelve harmonics of
  a 5000 rpm crank; it removes the rod's axial ringing of the 20-207 GPa rods, 2.1-6.8 kHz, and
  the impacts' kilohertz content, and keeps the crank's own harmonics);
* **per revolution**: as the flexible dynamics dataset holds them
  (``crank_moment_peak_revolution_mean`` and ``_se``, ``dominant_frequency_revolution_mean``
  and ``_se``), computed here from the run itself, so rigid runs get them too.

A quantity is *reported* by a study (:func:`reported`) when its mechanism has what it needs: an
angle driver (crank moment), a slider on a ground guide (slider acceleration), a constant crank
speed and at least :data:`MIN_REVOLUTIONS` whole revolutions after the start-up one (per
revolution); the others are left out of the table.
"""
from __future__ import annotations

import math

import numpy as np

#: default cut-off of the crank moment's low-pass filter [Hz]
LOWPASS_HZ = 1000.0
#: order of the Butterworth low-pass (each pass; zero-phase filtering squares its response) [1]
LOWPASS_ORDER = 4
#: whole crank revolutions after the start-up one a run needs for per-revolution statistics [1]
MIN_REVOLUTIONS = 2


def lowpass_text(cutoff: float) -> str:
    """The filter, said in full (a dataset attribute and the quantity's long_name)."""
    return (f"zero-phase Butterworth low-pass, order {LOWPASS_ORDER} applied forward and backward "
            f"(scipy.signal.sosfiltfilt), cut-off {cutoff:g} Hz")


def crank_driver(mech):
    """Index (in ``mech.drivers``) and driver of the first angle driver, or ``(None, None)``."""
    for i, d in enumerate(mech.drivers):
        if d.coordinate == "phi":
            return i, d
    return None, None


def crank_frequency(mech) -> float:
    """Constant crank speed [rev/s] of the first angle driver; 0 when there is none or it is not
    constant (a polynomial of degree > 1 or harmonics)."""
    _, drv = crank_driver(mech)
    if drv is None:
        return 0.0
    poly = drv.function.polynomial
    if len(poly) != 2 or drv.function.harmonics:
        return 0.0
    return abs(float(poly[1])) / (2.0 * math.pi)


def whole_revolutions(mech, settings) -> int:
    """Whole crank revolutions of a run from ``t_start`` to ``t_end`` (0 without a constant crank
    speed)."""
    f = crank_frequency(mech)
    if f <= 0.0:
        return 0
    return int(math.floor((settings.t_end - settings.t_start) * f + 1e-6))


def reported(name: str, mech, settings) -> bool:
    """Whether a study with this mechanism and settings reports the signal quantity ``name``."""
    from ..flex.results import SKIP_REVOLUTIONS
    from ..mbs.mechanism import guided_slider
    if name in ("crank_moment_peak", "crank_moment_lowpass_peak"):
        return crank_driver(mech)[1] is not None
    if name == "slider_acceleration_peak":
        return guided_slider(mech) is not None
    if name == "crank_moment_peak_revolution_mean":
        return whole_revolutions(mech, settings) - SKIP_REVOLUTIONS >= MIN_REVOLUTIONS
    if name == "dominant_frequency_revolution_mean":
        return (guided_slider(mech) is not None
                and whole_revolutions(mech, settings) - SKIP_REVOLUTIONS >= MIN_REVOLUTIONS)
    raise KeyError(name)


def lowpass(t: np.ndarray, x: np.ndarray, cutoff: float) -> np.ndarray:
    """``x(t)`` (uniform samples) through the zero-phase Butterworth low-pass of
    :func:`lowpass_text` with cut-off ``cutoff`` [Hz]; a ``ValueError`` when the cut-off is not
    below the Nyquist frequency of the samples."""
    from scipy.signal import butter, sosfiltfilt
    x = np.asarray(x, float)
    dt = float(t[1] - t[0])
    nyquist = 0.5 / dt
    if not 0.0 < cutoff < nyquist:
        raise ValueError(f"the low-pass cut-off {cutoff:g} Hz must lie between 0 and the output "
                         f"samples' Nyquist frequency {nyquist:g} Hz")
    sos = butter(LOWPASS_ORDER, cutoff, btype="low", fs=1.0 / dt, output="sos")
    # sosfiltfilt pads by reflection; a run shorter than its default pad is filtered unpadded
    pad = min(3 * (2 * len(sos) + 1), len(x) - 1)
    return sosfiltfilt(sos, x, padlen=pad)


def slider_acceleration(sim, mech) -> np.ndarray | None:
    """The slider's acceleration along its guide [m/s^2] at the samples (None without a slider)."""
    from ..mbs.mechanism import guided_slider
    slider = guided_slider(mech)
    if slider is None or slider[0] not in sim.body_names:
        return None
    axis = np.asarray(slider[1], float)
    axis = axis / np.linalg.norm(axis)
    return sim.acceleration[:, sim.body_names.index(slider[0]), :2] @ axis


def window(t: np.ndarray, mech) -> np.ndarray:
    """The samples the peaks are taken over: with beams and at least two whole crank revolutions,
    the revolutions after the start-up one (the flexible studies' protocol: the start at full
    speed rings the rod's axial mode, damped within the first revolution, and what they report
    is read after it); otherwise the whole run."""
    from ..flex.results import SKIP_REVOLUTIONS
    t = np.asarray(t, float)
    f = crank_frequency(mech)
    if not getattr(mech, "beams", ()) or f <= 0.0 or len(t) < 2 or (t[-1] - t[0]) * f < 2.0 - 1e-6:
        return np.ones(len(t), bool)
    return t >= t[0] + SKIP_REVOLUTIONS / f - 1e-12


def values(sim, mech, cutoff: float = LOWPASS_HZ) -> tuple[dict, dict]:
    """The signal quantities of ``sim`` (a run of ``mech``): ``(values, standard errors)``, NaN
    where the run has not what a quantity needs (standard errors only for the per-revolution
    means)."""
    from ..flex.results import HARMONIC_CUTOFF, mean_se, per_revolution
    nan = math.nan
    out = dict.fromkeys(("crank_moment_peak", "crank_moment_lowpass_peak", "slider_acceleration_peak",
                         "crank_moment_peak_revolution_mean", "dominant_frequency_revolution_mean"), nan)
    se = {}
    k, _ = crank_driver(mech)
    acc = slider_acceleration(sim, mech)
    t = np.asarray(sim.time, float)
    win = window(t, mech)
    if acc is not None and len(acc):
        out["slider_acceleration_peak"] = float(np.abs(acc[win]).max())
    if k is None or len(t) < 2:
        return out, se
    moment = np.asarray(sim.driver_load[:, k], float)
    out["crank_moment_peak"] = float(np.abs(moment[win]).max())
    # filtered over the whole run, the peak taken in the window (no end effects of the filter there)
    out["crank_moment_lowpass_peak"] = float(np.abs(lowpass(t, moment, cutoff)[win]).max())
    f = crank_frequency(mech)
    if f > 0.0:
        _, peak, freq = per_revolution(t, moment, acc if acc is not None else np.zeros_like(t),
                                       1.0 / f, HARMONIC_CUTOFF * f)
        for name, x in (("crank_moment_peak_revolution_mean", peak),
                        ("dominant_frequency_revolution_mean", freq if acc is not None else np.zeros(0))):
            x = x[np.isfinite(x)]
            if len(x) >= MIN_REVOLUTIONS:
                out[name], se[name] = mean_se(x)
    return out, se
