"""The caches (workbench.runtime.caches): one root, configured when a compiled package is first imported,
never by ``import workbench``; numba's cache of our functions invalidated by any source edit; the
C wrappers of kernels taken from the disk cache; pruning touches only our own entries."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from workbench.runtime import caches

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, env: dict, cwd: Path | None = None) -> str:
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=cwd,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def _env(tmp_path: Path, *extra_paths) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "WORKBENCH_NUMBA_CACHE")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *map(str, extra_paths)])
    env["WORKBENCH_CACHE"] = str(tmp_path / "cache")
    return env


def test_import_workbench_has_no_side_effects(tmp_path):
    """No environment variable set, no cache folder made, nothing heavy imported."""
    out = _python("""
        import os, sys
        import workbench, workbench.cli.main
        heavy = ["numba", "matplotlib", "dask", "distributed", "zarr", "skfem", "xarray", "scipy", "rich"]
        print(",".join(m for m in heavy if m in sys.modules) or "-")
        print("NUMBA_CACHE_DIR" in os.environ)
    """, _env(tmp_path))
    assert out.splitlines() == ["-", "False"]
    assert not (tmp_path / "cache").exists()


def test_cache_root_rule(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "mine"))
    assert caches.cache_root() == tmp_path / "mine"
    assert caches.fe_cache_dir() == tmp_path / "mine" and (tmp_path / "mine").is_dir()
    monkeypatch.delenv("WORKBENCH_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert caches.cache_root() == tmp_path / "xdg" / "joint-wear-workbench"
    assert caches.cache_root().name == "joint-wear-workbench"


def _module(path: Path, text: str) -> None:
    path.write_text(textwrap.dedent(text))
    old = time.time() - 10   # a later edit then always changes the modification time too
    os.utime(path, (old, old))


def test_numba_cache_is_invalidated_when_a_called_function_in_another_file_changes(tmp_path):
    """numba keys a cached function by its own file only: ``f`` (in a.py) calling ``g`` (in b.py)
    keeps running the old ``g`` after b.py is edited (checked here with numba's own rule, the
    control).  The source-keyed folder of workbench.runtime.caches gives the new result."""
    pkg = tmp_path / "src" / "wbx"
    pkg.mkdir(parents=True)
    _module(pkg / "__init__.py", "")
    _module(pkg / "a.py", """
        from numba import njit
        from .b import g
        @njit(cache=True)
        def f(x):
            return g(x) + 1.0
    """)
    _module(pkg / "b.py", """
        from numba import njit
        @njit(cache=True)
        def g(x):
            return 2.0 * x
    """)
    ours = f"""
        from pathlib import Path
        from workbench.runtime.caches import use_numba_cache
        print(use_numba_cache([Path({str(pkg)!r})]).name)
        import wbx.a
        print(wbx.a.f(1.0))
    """
    numbas_own = "import wbx.a; print(wbx.a.f(1.0))"
    env = _env(tmp_path, tmp_path / "src")
    control = dict(env, NUMBA_CACHE_DIR=str(tmp_path / "numba_own"))
    first = _python(ours, env).splitlines()
    assert first[1] == "3.0"
    assert _python(numbas_own, control) == "3.0"
    assert _python(ours, env).splitlines() == first          # warm: same folder, same result
    _module(pkg / "b.py", """
        from numba import njit
        @njit(cache=True)
        def g(x):
            return 5.0 * x
    """)
    assert _python(numbas_own, control) == "3.0"              # numba's own rule: stale
    second = _python(ours, env).splitlines()
    assert second[1] == "6.0" and second[0] != first[0]       # ours: a new folder, the new code
    assert sorted(p.name for p in (tmp_path / "cache").glob("numba-*")) == sorted([first[0], second[0]])


def test_kernel_wrappers_come_from_the_disk_cache_in_a_new_process(tmp_path):
    """numba keys a closure by a pickle holding the kernel's per-process id: every new process
    recompiled the C wrapper.  The second process must load it from the cache, and a user's own
    functions are not redirected into our folder."""
    code = """
        from workbench.mbs.kernels import contact_cfunc
        from workbench_plugins.contact.hertz import hertz_force
        c = contact_cfunc(hertz_force)
        print(c.cache_hits)
    """
    env = _env(tmp_path)
    assert _python(code, env) == "0"
    assert _python(code, env) == "1"
    names = {p.name for p in (tmp_path / "cache").glob("numba-*/*/*.nbi")}
    assert any("contact_cfunc" in n for n in names), names


def test_cached_functions_load_without_numbas_lowering_registries(tmp_path):
    """A warm process loads our cached functions without importing numba's lowering registries
    (``numba.np.arraymath`` alone imports ``scipy.linalg``): an allocating function (the NRT) and
    one taking a C callback as a first-class function must load from the cache and give the
    compiled results; a miss still compiles through numba's full pipeline (the first process)."""
    pkg = tmp_path / "src" / "wbl"
    pkg.mkdir(parents=True)
    _module(pkg / "__init__.py", "")
    _module(pkg / "k.py", """
        import numpy as np
        from numba import njit
        from workbench.runtime.caches import cached_cfunc
        @njit(cache=True)
        def sq(x):
            return x * x
        def _wrapper(x):
            return sq(x)
        square = cached_cfunc("float64(float64)", _wrapper, sq)
        @njit(cache=True)
        def scaled(n, k):
            return np.arange(n) * k
        @njit(cache=True)
        def apply(f, x):
            return f(x) + 1.0
    """)
    code = f"""
        import sys
        from pathlib import Path
        from workbench.runtime.caches import use_numba_cache
        use_numba_cache([Path({str(pkg)!r})])
        import wbl.k as k
        print(k.scaled(3, 2.0).tolist(), k.apply(k.square, 3.0))
        print(sum(k.scaled.stats.cache_hits.values()) + sum(k.apply.stats.cache_hits.values())
              + k.square.cache_hits)
        print("numba.np.arraymath" in sys.modules, "scipy.linalg" in sys.modules)
    """
    env = _env(tmp_path, tmp_path / "src")
    assert _python(code, env).splitlines()[:2] == ["[0.0, 2.0, 4.0] 10.0", "0"]   # compiled
    warm = _python(code, env).splitlines()
    assert warm == ["[0.0, 2.0, 4.0] 10.0", "3", "False False"], warm


