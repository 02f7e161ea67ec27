"""The fast path specialised to a mechanism's structure (``[solver] specialise``,
workbench.mbs.codegen) against the generic compiled path, its reference.

The specialised right-hand side does the generic arithmetic term by term in the same order (only
structurally zero terms are left out), so the two paths agree to round-off; today they agree to the
last bit, which these tests do not demand (a harmless reordering would break that).  Each
specialised structure costs a compile of minutes on a busy machine (about 90 s of CPU), so the
full runs are in the slow suite; the default suite runs the generated right-hand side's Python
source (no compile) against the generic compiled one on states of a Flores run.
"""
from __future__ import annotations

import dataclasses
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from workbench.errors import SolverError, StudyError
from workbench.mbs import codegen, codegen_module
from workbench.mbs.compiled import compile_mechanism
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import assemble, simulate
from workbench.plugins import build_registry
from workbench.study.load import load_study

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def registry():
    return build_registry()


def _compiled(mech):
    q0, _ = assemble(mech, 0.0)
    return compile_mechanism(mech, angles=q0[2::3])


def _agree(g, s):
    """Same trajectory to round-off, same impacts, same impact table, same contact record."""
    assert s.stats["specialised"] is True and g.stats["specialised"] is False
    assert g.stats["rhs_calls"] == s.stats["rhs_calls"]
    np.testing.assert_allclose(s.position, g.position, rtol=0, atol=1e-12)       # m, rad
    np.testing.assert_allclose(s.velocity, g.velocity, rtol=1e-10, atol=1e-9)     # m/s, rad/s
    assert len(s.impact_time) == len(g.impact_time) > 0
    np.testing.assert_allclose(s.impact_time, g.impact_time, rtol=0, atol=1e-13)  # s
    np.testing.assert_allclose(s.impact_peak_force, g.impact_peak_force, rtol=1e-9)
    np.testing.assert_allclose(s.contact_force, g.contact_force, rtol=1e-9, atol=1e-6)  # N
    np.testing.assert_allclose(s.contact_angle, g.contact_angle, rtol=0, atol=1e-9)    # rad
    np.testing.assert_allclose(s.joint_reaction, g.joint_reaction, rtol=1e-9, atol=1e-6)


@pytest.mark.slow
def test_flores_specialised_agrees_with_generic(registry):
    """Flores & Ambrosio (2004) slider-crank, two crank revolutions at rtol 1e-10: 48 impacts."""
    st = load_study(ROOT / "studies" / "flores_slider_crank.toml", registry)
    base = replace(st.solver, rtol=1e-10, atol=1e-13)
    g = simulate(st.mechanism, base)
    s = simulate(st.mechanism, replace(base, specialise=True))
    _agree(g, s)
    # "auto" finds the structure compiled now and takes it
    a = simulate(st.mechanism, replace(base, t_end=1e-3, specialise="auto"))
    assert a.stats["specialised"] is True


@pytest.mark.slow
def test_five_bar_specialised_agrees_with_generic(registry):
    """The five-bar of Wang & Liu (2015) §4.1 (two drivers, one clearance joint), one machine
    cycle, with the circular joint and with worn bushing and journal profiles (the worn branch of
    the clearance joint)."""
    mech = load_study(ROOT / "studies" / "five_bar_wear.toml", registry).mechanism
    s = SolverSettings(t_end=0.06, rtol=1e-10, atol=1e-13)
    th = 2.0 * np.pi * np.arange(360) / 360
    worn = {0: (2e-6 * np.exp(-((th - 1.0) / 0.3) ** 2), 1e-6 * np.exp(-((th - 4.0) / 0.5) ** 2))}
    for kw in ({}, {"surfaces": worn}):
        _agree(simulate(mech, s, **kw), simulate(mech, replace(s, specialise=True), **kw))


#: (study, span [s] of the generic run whose samples are compared, contact expected in it)
GENERATED_CASES = [
    ("flores_slider_crank.toml", 1.5e-3, True),          # clearance joint, driver, friction
    ("journal_wear_constant_load.toml", 2e-3, True),     # a constant force element
    ("crank_rocker_free.toml", 5e-3, False),            # torque element, translational joint
    ("stick_slip_oscillator.toml", 5e-2, False),        # spring-damper
    ("stick_slip_oscillator.toml", 5e-2, False),        # spring-damper
]


