#!/usr/bin/env bash
# The main job on a fresh machine: install, boot a Flink cluster, run a lab's reference solution and grade it.
#   scripts/demo.sh [LAB]      (LAB: joins (default) or windows)
set -euo pipefail
cd "$(dirname "$0")/.."
lab=${1:-joins}
scripts/install.sh
export PATH="$PWD/.venv/bin:$PATH"
flink-up
flinklab run "$lab" --solution
flinklab check "$lab"
