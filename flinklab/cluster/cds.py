"""Class-data sharing for the local backend's JVMs: an archive of the classes a JobManager or TaskManager loads.

A Flink JVM spends most of its start loading and verifying some ten thousand classes from the jars in lib/. A
dynamic CDS archive holds them pre-parsed, and the JVM maps it instead. There is one archive per kind of JVM
(JobManager, TaskManager) in `state_dir/local/cds/`, named after what it depends on (the java, its JDK's module
image, the Flink distribution), so a JDK or Flink upgrade starts a new one instead of using a stale one (the JVM
would ignore it, with a warning in the component's .out file).

- Java 19 and newer keep the archive themselves (`-XX:+AutoCreateSharedArchive`).
- Java 13 to 18: the archive is mapped when it exists; otherwise one JVM of each kind records it when it exits
  (`-XX:ArchiveClassesAtExit`, written at `flink-down`), so every later start maps it.
- Java 11 and 12 have no dynamic archives: no options.

The options travel in FLINK_ENV_JAVA_OPTS_JM / _TM (the scripts' per-component options), not in config.yaml.
Deleting the cds dir resets it.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from flinklab.version import FLINK_VERSION

#: Paths the scripts pass through `eval echo` unquoted: anything else (spaces, $, quotes) goes without an archive.
_SAFE_PATH = re.compile(r"^[\w./+-]+$")


def archive_path(cds_dir: Path, kind: str, java: str, flink_home: Path) -> Path:
    """`cds_dir/KIND-KEY.jsa`, KEY naming the java binary, its JDK's module image and the Flink distribution."""
    real = os.path.realpath(java)
    modules = Path(real).parent.parent / "lib" / "modules"
    try:
        stamp = f"{modules.stat().st_mtime_ns}:{modules.stat().st_size}"
    except OSError:
        stamp = "-"
    key = hashlib.sha1(f"{real}|{stamp}|{flink_home}|{FLINK_VERSION}".encode()).hexdigest()[:12]
    return cds_dir / f"{kind}-{key}.jsa"


def cds_options(archive: Path, java_major: int, record: bool) -> str:
    """The JVM options that map `archive`, or (`record`, Java 13-18, no archive yet) write it at exit; '' when
    this Java has no dynamic archives or the path cannot pass through Flink's scripts."""
    if java_major < 13 or not _SAFE_PATH.match(str(archive)):
        return ""
    if java_major >= 19:
        return f"-XX:SharedArchiveFile={archive} -XX:+AutoCreateSharedArchive"
    if archive.is_file() and archive.stat().st_size > 0:
        return f"-XX:SharedArchiveFile={archive}"
    return f"-XX:ArchiveClassesAtExit={archive}" if record else ""
