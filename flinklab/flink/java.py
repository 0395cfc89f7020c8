"""The one Java lookup: which `java` a Flink JVM would start, and whether it is new enough for the cluster.

Flink's scripts and PyFlink's launcher look in the same order: a configured java home (PyFlink reads Flink's
`env.java.home` from the distribution's config.yaml), else $JAVA_HOME, else `java` on PATH. :func:`locate_java`
is that order; :func:`find_java` adds the version check the cluster needs, :func:`host_java` the configured home
PyFlink's gateway JVM honours.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from flinklab.errors import ClusterError
from flinklab.version import FLINK_VERSION

MIN_JAVA = 11
#: The first Java with `VM.cds dynamic_dump` (the gateway's class-data archive: flinklab.gateway.jvm_archive)
MIN_DYNAMIC_CDS_JAVA = 17


def locate_java(env: Mapping[str, str] | None = None, java_home: str | None = None) -> str | None:
    """The java a launcher would start: `java_home` (a configured one), else $JAVA_HOME, else `java` on PATH;
    None when the chosen one is not executable or none is found (a set JAVA_HOME is never passed over)."""
    env = os.environ if env is None else env
    home = java_home if java_home is not None else env.get("JAVA_HOME") or None
    if home is not None:
        java = os.path.join(home, "bin", "java")
        return java if os.access(java, os.X_OK) else None
    return shutil.which("java", path=env.get("PATH", os.defpath))


def find_java(env: Mapping[str, str] | None = None) -> tuple[str, int]:
    """(java executable, major version); honours JAVA_HOME like Flink's scripts do. ClusterError when unusable."""
    env = dict(os.environ if env is None else env)
    java = locate_java(env)
    if java is None:
        java_home = env.get("JAVA_HOME")
        if java_home:
            raise ClusterError(f"JAVA_HOME={java_home} has no bin/java.",
                               "Point JAVA_HOME at a Java 17 installation, or unset it to use `java` from PATH.")
        raise ClusterError("Java is not installed (no `java` on PATH, JAVA_HOME unset).",
                           "Install Java 17 (e.g. `apt-get install openjdk-17-jre-headless`) or set JAVA_HOME.")
    try:
        major = java_major(java)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ClusterError(f"Could not run {java} -version: {exc}.", "Check the Java installation.") from None
    if major is None:
        raise ClusterError(f"Could not tell the version of {java}.", "Install Java 17 and set JAVA_HOME to it.")
    if major < MIN_JAVA:
        raise ClusterError(f"Java {major} at {java} is too old: Flink {FLINK_VERSION} needs Java 11 or newer.",
                           "Install Java 17 and set JAVA_HOME to it.")
    return java, major


def host_java(env: Mapping[str, str] | None = None) -> str | None:
    """The java PyFlink would start, if it exists: Flink's `env.java.home`, else $JAVA_HOME, else `java` on PATH.

    Mirrors pyflink_gateway_server.find_java_executable, which reads os.environ instead of `env`.
    """
    from pyflink.find_flink_home import _find_flink_home
    from pyflink.pyflink_gateway_server import KEY_ENV_JAVA_HOME, read_from_config

    configured = read_from_config(KEY_ENV_JAVA_HOME, None, os.path.join(_find_flink_home(), "conf"))
    return locate_java(env, configured)


def java_major(java: str) -> int | None:
    """`java`'s major version: from its JDK's `release` file (no JVM start), else `java -version`; None when
    neither tells. OSError or TimeoutExpired when `java -version` cannot run."""
    major = _release_major(java)
    if major is None:
        proc = subprocess.run([java, "-version"], check=False, capture_output=True, text=True, timeout=30)
        major = parse_java_major(proc.stderr + proc.stdout)
    return major


def _release_major(java: str) -> int | None:
    """The major version in the `release` file of the JDK `java` belongs to (JAVA_VERSION="17.0.15"), if any."""
    try:
        text = (Path(os.path.realpath(java)).parent.parent / "release").read_text(errors="replace")
    except OSError:
        return None
    m = re.search(r'^JAVA_VERSION="(\d+)(?:\.(\d+))?', text, re.MULTILINE)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major


def parse_java_major(version_output: str) -> int | None:
    """`openjdk version "17.0.15"` -> 17; `java version "1.8.0_392"` -> 8."""
    m = re.search(r'version "(\d+)(?:\.(\d+))?', version_output)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major


def java_env(java: str) -> dict[str, str]:
    """The environment for Flink's scripts: ours, with JAVA_HOME pointing at the java we checked when unset."""
    env = dict(os.environ)
    env.setdefault("JAVA_HOME", str(Path(os.path.realpath(java)).parent.parent))
    return env
