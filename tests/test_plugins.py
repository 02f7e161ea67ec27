"""Tests of the plugin host (workbench/plugins.py, workbench/hookspecs.py) and of Model.from_mapping.

Every test builds its own plugin manager from in-process plugin modules (nothing global is shared);
the entry-point path is exercised with a monkeypatched ``entry_points``.
"""
from __future__ import annotations

import dataclasses
import inspect
import types
from dataclasses import dataclass

import numpy as np
import pluggy
import pytest

import workbench.plugins as host
from workbench import hookspecs
from workbench.errors import PluginError, StudyError
from workbench.hookspecs import hookimpl
from workbench.models import (FAMILIES, ContactLaw, FrictionLaw, LubricationModel, Model, PressureModel,
                              WearLaw, parameter)
from workbench.plugins import build_registry, get_plugin_manager


# ------------------------------------------------------------------------------------------------
# minimal valid models, one per family
# ------------------------------------------------------------------------------------------------
def _contact_kernel(delta, delta_dot, delta_dot_minus, p):
    return p[0] * delta if delta > 0.0 else 0.0


def _friction_kernel(v_t, f_n, z, p):
    return -p[0] * f_n * (1.0 if v_t > 0 else -1.0 if v_t < 0 else 0.0), 0.0


class ToyContact(ContactLaw):
    """Linear spring, for the host tests."""
    name = "toy_contact"
    reference = "test fixture, eq. (1)"

    @dataclass(frozen=True)
    class Params:
        stiffness: float = parameter(1e9, unit="N/m", doc="spring stiffness", min=0.0)

    kernel = staticmethod(_contact_kernel)

    def pack(self, geometry):
        return np.array([self.params.stiffness])


class ToyFriction(FrictionLaw):
    """Coulomb friction, for the host tests."""
    name = "toy_friction"
    reference = "test fixture, eq. (2)"
    n_states = 0

    @dataclass(frozen=True)
    class Params:
        mu: float = parameter(0.1, unit="1", doc="friction coefficient", min=0.0, max=2.0)
        lubricated: bool = parameter(False, unit="bool", doc="whether the joint is lubricated")
        regime: str = parameter("dry", unit="text", doc="friction regime", choices=("dry", "mixed"))

    kernel = staticmethod(_friction_kernel)

    def pack(self):
        return np.array([self.params.mu])


class ToyPressure(PressureModel):
    """Uniform pressure, for the host tests."""
    name = "toy_pressure"
    reference = "test fixture, eq. (3)"


class ToyWear(WearLaw):
    """Archard-like, for the host tests."""
    name = "toy_wear"
    reference = "test fixture, eq. (4)"

    @dataclass(frozen=True)
    class Params:
        k_d: float = parameter(1e-15, unit="1/Pa", doc="dimensional wear coefficient", min=0.0)


def _lubrication_kernel(ex, ey, vx, vy, omega, p):
    return -p[0] * vx, -p[0] * vy, 0.0


class ToyLubrication(LubricationModel):
    """Linear squeeze damper, for the host tests."""
    name = "toy_lubrication"
    reference = "test fixture, eq. (5)"

    @dataclass(frozen=True)
    class Params:
        damping: float = parameter(1e3, unit="N s/m", doc="film damping", min=0.0)

    kernel = staticmethod(_lubrication_kernel)

    def pack(self, geometry):
        return np.array([self.params.damping])


TOYS = {"contact": ToyContact, "friction": ToyFriction, "pressure": ToyPressure, "wear": ToyWear,
        "lubrication": ToyLubrication}
FAMILY_HOOK = {family: hook for hook, family in hookspecs.HOOK_FAMILIES.items()}


def plugin(name: str, family: str, *classes) -> types.ModuleType:
    """An in-process plugin module called ``name`` whose hook for ``family`` registers ``classes``."""
    mod = types.ModuleType(name)

    def hook(register):
        for cls in classes:
            register(cls)

    hook.__name__ = FAMILY_HOOK[family]
    setattr(mod, FAMILY_HOOK[family], hookimpl(hook))
    return mod


def registry_of(*plugins):
    return build_registry(get_plugin_manager(load_entry_points=False, extra_plugins=plugins))


