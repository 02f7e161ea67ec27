"""Plugin manager and model registry.

:func:`get_plugin_manager` builds a fresh pluggy manager (no side effects at import) and loads
every module of the ``workbench`` entry-point group; a module that fails to import is skipped with
a warning, it does not break the host -- also when it calls ``sys.exit`` or raises
``KeyboardInterrupt`` at import (:data:`ISOLATED`).  :func:`build_registry` calls each registration hook
once per plugin and validates every model it registers (base class, name, reference, parameters
with units) — pluggy checks hook signatures but never what a hook registers.  Two plugins
registering one name make that name unusable (:meth:`Registry.entry` refuses it naming both), never
the other models.
"""
from __future__ import annotations

import dataclasses
import re
import time
import warnings
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

import pluggy

from . import hookspecs
from .errors import PluginError, StudyError, choices_text, did_you_mean
from .models import BASES, FAMILIES, Model

ENTRY_POINT_GROUP = "workbench"
#: what a plugin may raise at import or in a registration hook and only costs it its models:
#: every Exception, and SystemExit / KeyboardInterrupt raised by the plugin's own code (a module
#: calling sys.exit() at import would otherwise end every command with no output)
ISOLATED = (Exception, SystemExit, KeyboardInterrupt)
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class ModelEntry:
    """A registered model and where it came from."""
    family: str
    name: str
    cls: type
    plugin: str
    distribution: str
    version: str


def get_plugin_manager(*, load_entry_points: bool = True, extra_plugins: tuple = ()) -> pluggy.PluginManager:
    """A fresh plugin manager with the hook specs, the entry-point plugins and ``extra_plugins``.

    Entry points are loaded one by one so that a broken third-party module only warns.
    """
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    pm._workbench_dists = {}  # plugin name -> (distribution, version)
    if load_entry_points:
        seen_dists: dict = {}
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if pm.get_plugin(ep.name) is not None or pm.is_blocked(ep.name):
                continue
            dist = getattr(ep, "dist", None)
            # start-up: read each distribution's metadata once, not once per entry point (50 ms)
            dist_key = getattr(dist, "_path", None) or id(dist)
            if dist_key not in seen_dists:
                seen_dists[dist_key] = ((dist.metadata["Name"], dist.version) if dist is not None
                                        else ("unknown", "unknown"))
            dist_name, dist_version = seen_dists[dist_key]
            try:
                t0 = time.perf_counter()
                module = ep.load()
                _report_slow_import(ep.name, dist_name, time.perf_counter() - t0)
                pm.register(module, name=ep.name)
            except ISOLATED as exc:  # any failure of a plugin must not break the host
                warnings.warn(f"workbench plugin '{ep.name}' from distribution '{dist_name}' "
                              f"failed to load and is skipped: {_describe(exc)}",
                              RuntimeWarning, stacklevel=2)
                continue
            pm._workbench_dists[ep.name] = (dist_name, dist_version)
    for plugin in extra_plugins:
        name = pm.register(plugin)
        pm._workbench_dists[name] = ("(in-process)", "")
    return pm


#: an entry point whose import takes longer than this is reported (on stderr, once per process) [s]
SLOW_IMPORT_SECONDS = 1.0
_REPORTED_SLOW: set = set()


def _report_slow_import(name: str, dist: str, seconds: float) -> None:
    """Say on stderr that the plugin ``name`` took ``seconds`` to import (every command imports
    every plugin, ``validate`` and ``plugins`` included), once per process and plugin."""
    if seconds < SLOW_IMPORT_SECONDS or name in _REPORTED_SLOW:
        return
    _REPORTED_SLOW.add(name)
    import sys
    print(f"note: workbench plugin '{name}' from distribution '{dist}' took {seconds:.1f} s to import "
          f"(every command imports every installed plugin; limit for this note "
          f"{SLOW_IMPORT_SECONDS:g} s): ask its author to defer heavy imports, or uninstall it",
          file=sys.stderr)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r})"
    if isinstance(exc, KeyboardInterrupt):
        return "it raised KeyboardInterrupt"
    return f"{type(exc).__name__}: {exc}"


