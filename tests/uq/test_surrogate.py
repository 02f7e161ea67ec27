"""The polynomial-chaos surrogate of `workbench uq` (workbench.uq.pce, workbench.uq.surrogate):
exact on a polynomial, Sobol' indices against an independent quadrature, a too-low order caught by
the held-back check, and the UQ file's checks of the surrogate keys."""
from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("SALib")

from workbench.calibration.posterior import Prior
from workbench.errors import StudyError
from workbench.uq import pce
from workbench.uq.design import rows
from workbench.uq.spec import Uncertain, load_uq_text
from workbench.uq.surrogate import STATISTICS, SurrogateWarning, surrogate_part

ROOT = Path(__file__).resolve().parents[2]
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"

UQ = f"""
[uq]
base = "{RIG}"
base_samples = 16
cycles = 400.0
grid_points = 5
surrogate = "pce"
surrogate_order = 2
held_back = 16
[uncertainty]
"wear.law.wear_coefficient" = {{ dist = "lognormal", cov = 0.25, name = "k" }}
"mechanism.clearance_joints[0].bushing_radius" = {{ dist = "normal", sd = 1.0e-6, name = "clearance" }}
"""

# a normal and a uniform input and a polynomial of total degree 2 in them: a PCE of order 2 is exact
X1 = Prior("normal", 2.0, 0.5)
X2 = Prior("uniform", 1.0, 3.0)


def f(x1, x2):
    return 0.5 + x1 * x2 + 4.0 * (x2 - 2.0) ** 2


def g_deep(x1, x2):
    return 1.0 + 0.2 * x1 + 0.1 * x2 ** 2


def quadrature_sobol():
    """Mean, variance and first/total Sobol' indices of f by Gauss-Hermite x Gauss-Legendre
    quadrature (exact for a polynomial; independent of the PCE code)."""
    z, wz = np.polynomial.hermite_e.hermegauss(20)
    wz = wz / wz.sum()
    t, wt = np.polynomial.legendre.leggauss(20)
    wt = wt / wt.sum()
    x1, x2 = X1.a + X1.b * z, 2.0 + t                     # uniform(1, 3): centre 2, half-width 1
    F = f(x1[:, None], x2[None, :])
    W = wz[:, None] * wt[None, :]
    mean = np.sum(W * F)
    var = np.sum(W * (F - mean) ** 2)
    e1 = F @ wt                                           # E[f | x1]
    e2 = wz @ F                                           # E[f | x2]
    v1, v2 = np.sum(wz * (e1 - mean) ** 2), np.sum(wt * (e2 - mean) ** 2)
    return mean, var, np.array([v1, v2]) / var, np.array([1 - v2 / var, 1 - v1 / var])


@pytest.fixture
def spec(registry):
    s = load_uq_text(UQ, file=ROOT / "uq.toml", registry=registry)
    params = (Uncertain("x1", "a", X1, "m", 2.0), Uncertain("x2", "b", X2, "m", 2.0))
    return dataclasses.replace(s, parameters=params)


def histories(u, x, n_grid=5, noise=0.0, rng=None):
    """(n, 4, G) histories growing linearly in the cycles: volume f(x), deepest g(x) at the end."""
    g = np.linspace(0.0, 1.0, n_grid)
    y = f(x[:, 0], x[:, 1])
    h = np.zeros((len(x), 4, n_grid))
    h[:, 0] = y[:, None] * g
    h[:, 2] = g_deep(x[:, 0], x[:, 1])[:, None] * g
    if noise:
        h[:, 1] = noise * y[:, None] * g
        h[:, 3] = noise * h[:, 2]
        h[:, 0] += h[:, 1] * rng.standard_normal((len(x), 1))
        h[:, 2] += h[:, 3] * rng.standard_normal((len(x), 1))
    return h


