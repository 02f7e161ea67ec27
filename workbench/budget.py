"""Size of a run before it starts: refuse a study that would fill the memory or the disk.

:func:`estimate` counts, from the study alone, the floating-point numbers a run holds at once
(its *working set*) and the numbers it writes (its *output*), 8 bytes each:

* dynamics: ``n = (t_end - t_start) / output_step + 1`` samples, each with the state (position,
  velocity, acceleration of every body: 9 per body), the driver loads, the ideal-joint reactions
  (2 per joint), 8 per clearance joint (contact and friction force, penetration, eccentricity x y,
  slip velocity, contact angle, relative rotation), energies and drift (7) and the time; the
  ideal-joint twin doubles it.  Output and working set: the samples, twice (the simulation and
  the dataset built from it);
* wear: every update simulates ``(settle_cycles + average_cycles) * samples_per_cycle`` samples
  as above, and evaluates the pressure model and the wear law on a (samples of the averaging
  cycles) x ``nodes`` grid per worn joint (four such arrays: pressure, depth, angle, split);
  every update writes 4 profiles of ``nodes`` values per surface and worn joint, and the stored
  dynamics (about 7 per sample of the averaging cycles) every ``dynamics_every`` updates.  The
  number of updates is not known before the run; the output counts at least
  ``cycles / max_cycle_jump`` of them (one when there is no jump limit).

These are lower bounds of the real use (interpreter and library overhead come on top); they exist
to refuse, with a clear message, studies that can only end in an out-of-memory kill or a full
disk -- ``samples_per_cycle = 1e8``, ``t_end = 1e4 s`` with a microsecond output step,
``nodes = 1e7`` -- not to predict the size of a reasonable one.  The limit
(:data:`DEFAULT_LIMIT_GB`) is raised on the command line with ``--max-output-gb``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import WorkbenchError

#: default limit of the estimated working set and output of one run [GB = 1e9 bytes]
DEFAULT_LIMIT_GB = 8.0
_F = 8  # bytes per float64


class BudgetError(WorkbenchError):
    """A run would need more memory or disk than the limit allows."""


@dataclass(frozen=True)
class Estimate:
    """Estimated size of one run.

    memory : numbers held at once, in bytes [B].  output : bytes written [B] (lower bound for a
    wear run).  detail : what dominates, in words (for the message).
    """
    memory: float
    output: float
    detail: str

    @property
    def largest(self) -> float:
        return max(self.memory, self.output)


def _per_sample(study) -> int:
    m = study.mechanism
    return (9 * len(m.bodies) + len(m.drivers) + 2 * len(m.joints) + 8 * len(m.clearance_joints) + 8)


def _samples(span: float, step: float) -> float:
    if not (math.isfinite(span) and math.isfinite(step)) or step <= 0.0:
        return math.inf
    return max(span, 0.0) / step + 1.0


def estimate(study) -> Estimate | None:
    """The :class:`Estimate` of ``study`` (``None`` for kinds not estimated: pressure studies,
    whose size the FE mesh and the load cases set)."""
    if study.kind == "dynamics":
        s = study.solver
        n = _samples(s.t_end - s.t_start, s.output_step)
        twin = 2 if (study.mechanism.clearance_joints and study.output.compare_ideal) else 1
        nbytes = n * _per_sample(study) * twin * _F
        return Estimate(memory=2 * nbytes, output=nbytes,
                        detail=f"{n:.3g} output samples (t = {s.t_start:g} .. {s.t_end:g} s every "
                               f"{s.output_step:g} s) of {_per_sample(study) * twin} numbers")
    if study.kind == "wear":
        w = study.wear
        spc, nodes = float(w.samples_per_cycle), float(w.nodes)
        n_sim = (w.settle_cycles + w.average_cycles) * spc + 1
        n_avg = w.average_cycles * spc
        nj = max(len(w.joints), 1)
        sim = n_sim * _per_sample(study) * _F
        grid = 4 * n_avg * nodes * nj * _F
        row = 4 * 2 * nodes * nj * _F
        jump = w.max_cycle_jump if w.max_cycle_jump and math.isfinite(w.max_cycle_jump) else w.cycles
        updates = max(1.0, math.ceil(w.cycles / jump)) if jump > 0 else 1.0
        records = max(1.0, updates / max(w.dynamics_every, 1))
        output = updates * row + records * 7 * n_avg * nj * _F
        return Estimate(memory=sim + grid + row, output=output,
                        detail=f"{n_sim:.3g} samples per update ({w.samples_per_cycle:g} per cycle), "
                               f"{nodes:.3g} surface nodes x {n_avg:.3g} samples per worn joint for "
                               f"the pressure and wear models, at least {updates:.3g} updates")
    return None


def check(study, *, limit_gb: float = DEFAULT_LIMIT_GB, option: str = "--max-output-gb") -> Estimate | None:
    """Raise :class:`BudgetError` when the estimate of ``study`` exceeds ``limit_gb`` [GB]."""
    est = estimate(study)
    if est is None:
        return None
    if not (limit_gb > 0.0):
        raise BudgetError(f"{option} must be a positive number of gigabytes, got {limit_gb!r}")
    limit = limit_gb * 1e9
    if est.largest > limit:
        what = "memory" if est.memory >= est.output else "output"
        where = f"{study.file}: " if getattr(study, "file", None) else ""
        raise BudgetError(
            f"{where}this {study.kind} study would need about {_gb(est.largest)} of {what} "
            f"(working set {_gb(est.memory)}, output {_gb(est.output)}: {est.detail}), above the "
            f"limit of {limit_gb:g} GB. Reduce the output (a larger output step, fewer samples per "
            f"cycle or surface nodes, a shorter run) or, if the machine has room, raise the limit "
            f"with {option}")
    return est


def _gb(nbytes: float) -> str:
    return "an unbounded amount" if not math.isfinite(nbytes) else f"{nbytes / 1e9:.3g} GB"
