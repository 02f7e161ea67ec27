"""Reading a study (or sweep) file: bytes to text to a TOML document, with clear errors.

The file must be UTF-8 text, as TOML requires.  A binary file (a NUL byte) and bytes that are not
UTF-8 are refused with the line, column and byte offset of the first bad byte; a UTF-8
byte-order mark (some Windows editors write one) is accepted and dropped.  Tables and arrays
nested deeper than :data:`MAX_NESTING` are refused before the TOML reader, which recurses once per
level, runs out of stack.  Every error is a :class:`~workbench.errors.StudyError` naming the file.
"""
from __future__ import annotations

import sys
from pathlib import Path

from ..errors import StudyError
from ..runtime.files import special_kind

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def read_file_text(path: Path, what: str) -> str:
    """The text of ``path``; a :class:`StudyError` naming the file when it cannot be read.

    The file must be UTF-8 text (TOML requires it): a binary file (a NUL byte) or bytes that are
    not UTF-8 are refused with the line, column and byte offset of the first bad byte.  A UTF-8
    byte-order mark, which some Windows editors write, is accepted and dropped.
    """
    special = special_kind(path)
    if special is not None:   # reading it would wait for a writer forever
        raise StudyError(f"the {what} is {special}, not a regular file; give the path of a TOML file",
                         file=str(path))
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StudyError(f"cannot read the {what}: {exc.strerror or exc}", file=str(path)) from None
    return decode_text(data, str(path), what)


def _where(data: bytes, pos: int) -> str:
    line = data.count(b"\n", 0, pos) + 1
    col = pos - (data.rfind(b"\n", 0, pos) + 1) + 1
    return f"line {line}, column {col} (byte offset {pos})"


def decode_text(data: bytes, fname: str, what: str = "study file") -> str:
    """``data`` decoded as UTF-8 (a leading byte-order mark dropped); :class:`StudyError` otherwise."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    nul = data.find(b"\x00")
    if nul >= 0:
        raise StudyError(f"this is a binary file, not a TOML {what}: NUL byte at {_where(data, nul)}",
                         file=fname)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StudyError(f"the {what} is not UTF-8 text: byte 0x{data[exc.start]:02X} at "
                         f"{_where(data, exc.start)} cannot be decoded ({exc.reason}); save the file "
                         f"as UTF-8", file=fname) from None


#: deepest nesting of inline tables/arrays accepted (tomllib recurses once per level)
MAX_NESTING = 100


def _nesting_depth(text: str) -> tuple[int, int]:
    """Deepest bracket nesting of ``text`` outside strings and comments, and the line where the
    limit :data:`MAX_NESTING` is first passed (0 when it is not): a cheap guard run before tomllib."""
    depth = deepest = 0
    line, bad_line = 1, 0
    quote = None
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            if quote in ('"', "'"):  # single-line strings end here (tomllib reports the error)
                quote = None
        elif quote:
            if ch == "\\" and quote in ('"', '"""'):
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
        elif ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif ch in "\"'":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            i += len(quote)
            continue
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if depth > MAX_NESTING and not bad_line:
                    bad_line = line
        elif ch in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return deepest, bad_line


def parse_toml(text: str, fname: str) -> dict:
    """The TOML document ``text``; a :class:`StudyError` naming ``fname`` when it is not valid."""
    if text.startswith("\ufeff"):  # a byte-order mark left by a reader that kept it
        text = text[1:]
    deepest, bad_line = _nesting_depth(text)
    if bad_line:
        raise StudyError(f"not a usable study: tables/arrays nested {deepest} levels deep (from line "
                         f"{bad_line}); at most {MAX_NESTING} levels are accepted", file=fname)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"not valid TOML: {exc}", file=fname) from None
    except RecursionError:
        raise StudyError(f"not a usable study: nested too deeply for the TOML reader (at most "
                         f"{MAX_NESTING} levels of inline tables/arrays)", file=fname) from None


def is_sweep_file(path: str | Path) -> bool:
    """Whether ``path`` is a readable TOML file with a ``[sweep]`` table (else it is a study, and
    the study loader reports whatever is wrong with it)."""
    try:
        doc = parse_toml(read_file_text(Path(path), "study file"), str(path))
    except StudyError:
        return False
    return isinstance(doc.get("sweep"), dict)