def test_the_basis_is_orthonormal_and_counts_its_terms():
    a = pce.multi_indices(3, 3)
    assert len(a) == pce.terms(3, 3) == 20 and tuple(a[0]) == (0, 0, 0) and a.sum(axis=1).max() == 3
    # Gauss quadrature of Psi_a Psi_b over a normal and a uniform germ: the identity
    z, wz = np.polynomial.hermite_e.hermegauss(10)
    t, wt = np.polynomial.legendre.leggauss(10)
    xi = np.array([(zz, tt) for zz in z for tt in t])
    w = np.array([a_ * b_ for a_ in wz / wz.sum() for b_ in wt / wt.sum()])
    psi = pce.basis(("hermite", "legendre"), pce.multi_indices(2, 4), xi)
    assert np.allclose(psi.T @ (w[:, None] * psi), np.eye(psi.shape[1]), atol=1e-10)


def test_a_polynomial_is_fitted_exactly_with_its_moments_and_sobol_indices(spec):
    """f is of degree 2 in the inputs: the order-2 expansion through the Saltelli design reproduces
    f at fresh points to rounding, and its mean, variance and indices equal the quadrature's."""
    u, x, n = rows(spec)
    fams = [pce.FAMILY[p.prior.kind] for p in spec.parameters]
    y = f(x[:n, 0], x[:n, 1])
    p = pce.fit(fams, u[:n], y, 2)
    assert np.allclose(p(u[n:])[:, 0], f(x[n:, 0], x[n:, 1]), rtol=1e-10)
    mean, var, s1, st = quadrature_sobol()
    # the draws are held inside the 0.01-99.99 % quantiles (the design's clip): the normal's tails
    # lose ~1e-5 of its variance, so the moments agree to 1e-4, not to rounding
    assert abs(p.mean[0] / mean - 1) < 1e-4 and abs(p.variance[0] / var - 1) < 1e-3
    got1, gott = p.sobol()
    assert np.allclose(got1[:, 0], s1, atol=1e-3) and np.allclose(gott[:, 0], st, atol=1e-3)
    assert gott[0, 0] > got1[0, 0] + 0.01        # the x1 x2 term: an interaction the indices see


def test_the_surrogate_part_passes_an_exact_fit_and_sits_beside_salib(spec):
    u, x, n = rows(spec)
    h = histories(u, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SurrogateWarning)
        v, attrs, lines, coords = surrogate_part(spec, u, h, n, np.linspace(0, 400, 5))
    assert attrs["surrogate_check"] == "passed" and attrs["held_back_runs_ok"] == 16
    for out in ("volume", "deepest"):
        err = v[f"surrogate_error_{out}"].values
        assert err.shape == (len(STATISTICS),)
        assert attrs[f"surrogate_error_mean_{out}"] == err[0]
    assert np.all(v["surrogate_error_volume"].values < 1e-9)      # exact: f itself
    assert np.all(v["surrogate_error_deepest"].values < 1e-9)
    _, _, s1, st = quadrature_sobol()
    assert np.allclose(v["sobol_total_volume_pce"].values, st, atol=1e-3)
    assert np.allclose(v["sobol_first_volume_pce_cycles"].values[:, -1], s1, atol=1e-3)
    assert np.all(np.isnan(v["sobol_total_volume_pce_cycles"].values[:, 0]))   # no variance at the start
    band = v["wear_volume_surrogate_band"].values[:, -1]
    assert band[0] < band[1] < band[2]
    for var in v.values():
        assert var.attrs["units"] and var.attrs["long_name"]
    assert any("held-back relative error of the mean" in line for line in lines)


def test_the_held_back_check_catches_a_too_low_order(spec):
    """Order 1 cannot follow f's curvature (the (x2 - 2)^2 term skews the output): the band edges
    of the held-back runs are missed by more than the 5 % tolerance (by 18-35 % at this seed), and
    the run is flagged; its mean, which a least-squares line still matches, is not."""
    low = dataclasses.replace(spec, surrogate_order=1)
    u, x, n = rows(low)
    with pytest.warns(SurrogateWarning, match="order 1 fails its check on the held-back"):
        v, attrs, lines, _ = surrogate_part(low, u, histories(u, x), n, np.linspace(0, 400, 5))
    assert attrs["surrogate_check"].startswith("flagged") and "volume" in attrs["surrogate_check"]
    err = v["surrogate_error_volume"].values
    assert max(err[1:3]) > 2 * spec.surrogate_tolerance and err[0] < spec.surrogate_tolerance
    assert "flagged" in lines[0]


