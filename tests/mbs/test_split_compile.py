"""The split first compile (:mod:`workbench.mbs.split_compile`): the parts it compiles in two
processes are the integrator's own, under the integrator's own signatures."""
from dataclasses import replace
from pathlib import Path

from numba import typeof

from workbench.engines import simulate
from workbench.mbs import split_compile
from workbench.mbs.compiled import compile_mechanism
from workbench.mbs.solver import _evaluate_samples, assemble
from workbench.study.load import load_study

FLORES = Path(__file__).resolve().parents[2] / "studies" / "flores_slider_crank.toml"


def _flores_model(registry):
    st = load_study(FLORES, registry)
    simulate(st.mechanism, replace(st.solver, t_end=st.solver.t_start + 1e-4))   # compiled (or loaded)
    q0, _ = assemble(st.mechanism, st.solver.t_start)
    return compile_mechanism(st.mechanism, angles=q0[2::3]).model()


def test_every_split_signature_is_one_the_integrator_compiled(registry):
    """The suite compiles the integrator with the split off (tests/conftest.py), so numba's disk
    cache holds each part under the signature the integrator's own typing gave it.  Every
    signature the split compiles must be among them: one that drifted from the integrator's calls
    would be compiled in vain, and the first run would then compile that part twice."""
    model_type = typeof(_flores_model(registry))
    work_type = split_compile._work_type()
    parts = (split_compile.signatures_here(model_type, work_type)
             + split_compile.signatures_helper(model_type, split_compile._table_type())
             + [(_evaluate_samples, split_compile.signature_samples(model_type))])
    assert len(parts) == 8
    missing = [f.__name__ for f, sig in parts if not split_compile.in_cache(f, sig)]
    assert missing == [], f"not the integrator's signatures: {missing}"


def test_no_helper_on_a_warm_cache_or_when_switched_off(registry, monkeypatch):
    model = _flores_model(registry)
    monkeypatch.setenv(split_compile.ENV, "0")
    assert split_compile.start(model) is None
    monkeypatch.setenv(split_compile.ENV, "1")
    monkeypatch.setattr(split_compile, "_STARTED", set())
    assert split_compile.start(model) is None      # the right-hand side is in the cache already
