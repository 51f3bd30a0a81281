"""Write files atomically: temp file beside the target, fsync, rename into place.

A failed write — an exception in the writer, a full disk, a folder that cannot be
written — deletes the temporary file, leaves any previous file at the target
byte-identical and raises :class:`~planner.errors.ExportError` with the reason.

Missing parent folders are created (``--out exports/run1/plan.xlsx`` works on a fresh
checkout). The new file gets the previous file's permission bits, or the usual
``0o666`` less the umask for a new file (temporary files are created ``0o600``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planner.errors import ExportError, PlannerError


def _reason(exc: OSError, path: Path) -> str:
    """A plain-language reason for an OS error while writing ``path``."""
    folder = path.parent
    if exc.errno in (errno.EACCES, errno.EPERM):
        return (
            f"permission denied: cannot write in folder {folder} "
            "(or the file is open in another program)"
        )
    if exc.errno == errno.ENOSPC:
        return f"disk full: no space left on the device holding {folder}"
    if exc.errno == errno.EDQUOT:
        return f"disk quota exceeded in folder {folder}"
    if exc.errno == errno.EROFS:
        return f"read-only file system: cannot write in folder {folder}"
    if exc.errno == errno.EISDIR:
        return "the path is a directory; name a file such as plan.xlsx"
    if exc.errno == errno.ENOTDIR:
        return f"part of the folder path {folder} is a file, not a folder"
    if exc.errno == errno.ENAMETOOLONG:
        return "the file name is too long"
    return exc.strerror or str(exc)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _prepare_folder(path: Path) -> None:
    if path.is_dir():
        raise ExportError(str(path), "the path is a directory; name a file such as plan.xlsx")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ExportError(
            str(path), f"cannot create folder {path.parent}: a file has that name"
        ) from None
    except OSError as exc:
        raise ExportError(str(path), f"cannot create folder: {_reason(exc, path)}") from None


def _fsync_file(path: Path) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable (best effort: not every platform can open a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_atomically(path: str | Path, write_fn: Callable[[Path], Any]) -> Path:
    """Call ``write_fn(temp_path)`` to write a temp file, then rename it onto ``path``.

    The temp file sits in the target folder (so the rename is atomic) and keeps the
    target's suffix (writers that pick a format from the name still work). Returns
    the target path. Raises ExportError on any failure, after removing the temp file.
    """
    target = Path(path)
    _prepare_folder(target)
    mode = stat.S_IMODE(target.stat().st_mode) if target.is_file() else 0o666 & ~_umask()
    try:
        with tempfile.NamedTemporaryFile(
            dir=target.parent, prefix=f".{target.name}.", suffix=target.suffix, delete=False
        ) as handle:
            temp = Path(handle.name)
    except OSError as exc:
        raise ExportError(str(target), _reason(exc, target)) from None
    try:
        write_fn(temp)
        _fsync_file(temp)
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            temp.unlink()
        if isinstance(exc, PlannerError) or not isinstance(exc, Exception):
            raise
        if isinstance(exc, OSError):
            raise ExportError(str(target), _reason(exc, target)) from exc
        raise ExportError(str(target), f"the writer failed: {type(exc).__name__}: {exc}") from exc
    _fsync_folder(target.parent)
    return target


def save_workbook_atomically(wb: Any, path: str | Path) -> Path:
    """Save an openpyxl workbook to ``path`` atomically (see :func:`write_atomically`)."""
    return write_atomically(path, lambda temp: wb.save(temp))
