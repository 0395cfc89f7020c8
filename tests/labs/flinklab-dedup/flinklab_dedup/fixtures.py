"""The events CSV: per block of ten minutes ten events of three users, some delivered again 5 or 10 s later (the
retries the lab removes). Deterministic for a seed and scale; the first event of every block is retried."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

FILE = "dedup_events.csv"
ACTIONS = ("login", "view", "cart", "buy", "logout")
START = datetime(2024, 3, 4, 9, 0, 0)


def generate(seed: int, scale: int) -> dict[str, list[tuple[str, ...]]]:
    """{FILE: rows (event_id, user_id, action, ts)} in time order."""
    rng = random.Random(seed)
    rows: list[tuple[str, str, str, datetime]] = []
    for block in range(scale):
        for i in range(10):
            event = f"e{block * 10 + i + 1:04d}"
            user = f"u{block * 3 + rng.randint(1, 3)}"
            action = rng.choice(ACTIONS)
            ts = START + timedelta(minutes=block * 10 + i)
            rows.append((event, user, action, ts))
            retries = 1 if i == 0 else rng.choice((0, 0, 0, 1, 2))
            rows += [(event, user, action, ts + timedelta(seconds=5 * (n + 1))) for n in range(retries)]
    rows.sort(key=lambda r: r[3])
    return {FILE: [(e, u, a, t.strftime("%Y-%m-%d %H:%M:%S")) for e, u, a, t in rows]}
