#!/usr/bin/env bash
# The test command: installs everything it needs, then the linters, the docs site (`mkdocs build --strict`: a broken
# link or anchor fails), and the whole suite (unit + live tests on a real local Flink cluster + Docker backend
# tests). Extra arguments go to pytest, e.g. `scripts/test.sh -m "not docker"`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh --test
.venv/bin/ruff check flinklab tests scripts
.venv/bin/lint-imports  # the layers of DESIGN.md, from pyproject.toml
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --site-dir "$site"  # not --quiet: it hides the warnings strict counts
.venv/bin/python -m pytest "$@"
