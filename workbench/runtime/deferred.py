"""Ctrl-C during a file write: the write ends first, then the interruption.

xarray serialises netCDF writes with a process-wide lock (``xarray.backends.locks``); a
``KeyboardInterrupt`` raised by a signal handler between that lock's ``acquire`` and the ``try``
that releases it leaves it held, and the next write of the command -- the samples an interrupted
run keeps in ``OUT.partial.nc`` -- waits for it forever (seen in 2 of 3 tries).  Inside
:func:`deferred_interrupts` the termination signals (SIGINT, SIGTERM, SIGHUP) are only noted; when
the block ends, written or failed, the first of them is raised as the ``KeyboardInterrupt`` it
would have been, so the command still stops with exit status 130, and the file it was writing is
complete (or, after a failure, removed as before).  A write takes seconds; a second Ctrl-C while it
runs is noted too.
"""
from __future__ import annotations

import contextlib
import signal
import threading

SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


@contextlib.contextmanager
def deferred_interrupts():
    """Hold SIGINT, SIGTERM and SIGHUP until the block has ended, then raise ``KeyboardInterrupt``
    if one came (a no-op outside the main thread, where no handler runs anyway)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    old = {}

    def note(signum, frame):
        got.append(signum)

    try:
        for s in SIGNALS:
            h = signal.getsignal(s)
            if h in (signal.SIG_IGN, signal.SIG_DFL, None):   # ignored, or left to the system (not ours)
                continue
            old[s] = h
            signal.signal(s, note)
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        if got:
            raise KeyboardInterrupt(f"stopped by {signal.Signals(got[0]).name} (after the file "
                                    f"being written was complete)")
