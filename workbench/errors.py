"""The workbench's error types.

Every error a user can cause by a bad study file, a bad plugin or a bad mechanism is one of these,
and its message names *where* (file, key path), *what* (the bad value) and *what would be valid*.
The command line prints them without a traceback.
"""
from __future__ import annotations

import difflib
from collections.abc import Iterable


class WorkbenchError(Exception):
    """Base class of every error the workbench raises on purpose."""


class StudyError(WorkbenchError):
    """A study file is wrong: unknown key, bad value, missing entry."""

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None):
        self.file = file
        self.key = key
        where = ""
        if file:
            where += f"{file}"
        if key:
            where += f"{': ' if file else ''}[{key}]"
        super().__init__(f"{where}: {message}" if where else message)


class PluginError(WorkbenchError):
    """A plugin failed to register a valid model, or two plugins clash."""


class MechanismError(WorkbenchError):
    """The mechanism is inconsistent (unknown body, singular constraints, ...)."""


class SolverError(WorkbenchError):
    """The integration failed (step size underflow, NaN from a model, ...).

    ``partial`` holds what the run had produced before it failed (a
    :class:`workbench.mbs.solution.Simulation`, or ``None``).
    """

    def __init__(self, message: str, *, partial=None):
        super().__init__(message)
        self.partial = partial


class ModelFault(WorkbenchError):
    """A model (a plugin's or a built-in) broke its contract: it raised, or returned a value that
    cannot be right (a force while the bodies are apart, NaN, a wrong shape).  The message names
    the model and where it was called; the command line exits with status 3, as for a failed
    computation."""


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    """Return ``" Did you mean 'x'?"`` for the closest valid choice, or ``""``."""
    close = difflib.get_close_matches(str(value), list(choices), n=1, cutoff=0.6)
    return f" Did you mean '{close[0]}'?" if close else ""


def choices_text(choices: Iterable[str]) -> str:
    """Format valid choices for an error message."""
    return ", ".join(f"'{c}'" for c in sorted(choices))
