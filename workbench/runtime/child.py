"""Run a function in a child Python process that can be killed: the sweep's per-case timeout.

A case that never returns -- an endless loop in compiled code, a plugin that sleeps -- cannot be
stopped from inside its own process (a ``KeyboardInterrupt`` or an alarm is not delivered while
compiled code runs).  :func:`call_in_child` runs ``func(*args)`` in a fresh interpreter in its own
session, waits at most ``timeout`` seconds, and kills the child's whole process group when the
time is up (or when the caller is interrupted), and the child ends with its caller even when the
caller is killed (:func:`die_with_parent`).  Arguments and result travel as pickle files.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path


def call_in_child(func, args: tuple, timeout: float | None) -> tuple[str, object]:
    """``func(*args)`` in a child Python process (``func`` a module-level function, ``args``
    picklable); returns ``("ok", result)``, ``("timeout", None)`` (the child and its children
    were killed after ``timeout`` seconds) or ``("died", last line of its stderr)``.  A
    ``KeyboardInterrupt`` here kills the child too."""
    import pickle
    import signal
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory(prefix="workbench-child-") as tmp:
        call_file, result_file = Path(tmp) / "call.pkl", Path(tmp) / "result.pkl"
        call_file.write_bytes(pickle.dumps((func.__module__, func.__qualname__, args)))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        cmd = [sys.executable, "-c", "import sys; from workbench.runtime.child import _child_main; "
               "_child_main(sys.argv[1], sys.argv[2], int(sys.argv[3]))", str(call_file), str(result_file),
               str(os.getpid())]
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, env=env, start_new_session=True)
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc, signal.SIGKILL)
            return "timeout", None
        except BaseException:   # Ctrl-C, or the sweep stopped: never leave the child running
            _kill_group(proc, signal.SIGKILL)
            raise
        if result_file.exists():
            return "ok", pickle.loads(result_file.read_bytes())
        last = (err or b"").decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return "died", f"exit status {proc.returncode}: {last[0]}"


#: ``prctl`` option: the signal this process gets when its parent ends (Linux, ``<sys/prctl.h>``)
PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> bool:
    """End this process (SIGKILL) when its parent ``parent`` (a pid) ends, however it ends --
    ``kill -9`` included: a sweep's case processes never outlive the sweep as orphans spinning on
    a case nobody waits for.  Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``; then, for a parent that
    ended before the call, the parent pid is checked once.  Returns whether the kernel watches
    (False elsewhere; the caller's own timeouts and clean-up then apply)."""
    import signal
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if os.getppid() != parent:   # the parent ended before prctl: nobody waits for this process
        os._exit(1)
    return True


def _kill_group(proc, sig) -> None:
    try:
        os.killpg(proc.pid, sig)   # the child's own session (start_new_session): it and its children
    except ProcessLookupError:
        pass
    proc.wait()


def _child_main(call_file: str, result_file: str, parent: int | None = None) -> None:
    """Entry of the child process of :func:`call_in_child` (``parent``: the caller's pid; the
    child ends with it, :func:`die_with_parent`)."""
    if parent is not None:
        die_with_parent(parent)
    import importlib
    import pickle
    module, name, args = pickle.loads(Path(call_file).read_bytes())
    result = getattr(importlib.import_module(module), name)(*args)
    tmp = Path(result_file + ".tmp")
    tmp.write_bytes(pickle.dumps(result))
    os.replace(tmp, result_file)
