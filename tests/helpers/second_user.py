"""A second Unix user for tests of a shared machine (issue 20): created by the test and removed after, it plays a
classmate. Code runs as that user in a child of the test process that dropped to its uid (so it needs no
interpreter it could not read). Creating a user needs root: CI runs as root; test modules skip otherwise.

The user itself is conftest.py's fixture `stranger` (module scope); :func:`as_user` runs code as it.
"""

from __future__ import annotations

import json
import os
import pwd
from collections.abc import Callable
from typing import Any

NOT_ROOT = "a second Unix user can only be created as root (CI runs as root)"


def as_user(user: pwd.struct_passwd, work: Callable[[], Any]) -> Any:
    """`work()` in a child of this process running as `user` (its uid, gid and no other groups); its result as
    JSON, or {"raised": "Type: message"}."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            try:
                answer: Any = work()
            except BaseException as exc:  # noqa: BLE001 - reported to the parent
                answer = {"raised": f"{type(exc).__name__}: {exc}"}
            os.write(write, json.dumps(answer, default=str).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(data)
