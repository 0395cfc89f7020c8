"""What a backend tells while it works: typed progress events, handed to a `ProgressFn` and drawn by the face
(flinklab/cli/cluster.py), never drawn by the backend. Each event's `str()` is its calm one-line form; the up/down
use case (flinklab/usecases/cluster.py) adds its own events of the same base.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


class Progress:
    """The base of every progress event of `flink-up` / `flink-down`: `str(event)` is one line for a person."""


@dataclass(frozen=True)
class Step(Progress):
    """A step of a backend's work, in words ("starting the JobManager and 1 TaskManager(s)")."""

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Waiting(Progress):
    """A wait that was not over at once (`what` completes "waiting for ...")."""

    what: str

    def __str__(self) -> str:
        return f"waiting for {self.what}"


@dataclass(frozen=True)
class LayerPulled(Progress):
    """One layer of an image being pulled: `current` of `total` bytes (None while the engine does not say)."""

    image: str
    layer: str
    status: str
    current: int | None = None
    total: int | None = None

    def __str__(self) -> str:
        return f"pulling {self.image}: {self.layer} {self.status}"


ProgressFn = Callable[[Progress], None]


def quiet(event: Progress) -> None:
    """A ProgressFn that hears nothing."""


def waits_to(say: ProgressFn) -> Callable[[str], None]:
    """What flinklab.flink.readiness.wait_until tells (what it waits for), as Waiting events to `say`."""
    return lambda what: say(Waiting(what))
