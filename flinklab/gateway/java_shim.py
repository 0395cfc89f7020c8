"""The SQL gateway's JVM in a container, for a host that has Docker but no Java.

PyFlink starts its gateway JVM as `$JAVA_HOME/bin/java ...` (else `java` on PATH) and talks to it over py4j on
127.0.0.1. When the host has no Java, :func:`gateway_java_home` writes a `java` shim under
`state_dir/java-shim/bin/` whose `exec docker run ...` runs the same command line in the cluster's image (Java 17):
host networking so the gateway's and the callback server's 127.0.0.1 ports and the cluster's REST endpoint are the
host's, every path the JVM reads or writes bind-mounted at the same path, the host user's uid so files it writes
(COMPILE PLAN targets, logs) belong to them. The runner points JAVA_HOME at the shim for the launch only.

Lifetime: `--rm` removes the container when the JVM exits; `docker run` forwards SIGTERM to it (tini, `--init`,
passes it on); the JVM exits on its own when its Python process goes away (PythonGatewayServer's watchdog pings
the Python side). SIGINT is ignored inside, as PyFlink ignores it for a host JVM, so Ctrl-C in a query lets the
runner cancel the job through the still-living JVM.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from flinklab.errors import FlinklabError
from flinklab.flink.java import host_java
from flinklab.settings import Settings
from flinklab.text import first_line

SHIM_DIR = "java-shim"
#: Labels on the runner's container: `docker ps --filter label=io.flinklab.client=sql-client` finds it. Not the
#: cluster's project label on purpose: `flink-down` and `status` must not count or remove a client container.
LABEL_CLIENT = "io.flinklab.client"
CLIENT_VALUE = "sql-client"
LABEL_CLIENT_PID = "io.flinklab.client-pid"
#: What PyFlink's launcher (pyflink_gateway_server.py) puts in the JVM's environment and the JVM reads:
#: the connection-info file it writes its port to, and the Flink dirs (config.yaml, log4j-cli.properties, jars).
FORWARDED_ENV = (
    "_PYFLINK_CONN_INFO_PATH",
    "FLINK_HOME",
    "FLINK_CONF_DIR",
    "FLINK_LIB_DIR",
    "FLINK_OPT_DIR",
    "FLINK_PLUGINS_DIR",
    "FLINK_BIN_DIR",
    "FLINK_LOG_DIR",
    "TZ",
)
NO_JAVA_HINT = "Install Java 17 (or set JAVA_HOME), or install and start Docker to run it in a container."


@dataclass
class ShimSpec:
    """Everything the shim's `docker run` needs; :func:`shim_text` renders it."""

    docker: str  # absolute path of the docker CLI (the JVM's PATH may not have it)
    image: str
    user: str  # uid:gid
    mounts: list[tuple[str, bool]] = field(default_factory=list)  # (path, read_only), mounted at the same path
    workdir: str | None = None
    env_names: tuple[str, ...] = FORWARDED_ENV
    labels: dict[str, str] = field(default_factory=dict)


