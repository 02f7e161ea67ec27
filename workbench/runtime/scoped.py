"""A thread's setting for the length of a block: the one pattern behind the per-thread switches
(the compiled functions' Python path, a command's wall-time limit, a replica's cancel event)."""
from __future__ import annotations

import contextlib
import threading


@contextlib.contextmanager
def scoped(local: threading.local, name: str, value, default=None):
    """Within the block, ``local.<name>`` is ``value`` in this thread; after it, what it was
    (``default`` when unset)."""
    before = getattr(local, name, default)
    setattr(local, name, value)
    try:
        yield
    finally:
        setattr(local, name, before)
