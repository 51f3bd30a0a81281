#!/usr/bin/env bash
# One command: set up .venv and plan the shipped baseline scenario, writing
# exports/baseline.xlsx. Extra arguments go to `planner run` (e.g. --relax).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/planner run scenarios/baseline.yaml --out exports/baseline.xlsx "$@"
