"""Calibration of the wear coefficient together with parameters that change the dynamics (the
contact stiffness, the clearance, a running-in exponent ...): design runs, a surrogate, emcee.

The k N scaling (:mod:`.forward`) covers k exactly but not a parameter theta that changes the
contact or the dynamics.  So:

1. **Design runs**: the study at k0 and at ``design`` values of theta spread over its prior's range
   (one parameter: evenly; several: a scrambled Sobol' sequence), each long enough to cover
   ``k_max_factor`` k0 at the last measured cycle;
2. **Surrogate**: at a coefficient k each design run gives its prediction by the k N scaling;
   between the design points a radial-basis interpolant (thin-plate spline, scipy's
   ``RBFInterpolator``) in the standardised theta.  The interpolant is linear in the design
   values, so its weights w_j(theta) are computed once per theta and the prediction is
   ``sum_j w_j(theta) mu_j(k)``; its error is estimated by leave-one-out over the design runs
   (each run predicted from the others, at k0) and added to the variance of every observation
   (conservative: the largest leave-one-out error of the interior design points);
3. **Posterior**: ``ln k`` and theta sampled by the affine-invariant ensemble sampler of emcee
   (Foreman-Mackey et al. (2013)), started in a small ball about the posterior's mode found by
   Nelder-Mead; the integrated autocorrelation time and the acceptance fraction are reported, and
   the samples are thinned by the autocorrelation time after a burn-in of a third of the chain.

Likelihood as in :mod:`.posterior`, with the surrogate's error added to the variance.
"""
from __future__ import annotations

import datetime as _dt
import math

import numpy as np
import xarray as xr

from ..runtime.version import __version__
from ..errors import WorkbenchError
from . import forward as fw
from .data import Measurements, read_measurements
from .posterior import Prior
from .run import reference_coefficient


def _var(dims, data, units, long_name):
    return xr.Variable(dims, np.asarray(data), {"units": units, "long_name": long_name})


def _design(priors: list[Prior], n: int, seed: int = 0) -> np.ndarray:
    box = np.array([p.support(1e-3) for p in priors])
    if len(priors) == 1:
        u = np.linspace(0.0, 1.0, n)[:, None]
    else:
        from scipy.stats import qmc
        u = qmc.Sobol(len(priors), scramble=True, seed=seed).random(n)
    return box[:, 0] + u * (box[:, 1] - box[:, 0])


def _log_prior(p: Prior, x: np.ndarray) -> np.ndarray:
    """Log density of the parameter itself (not of its log)."""
    if p.kind == "uniform":
        return np.where((x >= p.a) & (x <= p.b), 0.0, -np.inf)
    if p.kind == "normal":
        return -0.5 * ((x - p.a) / p.b) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        lx = np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), -np.inf)
        if p.kind == "loguniform":
            return np.where((x >= p.a) & (x <= p.b), -lx, -np.inf)
        return np.where(x > 0, -0.5 * ((lx - math.log(p.a)) / p.b) ** 2 - lx, -np.inf)


