#!/usr/bin/env bash
# One command: set up .venv with the test extra, check formatting and lint, run the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/ruff check planner tests bench
.venv/bin/ruff format --check planner tests bench
.venv/bin/python -m pytest -q "$@"
