#!/usr/bin/env bash
# The main job on a fresh machine: install, boot a Flink cluster, run a lab's reference solution and grade it.
#   scripts/demo.sh [LAB]      (LAB: windows (default, the course's first lab), joins, or any lab `flinklab labs` lists)
#
# The cluster keeps running afterwards, on purpose: a learner who ran the demo goes on to the first lab (README "Your
# first lab"), whose first command, `flink-up`, then returns at once instead of booting a second time. The last
# lines say that it runs and how to stop it.
set -euo pipefail
cd "$(dirname "$0")/.."
lab=${1:-windows}
# --no-prepare: `flinklab prepare` would start and stop a cluster only to make the archives that the flink-up below
# makes anyway while its cluster keeps running (about 40 s more for the demo, for nothing)
scripts/install.sh --no-prepare
export PATH="$PWD/.venv/bin:$PATH"
flink-up
# The reference solution goes into a workspace of the demo's own: the learner's (~/flink/LAB) stays empty for
# their own SQL (the README's first lab starts there with ddl.sql).
demo_ws="$PWD/.demo-workspace"
FLINKLAB_WORKSPACE="$demo_ws" flinklab run "$lab" --solution
status=0
FLINKLAB_WORKSPACE="$demo_ws" flinklab check "$lab" || status=$?
cat <<MSG

The demo's solved workspace is $demo_ws/$lab (yours is still empty).
The Flink cluster and its SQL gateway are still running, for your first lab (README.md "Your first lab"):
  source .venv/bin/activate && flinklab labs
Stop them with:
  .venv/bin/flink-down
MSG
exit "$status"