# ------------------------------------------------------------------------------------------------
# the hook specifications
# ------------------------------------------------------------------------------------------------
def test_every_hookspec_is_documented_and_maps_to_a_family():
    specs = {n for n, f in inspect.getmembers(hookspecs, inspect.isfunction)
             if hasattr(f, f"{hookspecs.PROJECT}_spec")}
    assert specs == set(hookspecs.HOOK_FAMILIES)
    assert sorted(hookspecs.HOOK_FAMILIES.values()) == sorted(FAMILIES)
    for name in specs:
        fn = getattr(hookspecs, name)
        doc = inspect.getdoc(fn)
        assert doc and "Called" in doc and "register" in doc, f"hook {name} lacks a proper docstring"
        assert list(inspect.signature(fn).parameters) == ["register"]


@pytest.mark.parametrize("hook_name", sorted(hookspecs.HOOK_FAMILIES))
def test_every_hook_registers_a_model_of_its_family(hook_name):
    family = hookspecs.HOOK_FAMILIES[hook_name]
    reg = registry_of(plugin(f"toy_{family}_plugin", family, TOYS[family]))
    assert reg.names(family) == [TOYS[family].name]
    entry = reg.entry(family, TOYS[family].name)
    assert entry.cls is TOYS[family] and entry.plugin == f"toy_{family}_plugin"
    assert entry.distribution == "(in-process)"
    for other in FAMILIES:
        if other != family:
            assert reg.names(other) == []
    prov = reg.provenance()
    assert list(prov) == [f"{family}:{TOYS[family].name}"]
    assert "(in-process)" in prov[f"{family}:{TOYS[family].name}"]
    assert f"(plugin toy_{family}_plugin)" in prov[f"{family}:{TOYS[family].name}"]


def test_fresh_manager_without_entry_points_has_only_the_extra_plugins():
    pm = get_plugin_manager(load_entry_points=False)
    assert pm.get_plugins() == set()
    reg = build_registry(pm)
    assert all(reg.names(f) == [] for f in FAMILIES)


def test_hookimpl_with_a_wrong_signature_is_rejected_by_pluggy():
    mod = types.ModuleType("bad_signature")

    @hookimpl
    def register_friction_laws(callback):  # the spec's argument is called 'register'
        callback(ToyFriction)

    mod.register_friction_laws = register_friction_laws
    with pytest.raises(pluggy.PluginValidationError, match="bad_signature"):
        get_plugin_manager(load_entry_points=False, extra_plugins=(mod,))


# ------------------------------------------------------------------------------------------------
# validation of what plugins register
# ------------------------------------------------------------------------------------------------
def _variant(base, **attrs):
    return type(base.__name__ + "Variant", (base,), attrs)


@dataclass
class _UnfrozenParams:
    mu: float = parameter(0.1, unit="1", doc="friction coefficient")


@dataclass(frozen=True)
class _ParamsWithoutUnit:
    mu: float = 0.1


@dataclass(frozen=True)
class _ParamsWithoutDefault:
    mu: float = dataclasses.field(metadata={"unit": "1", "doc": "friction coefficient"})


class _NotAModel:
    name = "not_a_model"
    reference = "nowhere"


BAD_FRICTION_MODELS = {
    "not a subclass": (_NotAModel, "not a subclass of workbench.models.FrictionLaw"),
    "a contact law": (ToyContact, "not a subclass of workbench.models.FrictionLaw"),
    "an instance": (ToyFriction(), "not a subclass"),
    "bad name": (_variant(ToyFriction, name="Bad-Name"), "invalid name 'Bad-Name'"),
    "empty name": (_variant(ToyFriction, name=""), "invalid name ''"),
    "no reference": (_variant(ToyFriction, reference="  "), "has no reference"),
    "Params not frozen": (_variant(ToyFriction, Params=_UnfrozenParams), "must be a frozen dataclass"),
    "Params not a dataclass": (_variant(ToyFriction, Params=dict), "must be a frozen dataclass"),
    "parameter without unit": (_variant(ToyFriction, Params=_ParamsWithoutUnit), "parameter 'mu'"),
    "parameter without default": (_variant(ToyFriction, Params=_ParamsWithoutDefault), "needs a default"),
    "missing kernel": (_variant(ToyFriction, kernel=None), "has no compiled kernel"),
    "kernel not callable": (_variant(ToyFriction, kernel=3.0), "has no compiled kernel"),
    "bad n_states": (_variant(ToyFriction, n_states=2), "n_states must be 0 or 1"),
}


