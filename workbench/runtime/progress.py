"""What a progress callback gets: a :class:`Progress` record, or -- for a callback written for the
old three-argument form ``progress(done, total, info)`` -- those three values.

:func:`caller` wraps a user's callback once; the study kinds hand it :class:`Progress` records and
never need to know which form the user wrote."""
from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Progress:
    """One step of a run.

    done, total : work done and to do, in ``unit`` (a wear run: machine cycles; a dynamics run:
        simulated time [s] from the start, the ideal-joint twin's counted after the run's).
    phase : what runs (``"update"``: a wear update finished; ``"dynamics"``: an update's dynamics
        starts, or a dynamics run advances; ``"settling"``/``"averaging"``: a wear update's
        dynamics integrates that cycle; ``"ideal twin"``: a dynamics run's ideal-joint twin).
    update : the wear update's index (0, 1, ...), or ``None``.
    cycle, of : the settling or averaging cycle being integrated (from 1) and the cycles of that
        phase [1] (chain 0's), or ``None``.
    chains : every chain's ``(phase, cycle, of)`` when the update runs several chains, else ``()``.
    cycle_jump : the cycles the update jumped [1] (wear), or ``None``.
    max_depth : the deepest wear after the update [m] (wear), or ``None``.
    elapsed : wall time since the run started [s].
    info : the same as one line of text (what the command line shows).
    """
    done: float
    total: float
    phase: str = "update"
    unit: str = "cycles"
    update: int | None = None
    cycle_jump: float | None = None
    max_depth: float | None = None
    cycle: int | None = None
    of: int | None = None
    chains: tuple = ()
    elapsed: float = 0.0
    info: str = ""

    @property
    def fraction(self) -> float:
        """``done / total`` in [0, 1]."""
        return min(max(self.done / self.total, 0.0), 1.0) if self.total else 0.0


@dataclass
class Clock:
    """The wall-clock start of a run, for :attr:`Progress.elapsed`."""
    start: float = field(default_factory=time.perf_counter)

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


def _wants_record(callback) -> bool:
    try:
        params = [p for p in inspect.signature(callback).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
        var = any(p.kind is p.VAR_POSITIONAL for p in inspect.signature(callback).parameters.values())
    except (TypeError, ValueError):
        return False
    return len(params) == 1 or (not params and var)


def caller(callback):
    """``callback`` as a function of one :class:`Progress` (``None`` stays ``None``)."""
    if callback is None:
        return None
    if _wants_record(callback):
        return callback
    return lambda p: callback(p.done, p.total, p.info)