def docker_cli(env: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    return shutil.which("docker", path=env.get("PATH", os.defpath))


def _docker(docker: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([docker, *args], capture_output=True, text=True, timeout=timeout, check=False)


def flink_dirs(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """FLINK_CONF_DIR, _LIB_DIR, _OPT_DIR, _PLUGINS_DIR, _BIN_DIR as PyFlink's launcher will set them."""
    from pyflink.pyflink_gateway_server import prepare_environment_variables

    probe = dict(os.environ if env is None else env)
    prepare_environment_variables(probe)
    return {k: probe[k] for k in ("FLINK_CONF_DIR", "FLINK_LIB_DIR", "FLINK_OPT_DIR", "FLINK_PLUGINS_DIR",
                                  "FLINK_BIN_DIR")}


def _inside(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def shim_spec(settings: Settings, docker: str, image: str, env: Mapping[str, str] | None = None,
              cwd: Path | None = None) -> ShimSpec:
    """The mounts, user and workdir for the runner's JVM in `image`."""
    env = os.environ if env is None else env
    from pyflink.find_flink_home import _find_flink_home

    flink_home = Path(os.path.realpath(_find_flink_home()))
    mounts: dict[str, bool] = {str(flink_home): True}  # jars, config.yaml, log4j-cli.properties: read-only
    for path in flink_dirs(env).values():
        if os.path.isdir(path) and not _inside(Path(path), flink_home):
            mounts.setdefault(path, True)
    writable = [settings.state_dir, settings.workspace_root, settings.data_dir]
    if env.get("FLINK_LOG_DIR"):
        writable.append(Path(env["FLINK_LOG_DIR"]))
    # The host JVM's cwd is the shell's: relative COMPILE PLAN paths land there. Mounted only under the home or
    # temp dir: a cwd like /usr would hide the image's own files.
    cwd = Path.cwd() if cwd is None else cwd
    home = Path(env.get("HOME") or Path.home())
    if cwd != Path("/") and any(_inside(cwd, p) for p in (home, Path(tempfile.gettempdir()))) \
            and home != Path("/"):
        writable.append(cwd)
    for path in writable:
        if path.is_dir():
            mounts[str(path.resolve())] = False
    workdir = None
    if any(_inside(cwd.resolve(), Path(p)) for p in mounts):
        workdir = str(cwd.resolve())
    elif settings.workspace_root.is_dir():
        workdir = str(settings.workspace_root.resolve())
    return ShimSpec(
        docker=docker, image=image, user=f"{os.getuid()}:{os.getgid()}",
        mounts=sorted(mounts.items()), workdir=workdir,
        labels={LABEL_CLIENT: CLIENT_VALUE, LABEL_CLIENT_PID: str(os.getpid())},
    )


def shim_text(spec: ShimSpec) -> str:
    """The `java` shim: POSIX sh that execs `docker run` with the JVM's arguments."""
    q = shlex.quote
    args = [f"{q(spec.docker)} run --rm -i --init --network host --user {q(spec.user)}"]
    args += [f"--label {q(f'{k}={v}')}" for k, v in sorted(spec.labels.items())]
    args += [f"--volume {q(f'{path}:{path}:' + ('ro' if ro else 'rw'))}" for path, ro in spec.mounts]
    # The connection-info file's dir is made by PyFlink just before it starts java: known only now.
    args.append('${conn_dir:+"--volume=$conn_dir:$conn_dir:rw"}')
    if spec.workdir:
        args.append(f"--workdir {q(spec.workdir)}")
    args.append(" ".join(f"--env {name}" for name in spec.env_names))  # a name alone passes its value, if set
    inner = q('trap "" INT; exec java "$@"')
    args.append(f'--entrypoint sh {q(spec.image)} -c {inner} java "$@"')
    body = " \\\n  ".join(args)
    return (
        "#!/bin/sh\n"
        "# Written by flinklab (rewritten at every runner start): this host has no Java, so PyFlink's gateway\n"
        "# JVM runs in a container of the Flink image. See flinklab/gateway/java_shim.py.\n"
        "conn_dir=\n"
        # no `dirname`: the JVM's PATH may hold nothing
        'if [ -n "${_PYFLINK_CONN_INFO_PATH:-}" ]; then conn_dir=${_PYFLINK_CONN_INFO_PATH%/*}; fi\n'
        f"exec {body}\n"
    )


def write_shim(settings: Settings, spec: ShimSpec) -> Path:
    """Write `state_dir/java-shim/bin/java`; return the dir to use as JAVA_HOME."""
    java_home = settings.state_dir / SHIM_DIR
    java = java_home / "bin" / "java"
    java.parent.mkdir(parents=True, exist_ok=True)
    tmp = java.with_name(f".java.{os.getpid()}")
    tmp.write_text(shim_text(spec))
    tmp.chmod(0o755)
    tmp.replace(java)  # atomic: another runner may be starting from the same state dir
    return java_home


def gateway_java_home(settings: Settings, env: Mapping[str, str] | None = None,
                      image: Callable[[], str] | None = None) -> Path | None:
    """None when the host has Java; else the JAVA_HOME of a freshly written container shim running the image
    `image()` names (the running cluster's, which is present: the caller knows it; asked only here), else the
    settings' image.

    Raises FlinklabError (one line) when there is neither Java nor an answering Docker engine with the image.
    """
    env = os.environ if env is None else env
    if host_java(env) is not None:
        return None
    docker = docker_cli(env)
    if docker is None:
        raise FlinklabError("No Java to run the SQL gateway, and no Docker either.", NO_JAVA_HINT)
    try:
        version = _docker(docker, "version", "--format", "{{.Server.Version}}")
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FlinklabError(f"No Java to run the SQL gateway, and docker fails ({exc}).", NO_JAVA_HINT) from None
    if version.returncode != 0:
        why = first_line(version.stderr) or f"exit status {version.returncode}"
        raise FlinklabError(f"No Java to run the SQL gateway, and the Docker engine does not answer ({why}).",
                            NO_JAVA_HINT)
    image_name = image() if image is not None else settings.image
    if _docker(docker, "image", "inspect", "--format", "{{.Id}}", image_name).returncode != 0:
        raise FlinklabError(
            f"No Java on this host, and the SQL gateway's image {image_name} is not present.",
            f"Start the cluster with `flink-up --backend docker` (it pulls the image), or `docker pull {image_name}`.",
        )
    return write_shim(settings, shim_spec(settings, docker, image_name, env))