@pytest.mark.parametrize("case", BAD_FRICTION_MODELS)
def test_invalid_model_is_a_plugin_error_naming_plugin_and_problem(case):
    cls, problem = BAD_FRICTION_MODELS[case]
    with pytest.raises(PluginError) as err:
        registry_of(plugin("my_faulty_plugin", "friction", cls))
    msg = str(err.value)
    assert "plugin 'my_faulty_plugin'" in msg
    assert problem in msg
    if case == "parameter without unit":
        assert "no unit" in msg and "workbench.models.parameter" in msg


def test_contact_law_without_kernel_is_rejected_but_pressure_models_need_none():
    with pytest.raises(PluginError, match="plugin 'contact_plugin'.*no compiled kernel"):
        registry_of(plugin("contact_plugin", "contact", _variant(ToyContact, kernel=None)))
    reg = registry_of(plugin("pressure_plugin", "pressure", ToyPressure))
    assert reg.names("pressure") == ["toy_pressure"]


def test_two_plugins_with_the_same_model_name_clash_only_where_it_is_used():
    """A clash makes that one name unusable (refused naming both plugins); the other models of
    both plugins, and the registry itself, stay usable."""
    reg = registry_of(plugin("plugin_one", "friction", ToyFriction),
                      plugin("plugin_two", "friction", _variant(ToyFriction)),
                      plugin("plugin_three", "wear", ToyWear))
    assert "toy_friction" not in reg.names("friction") and reg.names("wear") == ["toy_wear"]
    assert [e.plugin for e in reg.clashes[("friction", "toy_friction")]] == ["plugin_one", "plugin_two"]
    with pytest.raises(PluginError) as err:
        reg.create("friction", "toy_friction", file="s.toml", key="mechanism.clearance_joints[0].friction")
    msg = str(err.value)
    assert "'toy_friction'" in msg and "'plugin_one'" in msg and "'plugin_two'" in msg
    assert "s.toml" in msg and "[mechanism.clearance_joints[0].friction]" in msg
    assert reg.get("wear", "toy_wear") is ToyWear


def test_same_name_in_different_families_is_fine():
    same = _variant(ToyWear, name="toy_friction")
    reg = registry_of(plugin("p1", "friction", ToyFriction), plugin("p2", "wear", same))
    assert reg.get("friction", "toy_friction") is ToyFriction
    assert reg.get("wear", "toy_friction") is same


# ------------------------------------------------------------------------------------------------
# looking models up
# ------------------------------------------------------------------------------------------------
def _two_friction_laws():
    return registry_of(plugin("p", "friction", _variant(ToyFriction, name="alpha_law"),
                              _variant(ToyFriction, name="beta_law")))


def test_unknown_model_name_suggests_and_lists_valid_choices():
    reg = _two_friction_laws()
    with pytest.raises(StudyError) as err:
        reg.create("friction", "alpha_lwa", file="study.toml", key="joints.A.friction.model")
    msg = str(err.value)
    assert "study.toml" in msg and "[joints.A.friction.model]" in msg
    assert "'alpha_lwa'" in msg
    assert "Did you mean 'alpha_law'?" in msg
    assert "'alpha_law', 'beta_law'" in msg
    # nothing close: no suggestion, still the list
    with pytest.raises(StudyError) as err:
        reg.get("friction", "zzz")
    assert "Did you mean" not in str(err.value) and "'beta_law'" in str(err.value)


def test_unknown_family_and_empty_family():
    reg = _two_friction_laws()
    with pytest.raises(StudyError, match="unknown model family 'frictoin'.*'contact'.*'wear'"):
        reg.get("frictoin", "alpha_law")
    with pytest.raises(StudyError, match="none registered"):
        reg.get("wear", "archard")


# ------------------------------------------------------------------------------------------------
# Model.from_mapping
# ------------------------------------------------------------------------------------------------
def test_from_mapping_builds_checked_parameters():
    model = ToyFriction.from_mapping({"mu": 1, "lubricated": True, "regime": "mixed"})
    assert model.params.mu == 1.0 and isinstance(model.params.mu, float)
    assert model.params.lubricated is True and model.params.regime == "mixed"
    assert ToyFriction.from_mapping({}).params == ToyFriction.Params()
    assert "friction:toy_friction(mu=1.0" in model.describe()


