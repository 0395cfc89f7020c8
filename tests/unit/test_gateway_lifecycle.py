"""The gateway process has a backend's lifecycle shape (flinklab.cluster.base.Lifecycle), without a JVM here."""

from __future__ import annotations

import inspect

import pytest

from flinklab.cluster.base import ClusterBackend, Lifecycle
from flinklab.cluster.local import LocalBackend
from flinklab.environment.gateway import GatewayProcess
from flinklab.errors import UsageError
from flinklab.settings import Settings


@pytest.mark.parametrize("kind", [GatewayProcess, LocalBackend])
def test_the_gateway_and_a_backend_have_one_shape(kind: type) -> None:
    for name in ("up", "down", "status", "follow_logs"):
        ours, theirs = inspect.signature(getattr(kind, name)), inspect.signature(getattr(Lifecycle, name))
        assert list(ours.parameters) == list(theirs.parameters), (kind.__name__, name)
    assert Lifecycle in ClusterBackend.__mro__


def test_a_gateway_that_never_ran(tmp_settings: Settings) -> None:
    process = GatewayProcess(tmp_settings)
    state = process.status()
    assert state.pid is None and not state.healthy
    assert process.down() is False
    assert not process.starting
    process.ready()  # it started none: nothing to wait for
    with pytest.raises(UsageError, match="No SQL gateway log"):
        list(process.follow_logs(None, False))
