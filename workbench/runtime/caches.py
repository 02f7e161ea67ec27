"""Where the workbench keeps its caches: one rule, configured explicitly, never at ``import workbench``.

Two caches live under one root folder:

* ``numba-<hash>/``: numba's on-disk compile cache of the workbench's own compiled functions (the
  solver, the FE kernels, the built-in plugins' kernels and their C-callable wrappers);
* ``compliance-*.npy``: FE compliance matrices (:mod:`workbench.fem.compliance`).

The root is ``$WORKBENCH_CACHE`` when set, otherwise the platform's user cache folder
(``platformdirs.user_cache_dir("joint-wear-workbench")``: ``$XDG_CACHE_HOME`` or ``~/.cache`` on
Linux, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows).

Why ``<hash>``: numba invalidates a cached function only when *its own* source file changes, not
when a function it calls from another module does (after an edit of ``workbench/mbs/clearance.py``
the cached integrator kept running the old contact code; the same happens after an upgrade).  So
the numba cache of our functions goes to a folder keyed by a hash over every ``.py`` file of the
``workbench`` and ``workbench_plugins`` (folder ``plugins/``) packages actually imported (a worktree or a ``PYTHONPATH`` checkout
gets its own): any edit starts a fresh cache.  Only functions defined in those packages are
redirected (a numba cache locator scoped to their folders); the process's numba configuration and
environment are left alone, so a user's own ``cache=True`` functions go where numba puts them.
``NUMBA_CACHE_DIR`` set by the user, or ``WORKBENCH_NUMBA_CACHE=default``, keeps numba's own rule
for ours too.

:func:`use_numba_cache` installs the locator; :func:`load_numba` (``workbench.jit.load``) calls it before the first
compiled function of ours is made (``workbench.jit.njit`` makes numba's dispatchers on first use),
since numba picks a function's cache folder when its dispatcher is created.  It also prunes the
root: folders ``numba-*`` of other source states unused for a week, then the least recently used
entries until the root is under ``$WORKBENCH_CACHE_MAX_GB`` (default 2 GB).  Only our own entries
(``numba-*`` folders, ``compliance-*.npy`` files) are ever removed, never anything else in the root.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path

APP = "joint-wear-workbench"
#: environment variable overriding the cache root [a folder]
ROOT_ENV = "WORKBENCH_CACHE"
#: environment variable setting the size limit of the cache root [GB, 1e9 bytes]
LIMIT_ENV = "WORKBENCH_CACHE_MAX_GB"
DEFAULT_LIMIT_GB = 2.0
#: numba caches of other source states unused this long are removed [s]
STALE_AFTER = 7 * 24 * 3600.0
#: the packages whose compiled functions the source-keyed numba cache holds
PACKAGES = ("workbench", "workbench_plugins")

_state: dict = {}   # the installed locator's numba folder and source folders (one per process)


# Loading numba (workbench.jit makes the compiled functions of ours on first use)
#: the lock under which numba is loaded and each compiled function of ours is made
NUMBA_LOCK = threading.RLock()
_NUMBA_STATE = {"loaded": False}


def numba_loaded() -> bool:
    """Whether numba is imported in this process (by :func:`load` or by anyone else): then a
    compiled function costs no import, only its cache load."""
    return _NUMBA_STATE["loaded"] or "numba" in sys.modules


def load_numba() -> None:
    """Import numba and send the workbench's compiled functions to their source-keyed cache
    (:func:`use_numba_cache`); idempotent.  Called before the first dispatcher
    is made, since numba picks a function's cache folder when the dispatcher is created."""
    if _NUMBA_STATE["loaded"]:
        return
    with NUMBA_LOCK:
        if _NUMBA_STATE["loaded"]:
            return
        import warnings

        import numba.experimental.function_type  # noqa: F401 - types the kernels' C wrappers
        from numba.core.errors import NumbaExperimentalFeatureWarning

        use_numba_cache()
        # first-class function types (the kernels' C wrappers handed to the integrator) are
        # stable for the plain C signatures the solver uses
        warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)
        _NUMBA_STATE["loaded"] = True


def cache_root() -> Path:
    """The cache root: ``$WORKBENCH_CACHE`` or the platform's user cache folder (not created)."""
    env = os.environ.get(ROOT_ENV)
    if env:
        return Path(env).expanduser()
    try:
        from platformdirs import user_cache_dir
    except ImportError:  # platformdirs' rule for Linux and other POSIX systems
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / APP
    return Path(user_cache_dir(APP, appauthor=False))


