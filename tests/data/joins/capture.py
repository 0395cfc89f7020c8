"""Capture the joins lab's golden outputs: the reference solution and every mistake in mistakes/, run for real.

    .venv/bin/python tests/data/joins/capture.py [--rest-port 8081]

Needs a running Flink cluster that can read local paths (a local cluster does). Writes outputs/solution/ (every
.out, plan and report.json) and outputs/mistakes/<mistake>/ (the outputs the mistaken step rewrote). The offline
check tests grade these files; recapture when the fixtures or SQL change.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # tests/, for labtools

from helpers.labtools import capture_lab  # noqa: E402

from flinklab.labs.joins import LAB  # noqa: E402

if __name__ == "__main__":
    capture_lab(LAB, HERE)
