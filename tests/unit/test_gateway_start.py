"""The gateway's first-request work happens when its server starts (the app's lifespan), not in a learner's first
call: the first `run_in_threadpool` of a process imports anyio's asyncio backend and starts the pool's first
thread, which put 40-130 ms on the first call's session open after `flink-up` (scripts/bench.py, "first call").
Checked in a fresh interpreter, the app driven through the ASGI lifespan protocol as uvicorn drives it."""

from __future__ import annotations

import json
import subprocess
import sys

_SCRIPT = """
import asyncio, json, sys, types
from flinklab.gateway.app import create_app
from flinklab.gateway.service import GatewayConfig

BACKEND = "anyio._backends._asyncio"
app = create_app(types.SimpleNamespace(config=GatewayConfig("http://127.0.0.1:9")), token="t")
before = BACKEND in sys.modules

async def startup():
    events = [{"type": "lifespan.startup"}]
    sent = []
    async def receive():
        if events:
            return events.pop(0)
        await asyncio.Event().wait()
    async def send(message):
        sent.append(message["type"])
    task = asyncio.ensure_future(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send))
    while not sent:
        await asyncio.sleep(0.01)
    first = sent[0]
    task.cancel()
    return first

sent = asyncio.run(asyncio.wait_for(startup(), 30))
print(json.dumps({"before": before, "after": BACKEND in sys.modules, "first": sent}))
"""


def test_the_apps_start_does_the_first_threadpool_call():
    done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer == {"before": False, "after": True, "first": "lifespan.startup.complete"}
