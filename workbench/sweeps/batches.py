"""Cases sent to dask workers in batches, each finished case recorded at once.

A dask task costs a round trip to the scheduler and the pickling of its arguments (a case carries
the whole base study document): some 10-30 ms, which is most of a short case's own time.  So
:func:`batches` cuts the cases, longest first (:mod:`workbench.sweeps.costs`), into runs of
consecutive cases, about :data:`PER_WORKER` batches per worker (one case per batch for a sweep of
few cases: the last batches are then short and the workers end together).

:func:`run_batch` runs a batch's cases one after another on a worker and, after each, writes its
:class:`~workbench.sweeps.run.CaseResult` (the small summaries) to a record beside the case's
result (``<cases folder>/.done/<case file>.pkl``, written atomically).  A worker that dies (killed,
out of memory, a cluster job at its walltime) takes its batch with it; the scheduler gives the
batch to another worker, which reads the records of the cases already finished instead of running
them again, replaces the partial result of the case that was running (it exists only because
that attempt wrote it: the sweep checked that no case result existed before it started) and runs
the rest.  The sweep's process removes the records once it holds the batch's results
(:func:`forget`).
"""
from __future__ import annotations

import dataclasses
import math
import os
import pickle
from pathlib import Path

#: batches per worker (longest-first order keeps the tail short: a batch is ~1/16 of a worker's share)
PER_WORKER = 16
#: folder of the finished-case records, inside the sweep's cases folder
DONE = ".done"


def batches(todo: list, workers: int) -> list[list]:
    """The cases ``todo`` longest first, cut into batches of consecutive cases (about
    :data:`PER_WORKER` per worker, at least one case each)."""
    from .costs import order
    ordered = order(todo)
    size = max(1, math.ceil(len(ordered) / (PER_WORKER * max(1, workers))))
    return [ordered[i:i + size] for i in range(0, len(ordered), size)]


def record_path(task) -> Path:
    """Where the finished-case record of ``task`` goes."""
    out = Path(task.out)
    return out.parent / DONE / (out.name + ".pkl")


def finished(batch: list) -> dict:
    """``{index: CaseResult}`` of the cases of ``batch`` whose record exists."""
    got = {}
    for t in batch:
        p = record_path(t)
        try:
            with open(p, "rb") as f:
                got[t.index] = pickle.load(f)
        except (OSError, EOFError, pickle.UnpicklingError):
            continue
    return got


def _record(task, res) -> None:
    p = record_path(task)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        pickle.dump(res, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, p)


def run_batch(batch: list, registry=None) -> list:
    """Run the cases of ``batch`` (:class:`~workbench.sweeps.run.CaseTask`) in turn on this worker,
    each case's result recorded as it ends; a case recorded by an earlier attempt is not run again."""
    from .run import run_case
    done = finished(batch)
    out = []
    for t in batch:
        if t.index in done:
            out.append(done[t.index])
            continue
        if Path(t.out).exists():   # the partial result of an earlier attempt at this case (see above)
            t = dataclasses.replace(t, overwrite=True)
        res = run_case(t, registry)
        _record(t, res)
        out.append(res)
    return out


def forget(batch: list) -> None:
    """Remove the records of ``batch`` (the sweep holds its results) and the empty record folder."""
    folders = set()
    for t in batch:
        p = record_path(t)
        folders.add(p.parent)
        try:
            p.unlink()   # safe: our own finished-case record (DONE folder beside the case files, written by _record)
        except OSError:
            pass
    for d in folders:
        try:
            d.rmdir()   # only once it is empty
        except OSError:
            pass
