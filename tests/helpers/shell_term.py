"""A terminal for the shell tests: the shell on a real pseudo-terminal (pexpect), its screen kept by a VT100
emulator (pyte), and waits on what the screen shows, never sleeps.

The shell is started as a learner starts it: the `sql-client.sh` console script of this venv, on a terminal.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pexpect
import pyte

SHELL = [str(Path(sys.executable).parent / "sql-client.sh")]


class Term:
    """One shell on a pseudo-terminal of `rows` x `cols`."""

    def __init__(self, args: Sequence[str], env: dict[str, str], rows: int = 40, cols: int = 120,
                 command: Sequence[str] = SHELL):
        # pexpect answers no cursor-position request; prompt_toolkit then waits for one before it warns
        env = {**env, "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": env.get("TERM", "xterm-256color")}
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.transcript = b""
        self.child = pexpect.spawn(command[0], [*command[1:], *args], env=env, dimensions=(rows, cols),
                                   timeout=5)

    # ---- reading -----------------------------------------------------------------------------------------

    def pump(self, timeout: float = 0.05) -> bool:
        """Feed what the shell wrote within `timeout` to the screen; False once the shell has ended."""
        try:
            data = self.child.read_nonblocking(1 << 16, timeout=timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self.transcript += data
        self.stream.feed(data)
        return True

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def wait(self, check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{self.text()}")
            if not self.pump():
                if check():
                    return
                raise AssertionError(f"the shell ended while waiting for {what}; the screen:\n{self.text()}")

    def wait_for(self, text: str, timeout: float = 60.0) -> None:
        """Until `text` is on the screen."""
        self.wait(lambda: text in self.text(), repr(text), timeout)

    def wait_gone(self, text: str, timeout: float = 60.0) -> None:
        self.wait(lambda: text not in self.text(), f"{text!r} to go", timeout)

    def wait_prompt(self, timeout: float = 60.0) -> None:
        """Until the cursor's line is an empty `Flink SQL> ` prompt."""
        def ready() -> bool:
            return self.screen.display[self.screen.cursor.y].rstrip() == "Flink SQL>"
        self.wait(ready, "an empty prompt", timeout)

    def settle(self) -> None:
        """Read until the shell has written nothing for a short while (the screen is drawn)."""
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < 0.3:
            before = len(self.transcript)
            if not self.pump(0.1):
                return
            if len(self.transcript) != before:
                quiet_since = time.monotonic()

    # ---- writing -----------------------------------------------------------------------------------------

    def send(self, text: str | bytes) -> None:
        self.child.send(text)

    def type_line(self, text: str) -> None:
        """Type `text` and Enter (a carriage return, as a terminal sends it)."""
        self.child.send(text + "\r")

    def clear(self) -> None:
        """Clear the emulated screen (the shell's CLEAR; keeps later waits from matching old output)."""
        self.type_line("CLEAR;")
        self.wait(lambda: self.text().strip() == "Flink SQL>", "a cleared screen", 30)

    def resize(self, rows: int, cols: int) -> None:
        self.screen.resize(rows, cols)
        self.child.setwinsize(rows, cols)

    def exit_status(self, timeout: float = 30.0) -> int:
        """Wait for the shell to end; its exit status."""
        deadline = time.monotonic() + timeout
        while self.pump(0.2):
            if time.monotonic() > deadline:
                raise AssertionError(f"the shell did not end; the screen:\n{self.text()}")
        self.child.close()
        return int(self.child.exitstatus if self.child.exitstatus is not None else -(self.child.signalstatus or 0))

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


def spawn_env(base: dict[str, str], **extra: str) -> dict[str, str]:
    env = dict(base)
    env.update(extra)
    env.setdefault("HOME", os.environ.get("HOME", "/tmp"))
    return env