def _entry(root: Path, name: str, size: int, age_days: float) -> Path:
    p = root / name
    if name.startswith("numba-"):
        p.mkdir()
        (p / "x.nbc").write_bytes(b"0" * size)
    else:
        p.write_bytes(b"0" * size)
    t = time.time() - age_days * 86400
    os.utime(p, (t, t))
    return p


def test_prune_removes_stale_then_oldest_entries_and_only_ours(tmp_path):
    root = tmp_path / "cache"
    root.mkdir()
    stale = _entry(root, "numba-aaaa", 100, 8)           # another source state unused for 8 days
    keep = _entry(root, "numba-bbbb", 1000, 30)          # the running one: never removed
    old = _entry(root, "compliance-bushing-1.npy", 1000, 5)
    mid = _entry(root, "numba-cccc", 1000, 3)
    new = _entry(root, "compliance-pin-2.npy", 1000, 1)
    user_file = _entry(root, "notes.txt", 5000, 100)      # not ours: never touched
    user_dir = root / "numba_stuff_of_mine.d"
    user_dir.mkdir()
    (user_dir / "a").write_bytes(b"0" * 5000)
    removed = caches.prune(root, keep=keep, max_bytes=2500)
    assert set(removed) == {stale, old, mid}
    assert keep.exists() and new.exists() and user_file.exists() and (user_dir / "a").exists()
    assert caches.prune(root, keep=keep, max_bytes=2500) == []


def test_user_numba_cache_dir_is_respected(tmp_path):
    out = _python("""
        from workbench.runtime.caches import use_numba_cache
        print(use_numba_cache())
    """, dict(_env(tmp_path), NUMBA_CACHE_DIR=str(tmp_path / "theirs")))
    assert out == "None" and not (tmp_path / "cache").exists()


@pytest.mark.parametrize("limit, expected", [("0.5", 0.5e9), ("", 2e9), ("junk", 2e9)])
def test_size_limit_from_the_environment(monkeypatch, limit, expected):
    monkeypatch.setenv("WORKBENCH_CACHE_MAX_GB", limit)
    assert caches.limit_bytes() == expected


def _stderr_of(code: str, env: dict) -> tuple[str, str]:
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip(), r.stderr


