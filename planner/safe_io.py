"""The one way ``planner`` reads a file a user names: regular files only, bounded in size.

Every input — scenario YAML and its ``extends:`` bases, assumption workbooks,
calibration files, benchmark CSVs, results files — goes through :func:`read_bytes`
(or :func:`read_text`), so a hostile path cannot hang or exhaust memory:

* only regular files are read: the path is checked with ``os.stat`` after links are
  resolved, so ``/dev/zero``, ``/dev/urandom``, a FIFO, a socket or a link to any of
  them is refused before it is opened;
* the file is opened with ``O_NONBLOCK`` (a FIFO swapped in after the check cannot
  block the open) and the open descriptor is checked again with ``fstat``;
* the size limit is enforced while reading: at most ``limit + 1`` bytes are read, so
  a file that grows, or lies about its size, still stops at the limit.

Errors are :class:`~planner.errors.InputError` (exit 2) naming the file; they never
quote the file's content.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from planner.errors import InputError, Problem

CHUNK = 1 << 16


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _refuse(file: str, message: str, hint: str | None) -> InputError:
    return InputError(file, Problem(path="", message=message, hint=hint))


def _not_regular(file: str, mode: int, what: str) -> InputError:
    return _refuse(
        file,
        f"is {_kind(mode)}, not a {what}; only regular files are read",
        f"name a {what} on disk (links are followed, but must end at a regular file)",
    )


def _too_large(file: str, what: str, limit: int) -> InputError:
    return _refuse(
        file,
        f"is larger than {limit:,} bytes; a {what} is at most {limit:,}",
        f"name a {what}; split or trim the file if it really is one",
    )


def _stat_regular(path: str | Path, file: str, what: str) -> os.stat_result:
    """The status of ``path`` after links are resolved; InputError unless a regular file."""
    try:
        info = os.stat(path)  # follows links: a link to /dev/zero is a device
    except FileNotFoundError:
        raise _refuse(file, "file not found", "check the path and spelling") from None
    except OSError as exc:
        raise _refuse(file, f"cannot read: {exc.strerror or exc}", None) from None
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(file, info.st_mode, what)
    return info


def read_bytes(path: str | Path, *, limit: int, what: str = "input file") -> bytes:
    """The bytes of the regular file at ``path``; InputError (exit 2) for anything else.

    ``what`` names the kind of file in messages (``scenario file``, ``workbook``).
    A file larger than ``limit`` bytes is refused without reading more than
    ``limit + 1`` bytes of it.
    """
    file = str(path)
    info = _stat_regular(path, file, what)
    if info.st_size > limit:
        raise _too_large(file, what, limit)
    fd = _open_checked(path, file, what)
    try:
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise _too_large(file, what, limit)
        return b"".join(chunks)
    except OSError as exc:
        raise _refuse(file, f"cannot read: {exc.strerror or exc}", None) from None
    finally:
        os.close(fd)


def _open_checked(path: str | Path, file: str, what: str) -> int:
    """A descriptor open for reading on a regular file (O_NONBLOCK, then fstat)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _refuse(file, f"cannot read: {exc.strerror or exc}", None) from None
    try:
        opened = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise _refuse(file, f"cannot read: {exc.strerror or exc}", None) from None
    if not stat.S_ISREG(opened.st_mode):  # swapped between the check and the open
        os.close(fd)
        raise _not_regular(file, opened.st_mode, what)
    return fd


def open_regular(path: str | Path, what: str = "input file") -> BinaryIO:
    """A binary file object on the regular file at ``path``, for files read in a stream.

    For files that may be large (results files): the caller bounds each read, e.g.
    ``readline(limit)``. Devices, pipes and folders are refused as by :func:`read_bytes`.
    """
    file = str(path)
    _stat_regular(path, file, what)
    return os.fdopen(_open_checked(path, file, what), "rb")


def read_text(path: str | Path, *, limit: int, what: str = "input file") -> str:
    """The UTF-8 text of the regular file at ``path`` (see :func:`read_bytes`)."""
    return decode_text(read_bytes(path, limit=limit, what=what), str(path), what)


def decode_text(raw: bytes, file: str, what: str = "input file") -> str:
    """``raw`` as UTF-8 text, a byte-order mark dropped.

    Binary content (a NUL byte) or bytes that are not UTF-8 are refused without
    quoting them.
    """
    if b"\x00" in raw:
        raise _refuse(file, f"is a binary file, not a {what}", f"name a {what} (UTF-8 text)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _refuse(
            file,
            f"is not UTF-8 text (byte {exc.start}), so it is not a {what}",
            "save the file as UTF-8",
        ) from None