def fe_cache_dir() -> Path:
    """Folder of the FE compliance cache (created on demand): the cache root itself."""
    d = cache_root()
    d.mkdir(parents=True, exist_ok=True)
    return d


def limit_bytes() -> float:
    """Size limit of the cache root [bytes] from ``$WORKBENCH_CACHE_MAX_GB`` (default 2 GB)."""
    raw = os.environ.get(LIMIT_ENV)
    try:
        gb = float(raw) if raw else DEFAULT_LIMIT_GB
    except ValueError:
        gb = DEFAULT_LIMIT_GB
    return max(gb, 0.0) * 1e9


def package_dirs() -> list[Path]:
    """Folders of the ``workbench`` and ``workbench_plugins`` packages this process imports."""
    import importlib.util
    dirs = []
    for name in PACKAGES:
        if name in sys.modules and getattr(sys.modules[name], "__file__", None):
            dirs.append(Path(sys.modules[name].__file__).resolve().parent)
            continue
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            dirs.append(Path(spec.origin).resolve().parent)
    return dirs


def source_hash(dirs: list[Path]) -> str:
    """A short hash over every ``.py`` file under ``dirs`` (path and content)."""
    h = hashlib.sha256()
    for d in dirs:
        for f in sorted(d.rglob("*.py")):
            h.update(f"{d.name}/{f.relative_to(d)}".encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


#: the names our numba folders carry (``numba-`` + a hex source hash, :func:`source_hash`)
_OURS_NUMBA = re.compile(r"numba-[0-9a-f]{4,64}")


def _entries(root: Path) -> list[Path]:
    """Our own entries in ``root``: ``numba-*`` folders and ``compliance-*.npy`` files."""
    try:
        return [p for p in root.iterdir()
                if (_OURS_NUMBA.fullmatch(p.name) and p.is_dir() and not p.is_symlink())
                or (p.name.startswith("compliance-") and p.suffix == ".npy" and ".tmp" not in p.name
                    and p.is_file() and not p.is_symlink())]
    except OSError:
        return []


def _size(p: Path) -> int:
    if p.is_file():
        return p.stat().st_size
    total = 0
    for dirpath, _, files in os.walk(p):
        for f in files:
            try:
                total += os.stat(os.path.join(dirpath, f)).st_size
            except OSError:
                pass
    return total


def _remove(p: Path) -> None:
    if p.is_dir():
        shutil.rmtree(p, ignore_errors=True)  # safe: a numba-<source hash> folder of _entries, ours by name, not a link
    else:
        p.unlink(missing_ok=True)  # safe: a compliance-*.npy file of _entries, written by the FE cache


def prune(root: Path | None = None, *, keep: Path | None = None, max_bytes: float | None = None,
          now: float | None = None) -> list[Path]:
    """Remove stale and least recently used cache entries of ``root``; return what was removed.

    First every ``numba-*`` folder other than ``keep`` unused for :data:`STALE_AFTER`, then the
    oldest entries (by modification time) until the entries total at most ``max_bytes`` [bytes]
    (default :func:`limit_bytes`).  ``keep`` (the numba cache of the running source state) is never
    removed; nothing but our own entries is ever touched.
    """
    root = cache_root() if root is None else root
    max_bytes = limit_bytes() if max_bytes is None else max_bytes
    now = time.time() if now is None else now
    removed = []
    entries = []
    for p in _entries(root):
        try:
            mtime = p.stat().st_mtime
        except OSError:
            continue
        if p == keep:
            continue
        if p.name.startswith("numba-") and now - mtime > STALE_AFTER:
            _remove(p)
            removed.append(p)
        else:
            entries.append((mtime, p))
    sizes = {p: _size(p) for _, p in entries}
    total = sum(sizes.values()) + (_size(keep) if keep is not None and keep.exists() else 0)
    for _, p in sorted(entries, key=lambda e: e[0]):
        if total <= max_bytes:
            break
        _remove(p)
        removed.append(p)
        total -= sizes[p]
    return removed


#: the root is pruned at most this often [s] (sizing it walks every entry: ~0.1 s)
PRUNE_EVERY = 3600.0
_STAMP = ".last-pruned"


def _prune_now_and_then(root: Path, keep: Path) -> None:
    stamp = root / _STAMP
    try:
        if stamp.exists() and time.time() - stamp.stat().st_mtime < PRUNE_EVERY:
            return
        stamp.touch()
        prune(root, keep=keep)
    except OSError:   # a cache that cannot be pruned is still a cache
        pass


def numba_cache_dir() -> Path | None:
    """The numba cache folder of our compiled functions, or ``None`` when numba's own rule applies
    (``NUMBA_CACHE_DIR`` set, ``WORKBENCH_NUMBA_CACHE=default``, or the folder cannot be made)."""
    if "numba_dir" in _state:
        return _state["numba_dir"]
    use_numba_cache()
    return _state.get("numba_dir")


def holds_compiled(pattern: str = "mbs_*/integrator.*.nbi") -> bool:
    """Whether the numba cache of this source state already holds files matching ``pattern``
    (default: the integrator), i.e. a run will load rather than compile.  False when numba's own
    rule applies (we cannot tell)."""
    d = numba_cache_dir()
    return d is not None and any(d.glob(pattern))


def compiled_marker(key: str) -> Path | None:
    """The marker file [path] saying that the compiled code of model type ``key`` (e.g.
    ``compiled-100``: the planar engine with joint friction only) is in this source state's numba
    cache: written after a run of that type finished (:func:`mark_compiled`).  None when numba's own
    rule applies."""
    d = numba_cache_dir()
    return None if d is None else d / f".compiled-{key}"


def mark_compiled(key: str) -> None:
    """Write :func:`compiled_marker` of ``key`` (ours, in the cache folder; failures ignored)."""
    m = compiled_marker(key)
    if m is not None:
        try:
            m.parent.mkdir(parents=True, exist_ok=True)
            m.touch()
        except OSError:
            pass


def _numba_target(dirs: list[Path] | None = None) -> tuple[Path, list[Path]] | None:
    """``(folder, source dirs)`` of the source-keyed numba cache, or ``None`` when numba's own rule
    applies; without importing numba; for the default ``dirs`` computed once per process."""
    if dirs is None and "target" in _state:
        return _state["target"]
    target = None
    if not (os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("WORKBENCH_NUMBA_CACHE") == "default"):
        found = [Path(d).resolve() for d in (package_dirs() if dirs is None else dirs)]
        target = (cache_root() / f"numba-{source_hash(found)}", found)
    if dirs is None:
        _state["target"] = target
    return target


def use_numba_cache(dirs: list[Path] | None = None) -> Path | None:
    """Send numba's cache of the functions defined under ``dirs`` (default: the imported
    ``workbench`` and ``workbench_plugins`` packages) to ``<root>/numba-<source hash>``, and prune the root.

    Idempotent (the first call in a process decides); cheap (a few ms for the hash).  Returns the
    folder, or ``None`` when numba's own rule applies.
    """
    if "numba_dir" in _state:
        return _state["numba_dir"]
    _state["numba_dir"] = None
    found = _numba_target(dirs)
    if found is None:
        return None
    target, dirs = found
    try:
        root = target.parent
        target.mkdir(parents=True, exist_ok=True)
        os.utime(target)   # the modification time marks its last use, for pruning
        _probe_writable(target)
    except OSError as exc:  # read-only home or sources: numba's own rule (which may compile each run)
        report_unwritable(target, exc)
        return None
    _prune_now_and_then(root, target)
    _install_locator(target, dirs)
    _state["numba_dir"], _state["dirs"] = target, dirs
    return target


def _probe_writable(folder: Path) -> None:
    """Raise ``OSError`` unless a file can be created in ``folder`` (permissions alone do not tell:
    an immutable folder, a read-only mount, or root's writes on a network share)."""
    import tempfile
    fd, probe = tempfile.mkstemp(prefix=".probe-", dir=folder)
    os.close(fd)
    os.unlink(probe)  # safe: the empty probe file created just above


_REPORTED: set = set()


def report_unwritable(folder: Path, exc: OSError) -> None:
    """Say once per process, on stderr, that the compile cache ``folder`` cannot be written: every
    command then compiles the solver again (minutes instead of about a second)."""
    if str(folder) in _REPORTED:
        return
    _REPORTED.add(str(folder))
    print(f"note: the workbench's compile cache {folder} cannot be written ({exc.strerror or exc}); "
          f"every run compiles the solver again (minutes instead of seconds).  Make the folder "
          f"writable, or point ${ROOT_ENV} to a writable folder", file=sys.stderr)


def _install_locator(target: Path, dirs: list[Path]) -> None:
    from numba.core import caching
    base = getattr(caching, "UserProvidedCacheLocator", None) or caching._UserProvidedCacheLocator
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    roots = tuple(str(d) + os.sep for d in dirs)

    class WorkbenchCacheLocator(base):
        """numba cache locator: our own functions' caches in the source-keyed folder.

        The folder is keyed by the content of every source file (:func:`source_hash`), so a
        function is located by its file's path *inside* its package and stamped by that key, not
        by the file's absolute path and modification time as numba does: a second clone or
        install of the same sources (another folder, new mtimes) loads what the first compiled."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._rel = _package_relative(py_file, dirs)
            self._cache_path = os.path.join(str(target), _relative_subpath(self._rel))

        def get_source_stamp(self):
            return ("workbench-source-hash", target.name, self._rel)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not os.path.realpath(py_file).startswith(roots):
                return None
            return super(base, cls).from_function(py_func, py_file)

    impl._locator_classes = [c for c in impl._locator_classes
                             if c.__name__ != "WorkbenchCacheLocator"]
    impl._locator_classes.insert(0, WorkbenchCacheLocator)
    _install_light_load(caching)


def _package_relative(py_file: str, dirs: list[Path]) -> str:
    """``py_file``'s path from the folder holding its package (``workbench/mbs/integrator.py``)."""
    real = Path(os.path.realpath(py_file))
    for d in dirs:
        try:
            return f"{d.name}/{real.relative_to(d).as_posix()}"
        except ValueError:
            continue
    return real.as_posix()


def _relative_subpath(rel: str) -> str:
    """numba's subfolder rule (parent folder's name, ``_``, a SHA-1) on the package-relative path."""
    parent = rel.rsplit("/", 1)[0]
    return f"{parent.rsplit('/', 1)[-1]}_{hashlib.sha1(parent.encode()).hexdigest()}"


def _install_light_load(caching) -> None:
    """Load our cached functions without numba's full target-context refresh.

    numba's ``Cache.load_overload`` first calls ``target_context.refresh()``, which imports every
    lowering registry numba has (``numba.np.arraymath`` alone pulls in ``scipy.linalg``): about
    0.4 s, half of a warm ``validate``, spent only so that a *compile* finds its implementations.
    Loading a cached function needs none of them: it unpickles the machine code, links it (the
    NRT symbols must be registered, hence ``rtsys.initialize``) and takes its address.  A cache
    miss compiles through numba's pipeline, which refreshes both contexts itself
    (``numba.core.compiler``), so nothing is skipped for a compile.  Scoped to functions whose
    cache the workbench locator owns; a user's own ``cache=True`` functions load as numba does.
    Written against numba 0.68's ``Cache`` (a numba without its private pieces takes its own
    path); ``tests/runtime/test_caches.py`` checks that a warm process loads an allocating function and a
    C callback passed as an argument this way.  A run still imports ``scipy.linalg``: the
    integrator's environment refers to ``numba.np.arraymath`` (matrix products call BLAS).
    """
    cache_cls = caching.Cache
    if getattr(cache_cls.load_overload, "_workbench_light", False):
        return
    full_load = cache_cls.load_overload

    def load_overload(self, sig, target_context):
        locator = getattr(getattr(self, "_impl", None), "locator", None)
        if (type(locator).__name__ != "WorkbenchCacheLocator"
                or not hasattr(self, "_guard_against_spurious_io_errors")):  # another numba: its way
            return full_load(self, sig, target_context)
        from numba.core.runtime import rtsys
        # typing a call's arguments needs the typeof rules some registries add on import: the
        # first-class function type types the kernels' C callbacks passed to the integrator
        import numba.experimental.function_type  # noqa: F401
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
        return None  # an I/O error swallowed by the guard: a miss, numba compiles

    load_overload._workbench_light = True
    cache_cls.load_overload = load_overload
    full_save = cache_cls.save_overload

    def save_overload(self, sig, data):
        """Save to the cache as numba does; a cache that cannot be written (a full disk, a
        file-size limit, a read-only folder) costs the next process a compile, never this run."""
        try:
            return full_save(self, sig, data)
        except OSError as exc:
            locator = getattr(getattr(self, "_impl", None), "locator", None)
            if type(locator).__name__ != "WorkbenchCacheLocator":
                raise
            report_unwritable(Path(locator.get_cache_path()), exc)
            return None

    cache_cls.save_overload = save_overload


# ------------------------------------------------------------------- C-callable wrappers of kernels
def cached_cfunc(sig, wrapper, kernel):
    """``numba.cfunc(sig)(wrapper)``, taken from the on-disk cache when it holds it; ``sig`` is a
    numba signature or a function returning one (numba is imported only when it is needed).

    A wrapper this source state has compiled before (a marker file, :func:`_verified_marker`) is
    returned as a :class:`LazyCFunc`, made when the solver first takes its address: ``validate``
    then checks the kernel without importing numba; any other wrapper is compiled here, so that a
    kernel that does not compile with the solver's signature fails where it did.

    ``wrapper`` is a closure calling the njit function ``kernel``.  numba's own ``cache=True`` keys
    a closure by a pickle of its cells, which holds the kernel dispatcher's per-process id: a miss
    in every new process (about 0.4 s of compilation per wrapper, paid by every ``validate`` and
    ``run``).  Here the key names the kernel instead: its module, qualified name, bytecode and the
    content of its source file (an edit of the kernel's file is a new key; an edit of a function it
    calls from another file of ours is a new cache folder, see :func:`use_numba_cache`).  A kernel
    that is itself a closure, or has no source file, is compiled every time, as numba would.
    """
    ident = _kernel_identity(kernel)
    marker = _verified_marker(wrapper, ident)
    if marker is not None and marker.exists():
        return LazyCFunc(lambda: _make_cfunc(sig, wrapper, ident, None))
    return _make_cfunc(sig, wrapper, ident, marker)


def _make_cfunc(sig, wrapper, ident: str | None, marker: Path | None):
    from numba.core import sigutils
    from numba.core.ccallback import CFunc

    load_numba()   # numba imported, our cache locator installed
    res = CFunc(wrapper, sigutils.normalize_signature(sig() if callable(sig) else sig), locals={},
                options={})
    if ident is not None:
        try:
            res._cache = _wrapper_cache_class()(wrapper, ident)
        except Exception:  # noqa: BLE001 - no usable cache location: compile, as numba would
            pass
    res.compile()
    if marker is not None:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:   # no marker: the next process compiles (loads) it eagerly again
            pass
    return res


def _verified_marker(wrapper, ident: str | None) -> Path | None:
    """The file marking that this source state compiled ``wrapper`` around the kernel ``ident``
    (:func:`_kernel_identity`): ``<numba cache>/verified/<hash>``; ``None`` without a
    source-keyed cache or a kernel identity."""
    found = _numba_target()
    if ident is None or found is None:
        return None
    h = hashlib.sha256(f"{wrapper.__module__}.{wrapper.__qualname__}\0{ident}".encode())
    h.update(wrapper.__code__.co_code)
    return found[0] / "verified" / h.hexdigest()[:32]


class LazyCFunc:
    """A kernel's C-callable wrapper made on first use (see :func:`cached_cfunc`): numba types it
    as the wrapper (``_numba_type_``), takes its address through ``__wrapper_address__``, and
    any other attribute (``address``, ``ctypes`` ...) comes from the real ``numba.cfunc``."""

    def __init__(self, make):
        self._make = make
        self._cfunc = None

    def cfunc(self):
        """The real ``numba.cfunc`` object (made, or loaded from the cache, on the first call)."""
        if self._cfunc is None:
            with NUMBA_LOCK:
                if self._cfunc is None:
                    self._cfunc = self._make()
        return self._cfunc

    @property
    def _numba_type_(self):
        from numba import typeof
        return typeof(self.cfunc())

    def __wrapper_address__(self, sig=None) -> int:
        return self.cfunc().address

    def __call__(self, *args):
        return self.cfunc()(*args)

    def __getattr__(self, name: str):
        # as workbench.jit.LazyDispatcher: only a public attribute makes the wrapper
        if name.startswith("__") or name in ("_make", "_cfunc") or (name.startswith("_") and self._cfunc is None):
            raise AttributeError(name)
        return getattr(self.cfunc(), name)


def _kernel_identity(kernel) -> str | None:
    f = getattr(kernel, "py_func", None)
    if f is None or f.__closure__ is not None:
        return None
    try:
        source = Path(f.__code__.co_filename).read_bytes()
    except OSError:
        return None
    found = _numba_target()
    where = (_package_relative(f.__code__.co_filename, found[1]) if found is not None
             else f.__code__.co_filename)   # ours by the path inside the package: see the locator
    h = hashlib.sha256()
    for part in (f.__module__ or "", f.__qualname__, where):
        h.update(part.encode() + b"\0")
    h.update(f.__code__.co_code)
    h.update(source)
    return h.hexdigest()


_WRAPPER_CACHE = []


def _wrapper_cache_class():
    if not _WRAPPER_CACHE:
        from numba.core.caching import FunctionCache

        class KernelWrapperCache(FunctionCache):
            """numba's function cache, keyed by the wrapped kernel's identity (see cached_cfunc)."""

            def __init__(self, py_func, ident: str):
                self._kernel_ident = ident
                super().__init__(py_func)

            def _index_key(self, sig, codegen):
                code = hashlib.sha256(self._py_func.__code__.co_code).hexdigest()
                return (sig, codegen.magic_tuple(), (code, self._kernel_ident))

        _WRAPPER_CACHE.append(KernelWrapperCache)
    return _WRAPPER_CACHE[0]
