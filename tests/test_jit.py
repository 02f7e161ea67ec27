"""The house decorator ``workbench.jit.njit`` (numba's ``njit`` made on first use) and the lazy C
wrappers of the kernels: the same numbers as ``numba.njit``, with numba imported only when a
compiled function is needed (``validate`` imports none).  No timing here:
``tests/benchmarks/bench_startup.py`` measures the times."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import numba
import numpy as np
import pytest

from workbench import jit
from workbench.runtime import caches
from workbench.jit import LazyDispatcher, njit

ROOT = Path(__file__).resolve().parents[1]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"


@njit
def _square(x):
    return x * x


@njit(inline="always")
def _twice(x):
    return 2.0 * x


@njit(fastmath=False)
def _sum_of_squares(a):
    s = 0.0
    for v in a:
        s += _square(v) + _twice(0.0)
    return s


@njit
def _fresh(x):   # Python's integers do not overflow; numba's int64 wraps at 2**63
    return x * x


def test_a_function_calling_another_compiles_and_equals_its_python_version():
    a = np.linspace(-1.0, 2.0, 7)
    assert isinstance(_sum_of_squares, LazyDispatcher)
    got = _sum_of_squares(a)
    assert got == pytest.approx(float(np.sum(a * a)), rel=1e-15)
    assert got == _sum_of_squares.py_func(a)              # the reference path agrees
    assert _sum_of_squares.signatures                     # a dispatcher attribute: the real one's
    assert jit.is_compiled(_sum_of_squares) and jit.is_compiled(numba.njit(lambda x: x))
    assert not jit.is_compiled(_sum_of_squares.py_func)
    assert isinstance(jit.dispatcher(_square), numba.core.registry.CPUDispatcher)


def test_a_lazy_function_passed_to_or_captured_by_numba_code_compiles():
    @numba.njit
    def apply(f, x):
        return f(x)

    k = _twice

    @numba.njit
    def closure(x):
        return k(x) + 1.0

    assert apply(_square, 3.0) == 9.0
    assert closure(2.0) == 5.0
    sig = numba.types.float64(numba.types.float64)
    assert numba.cfunc(sig)(lambda x: k(x)).ctypes(1.5) == 3.0


def test_python_path_runs_the_python_versions_without_making_a_dispatcher():
    with jit.python_path():
        assert _fresh(2 ** 40) == 2 ** 80          # the Python version ran
    assert _fresh._dispatcher is None
    assert _fresh(2 ** 40) != 2 ** 80              # outside the block: numba's int64
    assert _fresh._dispatcher is not None


def test_a_lazy_function_pickles_by_name():
    assert pickle.loads(pickle.dumps(_square)) is _square


def test_explicit_signature_and_options_reach_numba():
    f = njit("float64(float64)", cache=False)(lambda x: x + 1.0)
    assert f(1.0) == 2.0 and len(f.signatures) == 1


# ------------------------------------------------------------------- the assembly check's two paths
@pytest.mark.parametrize("rod,locks", [(0.03, True), (0.045, True), (0.12, False)])
def test_the_assembly_check_finds_the_same_problems_on_both_paths(rod, locks, monkeypatch):
    """``validate`` (numba not loaded) runs the assembly check on the Python versions, a run on
    the compiled ones: the same messages, to the printed digit."""
    from workbench.mbs import degenerate
    from workbench.study.load import load_study_text
    text = FLORES.read_text().replace("points = { A = [-0.06, 0.0], B = [0.06, 0.0] }",
                                      f"points = {{ A = [{-rod / 2!r}, 0.0], B = [{rod / 2!r}, 0.0] }}")
    s = load_study_text(text + "\n[checks]\nassembly_cycle = false\n", file="sc.toml")
    compiled = degenerate.cycle_problems(s.mechanism, 0.0, 1.0)
    monkeypatch.setattr(jit, "loaded", lambda: False)
    python = degenerate.cycle_problems(s.mechanism, 0.0, 1.0)
    assert python == compiled and bool(compiled) is locks
    m = s.mechanism
    twice = replace(m, joints=(*m.joints, replace(m.joints[0], name="O2")))  # repeated: redundant
    redundant = degenerate.cycle_problems(twice, 0.0, 1.0)
    monkeypatch.setattr(jit, "loaded", lambda: True)
    assert redundant and redundant == degenerate.cycle_problems(twice, 0.0, 1.0)


# ------------------------------------------------------------------- lazy C wrappers of the kernels
def test_lazy_kernel_wrappers_give_the_same_run(monkeypatch):
    """A kernel's C wrapper compiled before in this source state is made only when the solver
    takes its address (:class:`workbench.runtime.caches.LazyCFunc`); the run is the same as with wrappers
    made at once."""
    from workbench.mbs import kernels
    from workbench.mbs.solver import simulate
    from workbench.plugins import build_registry
    from workbench.study.load import load_study_text
    study = load_study_text(FLORES.read_text().replace("revolutions = 2 ", "t_end = 0.002 "),
                            file="flores.toml", registry=build_registry())
    if caches._numba_target() is None:
        pytest.skip("numba's own cache rule is in force: no markers, every wrapper is made at once")
    kernels.contact_cfunc.cache_clear(); kernels.friction_cfunc.cache_clear()
    lazy = kernels.contact_cfunc(type(study.mechanism.clearance_joints[0].contact).kernel)
    assert isinstance(lazy, caches.LazyCFunc) and lazy._cfunc is None   # marked by the load above
    a = simulate(study.mechanism, study.solver)
    assert lazy._cfunc is not None and lazy.address == lazy.cfunc().address
    kernels.contact_cfunc.cache_clear(); kernels.friction_cfunc.cache_clear()
    monkeypatch.setattr(caches, "_verified_marker", lambda wrapper, ident: None)
    eager = kernels.contact_cfunc(type(study.mechanism.clearance_joints[0].contact).kernel)
    assert not isinstance(eager, caches.LazyCFunc)
    b = simulate(study.mechanism, study.solver)
    np.testing.assert_array_equal(a.contact_force, b.contact_force)
    np.testing.assert_array_equal(a.position, b.position)
    kernels.contact_cfunc.cache_clear(); kernels.friction_cfunc.cache_clear()


def test_a_kernel_that_does_not_compile_is_never_deferred():
    """No marker without a successful compile: a kernel numba cannot compile with the solver's
    signature fails when the mechanism is compiled, as before."""
    from workbench.mbs import kernels

    @njit
    def bad(delta, delta_dot, delta_dot_minus, p):
        return (delta, "not a float")

    for _ in range(2):   # the second time too: the failure marked nothing
        with pytest.raises(Exception):
            kernels.contact_cfunc(bad)


def test_validate_imports_no_numba_once_the_cache_is_warm():
    """A warm ``validate`` (the second in a row) checks the Flores study, kernels included,
    without importing numba; the first one may compile and marks the kernels it compiled."""
    code = textwrap.dedent(f"""
        import sys
        from workbench.cli.main import main
        try:
            main(["validate", {str(FLORES)!r}])
        except SystemExit as exc:
            code = exc.code
        print("numba" in sys.modules, "exit:", code)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                           timeout=900) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines()[0].startswith(f"ok {FLORES}: dynamics study")
    if caches._numba_target() is not None:
        assert runs[1].stdout.splitlines()[-1] == "False exit: 0"


def test_no_module_of_ours_imports_numba_when_it_is_imported():
    """Every compiled function of the workbench and its built-in plugins is made through
    ``workbench.jit`` (numba imported on first use, the cache locator installed before the first
    dispatcher); a module-level ``import numba`` would put numba back into ``validate`` and, made
    before the locator, send its functions' cache beside the sources."""
    import ast
    offenders = []
    for folder in (ROOT / "workbench", ROOT / "plugins"):
        for path in sorted(folder.rglob("*.py")):
            for node in ast.parse(path.read_text(), str(path)).body:   # module level only
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(n == "numba" or n.startswith("numba.") for n in names):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, offenders
