"""Write files atomically: temp file beside the target, fsync, rename into place.

Only a regular file or a new path is ever written: a symbolic link, a device, a FIFO,
a socket or a directory at the target is refused (:func:`check_target`, exit 2), and
so is any file that is one of the command's inputs (the same path, or the same file
through a link or hard link: same ``st_dev``/``st_ino``). Commands call
:func:`check_target` with their inputs before any long work; every write checks the
target again just before the rename.

The temporary file is named ``.NAME.PID-RANDOM.tmp`` beside the target (``NAME`` the
target's name, ``PID`` the writing process): a write killed mid-save (SIGKILL, power
loss) leaves one behind, and the next write of the same target removes those of
processes that no longer run.

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
import re
import stat
import tempfile
from collections.abc import Callable, Iterable
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


NAME_MAX = 255
"""Longest file name (bytes) most file systems accept."""
_TEMP_NAME_BYTES = 180
"""How much of the target's name a temporary file's name keeps."""

_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def _refuse(path: Path, reason: str) -> ExportError:
    return ExportError(str(path), reason, exit_code=2)


def _lstat(path: Path) -> os.stat_result | None:
    """The target's own status (links not followed); None when nothing is there yet."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None  # a file in the folder path: reported by _check_folder
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise _refuse(path, "the file name is too long; choose a shorter name") from None
        raise ExportError(str(path), _reason(exc, path)) from None


def _check_kind(path: Path, status: os.stat_result | None) -> None:
    if len(os.fsencode(path.name)) > NAME_MAX:
        raise _refuse(
            path, f"the file name is too long (over {NAME_MAX} bytes); choose a shorter name"
        )
    if status is None or stat.S_ISREG(status.st_mode):
        return
    kind = next((what for test, what in _KINDS if test(status.st_mode)), "not a regular file")
    if kind == "a directory":
        raise _refuse(path, "the path is a directory; name a file such as plan.xlsx")
    raise _refuse(
        path,
        f"the path is {kind}; outputs are written only to regular files or new paths "
        "(name a new file, e.g. in exports/)",
    )


def _check_folder(path: Path) -> None:
    """The nearest existing folder of ``path`` is a folder this process may write in."""
    folder = path.parent
    while True:
        try:
            status = os.stat(folder)
            break
        except (FileNotFoundError, NotADirectoryError):
            if folder.parent == folder:
                return
            folder = folder.parent
        except OSError as exc:
            raise ExportError(str(path), _reason(exc, path), exit_code=2) from None
    if not stat.S_ISDIR(status.st_mode):
        raise _refuse(path, f"cannot create folder {path.parent}: {folder} is a file")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _refuse(path, _reason(OSError(errno.EACCES, "Permission denied"), folder / "x"))


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def check_target(path: str | Path, inputs: Iterable[str | Path] = ()) -> Path:
    """``path`` as a Path if it may be written; ExportError (exit 2) saying why not.

    Refused: a symbolic link, a directory, a device, a FIFO or a socket at ``path``; a
    name longer than the file system allows; a folder that cannot be created or
    written; and any of ``inputs`` — the same path, or the same file through a link or
    a hard link.
    """
    target = Path(path)
    status = _lstat(target)
    _check_kind(target, status)
    _check_folder(target)
    if status is None:
        return target
    resolved = target.resolve()
    for source in inputs:
        source = Path(source)
        try:
            same = resolved == source.resolve() or _same_file(status, os.stat(source))
        except OSError:
            same = False
        if same:
            raise _refuse(
                target,
                f"it is an input of this command ({source}); writing it would replace "
                "that input. Name another output file",
            )
    return target


def _prepare_folder(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ExportError(
            str(path), f"cannot create folder {path.parent}: a file has that name"
        ) from None
    except OSError as exc:
        raise ExportError(str(path), f"cannot create folder: {_reason(exc, path)}") from None


def _temp_prefix(target: Path) -> str:
    """``.NAME.`` of the target's temporary files (NAME cut to fit the name limit)."""
    name = os.fsencode(target.name)[:_TEMP_NAME_BYTES].decode(errors="ignore")
    return f".{name}."


_TEMP_TAIL = re.compile(r"(\d+)-[A-Za-z0-9_]+\.tmp")


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's live process
    return True


def remove_stale_temp_files(target: Path) -> list[Path]:
    """Delete the temporary files of ``target`` left by writes that were killed.

    Only regular files named like this module's temporary files of that very target
    whose writing process no longer runs; returns what was removed.
    """
    prefix = _temp_prefix(target)
    removed = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(target.parent):
            if not entry.name.startswith(prefix):
                continue
            match = _TEMP_TAIL.fullmatch(entry.name[len(prefix) :])
            if match is None or not entry.is_file(follow_symlinks=False):
                continue
            if int(match.group(1)) != os.getpid() and not _running(int(match.group(1))):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed


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

    The temp file sits in the target folder (so the rename is atomic). Returns the
    target path. Raises ExportError on any failure, after removing the temp file; with
    exit 2 when the target is refused (:func:`check_target`).
    """
    target = check_target(path)
    _prepare_folder(target)
    remove_stale_temp_files(target)
    status = _lstat(target)
    mode = stat.S_IMODE(status.st_mode) if status is not None else 0o666 & ~_umask()
    try:
        with tempfile.NamedTemporaryFile(
            dir=target.parent,
            prefix=f"{_temp_prefix(target)}{os.getpid()}-",
            suffix=".tmp",
            delete=False,
        ) as handle:
            temp = Path(handle.name)
    except OSError as exc:
        raise ExportError(str(target), _reason(exc, target)) from None
    try:
        write_fn(temp)
        _fsync_file(temp)
        os.chmod(temp, mode)
        _check_kind(target, _lstat(target))  # nothing swapped in meanwhile
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


def check_workbook_target(path: str | Path, source: str | Path | None = None) -> Path:
    """``path`` if a workbook may be written there: its name ends in ``.xlsx`` (the
    format written, so no xlsx bytes land under a ``.csv`` name) and it is not
    ``source``, the scenario file it was planned from, nor a link, folder or device
    (:func:`check_target`); ExportError (exit 2) otherwise."""
    target = Path(path)
    if target.suffix.lower() != ".xlsx":
        raise _refuse(target, "a workbook is written in the .xlsx format; name the file NAME.xlsx")
    return check_target(target, [] if source is None else [source])
