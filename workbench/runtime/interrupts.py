"""Recognising Ctrl-C however it arrives.

A ``KeyboardInterrupt`` raised while numba-compiled code runs can surface as a ``SystemError``
("... returned a result with an exception set") whose ``__context__`` is the
``KeyboardInterrupt``.  :func:`is_interrupt` sees through that, so the command line and the
result stores treat it as the interruption it is (exit status 130, partial data kept, the store
marked ``interrupted``), not as a failure.
"""
from __future__ import annotations


def is_interrupt(exc: BaseException | None) -> bool:
    """True when ``exc`` is a ``KeyboardInterrupt`` or was caused by one (cause/context chain)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def as_interrupt(exc: BaseException) -> BaseException:
    """``exc`` itself when it is a ``KeyboardInterrupt`` or not an interruption at all; else a new
    ``KeyboardInterrupt`` chained to it (raise it ``from exc``)."""
    if isinstance(exc, KeyboardInterrupt) or not is_interrupt(exc):
        return exc
    new = KeyboardInterrupt()
    new.__cause__ = exc
    return new
