"""One compiled integrator for mechanisms of different joint counts; none of the features a
mechanism lacks.

A numba tuple's length is part of its type: before the kernel tuples of the compiled model were
padded (``workbench.mbs.compiled.padded_kernels``), each new count of clearance joints, joint
friction laws or lubricated joints compiled the integrator and every function taking the model
again, about two minutes of CPU each.  Mechanisms with 0, 1 and 2 clearance joints must share one
numba type of the model, and so one compile.

The optional features (joint friction, lubrication, distributed contact) are None in the model of
a mechanism without them (``workbench.mbs.compiled.features``), so that numba prunes their
branches and a first run of a plain mechanism does not compile them; a mechanism with one has its
own type (one more compile, shared by its joint counts).  The test suite runs with one merged
type (``WORKBENCH_MODEL_TYPES=merged``, tests/conftest.py: every feature on, one compile for all
the feature sets it exercises); these tests ask for the per-feature types users get."""
from __future__ import annotations

from pathlib import Path

import pytest

from workbench.mbs.compiled import KERNEL_SLOTS, MODEL_TYPES_ENV, compile_mechanism, features, padded_kernels
from workbench.study.load import load_study

STUDIES = Path(__file__).resolve().parents[2] / "studies"
SHARED = ["flores_slider_crank", "ideal_slider_crank", "mixed_clearance_slider_crank_c005"]
#: study -> (joint friction, lubrication, distributed contact)
FEATURED = {"slider_crank_joint_friction": (True, False, False),
            "flores_slider_crank_lubricated": (False, True, False),
            "slider_crank_wear_distributed": (False, False, True)}


def _compiled(name, registry):
    return compile_mechanism(load_study(STUDIES / f"{name}.toml", registry).mechanism)


@pytest.fixture(autouse=True)
def _per_feature_types(monkeypatch):
    monkeypatch.setenv(MODEL_TYPES_ENV, "per_feature")


def test_the_models_of_different_joint_counts_share_one_numba_type(registry):
    from numba import typeof
    types = {}
    counts = {}
    for name in SHARED:
        cm = _compiled(name, registry)
        types[name] = typeof(cm.model())
        counts[name] = len(cm.mechanism.clearance_joints)
        assert features(cm) == (False, False, False), name
    assert sorted(set(counts.values())) == [0, 1, 2]          # the set really spans the counts
    assert len(set(types.values())) == 1, {n: str(t)[:80] for n, t in types.items()}


def test_a_feature_the_mechanism_lacks_is_none_in_its_model_and_one_it_has_is_not(registry):
    plain = _compiled("flores_slider_crank", registry).model()
    assert plain.jf_i is None and plain.lflag is None and plain.dist is None
    for name, want in FEATURED.items():
        cm = _compiled(name, registry)
        assert features(cm) == want, name
        model = cm.model()
        got = (model.jf_i is not None, model.lflag is not None, model.dist is not None)
        assert got == want, name


@pytest.mark.parametrize("n, size", [(0, KERNEL_SLOTS), (1, KERNEL_SLOTS), (KERNEL_SLOTS, KERNEL_SLOTS),
                                     (KERNEL_SLOTS + 1, 2 * KERNEL_SLOTS), (3 * KERNEL_SLOTS, 4 * KERNEL_SLOTS)])
def test_kernel_tuples_are_padded_to_a_few_sizes_keeping_their_entries(n, size):
    got = padded_kernels(tuple(range(n)), lambda: "pad")
    assert len(got) == size and got[:n] == tuple(range(n)) and set(got[n:]) <= {"pad"}


def test_the_merged_type_carries_every_feature_and_is_one_type(registry, monkeypatch):
    """``WORKBENCH_MODEL_TYPES=merged`` (the test suite's): every mechanism, with or without
    features, gets the one type with all three on."""
    from numba import typeof
    monkeypatch.setenv(MODEL_TYPES_ENV, "merged")
    types = set()
    for name in [*SHARED, *FEATURED]:
        model = _compiled(name, registry).model()
        assert model.jf_i is not None and model.lflag is not None and model.dist is not None, name
        types.add(typeof(model))
    assert len(types) == 1


# slow: compiles the per-feature integrator types (about a minute of CPU each) beside the merged
# one the suite uses; the default suite keeps test_the_merged_type_carries_every_feature_and_is_one_type
@pytest.mark.slow
@pytest.mark.parametrize("name", ["flores_slider_crank", "slider_crank_joint_friction",
                                  "flores_slider_crank_lubricated", "slider_crank_wear_distributed"])
def test_per_feature_and_merged_types_run_alike_bit_for_bit(registry, monkeypatch, name):
    """The per-feature type (users' default) and the merged one (the suite's) give the same run
    to the last bit: the pruned branches do nothing for a mechanism without their feature."""
    from dataclasses import replace

    import numpy as np

    from workbench.engines import simulate
    st = load_study(STUDIES / f"{name}.toml", registry)
    s = replace(st.solver, t_end=st.solver.t_start + 0.01)
    runs = {}
    for mode in ("merged", "per_feature"):
        monkeypatch.setenv(MODEL_TYPES_ENV, mode)
        runs[mode] = simulate(st.mechanism, s)
    a, b = runs["merged"], runs["per_feature"]
    for field in ("time", "position", "velocity", "contact_force", "friction_force", "penetration",
                  "dissipated_energy", "impact_time"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
