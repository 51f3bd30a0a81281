"""``python -m planner.docs_gen [--check]``: regenerate the docs, or check they are current."""

from __future__ import annotations

import sys

from planner.docs_gen.pages import REPO, stale, write


def main(argv: list[str]) -> int:
    if argv not in ([], ["--check"]):
        print("usage: python -m planner.docs_gen [--check]", file=sys.stderr)
        return 2
    if argv == ["--check"]:
        old = stale()
        for path in old:
            print(f"out of date: {path.relative_to(REPO)}", file=sys.stderr)
        if old:
            print("run `python -m planner.docs_gen` and commit the result", file=sys.stderr)
        return 1 if old else 0
    for path in write():
        print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
