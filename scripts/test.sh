#!/usr/bin/env bash
# One command: set up .venv with the test and docs extras, check formatting, lint and types,
# build the docs strictly, run the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,plots,docs
# The workbook tests recalculate formulas in a real spreadsheet engine and read its PDF
# print-out. CI installs LibreOffice and poppler (Debian packages, headless); elsewhere
# those tests skip and say why.
if [ "${CI:-}" = "true" ]; then
  need=()
  command -v soffice >/dev/null 2>&1 || need+=(libreoffice-calc-nogui)
  command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
  if [ "${#need[@]}" -gt 0 ]; then
    (apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}") >/dev/null
  fi
fi
.venv/bin/ruff check planner tests bench
.venv/bin/ruff format --check planner tests bench
.venv/bin/mypy planner
# The docs site must build without a warning (broken links, pages left out of the nav).
docs_site=$(mktemp -d)
trap 'rm -rf "$docs_site"' EXIT
.venv/bin/mkdocs build --strict -q -d "$docs_site"
# Two workers (the machine has 2 cores); a test module stays on one worker, so its
# module-scoped fixtures (solved plans, recalculated workbooks) are built once.
.venv/bin/python -m pytest -q -n 2 --dist loadfile --durations=12 "$@"