def test_a_cache_folder_that_cannot_be_made_is_reported_once(tmp_path):
    """Was: silently numba's own rule, which recompiled the solver on every run (61 s instead of
    1.2 s).  Now one note per process naming the folder, the cause and the fix."""
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    env = dict(_env(tmp_path), WORKBENCH_CACHE=str(blocker / "cache"))
    out, err = _stderr_of("""
        from workbench.runtime.caches import numba_cache_dir, use_numba_cache
        print(use_numba_cache(), use_numba_cache(), numba_cache_dir())
    """, env)
    assert out == "None None None"
    assert err.count("note:") == 1 and str(blocker / "cache") in err, err
    assert "cannot be written" in err and "Not a directory" in err and "WORKBENCH_CACHE" in err, err


def test_an_immutable_cache_folder_is_reported_once(tmp_path):
    """An immutable folder (``chattr +i``) or a read-only mount exists but refuses new files, to
    root too; permissions alone would not tell.  The probe file's failure is injected here
    (``chattr`` needs a capability the test machine may lack)."""
    out, err = _stderr_of("""
        import errno
        from workbench.runtime import caches
        def refuse(folder):
            raise PermissionError(errno.EPERM, "Operation not permitted", str(folder))
        caches._probe_writable = refuse
        print(caches.use_numba_cache(), caches.use_numba_cache())
    """, _env(tmp_path))
    assert out == "None None"
    assert err.count("note:") == 1 and "Operation not permitted" in err and str(tmp_path / "cache") in err, err


def test_a_writable_cache_folder_says_nothing(tmp_path):
    out, err = _stderr_of("""
        from workbench.runtime.caches import use_numba_cache
        print(use_numba_cache() is not None)
    """, _env(tmp_path))
    assert out == "True" and "note:" not in err, err


def test_a_cache_file_that_cannot_be_saved_costs_no_run(tmp_path):
    """A full disk or ``ulimit -f`` while numba saves a compiled function (``EFBIG`` here, injected
    where numba writes its cache files) used to end the run with "File too large".  The function
    runs all the same; one note names the cache folder."""
    pkg = tmp_path / "src" / "wby"
    pkg.mkdir(parents=True)
    _module(pkg / "__init__.py", "")
    _module(pkg / "a.py", """
        from numba import njit
        @njit(cache=True)
        def f(x):
            return 2.0 * x + 1.0
    """)
    out, err = _stderr_of(f"""
        import errno
        from pathlib import Path
        from numba.core import caching
        from workbench.runtime.caches import load_numba, use_numba_cache
        def full(self, *a, **k):
            raise OSError(errno.EFBIG, "File too large")
        caching.IndexDataCacheFile.save = full
        use_numba_cache([Path({str(pkg)!r})])
        load_numba()
        import wby.a
        print(wby.a.f(1.0), wby.a.f(2.0))
    """, _env(tmp_path, tmp_path / "src"))
    assert out == "3.0 5.0"
    assert err.count("note:") == 1 and "File too large" in err and str(tmp_path / "cache") in err, err


def test_a_second_copy_of_the_same_sources_loads_what_the_first_compiled(tmp_path):
    """numba locates a cached function by its file's absolute path and stamps it with the file's
    modification time, so a second clone or install of the same sources compiled everything
    again.  The source-keyed folder is already keyed by the content: the second copy (another
    folder, later modification times) must load from the cache, and an edited copy must not."""
    text = """
        from numba import njit
        @njit(cache=True)
        def f(x):
            return 2.0 * x + 1.0
    """
    copies = []
    for name in ("one", "two"):
        pkg = tmp_path / name / "wbx"
        pkg.mkdir(parents=True)
        _module(pkg / "__init__.py", "")
        _module(pkg / "a.py", text)
        copies.append(pkg)
    os.utime(copies[1] / "a.py")   # the second copy is newer, as a later clone's files are
    code = """
        from pathlib import Path
        from workbench.runtime.caches import use_numba_cache
        print(use_numba_cache([Path({pkg!r})]).name)
        import wbx.a
        print(wbx.a.f(1.0), sum(wbx.a.f.stats.cache_hits.values()))
    """
    first = _python(code.format(pkg=str(copies[0])), _env(tmp_path, copies[0].parent)).splitlines()
    second = _python(code.format(pkg=str(copies[1])), _env(tmp_path, copies[1].parent)).splitlines()
    assert first[0] == second[0]                 # one folder: the same sources
    assert first[1] == "3.0 0" and second[1] == "3.0 1"
    _module(copies[1] / "a.py", text.replace("2.0 * x", "4.0 * x"))
    edited = _python(code.format(pkg=str(copies[1])), _env(tmp_path, copies[1].parent)).splitlines()
    assert edited[0] != first[0] and edited[1] == "5.0 0"