class Registry:
    """Registered models by family and name."""

    def __init__(self):
        self._models: dict[str, dict[str, ModelEntry]] = {f: {} for f in FAMILIES}
        #: names registered by two or more plugins: (family, name) -> every entry of that name
        self.clashes: dict[tuple[str, str], list[ModelEntry]] = {}

    def add(self, entry: ModelEntry) -> None:
        """Register ``entry``.  A name another plugin registered already in the family is a clash:
        both are kept aside and the name is refused where a study uses it (:meth:`entry`), naming
        both plugins; every other model stays usable."""
        fam = self._models[entry.family]
        key = (entry.family, entry.name)
        if key in self.clashes:
            self.clashes[key].append(entry)
            return
        if entry.name in fam:
            self.clashes[key] = [fam.pop(entry.name), entry]
            return
        fam[entry.name] = entry

    def clash_message(self, family: str, name: str) -> str:
        """Why the ``family`` model ``name`` cannot be used: the plugins that register it."""
        who = " and ".join(f"'{e.plugin}' ({e.distribution} {e.version})".replace(" )", ")")
                           for e in self.clashes[(family, name)])
        return (f"two plugins register the {family} model '{name}': {who}; it cannot be used until "
                f"one is uninstalled or renames it (the other models are not affected)")

    def names(self, family: str) -> list[str]:
        return sorted(self._models[family])

    def entries(self, family: str | None = None) -> list[ModelEntry]:
        fams = [family] if family else list(FAMILIES)
        return [self._models[f][n] for f in fams for n in sorted(self._models[f])]

    def entry(self, family: str, name: str, *, file: str | None = None, key: str | None = None) -> ModelEntry:
        if family not in self._models:
            raise StudyError(f"unknown model family '{family}'. Valid: {choices_text(FAMILIES)}",
                             file=file, key=key)
        fam = self._models[family]
        if (family, name) in self.clashes:
            raise PluginError(f"{file + ': ' if file else ''}{'[' + key + '] ' if key else ''}"
                              f"{self.clash_message(family, name)}")
        if name not in fam:
            raise StudyError(f"unknown {family} model '{name}'.{did_you_mean(name, fam)} "
                             f"Valid choices: {choices_text(fam) or '(none registered)'}",
                             file=file, key=key)
        return fam[name]

    def get(self, family: str, name: str, **where) -> type:
        return self.entry(family, name, **where).cls

    def create(self, family: str, name: str, params: dict | None = None, *,
               file: str | None = None, key: str | None = None) -> Model:
        """Instantiate a model from a study table (checked parameters)."""
        cls = self.get(family, name, file=file, key=key)
        return cls.from_mapping(params or {}, file=file, key=key or "")

    def provenance(self) -> dict[str, str]:
        """``{"contact:hertz": "joint-wear-workbench 0.1.0 (plugin contact_hertz)", ...}``."""
        return {f"{e.family}:{e.name}": f"{e.distribution} {e.version} (plugin {e.plugin})"
                for e in self.entries()}


def validate_model(cls: Any, family: str, plugin: str) -> None:
    """Check a registered model class; raise :class:`PluginError` naming the plugin and problem."""
    base = BASES[family]
    where = f"plugin '{plugin}' registered {cls!r} as a {family} model"
    if not isinstance(cls, type) or not issubclass(cls, base):
        raise PluginError(f"{where}, but it is not a subclass of workbench.models.{base.__name__}")
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise PluginError(f"{where} with an invalid name {name!r}: use snake_case, e.g. 'my_law'")
    if not isinstance(cls.reference, str) or not cls.reference.strip():
        raise PluginError(f"{where}: '{name}' has no reference (paper and equation)")
    if not dataclasses.is_dataclass(cls.Params) or not cls.Params.__dataclass_params__.frozen:
        raise PluginError(f"{where}: '{name}'.Params must be a frozen dataclass")
    try:
        cls.parameters()
        cls.Params()
    except PluginError as exc:
        raise PluginError(f"{where}: {exc}") from None
    except TypeError as exc:
        raise PluginError(f"{where}: every parameter of '{name}' needs a default ({exc})") from None
    if family in ("contact", "friction", "lubrication"):
        if cls.kernel is None or not callable(cls.kernel):
            raise PluginError(f"{where}: '{name}' has no compiled kernel")
    if family == "friction" and cls.n_states not in (0, 1):
        raise PluginError(f"{where}: '{name}'.n_states must be 0 or 1, got {cls.n_states!r}")


def build_registry(pm: pluggy.PluginManager | None = None) -> Registry:
    """Call every registration hook of every plugin once and validate what they register.

    A hook that raises (other than :class:`PluginError`: an invalid model, which stops the build
    with a message naming the plugin) warns and registers nothing.  A name clash is kept in
    :attr:`Registry.clashes` and refused only where the name is used.
    """
    pm = pm if pm is not None else get_plugin_manager()
    dists = getattr(pm, "_workbench_dists", {})
    reg = Registry()
    for hook_name, family in hookspecs.HOOK_FAMILIES.items():
        caller = getattr(pm.hook, hook_name)
        for impl in caller.get_hookimpls():
            plugin = impl.plugin_name
            dist, ver = dists.get(plugin, ("(in-process)", ""))

            staged: list[ModelEntry] = []

            def register(cls, _family=family, _plugin=plugin, _dist=dist, _ver=ver, _staged=staged):
                validate_model(cls, _family, _plugin)
                _staged.append(ModelEntry(_family, cls.name, cls, _plugin, _dist, _ver))

            try:
                impl.function(register=register)
            except PluginError:
                raise
            except ISOLATED as exc:  # e.g. a lazy import inside the hook failed
                warnings.warn(f"workbench plugin '{plugin}' from distribution '{dist}' failed in "
                              f"{hook_name} and is skipped: {_describe(exc)}",
                              RuntimeWarning, stacklevel=2)
                continue
            for entry in staged:  # all or nothing per plugin and hook
                reg.add(entry)
    return reg