def test_the_check_allows_for_the_runs_own_scatter(spec):
    """Direct runs with a 10 % chaotic scatter miss an exact surrogate by about that much at the
    band edges; the check widens its tolerance by twice the runs' own error, so it passes."""
    u, x, n = rows(spec)
    h = histories(u, x, noise=0.10, rng=np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SurrogateWarning)
        v, attrs, _, _ = surrogate_part(spec, u, h, n, np.linspace(0, 400, 5))
    assert attrs["surrogate_check"] == "passed"
    assert v["surrogate_error_volume_floor"].values[1] > 0.05       # the floor is the scatter's


@pytest.mark.parametrize("change, words", [
    ('surrogate = "pce"', ['surrogate = "gp"', "'gp' is not valid", "none", "pce"]),
    ("surrogate_order = 2", ["surrogate_order = 10", "uq.surrogate_order", "66 terms", "more than the 64 design runs",
                             "valid: 1 to 9"]),
    ("held_back = 16", ["held_back = 1", "uq.held_back"]),
])
def test_the_surrogate_keys_are_checked(registry, change, words):
    text = UQ.replace(change, words[0])
    with pytest.raises(StudyError) as e:
        load_uq_text(text, file=ROOT / "bad_uq.toml", registry=registry)
    msg = str(e.value)
    assert "bad_uq.toml" in msg
    for w in words[1:]:
        assert w in msg, msg


def test_validate_counts_the_held_back_runs(tmp_path):
    from click.testing import CliRunner
    from workbench.cli.main import main
    good = tmp_path / "uq.toml"
    good.write_text(UQ)
    r = CliRunner().invoke(main, ["validate", str(good)])
    assert r.exit_code == 0, r.output
    assert "64 runs + 16 held back" in r.output and "order 2" in r.output


def test_analyze_writes_a_result_that_workbench_plot_draws(spec, tmp_path, monkeypatch):
    """The whole analysis with the runs' stores replaced by the polynomial histories (the direct
    runs are the slow test's job, tests/uq/test_uq_study.py): the result keeps SALib's and the
    polynomial chaos's indices side by side and along the cycles, the held-back check in its
    attributes, and `workbench plot` draws its bands, Sobol' bars and Sobol' lines."""
    import xarray as xr
    from click.testing import CliRunner
    from workbench.cli.main import main
    from workbench.cli.uq import summary_lines
    from workbench.results.dataset import write_dataset
    from workbench.uq import analyze as an
    u, x, n = rows(spec)
    h = histories(u, x, n_grid=spec.grid_points)
    monkeypatch.setattr(an, "history", lambda f, joint, grid: h[int(f)])
    runs = xr.Dataset({"status": ("uq_x1", np.array(["ok"] * len(x), dtype=object)),
                       "case_file": ("uq_x1", np.array([str(i) for i in range(len(x))], dtype=object))})
    ds = an.analyze(spec, runs, x, u, n)
    assert ds.attrs["design_runs"] == n and int(ds["held_back"].sum()) == len(x) - n
    assert ds.attrs["surrogate_check"] == "passed" and ds.attrs["surrogate_error_mean_volume"] < 1e-9
    assert ds["sobol_total_volume_cycles"].dims == ("input", "cycle")
    # SALib (64 rows) and the exact expansion agree on the indices within SALib's half-widths + 0.1
    st, conf = ds["sobol_total_volume"].values, ds["sobol_total_volume_conf"].values
    assert np.all(np.abs(st - ds["sobol_total_volume_pce"].values) < conf + 0.1), (st, conf)
    lines = summary_lines(ds)
    assert any("(pce " in line for line in lines) and any("held-back relative error" in line for line in lines)
    out = write_dataset(ds, tmp_path / "uq.nc")
    r = CliRunner().invoke(main, ["plot", str(out), "-o", str(tmp_path / "plots")])
    assert r.exit_code == 0, r.output
    drawn = sorted(p.name for p in (tmp_path / "plots").iterdir() if not p.name.startswith("."))
    assert drawn == sorted(f"{n}.{e}" for n in ("uq_bands", "uq_sobol", "uq_sobol_cycles") for e in ("png", "pdf"))
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "uq_sobol.png").write_bytes(b"a user's own file")
    r = CliRunner().invoke(main, ["plot", str(out), "-o", str(foreign)])
    assert r.exit_code == 2 and (foreign / "uq_sobol.png").read_bytes() == b"a user's own file", r.output