@pytest.mark.parametrize("values, fragments", [
    ({"muu": 0.2}, ["[models.friction.muu]", "unknown parameter 'muu'", "Did you mean 'mu'?",
                    "'lubricated', 'mu', 'regime'"]),
    ({"mu": 2.5}, ["[models.friction.mu]", "above the maximum 2.0"]),
    ({"mu": -0.1}, ["[models.friction.mu]", "below the minimum 0.0"]),
    ({"mu": "0.2"}, ["[models.friction.mu]", "expected a number", "'0.2'"]),
    ({"mu": True}, ["[models.friction.mu]", "expected a number"]),
    ({"mu": float("nan")}, ["[models.friction.mu]", "finite"]),
    ({"lubricated": "yes"}, ["[models.friction.lubricated]", "expected true/false"]),
    ({"regime": "wet"}, ["[models.friction.regime]", "'wet'", "'dry', 'mixed'"]),
])
def test_from_mapping_errors_name_file_key_and_value(values, fragments):
    with pytest.raises(StudyError) as err:
        ToyFriction.from_mapping(values, file="study.toml", key="models.friction")
    msg = str(err.value)
    assert msg.startswith("study.toml: ")
    for fragment in fragments:
        assert fragment in msg


def test_model_constructor_takes_params_or_values_not_both():
    assert ToyFriction(mu=0.3).params.mu == 0.3
    assert ToyFriction(ToyFriction.Params(mu=0.4)).params.mu == 0.4
    with pytest.raises(TypeError):
        ToyFriction(ToyFriction.Params(), mu=0.3)
    assert issubclass(ToyFriction, Model)


# ------------------------------------------------------------------------------------------------
# entry points
# ------------------------------------------------------------------------------------------------
class _FakeDist:
    def __init__(self, name, version):
        self.metadata = {"Name": name}
        self.version = version


class _FakeEntryPoint:
    def __init__(self, name, target, dist=None):
        self.name = name
        self._target = target
        self.dist = dist

    def load(self):
        if isinstance(self._target, BaseException):
            raise self._target
        return self._target


def test_broken_entry_point_warns_and_is_skipped(monkeypatch):
    good = plugin("good_module", "friction", ToyFriction)
    eps = [_FakeEntryPoint("broken_ep", ImportError("no module named 'missing_dep'"),
                           _FakeDist("broken-dist", "0.0.1")),
           _FakeEntryPoint("good_ep", good, _FakeDist("good-dist", "1.2.3"))]
    seen_groups = []

    def fake_entry_points(*, group):
        seen_groups.append(group)
        return eps

    monkeypatch.setattr(host, "entry_points", fake_entry_points)
    with pytest.warns(RuntimeWarning) as record:
        pm = get_plugin_manager()
    assert seen_groups == [host.ENTRY_POINT_GROUP]
    messages = [str(w.message) for w in record]
    assert len(messages) == 1
    assert "'broken_ep'" in messages[0] and "'broken-dist'" in messages[0]
    assert "ImportError" in messages[0] and "missing_dep" in messages[0] and "skipped" in messages[0]
    assert pm.get_plugin("broken_ep") is None and pm.get_plugin("good_ep") is good
    reg = build_registry(pm)
    entry = reg.entry("friction", "toy_friction")
    assert (entry.plugin, entry.distribution, entry.version) == ("good_ep", "good-dist", "1.2.3")
    assert reg.provenance() == {"friction:toy_friction": "good-dist 1.2.3 (plugin good_ep)"}


def test_entry_point_without_distribution_and_duplicate_names(monkeypatch):
    first = plugin("first_module", "wear", ToyWear)
    second = plugin("second_module", "wear", _variant(ToyWear, name="other_wear"))
    eps = [_FakeEntryPoint("dup", first), _FakeEntryPoint("dup", second)]
    monkeypatch.setattr(host, "entry_points", lambda *, group: eps)
    pm = get_plugin_manager()
    assert pm.get_plugin("dup") is first  # the second entry point of the same name is not loaded
    reg = build_registry(pm)
    assert reg.names("wear") == ["toy_wear"]
    assert reg.entry("wear", "toy_wear").distribution == "unknown"


def test_entry_point_plugins_and_extra_plugins_combine(monkeypatch):
    monkeypatch.setattr(host, "entry_points",
                        lambda *, group: [_FakeEntryPoint("ep_contact", plugin("c", "contact", ToyContact))])
    pm = get_plugin_manager(extra_plugins=(plugin("x", "friction", ToyFriction),))
    reg = build_registry(pm)
    assert reg.names("contact") == ["toy_contact"] and reg.names("friction") == ["toy_friction"]
    assert [e.name for e in reg.entries()] == ["toy_contact", "toy_friction"]
