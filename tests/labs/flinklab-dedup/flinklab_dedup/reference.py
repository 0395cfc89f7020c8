"""The expected answers, computed in plain Python from the CSV (never from Flink)."""

from __future__ import annotations

import csv
from pathlib import Path

from flinklab_dedup.fixtures import FILE

Event = tuple[str, str, str, str]  # event_id, user_id, action, ts ("yyyy-MM-dd HH:mm:ss": sorts as time)


def load(data_dir: Path) -> list[Event]:
    """The deliveries in file order."""
    with open(Path(data_dir) / FILE, newline="", encoding="utf-8") as f:
        return [(r[0], r[1], r[2], r[3]) for r in csv.reader(f)]


def keep(events: list[Event], key: int, latest: bool) -> list[Event]:
    """One event per value of column `key`: its earliest delivery, or with `latest` its last one."""
    chosen: dict[str, Event] = {}
    for event in events:
        held = chosen.get(event[key])
        if held is None or (event[3] > held[3] if latest else event[3] < held[3]):
            chosen[event[key]] = event
    return sorted(chosen.values())


def first_deliveries(events: list[Event]) -> list[Event]:
    """The first step's answer: per event_id, the delivery with the smallest ts."""
    return keep(events, 0, latest=False)


def latest_actions(events: list[Event]) -> list[tuple[str, str, str]]:
    """The second step's answer: per user_id, (user_id, action, ts) of the delivery with the largest ts."""
    return [(u, a, t) for _, u, a, t in keep(events, 1, latest=True)]


def report(events: list[Event]) -> dict[str, int]:
    """report.json as the reference computes it."""
    return {"unique_events": len(first_deliveries(events)), "users": len(latest_actions(events))}
