#!/bin/bash
# flinklab's grader entrypoint. It knows two layouts:
#   Gradescope:   the submission in /autograder/submission, the lab in $FLINKLAB_LAB or /autograder/source/lab,
#                 the answer in /autograder/results/results.json (/autograder/run_autograder calls this);
#   PrairieLearn: the submission in /grade/student, the lab in $FLINKLAB_LAB or /grade/data/data.json's
#                 params.lab, the answer in /grade/results/results.json.
# It boots a local Flink cluster inside the container (no network needed) and reruns the learner's SQL as the
# unprivileged user `grader`. Extra options for `flinklab grade` (e.g. --step-timeout 30): $FLINKLAB_GRADE_ARGS.
set -u
if [ "$(id -u)" = 0 ]; then
  # the platforms start the container as root: the results folder becomes the grader's, and the SQL runs as it
  for results in /autograder/results /grade/results; do
    if [ -d "$(dirname "$results")" ]; then mkdir -p "$results" && chown grader:grader "$results"; fi
  done
  exec setpriv --reuid=grader --regid=grader --init-groups env HOME=/home/grader "$0" "$@"
fi
# Under `--network none` the container's host name resolves nowhere, and Flink's TaskManager names itself after
# it: every JVM reads a hosts file naming it (jdk.net.hosts.file), as /etc/hosts would on a network.
printf '127.0.0.1 localhost %s\n::1 localhost\n' "$(hostname)" > "$HOME/.hosts"
export JAVA_TOOL_OPTIONS="-Djdk.net.hosts.file=$HOME/.hosts${JAVA_TOOL_OPTIONS:+ $JAVA_TOOL_OPTIONS}"
layout=""
if [ -d /grade/student ]; then
  layout=prairielearn
  submission=/grade/student
  results=/grade/results/results.json
  lab=${FLINKLAB_LAB:-$(python3 -c 'import json, sys
try:
    print(json.load(open("/grade/data/data.json")).get("params", {}).get("lab", ""))
except Exception:
    pass' 2>/dev/null)}
elif [ -d /autograder/submission ]; then
  layout=gradescope
  submission=/autograder/submission
  results=/autograder/results/results.json
  lab=${FLINKLAB_LAB:-$(tr -d '[:space:]' < /autograder/source/lab 2>/dev/null)}
else
  echo "flinklab-grade: no submission in /autograder/submission (Gradescope) or /grade/student (PrairieLearn)" >&2
  exit 2
fi
if [ -z "$lab" ]; then
  echo "flinklab-grade: which lab? Set FLINKLAB_LAB, /autograder/source/lab or data.json's params.lab" >&2
  exit 2
fi
mkdir -p "$(dirname "$results")"
# shellcheck disable=SC2086  # FLINKLAB_GRADE_ARGS is a list of options
exec flinklab grade "$lab" "$submission" --format "$layout" --results "$results" --learner "${FLINKLAB_LEARNER:-}" \
  ${FLINKLAB_GRADE_ARGS:-}
