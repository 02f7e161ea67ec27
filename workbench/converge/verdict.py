"""Verdicts of ``workbench converge`` on statistical quantities, and their standard errors.

The wear results of a chaotic contact are statistical estimates (:mod:`workbench.wear.statistics`):
two runs of the same study at different settings differ by their sampling noise even when the
setting changes nothing.  A fixed tolerance alone cannot tell that noise from a discretisation
error, so the change ``d`` of a statistical quantity between the base run ``a`` and the tightened
run ``b`` is judged twice:

* **significance**: the change is real when ``|d| > z sigma_d`` with ``sigma_d^2 = se_a^2 + se_b^2
  - 2 cov_ab`` (:data:`Z` = 2: a two-sided test at about 5 % for normal estimates);
* **tolerance**: ``|d| <= tolerance``.

The quantity's verdict (:func:`verdict`): a significant change is *converged* when it is within the
tolerance and *not converged* otherwise; an insignificant change is *converged* when the band
``z sigma_d`` itself is within the tolerance (a change of the tolerance's size would have been
seen), and *inconclusive* when the band is wider than the tolerance (the runs cannot resolve it).

For the profile, ``d`` is the relative L2 difference ``||h_b - h_a|| / ||h_a||`` over the nodes
and ``sigma_d^2 = sum(se_a^2 + se_b^2 - 2 cov) / ||h_a||^2`` its expected square under no real
change.  ``(d / sigma_d)^2`` is then a weighted sum of chi-square variables over ``sum`` one, and
its probability of exceeding ``z^2 = 4`` is largest when all nodes move together (one degree of
freedom, 4.6 %): the test holds its level whatever the correlation between the nodes.

**Common random numbers.**  The wear loop draws no random numbers: its spread is the chaotic
contact's own, and every update of both runs restarts the dynamics from the same assembled state
with the same settings but the knob.  When the knob does not touch an update's dynamics and
averaging (``depth_step``: the first update, on the unworn bore; a wear coefficient changed by
rounding), both runs compute that update's rate estimate from the same cycles; its error ``e_k``
then enters both results, as ``dN_a e_k`` and ``dN_b e_k``, and so the difference once: ``cov_ab = sum_k dN_a,k dN_b,k se_k^2``
over such shared updates (:func:`shared_updates`).  All other updates are taken as independent,
as the wear loop itself does when it adds their variances; a positive correlation they may keep
(the first cycles of a run at rtol/10 follow the base run before the chaos separates them) only
narrows the true band, so the verdict errs towards *inconclusive*.
"""
from __future__ import annotations

import math

import numpy as np

#: significance level of a change, in standard errors of the difference (two-sided, ~5 %)
Z = 2.0

#: two rate estimates agreeing to this relative difference come from the same cycles: independent
#: estimates differ by their standard errors (percent), a coefficient changed by rounding (the
#: twin k (1 + 1e-12)) scales the same cycles' estimate by 1e-12
SAME_CYCLES_RTOL = 1e-9

CONVERGED, NOT_CONVERGED, INCONCLUSIVE = "converged", "not converged", "inconclusive"

HELD_COMMON = ("held common: every study setting but the knob; every update of both runs restarts the "
               "dynamics from the same assembled state (the wear loop draws no random numbers: the "
               "spread is the chaotic contact's); updates computed from the same cycles in both runs "
               "(shared_updates) share their error, which enters the difference once; other updates "
               "are taken as independent")

VERDICT_RULE = (f"statistical quantities: the change is significant when it exceeds the band z * "
                f"sqrt(se_base^2 + se_tightened^2 - 2 cov), z = {Z:g}; converged when significant and "
                f"within the tolerance or insignificant with the band within the tolerance; not "
                f"converged when significant beyond the tolerance; inconclusive when insignificant "
                f"with the band wider than the tolerance.  Other quantities: converged when the "
                f"change is within the tolerance")


def verdict(change: float, band: float, tolerance: float) -> str:
    """The verdict of a statistical quantity: ``change`` and ``band`` (``z sigma_d``) in the same
    unit as ``tolerance`` (all >= 0; NaN band: no error known, judged by the tolerance alone)."""
    if math.isnan(band):
        return CONVERGED if change <= tolerance else NOT_CONVERGED
    if change > band:                              # a real change
        return CONVERGED if change <= tolerance else NOT_CONVERGED
    return CONVERGED if band <= tolerance else INCONCLUSIVE


def difference_sigma(se_a: float, se_b: float, cov: float = 0.0) -> float:
    """Standard deviation of the difference of two estimates ``sqrt(se_a^2 + se_b^2 - 2 cov)``."""
    return math.sqrt(max(se_a * se_a + se_b * se_b - 2.0 * cov, 0.0))


# ----------------------------------------------------------------------------- from the stores
def _rows_equal(a, b, i: int) -> bool:
    ra, rb = a.isel(cycle=i), b.isel(cycle=i)
    if ra.sizes.get("theta") != rb.sizes.get("theta") or float(a.cycle[i]) != float(b.cycle[i]):
        return False
    return all(np.allclose(ra[n].values, rb[n].values, rtol=SAME_CYCLES_RTOL, atol=0.0)
               for n in ("average_cycles", "volume_rate", "volume_rate_stderr", "wear_rate", "wear_rate_stderr"))


