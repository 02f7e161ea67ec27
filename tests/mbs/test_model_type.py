"""One compiled integrator for mechanisms of different joint counts.

A numba tuple's length is part of its type: before the kernel tuples of the compiled model were
padded (``workbench.mbs.compiled.padded_kernels``), each new count of clearance joints, joint
friction laws or lubricated joints compiled the integrator and every function taking the model
again, about two minutes of CPU each.  These mechanisms, with 0, 1 and 2 clearance joints, joint
friction and lubrication, must share one numba type of the model, and so one compile."""
from __future__ import annotations

from pathlib import Path

import pytest

from workbench.mbs.compiled import KERNEL_SLOTS, compile_mechanism, padded_kernels
from workbench.study.load import load_study

STUDIES = Path(__file__).resolve().parents[2] / "studies"
SHARED = ["flores_slider_crank", "ideal_slider_crank", "mixed_clearance_slider_crank_c005",
          "slider_crank_joint_friction", "flores_slider_crank_lubricated"]


def test_the_models_of_different_joint_counts_share_one_numba_type(registry):
    from numba import typeof
    types = {}
    for name in SHARED:
        mech = load_study(STUDIES / f"{name}.toml", registry).mechanism
        types[name] = typeof(compile_mechanism(mech).model())
    counts = {name: len(load_study(STUDIES / f"{name}.toml", registry).mechanism.clearance_joints) for name in SHARED}
    assert sorted(set(counts.values())) == [0, 1, 2]          # the set really spans the counts
    assert len(set(types.values())) == 1, {n: str(t)[:80] for n, t in types.items()}


@pytest.mark.parametrize("n, size", [(0, KERNEL_SLOTS), (1, KERNEL_SLOTS), (KERNEL_SLOTS, KERNEL_SLOTS),
                                     (KERNEL_SLOTS + 1, 2 * KERNEL_SLOTS), (3 * KERNEL_SLOTS, 4 * KERNEL_SLOTS)])
def test_kernel_tuples_are_padded_to_a_few_sizes_keeping_their_entries(n, size):
    got = padded_kernels(tuple(range(n)), lambda: "pad")
    assert len(got) == size and got[:n] == tuple(range(n)) and set(got[n:]) <= {"pad"}
