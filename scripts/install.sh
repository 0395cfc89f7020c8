#!/usr/bin/env bash
# Set up flinklab on a fresh machine (Python >= 3.11 with pip, Java 17): a virtualenv in .venv with the package
# (editable; the labs' SQL and CSVs are package data) and its pinned Flink, then `flinklab prepare` (at the end).
# `--test` adds the test tools and the docs site's tools (mkdocs, for `mkdocs build --strict`), the test-only third
# lab (tests/labs/flinklab-dedup, its own package registering under the entry points), chromium for the HTML report
# test and, where a Docker engine answers, debootstrap for the offline stand-in image the Docker tests build; it
# skips `flinklab prepare`, as `--no-prepare` does.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "error: flinklab needs Python 3.11 or newer, and $PY is not one. → Set PYTHON=/path/to/python3.11 (or newer)." >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  "$PY" -m venv .venv
fi
extras=""
[ "${1:-}" = "--test" ] && extras="[test,docs]"
prepare=yes
for arg in "$@"; do
  case $arg in
    --test|--no-prepare) prepare=no ;;
    *) echo "error: unknown option $arg (install.sh [--test | --no-prepare])" >&2; exit 2 ;;
  esac
done
echo "==> installing flinklab${extras} (first time: ~1 GB of Flink from PyPI, a few minutes)"
.venv/bin/python -m pip install --disable-pip-version-check -q -e ".${extras}"
# An editable install leaves flinklab's own modules uncompiled; where PYTHONDONTWRITEBYTECODE is set (many containers
# set it), every sql-client.sh call would compile them again: 40 ms of its imports' 90 ms on 2 cores. Once, here.
.venv/bin/python -m compileall -q flinklab >/dev/null ||
  echo "warning: could not compile flinklab's modules (a read-only checkout?); each call compiles them itself" >&2
if [ "${1:-}" = "--test" ]; then
  echo "==> installing the test lab flinklab-dedup (a lab plug-in outside flinklab)"
  .venv/bin/python -m pip install --disable-pip-version-check -q --no-deps -e tests/labs/flinklab-dedup
fi
if ! command -v java >/dev/null 2>&1; then
  echo "warning: no java on PATH; the local backend needs Java 17 (Flink 2.x also runs on 11 and 21), the docker backend does not" >&2
fi
if [ "${1:-}" = "--test" ] && docker info >/dev/null 2>&1 && ! command -v debootstrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "==> installing debootstrap (builds the offline Flink image the Docker tests use)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  else
    echo "warning: debootstrap is missing; the Docker tests need it (sudo apt-get install debootstrap)" >&2
  fi
fi

# Headless Chromium (Debian's `chromium` package) for the test that renders `flinklab check --html` pages in a real
# browser. Only with --test, and only where it is missing.
if [ "${1:-}" = "--test" ] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing chromium (the HTML report test renders its page in a headless browser)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    echo "warning: chromium is missing; the HTML report test needs it (sudo apt-get install chromium)" >&2
  fi
fi

# What a first flink-up would otherwise do at the learner's expense: the class-data archives of the cluster's and the
# gateway's JVMs, and the JVM command lines that map them (docs/performance.md). `flinklab prepare` starts the local
# cluster once, on the usual ports and state dir, and stops it; the first flink-up then starts as fast as any later
# one. Not with --test (the tests use dirs of their own) or --no-prepare; without Java there is nothing to prepare
# (the docker backend), and a failure (a port in use, say) only warns: flink-up makes the archives itself.
if [ "$prepare" = yes ] && command -v java >/dev/null 2>&1; then
  echo "==> preparing the first flink-up (starts the local cluster once and stops it, about a minute)"
  if ! .venv/bin/flinklab prepare; then
    echo "warning: flinklab prepare did not finish; the first flink-up makes the archives itself (a few seconds slower)" >&2
  fi
fi
