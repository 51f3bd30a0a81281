#!/usr/bin/env bash
# Create .venv (Python 3.11+) and install planner into it, with extras if named:
#   bash scripts/setup.sh            # the tool
#   bash scripts/setup.sh test,plots # the tool, its test dependencies and PNG charts
#   bash scripts/setup.sh docs       # the tool and MkDocs, to build the docs site
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
"$PYTHON" -c 'import sys; assert sys.version_info >= (3, 11), "planner needs Python 3.11 or newer"'
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
extras=${1:-}
spec="."
[ -n "$extras" ] && spec=".[$extras]"
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e "$spec"
