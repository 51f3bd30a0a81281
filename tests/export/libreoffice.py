"""Recalculate a workbook in headless LibreOffice, for tests that check live formulas.

openpyxl writes formulas without cached values, so reading values back needs a real
spreadsheet engine. :func:`recalculate` converts xlsx → xlsx with ``soffice`` under a
private profile whose ``registrymodifications.xcu`` sets
``/org.openoffice.Office.Calc/Formula/Load`` ``OOXMLRecalcMode`` = 0 ("always
recalculate"; the default never recalculates a file that has cached values), then
:func:`recalculated` reads the values with openpyxl ``data_only=True``.

Install: ``apt-get install -y --no-install-recommends libreoffice-calc-nogui``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest

SKIP_REASON = "LibreOffice (soffice) not installed"
ERROR_VALUES = frozenset(
    {"#REF!", "#NAME?", "#VALUE!", "#DIV/0!", "#N/A", "#NUM!", "#NULL!", "Err:502", "Err:504"}
)
TIMEOUT_S = 180

# Always recalculate on load: OOXML (xlsx) and ODF files; no first-start dialogs.
REGISTRY = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry"
 xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" \
oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" \
oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" \
oor:op="fuse"><value>false</value></prop></item>
</oor:items>
"""


def find_soffice() -> str | None:
    """The LibreOffice executable on PATH (``soffice`` or ``libreoffice``), or None."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def require_soffice() -> str:
    """The executable, or skip the calling test with :data:`SKIP_REASON`."""
    soffice = find_soffice()
    if soffice is None:
        pytest.skip(SKIP_REASON)
    return soffice


_PROFILE: list[Path] = []


def _process_profile() -> Path:
    """This process's LibreOffice profile folder, made on first use, removed at exit."""
    if not _PROFILE:
        folder = Path(tempfile.mkdtemp(prefix="planner-lo-profile-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _PROFILE.append(folder)
    return _PROFILE[0]


def make_profile(folder: Path) -> Path:
    """A private LibreOffice user profile in ``folder`` that always recalculates."""
    user = folder / "user"
    user.mkdir(parents=True, exist_ok=True)
    (user / "registrymodifications.xcu").write_text(REGISTRY, encoding="utf-8")
    return folder


def recalculate(path: str | Path, out_dir: str | Path, profile: str | Path | None = None) -> Path:
    """Open ``path`` in headless LibreOffice, recalculate, save as xlsx in ``out_dir``.

    Returns the converted file (same name, in ``out_dir``, which must not be the
    folder of ``path``). ``profile`` names the profile folder; by default every call of
    this process shares one (start-up is seconds faster once a profile exists; calls in
    one process never overlap, and each test process has its own).
    """
    return convert(path, out_dir, "xlsx:Calc MS Excel 2007 XML", ".xlsx", profile)


def to_pdf(path: str | Path, out_dir: str | Path, profile: str | Path | None = None) -> Path:
    """Print ``path`` to PDF (each sheet's page setup) in ``out_dir``; the PDF's path."""
    return convert(path, out_dir, "pdf", ".pdf", profile)


def convert(
    path: str | Path,
    out_dir: str | Path,
    target: str,
    suffix: str,
    profile: str | Path | None = None,
) -> Path:
    """``soffice --convert-to target`` of ``path`` into ``out_dir`` (recalculating)."""
    soffice = find_soffice()
    if soffice is None:
        raise RuntimeError(SKIP_REASON)
    source, out = Path(path).resolve(), Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    if source.parent == out:
        raise ValueError("out_dir must differ from the workbook's folder")
    profile_dir = make_profile(Path(profile) if profile else _process_profile()).resolve()
    command = [
        soffice,
        f"-env:UserInstallation={profile_dir.as_uri()}",
        "--headless",
        "--invisible",
        "--nologo",
        "--nodefault",
        "--norestore",
        "--nolockcheck",
        "--convert-to",
        target,
        "--outdir",
        str(out),
        str(source),
    ]
    env = {**os.environ, "HOME": str(profile_dir)}
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=TIMEOUT_S, env=env, check=False
    )
    result = out / (source.stem + suffix)
    if done.returncode != 0 or not result.is_file():
        raise RuntimeError(
            f"LibreOffice could not convert {source} (exit {done.returncode}):\n"
            f"{done.stdout}\n{done.stderr}"
        )
    return result


def recalculated(path: str | Path, out_dir: str | Path, profile: str | Path | None = None) -> Any:
    """Recalculate ``path`` and return the result opened with ``data_only=True``."""
    return openpyxl.load_workbook(recalculate(path, out_dir, profile), data_only=True)


def error_cells(workbook: Any) -> list[str]:
    """``Sheet!A1 = #REF!`` for every cell whose value is a spreadsheet error."""
    found = []
    for ws in workbook.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value in ERROR_VALUES:
                    found.append(f"{ws.title}!{cell.coordinate} = {cell.value}")
    return found