def test_too_few_finished_runs_leave_the_direct_results_and_say_why(spec, monkeypatch):
    """All but 4 design runs failed: SALib's estimators need every row (NaN) and an order-2
    expansion in 2 inputs needs 6 runs, so the surrogate is not fitted, says so and warns; the
    bands of the finished runs are still written."""
    import xarray as xr
    from workbench.uq import analyze as an
    u, x, n = rows(spec)
    h = histories(u, x, n_grid=spec.grid_points)
    monkeypatch.setattr(an, "history", lambda f, joint, grid: h[int(f)])
    status = np.array(["failed"] * len(x), dtype=object)
    status[:4] = "ok"
    runs = xr.Dataset({"status": ("uq_x1", status),
                       "case_file": ("uq_x1", np.array([str(i) for i in range(len(x))], dtype=object))})
    with pytest.warns(SurrogateWarning, match="not fitted"):
        ds = an.analyze(spec, runs, x, u, n)
    assert ds.attrs["surrogate_check"].startswith("not possible") and "6 terms" in ds.attrs["surrogate_check"]
    assert np.all(np.isfinite(ds["wear_volume_band"].values)) and np.all(np.isnan(ds["sobol_total_volume"].values))


def test_the_command_prints_the_flag_as_a_warning_line(spec, tmp_path, monkeypatch):
    """`workbench uq` with a too-low order (the runs replaced by the polynomial histories): the
    summary prints the held-back errors and the flag, stderr a `warning:` line, exit status 0."""
    from click.testing import CliRunner
    import xarray as xr
    from workbench.cli import uq as cli_uq
    from workbench.cli.main import main
    from workbench.uq import analyze as an
    low = dataclasses.replace(spec, surrogate_order=1)
    u, x, n = rows(low)
    h = histories(u, x, n_grid=low.grid_points)
    monkeypatch.setattr(an, "history", lambda f, joint, grid: h[int(f)])
    monkeypatch.setattr("workbench.uq.spec.load_uq", lambda path, registry=None: low)

    def fake_sweep(sw, path, **kw):
        return xr.Dataset({"status": ("uq_x1", np.array(["ok"] * len(x), dtype=object)),
                           "case_file": ("uq_x1", np.array([str(i) for i in range(len(x))], dtype=object))})
    monkeypatch.setattr("workbench.sweeps.run.run_sweep", fake_sweep)
    monkeypatch.setattr(cli_uq, "uq_sweep", lambda s, registry=None: ((u, x, n), None))
    (tmp_path / "uq.toml").write_text(UQ)
    r = CliRunner().invoke(main, ["uq", str(tmp_path / "uq.toml"), "-o", str(tmp_path / "uq.nc"),
                                  "--no-plot", "--serial"])
    assert r.exit_code == 0, (r.output, r.stderr)
    assert "held-back relative error of the mean" in r.stdout and "flagged" in r.stdout
    assert r.stderr.startswith("warning:") and "fails its check on the held-back" in r.stderr
