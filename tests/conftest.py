import os
import sys
import textwrap
from pathlib import Path

import pytest

# One compiled model type for every feature set (workbench.mbs.compiled.model_features): the
# suite runs mechanisms with and without joint friction, lubrication and distributed contact, and
# per-feature types (what users get: a plain study compiles less) would compile the integrator
# once per set -- about 2.5 min more of the suite on 2 cores.  Results are the same either way;
# tests/mbs/test_model_type.py asks for the per-feature types, and a slow test compares the two
# on the shipped studies bit for bit.  Set before workbench is imported; CLI subprocesses inherit it.
os.environ.setdefault("WORKBENCH_MODEL_TYPES", "merged")
# No second compiling process at a cold first run (workbench.mbs.split_compile): the two pytest-xdist
# workers keep both cores busy already (tests/compile_once.py), so a helper would only compete with
# them.  tests/mbs/test_split_compile.py checks the split's signatures against this suite's compile.
os.environ.setdefault("WORKBENCH_SPLIT_COMPILE", "0")

# The tests mirror the packages (tests/mbs, tests/wear, ...); their shared helpers (mechanisms,
# study_helpers, broken_models, isolation_models) live here at the top of tests/.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from workbench.plugins import build_registry


@pytest.fixture
def registry():
    """A fresh registry per test (nothing global is shared between tests)."""
    return build_registry()


@pytest.fixture
def site(tmp_path, monkeypatch):
    """``install(dist, version, entry_point, module, code)`` puts a plugin package (module +
    ``.dist-info`` with a ``workbench`` entry point) on ``sys.path``; returns that folder."""
    root = tmp_path / "site-packages"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    modules = []

    def install(dist: str, version: str, entry_point: str, module: str, code: str):
        (root / f"{module}.py").write_text(textwrap.dedent(code))
        info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        (info / "entry_points.txt").write_text(f"[workbench]\n{entry_point} = {module}\n")
        modules.append(module)
        return root

    yield install
    for m in modules:
        sys.modules.pop(m, None)


@pytest.fixture
def ctrl_c_raises():
    """In this process, Ctrl-C raises KeyboardInterrupt for the test's duration (see
    :func:`study_helpers.sigint_as_in_a_terminal`), whatever the suite was started with."""
    import signal
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.fixture(scope="session", autouse=True)
def _compiled_families_shared_by_the_workers():
    """Under pytest-xdist, compile the large compiled families once for all workers before the
    first test (:mod:`compile_once`); a plain ``pytest`` run compiles as the tests need."""
    from compile_once import compile_families, worker_name
    if worker_name() is not None:
        compile_families(worker_name())
