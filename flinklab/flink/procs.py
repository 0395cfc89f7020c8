"""Process helpers the local backend and the gateway share: a process's argv, finding ours in /proc, stopping
with SIGTERM then SIGKILL, and whether a port is free.

"Ours" is always decided by the caller from the argv (a JVM of this config dir, the gateway of this state dir):
a pid alone is never trusted, since a stale pid may name another program by now.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path

from flinklab.flink.waiting import Wait


def _reap(pid: int) -> None:
    """Collect `pid` if it is our exited child, so it does not linger as a zombie that still 'exists'."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except (ChildProcessError, OSError):
        pass


def process_args(pid: int) -> list[str] | None:
    """The argv of `pid`, or None when it does not exist (zombies have none)."""
    _reap(pid)
    proc = Path(f"/proc/{pid}/cmdline")
    if Path("/proc/self").exists():
        try:
            raw = proc.read_bytes()
        except OSError:
            return None
        return [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a] or None
    try:  # no /proc (macOS): ask ps
        cmd = ["ps", "-o", "command=", "-p", str(pid)]
        out = subprocess.run(cmd, check=False, capture_output=True, text=True).stdout
    except OSError:
        return None
    return out.split() or None


def find_processes(ours: Callable[[int], bool]) -> list[int]:
    """Every live process (this one excepted) for which `ours(pid)` holds; [] without /proc."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    return [int(entry.name) for entry in proc.iterdir()
            if entry.name.isdigit() and int(entry.name) != os.getpid() and ours(int(entry.name))]


def stop_processes(pids: Iterable[int], ours: Callable[[int], bool], timeout: float, *, kill_group: bool = False,
                   poll: float = 0.2) -> list[int]:
    """SIGTERM each pid that is still ours, wait up to `timeout`, SIGKILL what is left (its whole process group
    with `kill_group`: a launcher's children go with it); return the pids that were ours."""
    stopping = [pid for pid in pids if ours(pid)]
    alive = stopping
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 10.0)):
        alive = [pid for pid in alive if ours(pid)]  # a pid is signalled only while it is still ours
        for pid in alive:
            try:
                if sig == signal.SIGKILL and kill_group:
                    os.killpg(pid, sig)
                else:
                    os.kill(pid, sig)
            except ProcessLookupError:
                pass

        def gone() -> bool | None:
            nonlocal alive
            alive = [pid for pid in alive if ours(pid)]
            return not alive or None

        if Wait(f"{sig.name} to end {len(alive)} process(es)", wait, poll).poll(gone):
            break
    return stopping


def port_is_free(host: str, port: int) -> bool:
    """True when nothing holds `host:port` (TIME_WAIT leftovers of a stopped cluster do not count)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


_HANDED_OUT: set[int] = set()


def free_port(host: str) -> int:
    """A port on `host` nothing holds right now (the kernel's pick), never one this process was given before: the
    kernel may hand a closed port out again, and a cluster asks for its ports one after another before binding any."""
    for _ in range(64):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((host, 0))
            port = s.getsockname()[1]
        if port not in _HANDED_OUT:
            break
    _HANDED_OUT.add(port)
    return port
