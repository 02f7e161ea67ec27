"""What kind of file a path names, without opening it: a FIFO, a device or a socket as a study file
or an output would make a read or a write wait forever, so the workbench refuses them up front."""
from __future__ import annotations

import os
import stat
from pathlib import Path

_SPECIAL = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def special_kind(path: str | Path) -> str | None:
    """``"a FIFO (named pipe)"``, ``"a character device"``, ``"a block device"`` or ``"a socket"``
    when ``path`` (after symbolic links) is one; ``None`` for a regular file, a folder or no file."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    for test, what in _SPECIAL:
        if test(mode):
            return what
    return None


def os_error_text(exc: OSError) -> str:
    """An operating-system error as one line: ``No space left on device (ENOSPC): /path``."""
    import errno
    name = errno.errorcode.get(exc.errno or 0, "")
    where = f": {exc.filename}" if exc.filename else ""
    return f"{exc.strerror or exc}{f' ({name})' if name else ''}{where}"
