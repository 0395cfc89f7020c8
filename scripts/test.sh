#!/usr/bin/env bash
# The test command: installs everything it needs, then runs the whole suite (unit + live tests on a real local
# Flink cluster + Docker backend tests). Extra arguments go to pytest, e.g. `scripts/test.sh -m "not docker"`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh --test
.venv/bin/ruff check flinklab tests scripts
.venv/bin/lint-imports  # the layers of DESIGN.md, from pyproject.toml
exec .venv/bin/python -m pytest "$@"