@pytest.mark.parametrize("name, span, contact", GENERATED_CASES)
def test_generated_rhs_matches_generic_on_run_states(registry, name, span, contact):
    """The generated right-hand side (its Python source, executed by the interpreter: no compile)
    gives the generic compiled right-hand side's accelerations, multipliers and clearance record,
    in and out of contact, on states of a generic run (the first impacts of the Flores
    slider-crank; force elements of the other studies)."""
    from workbench.mbs.equations import workspace
    from workbench.mbs.integrator import OPEN_MODE
    from workbench.mbs.solver import _evaluate_samples
    mech = load_study(ROOT / "studies" / name, registry).mechanism
    # the force elements are the point here: the ideal joints' (set-valued) friction goes
    mech = dataclasses.replace(mech, joints=[dataclasses.replace(j, friction=None) if getattr(j, "friction", None)
                                             else j for j in mech.joints])
    cm = _compiled(mech)
    why = codegen.unsupported(cm)
    if why is not None:
        pytest.skip(f"{name}: not specialised ({why})")
    s = SolverSettings(t_end=span, output_step=span / 300, rtol=1e-10, atol=1e-13)
    sim = simulate(mech, s)
    n, nt = 3 * cm.nb, len(sim.time)
    Y = np.zeros((nt, 2 * n + cm.n_points + 4))
    Y[:, :n] = sim.position.reshape(nt, -1)
    Y[:, n:2 * n] = sim.velocity.reshape(nt, -1)
    DM = np.full((nt, max(cm.n_points, 1)), OPEN_MODE)
    for j in range(len(cm.clr_i)):     # revolute joints: point j; impact speed 0.7 m/s in contact
        DM[sim.penetration[:, j] > 0.0, j] = 0.7
    if contact:
        assert 5 < (DM > 0).sum() < nt - 5
    model = cm.model()
    a, b = s.baumgarte_alpha, s.baumgarte_beta
    QDD, LAM, REC = _evaluate_samples(sim.time, Y, DM, a, b, model)[:3]
    mod, why = codegen_module.load(cm)
    assert why is None
    ws = workspace(cm.mass, cm.n_rows, cm.n_points)
    ydot = np.zeros(Y.shape[1]); lam = np.zeros(max(cm.n_rows, 1)); rec = np.zeros(REC.shape[1:])
    for k in range(nt):
        code = mod._rhs_full.py_func(sim.time[k], Y[k], DM[k], ydot, lam, rec, ws.minv, a, b, *(
            model.mass, model.cons_f, model.drv_f, model.frc_f, model.gravity, model.clr_f,
            model.cpar, model.fpar))
        assert code == -1
        np.testing.assert_allclose(ydot[n:2 * n], QDD[k], rtol=1e-12, atol=1e-9)   # m/s^2, rad/s^2
        np.testing.assert_allclose(lam[:cm.n_rows], LAM[k, :cm.n_rows], rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(rec[:len(cm.clr_i)], REC[k, :len(cm.clr_i)], rtol=1e-12, atol=1e-15)


def test_structure_not_floats_keys_the_module(registry):
    """Two mechanisms differing only in floats share the generated source; the source names the
    plugins' kernels, which it calls directly."""
    mech = load_study(ROOT / "studies" / "flores_slider_crank.toml", registry).mechanism
    cm = _compiled(mech)
    other = _compiled(mech)
    other.mass = other.mass * 2.0
    other.clr_f = other.clr_f * 1.01
    assert codegen.unsupported(cm) is None
    assert codegen_module.module_source(cm) == codegen_module.module_source(other)
    assert codegen_module.structure(cm) == codegen_module.structure(other)
    src = codegen_module.module_source(cm)
    assert "hysteresis_force as _ck0" in src and "ambrosio_friction as _fk0" in src
    compile(src, "generated", "exec")   # valid Python


def test_unsupported_structures_take_the_generic_path(registry):
    """A translational clearance joint is not specialised: the run says why and runs generic."""
    st = load_study(ROOT / "studies" / "mixed_clearance_slider_crank_c005.toml", registry)
    why = codegen.unsupported(_compiled(st.mechanism))
    assert why is not None and "translational" in why
    mod, reason = codegen_module.load(_compiled(st.mechanism))
    assert mod is None and reason == why


def test_bad_specialise_value_is_rejected(registry, tmp_path):
    """`validate` rejects what `run` would: the key's valid choices are named."""
    text = (ROOT / "studies" / "flores_slider_crank.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("[solver]\n", "[solver]\nspecialise = \"always\"\n"))
    with pytest.raises(StudyError, match=r"specialise.*always.*auto"):
        load_study(bad, registry)
    ok = tmp_path / "ok.toml"
    ok.write_text(text.replace("[solver]\n", "[solver]\nspecialise = \"auto\"\n"))
    assert load_study(ok, registry).solver.specialise == "auto"
    mech = load_study(ok, registry).mechanism
    with pytest.raises(SolverError, match="specialise"):
        simulate(mech, SolverSettings(t_end=1e-4, specialise="always"))
