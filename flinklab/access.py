"""Who may use the lab's SQL gateway: the token `flink-up` writes into the state dir, and how it is read.

Flink has no authentication of its own, and loopback keeps other machines out but not other users of this one: a
gateway runs any SQL from whoever reaches its port, with the rights of the user who ran `flink-up`. So each start
writes a new random token into the state dir (mode 0600, readable by that user only); clients send it as
`Authorization: Bearer <token>` (Flink's own client can, through `FLINK_REST_CLIENT_HEADERS`). The token is only
ever in that file and in request headers: never in a command line, an environment variable, a log or a message.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from pathlib import Path

from flinklab.errors import ClusterError

TOKEN_FILE = "gateway.token"
HEADER = "Authorization"
SCHEME = "Bearer"
#: What a token looks like (secrets.token_urlsafe(32) gives 43 of these): anything else in the file is refused
_TOKEN = re.compile(r"[A-Za-z0-9_-]{32,128}")
#: A token file is read only this far (a file of any other size is not a token)
_MAX_BYTES = 256


def token_path(state_dir: Path) -> Path:
    return state_dir / TOKEN_FILE


def new_token() -> str:
    import secrets  # here: only `flink-up` makes tokens, and every client reads one (secrets imports hmac, hashlib)

    return secrets.token_urlsafe(32)


def write_token(state_dir: Path) -> str:
    """A new token in the state dir, mode 0600 from the moment it exists (written beside and renamed into place, so
    that a reader never sees half a token); returns it."""
    token = new_token()
    state_dir.mkdir(parents=True, exist_ok=True)
    path = token_path(state_dir)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)  # O_CREAT's mode is narrowed by the umask only, never widened; an old file keeps its own
        os.write(fd, f"{token}\n".encode("ascii"))
    finally:
        os.close(fd)
    try:
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    return token


class TokenError(ClusterError):
    """The gateway token file is missing or cannot be trusted."""


def read_token(state_dir: Path) -> str:
    """The token in the state dir. Refused (one line naming the file) when it is missing, not a regular file, not
    the reader's own, open to group or others, or not a token."""
    path = token_path(state_dir)
    again = "`flink-up` writes a new one each time it starts the gateway."
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise TokenError(f"No SQL gateway token at {path}.", "Start the cluster and its gateway with `flink-up`.") \
            from None
    except OSError as exc:
        raise TokenError(f"Cannot read the SQL gateway token {path}: {exc.strerror}.", again) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TokenError(f"The SQL gateway token {path} is not a regular file.", again)
        if info.st_uid != os.geteuid():
            raise TokenError(f"The SQL gateway token {path} belongs to uid {info.st_uid}, not to you "
                             f"(uid {os.geteuid()}): refused.", again)
        if info.st_mode & 0o077:
            raise TokenError(f"The SQL gateway token {path} is open to others (mode "
                             f"{stat.S_IMODE(info.st_mode):04o}, must be 0600): refused.", again)
        raw = os.read(fd, _MAX_BYTES + 1)
    finally:
        os.close(fd)
    text = raw.decode("ascii", "replace").strip()
    if len(raw) > _MAX_BYTES or not _TOKEN.fullmatch(text):
        raise TokenError(f"The SQL gateway token {path} does not hold a token.", again)
    return text


def bearer(token: str) -> str:
    """The `Authorization` header's value for `token`."""
    return f"{SCHEME} {token}"


#: Shells that let no one log in
_NO_LOGIN = ("nologin", "false", "sync", "halt", "shutdown")


def _uid_min(login_defs: Path) -> int:
    try:
        for line in login_defs.read_text(errors="replace").splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] == "UID_MIN" and words[1].isdigit():
                return int(words[1])
    except OSError:
        pass
    return 1000


def other_login_users(passwd: Path = Path("/etc/passwd"), login_defs: Path = Path("/etc/login.defs"),
                      me: int | None = None) -> list[str]:
    """The accounts of /etc/passwd, other than `me` (default: this process's user), that people log in with: a
    uid from UID_MIN (login.defs, 1000) up, not `nobody`, and a login shell. Only a hint for `flink-up` (see the
    docs/security.md, "A shared machine"): images and CI runners list accounts nobody uses, and a directory service's
    users are not in the file."""
    me = os.geteuid() if me is None else me
    uid_min = _uid_min(login_defs)
    names = []
    try:
        lines = passwd.read_text(errors="replace").splitlines()
    except OSError:
        return []
    for line in lines:
        fields = line.split(":")
        if len(fields) < 7 or not fields[2].isdigit():
            continue
        name, uid, shell = fields[0], int(fields[2]), fields[6].strip()
        if uid == me or uid < uid_min or uid == 65534 or not shell or os.path.basename(shell) in _NO_LOGIN:
            continue
        names.append(name)
    return names