def calibrate_mcmc(study, data, parameters: dict, *, prior: Prior | str | None = None, design: int = 5,
                   k_max_factor: float = 4.0, walkers: int = 32, steps: int = 3000, level: float = 0.95,
                   registry=None, seed: int = 0, designs: list | None = None) -> xr.Dataset:
    """The joint posterior of the wear coefficient and the study ``parameters``.

    parameters : ``{path: prior}``, a study key path as in a sweep (``"mechanism.clearance_joints[0].bushing_radius"``)
        and its prior (:class:`Prior` or ``"KIND:A:B"``, in the key's SI unit);
    design : design runs; designs : already computed ``(theta_j, wear dataset)`` pairs to use instead;
    walkers, steps : emcee's ensemble; other arguments as :func:`workbench.calibration.calibrate`.
    """
    try:
        import emcee
    except ImportError:
        raise WorkbenchError("calibrating parameters besides the wear coefficient needs emcee: "
                             "pip install 'joint-wear-workbench[calibration]'") from None
    from scipy.interpolate import RBFInterpolator
    from scipy.optimize import minimize
    from ..study.load import load_any as load_study
    from ..schema.paths import parse_path
    study = load_study(study, registry=registry)
    k0 = reference_coefficient(study)
    data = data if isinstance(data, Measurements) else read_measurements(data)
    prior = Prior.parse(prior) if isinstance(prior, str) else (prior or Prior("lognormal", k0, 1.0))
    names = list(parameters)
    if not names:
        raise WorkbenchError("calibrate_mcmc: no parameters besides the wear coefficient; use calibrate()")
    priors = [Prior.parse(p) if isinstance(p, str) else p for p in parameters.values()]
    for path in names:
        try:
            parse_path(path)
        except ValueError as exc:
            raise WorkbenchError(f"calibrate: parameter {path!r}: {exc}") from None
    n_max = float(np.max(data.cycles))
    if designs is None:
        from .design import design_runs
        designs = design_runs(study, names, _design(priors, design, seed), n_max * k_max_factor, registry)
    theta_d = np.array([np.atleast_1d(t) for t, _ in designs], float)
    fwds = [fw.from_store(ds, data, k0) for _, ds in designs]
    k_hi = k0 * min(f.last for f in fwds) / n_max
    lo_box, hi_box = theta_d.min(axis=0), theta_d.max(axis=0)
    scale = np.where(hi_box > lo_box, hi_box - lo_box, 1.0)
    z_d = (theta_d - lo_box) / scale
    J = len(designs)
    basis = RBFInterpolator(z_d, np.eye(J), kernel="thin_plate_spline", degree=1)

    def predict(k, theta):
        """(W, n) mean and standard error for walkers' k (W,) and theta (W, d)."""
        w = basis((np.atleast_2d(theta) - lo_box) / scale)          # (W, J)
        mus, ses = zip(*(f.scaled(np.minimum(k, k_hi), data.cycles) for f in fwds))
        mu = np.einsum("wj,jwn->wn", w, np.array(mus))
        var = np.einsum("wj,jwn->wn", np.abs(w), np.array(ses) ** 2)
        return mu, np.sqrt(var)

    # the surrogate's leave-one-out error at k0 (interior design points)
    loo = np.zeros(len(data))
    m0 = np.array([f.at(np.asarray(data.cycles)[None, :])[0][0] for f in fwds])
    for j in range(J):
        if np.any(z_d[j] <= 0.0) or np.any(z_d[j] >= 1.0):
            continue
        keep = [i for i in range(J) if i != j]
        b = RBFInterpolator(z_d[keep], m0[keep], kernel="thin_plate_spline", degree=1)
        loo = np.maximum(loo, np.abs(b(z_d[j:j + 1])[0] - m0[j]))

    def log_prob(x):
        x = np.atleast_2d(x)
        lk, theta = x[:, 0], x[:, 1:]
        k = np.exp(lk)
        lp = prior.log_density_log(k) + sum(_log_prior(p, theta[:, i]) for i, p in enumerate(priors))
        lp = np.where((k <= k_hi) & np.all((theta >= lo_box) & (theta <= hi_box), axis=1), lp, -np.inf)
        ok = np.isfinite(lp)
        out = np.full(len(x), -np.inf)
        if ok.any():
            mu, s = predict(k[ok], theta[ok])
            v = data.stderr ** 2 + s ** 2 + loo ** 2
            out[ok] = lp[ok] - 0.5 * np.sum((data.value - mu) ** 2 / v + np.log(v), axis=1)
        return out

    # start: the best design point, then Nelder-Mead
    starts = [np.concatenate([[math.log(k0 * f)], t]) for t in theta_d for f in (0.7, 1.0, 1.4)]
    best = max(starts, key=lambda x: float(log_prob(x)[0]))
    opt = minimize(lambda x: -float(log_prob(x)[0]) if np.isfinite(log_prob(x)[0]) else 1e300, best,
                   method="Nelder-Mead", options={"xatol": 1e-8, "fatol": 1e-6, "maxiter": 4000})
    ndim = 1 + len(names)
    rng = np.random.default_rng(seed)
    spread = np.concatenate([[1e-3], 1e-3 * scale])
    p0 = opt.x + spread * rng.standard_normal((walkers, ndim))
    for i in range(walkers):   # keep every walker inside the support
        while not np.isfinite(log_prob(p0[i])[0]):
            p0[i] = opt.x + 0.1 * spread * rng.standard_normal(ndim)
    sampler = emcee.EnsembleSampler(walkers, ndim, log_prob, vectorize=True)
    sampler.random_state = np.random.RandomState(seed).get_state()   # reproducible chains
    sampler.run_mcmc(p0, steps, progress=False)
    tau = sampler.get_autocorr_time(tol=0, discard=steps // 3)
    thin = max(1, int(np.ceil(np.nanmax(tau) / 2)))
    chain = sampler.get_chain(discard=steps // 3, thin=thin, flat=True)
    samples = np.column_stack([np.exp(chain[:, 0]), chain[:, 1:]])
    a = 0.5 * (1 - level)
    q = np.quantile(samples, [a, 0.5, 1 - a], axis=0)
    par = ["wear_coefficient"] + names
    units = ["1/Pa"] + ["SI" for _ in names]
    return xr.Dataset(
        {
            "samples": _var(("draw", "parameter"), samples, "SI (per parameter: parameter_units)", "posterior draws"),
            "mean": _var(("parameter",), samples.mean(axis=0), "SI", "posterior mean"),
            "sd": _var(("parameter",), samples.std(axis=0, ddof=1), "SI", "posterior standard deviation"),
            "median": _var(("parameter",), q[1], "SI", "posterior median"),
            "lower": _var(("parameter",), q[0], "SI", f"lower end of the central {level:.0%} credible interval"),
            "upper": _var(("parameter",), q[2], "SI", f"upper end of the central {level:.0%} credible interval"),
            "parameter_units": _var(("parameter",), np.array(units), "1", "units of each parameter"),
            "autocorrelation_time": _var(("parameter",), tau, "steps", "integrated autocorrelation time (emcee)"),
            "design_points": _var(("design", "extra"), theta_d, "SI", "the design runs' parameter values"),
            "surrogate_loo_error": _var(("observation",), loo, "m or m^3",
                                        "largest leave-one-out error of the surrogate over the interior design runs, at k0"),
            "observed": _var(("observation",), data.value, "m or m^3", "measured value"),
            "observed_stderr": _var(("observation",), data.stderr, "m or m^3", "measurement standard error"),
        },
        coords={"parameter": par, "extra": names},
        attrs={
            "Conventions": "CF-1.8", "title": f"calibration (MCMC): {study.title}", "study_kind": "calibration",
            "workbench_version": __version__,
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "method": "design runs + thin-plate RBF surrogate + emcee", "sampler": f"emcee {emcee.__version__}",
            "walkers": walkers, "steps": steps, "burn_in": steps // 3, "thin": thin,
            "acceptance_fraction": float(np.mean(sampler.acceptance_fraction)),
            "prior_wear_coefficient": prior.describe(),
            "priors": "; ".join(f"{n}: {p.describe()}" for n, p in zip(names, priors)),
            "reference_coefficient": k0, "credible_level": level, "data_file": str(data.source),
            "study_text": study.text, "study_file": str(study.file or ""),
        })

