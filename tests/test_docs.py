"""The docs say what the code does: generated pages are current, every code block runs
or is marked as an illustration, every command and scenario field is documented, and
every page a module cites exists."""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import click
import pytest

from planner.cli import cli
from planner.docs_gen.cli_ref import command_names
from planner.docs_gen.pages import OWN_TEST, QUICK, REGION, REGIONS, region_pages, stale
from planner.docs_gen.pages import PAGES as GENERATED
from planner.docs_gen.scenario_ref import scenario_fields, sections

REPO = Path(__file__).resolve().parents[1]
PAGES = region_pages(REPO)
ILLUSTRATION = "<!-- illustration -->"
FENCE = re.compile(
    r"^(?P<indent> *)```(?P<lang>[\w-]*)\n(?P<body>.*?)^(?P=indent)```$", re.M | re.S
)


def _name(path: Path) -> str:
    return str(path.relative_to(REPO))


def test_the_references_and_quick_regions_are_current() -> None:
    """Regenerated in memory, the scenario and command references and the regions made
    without a solve equal the committed files (``python -m planner.docs_gen`` fixes)."""
    assert [_name(p) for p in stale(REPO, QUICK)] == []


def test_the_worked_examples_are_current() -> None:
    """The regions quoting solved plans are what the code gives now: one baseline run
    (shared by its regions), one vendors analysis and three hand-sized scenarios; the
    frontier_lab region is checked in tests/test_frontier_lab.py."""
    solved = tuple(name for name in REGIONS if name not in QUICK + OWN_TEST)
    assert [_name(p) for p in stale(REPO, solved)] == []


def test_every_region_is_known_and_used() -> None:
    used = {m.group("name") for page in PAGES for m in REGION.finditer(page.read_text())}
    assert used == set(REGIONS)


def test_every_command_and_scenario_field_is_in_the_references() -> None:
    cli_page = (REPO / "docs/reference/cli.md").read_text(encoding="utf-8")
    names = command_names()
    assert len(names) >= 20
    for name in names:
        assert f"\n## {name}\n" in cli_page, name
    scenario_page = (REPO / "docs/reference/scenario.md").read_text(encoding="utf-8")
    documented = {
        title: set(re.findall(r"^\| `(\w+)` \|", body, re.M))
        for title, body in re.findall(r"^## (.+?)\n(.*?)(?=^## |\Z)", scenario_page, re.M | re.S)
    }
    fields = scenario_fields()
    assert len(fields) > 150
    titles = {m.__name__: t for m, t in zip(sections(), documented, strict=True)}
    for field in fields:
        model, name = field.split(".")
        assert name in documented[titles[model]], field


def test_every_command_has_help_with_an_example() -> None:
    from planner.docs_gen.cli_ref import commands

    for path, command in commands():
        if not isinstance(command, click.Group):
            assert command.help and "Example" in command.help, f"planner {' '.join(path)}"


def _blocks(text: str) -> list[tuple[str, str, bool]]:
    """``(lang, body, marked)`` of every fenced block outside a generated region;
    ``marked``: the line before it is the illustration marker."""
    generated = [(m.start(), m.end()) for m in REGION.finditer(text)]
    found = []
    for match in FENCE.finditer(text):
        if any(a <= match.start() < b for a, b in generated):
            continue
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        body = "\n".join(
            line[len(match.group("indent")) :] for line in match.group("body").splitlines()
        )
        found.append((match.group("lang"), body, before == ILLUSTRATION))
    return found


WRITTEN = [page for page in PAGES if _name(page) not in GENERATED]
"""Hand-written pages; generated pages are checked by regenerating them."""
ALL_BLOCKS = [(page, *block) for page in WRITTEN for block in _blocks(page.read_text("utf-8"))]


def test_every_block_runs_or_is_marked_as_an_illustration() -> None:
    unmarked = [
        f"{_name(page)}: ```{lang} {body[:60]!r}"
        for page, lang, body, marked in ALL_BLOCKS
        if not marked and not (lang == "python" and ">>>" in body)
    ]
    assert unmarked == [], "mark with <!-- illustration --> or make it run"


def _planner_lines(body: str) -> list[list[str]]:
    """Arguments of each ``planner ...`` command in a shell block."""
    commands = []
    for line in body.replace("\\\n", " ").splitlines():
        line = line.strip().removeprefix("$ ")
        line = re.split(r"\s+(?:#|>|\||&&)\s*", line)[0]
        if line.startswith("planner "):
            commands.append(shlex.split(line)[1:])
    return commands


SHELL_COMMANDS = [
    pytest.param(args, id=f"{_name(page)}: planner {' '.join(args)[:50]}")
    for page, lang, body, _ in ALL_BLOCKS
    if lang in ("bash", "console", "")
    for args in _planner_lines(body)
]


@pytest.mark.parametrize("args", SHELL_COMMANDS)
def test_every_planner_line_parses(args: list[str]) -> None:
    """The command and each option of every ``planner`` line in the docs exist (checked
    against click without running; values are not checked)."""
    command: click.Command = cli
    rest = list(args)
    while isinstance(command, click.Group):
        found = command.get_command(click.Context(command), rest[0])
        assert found is not None, f"no command {rest[0]!r} in planner {' '.join(args)}"
        command, name, rest = found, rest[0], rest[1:]
    known = {o for p in command.params for o in (*p.opts, *p.secondary_opts) if o.startswith("-")}
    unknown = [t.split("=")[0] for t in rest if t.startswith("-") and t.split("=")[0] not in known]
    assert unknown == [], f"planner {' '.join(args)}: no option {unknown} on planner {name}"


def test_the_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``>>>`` block, with its shown output, from a folder holding ``scenarios/``."""
    blocks = [
        (page, body) for page, lang, body, _ in ALL_BLOCKS if lang == "python" and ">>>" in body
    ]
    assert blocks
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    monkeypatch.chdir(tmp_path)
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    for number, (page, body) in enumerate(blocks):
        test = parser.get_doctest(body, {}, f"{_name(page)} block {number}", _name(page), 0)
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


CITED = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md)\b")


def test_every_page_a_module_cites_is_in_the_repository() -> None:
    missing = []
    for path in sorted((REPO / "planner").rglob("*.py")):
        for cited in CITED.findall(path.read_text(encoding="utf-8")):
            if not ((REPO / cited).exists() or (path.parent / cited).exists()):
                missing.append(f"{_name(path)}: {cited}")
    assert missing == []