def shared_updates(a, b) -> int:
    """Number of leading updates whose rate estimates agree in the stores ``a`` and ``b`` (same
    cycles done and nodes; averaging cycles, rates and standard errors to :data:`SAME_CYCLES_RTOL`):
    the same cycles were averaged, so the same error entered both runs.  The final rows (no jump) are
    left out: they wear nothing."""
    n = min(a.sizes["cycle"], b.sizes["cycle"])
    k = 0
    while k < n and float(a.cycle_jump[k]) > 0.0 and float(b.cycle_jump[k]) > 0.0 and _rows_equal(a, b, k):
        k += 1
    return k


def _shared_terms(a, b, k: int):
    """sum over the ``k`` shared updates of dN_a dN_b se^2: volume (joint, surface) [m^6] and
    depth (joint, surface, theta) [m^2]."""
    w = (a.cycle_jump.values[:k] * b.cycle_jump.values[:k])
    vol = np.einsum("k,kjs->js", w, a.volume_rate_stderr.values[:k] ** 2)
    depth = np.einsum("k,kjst->jst", w, a.wear_rate_stderr.values[:k] ** 2)
    return vol, depth


def final_volume(ds) -> tuple[float, float]:
    """Final wear volume, all joints and surfaces [m^3], and its standard error [m^3] (the
    surfaces' and joints' variances added, as the loop adds the updates')."""
    last = ds.isel(cycle=-1)
    return float(last["wear_volume"].sum()), float(np.sqrt((last["wear_volume_stderr"] ** 2).sum()))


def final_deepest(ds) -> tuple[float, float, tuple]:
    """Final deepest wear [m], its standard error (at that node) [m] and the node's index
    (joint, surface, theta)."""
    h = ds["wear_depth"].isel(cycle=-1).values
    idx = np.unravel_index(int(np.argmax(h)), h.shape)
    return float(h[idx]), float(ds["wear_depth_stderr"].isel(cycle=-1).values[idx]), idx


def _on_nodes(values, theta_from, theta_to):
    out = np.empty(values.shape[:-1] + (len(theta_to),))
    for idx in np.ndindex(values.shape[:-1]):
        out[idx] = np.interp(theta_to, theta_from, values[idx], period=2 * math.pi)
    return out


def statistical_changes(a, b, z: float = Z) -> dict:
    """Changes, standard errors and bands of the final wear volume, deepest wear and profile
    between the stores ``a`` (base) and ``b`` (tightened); every change relative to ``a``.

    Returns ``{"shared_updates": k, name: {"se": (se_a, se_b), "change": d, "band": z sigma_d}}``
    with the standard errors in the quantity's unit (profile: relative, ``||se||/||h||``)."""
    k = shared_updates(a, b)
    cov_vol, cov_depth = _shared_terms(a, b, k) if k else (0.0, None)
    out = {"shared_updates": k}
    va, sa = final_volume(a)
    vb, sb = final_volume(b)
    rel = lambda x: x / abs(va) if va != 0 else (0.0 if x == 0 else math.inf)  # noqa: E731
    out["wear_volume"] = {"se": (sa, sb), "change": rel(abs(vb - va)),
                          "band": rel(z * difference_sigma(sa, sb, float(np.sum(cov_vol))))}
    ha, ea, ia = final_deepest(a)
    hb, eb, ib = final_deepest(b)
    cov = float(cov_depth[ia]) if cov_depth is not None and ia == ib else 0.0
    rel_h = lambda x: x / abs(ha) if ha != 0 else (0.0 if x == 0 else math.inf)  # noqa: E731
    out["deepest_wear"] = {"se": (ea, eb), "change": rel_h(abs(hb - ha)),
                           "band": rel_h(z * difference_sigma(ea, eb, cov))}
    out["profile"] = profile_change(a["wear_depth"].isel(cycle=-1).values, a["wear_depth_stderr"].isel(cycle=-1).values,
                                    a["theta"].values, b["wear_depth"].isel(cycle=-1).values,
                                    b["wear_depth_stderr"].isel(cycle=-1).values, b["theta"].values, cov_depth, z)
    return out


def profile_change(pa, qa, th_a, pb, qb, th_b, cov=None, z: float = Z) -> dict:
    """Relative L2 change of the final profiles ``pb`` (on nodes ``th_b``) against ``pa`` (on
    ``th_a``) [m], on ``pa``'s nodes, and its band: ``z sqrt(sum(qa^2 + qb^2 - 2 cov)) / ||pa||``
    with ``qa``, ``qb`` the nodes' standard errors [m] and ``cov`` (shape of ``pa``, or None) the
    shared updates' covariance [m^2] (used when both runs have the same nodes); ``se``: the
    relative errors ``||q|| / ||p||`` of each run."""
    pb_on, qb_on = _on_nodes(pb, th_b, th_a), _on_nodes(qb, th_b, th_a)
    var = qa ** 2 + qb_on ** 2 - (2.0 * cov if cov is not None and pa.shape == pb.shape else 0.0)
    norm_a, norm_b = float(np.linalg.norm(pa)), float(np.linalg.norm(pb))
    d = float(np.linalg.norm(pb_on - pa))
    sig = math.sqrt(max(float(var.sum()), 0.0))
    if norm_a == 0:
        return {"se": (math.nan, math.nan), "change": d, "band": z * sig}
    return {"se": (float(np.linalg.norm(qa)) / norm_a, float(np.linalg.norm(qb)) / norm_b if norm_b > 0 else math.inf),
            "change": d / norm_a, "band": z * sig / norm_a}
