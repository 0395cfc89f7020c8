"""Replaying the JVM command line Flink's scripts computed, so that a later start skips their helper JVMs.

`jobmanager.sh` / `taskmanager.sh` run two helper JVMs (BashJavaUtils: flatten the config, then derive the memory
flags) before they `exec` the real one: on a 2-core machine that is most of a second or more per component, on the
critical path of every start. What they compute depends only on their inputs (the config, the environment they
are given, the distribution and the java), so the local backend records what they produced, the final argv and the
environment variables they added, from /proc once the cluster is ready, and the next start with the same inputs
runs that JVM directly: the same command the scripts would have run. Anything different (a setting, a Flink or
Java upgrade, a new class-data-sharing archive) is a miss, and the scripts run and are recorded again. A replayed
JVM that fails to start is forgotten, so the next start goes through the scripts.

One record per component (`state_dir/local/launch/<component>.json`); none where there is no /proc.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from flinklab.version import FLINK_VERSION

#: The environment variables Flink's scripts read (or might): part of the key. Others (TERM, PWD...) are not.
_KEY_PREFIXES = ("FLINK_", "JVM_ARGS", "JAVA_", "HADOOP_", "HBASE_", "YARN_", "MAX_LOG_FILE_NUMBER", "HOSTNAME")
#: The one config line that changes at every start and that the scripts do not read: the JVM reads it itself.
_VOLATILE = re.compile(r"^jobmanager\.rpc\.port:.*$", re.MULTILINE)


@dataclass
class Launch:
    """A JVM as Flink's scripts started it: argv, the variables they added or changed, where stdout/err went."""

    key: str
    argv: list[str]
    env: dict[str, str]
    out: str
    err: str


def launch_key(component: str, config_text: str, env: dict[str, str], java: str, flink_home: Path) -> str:
    """What the scripts' output depends on, hashed."""
    relevant = sorted((k, v) for k, v in env.items() if k.startswith(_KEY_PREFIXES))
    inputs = [component, _VOLATILE.sub("", config_text), relevant, os.path.realpath(java), str(flink_home),
              FLINK_VERSION]
    return hashlib.sha1(json.dumps(inputs).encode()).hexdigest()


class LaunchCache:
    """Recorded launches in `directory`, one JSON file per component."""

    def __init__(self, directory: Path):
        self.directory = directory

    def _file(self, component: str) -> Path:
        return self.directory / f"{component}.json"

    def get(self, component: str, key: str) -> Launch | None:
        """The recorded launch of `component` when its key is `key` and it still looks runnable, else None."""
        try:
            launch = Launch(**json.loads(self._file(component).read_text()))
        except (OSError, ValueError, TypeError):
            return None
        if launch.key != key or not launch.argv or not os.access(launch.argv[0], os.X_OK):
            return None
        return launch

    def record(self, component: str, key: str, pid: int, given_env: dict[str, str]) -> bool:
        """Record what `pid` (a JVM the scripts exec'd with `given_env`) runs; False when it cannot be read."""
        proc = Path(f"/proc/{pid}")
        try:
            argv = [a.decode() for a in (proc / "cmdline").read_bytes().split(b"\0") if a]
            environ = dict(item.decode().partition("=")[::2]
                           for item in (proc / "environ").read_bytes().split(b"\0") if b"=" in item)
            out, err = os.readlink(proc / "fd" / "1"), os.readlink(proc / "fd" / "2")
        except (OSError, UnicodeDecodeError):
            return False
        if not argv or not argv[0].endswith("java") or not out.startswith("/") or not err.startswith("/"):
            return False  # not (yet) the JVM, or its output is not in files
        added = {k: v for k, v in environ.items() if given_env.get(k) != v}
        launch = Launch(key=key, argv=argv, env=added, out=out, err=err)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            tmp = self._file(component).with_suffix(".tmp")
            tmp.write_text(json.dumps(asdict(launch), indent=1))
            tmp.replace(self._file(component))
        except OSError:
            return False
        return True

    def forget(self, component: str) -> None:
        with contextlib.suppress(OSError):
            self._file(component).unlink()
