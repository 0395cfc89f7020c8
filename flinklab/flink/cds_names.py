"""What a class-data-sharing archive is named after, shared by the cluster's JVMs (flinklab.cluster.local_cds) and the
SQL gateway's (flinklab.gateway.jvm_archive): a JVM maps an archive only when it was made by the same java, its JDK's
module image and the same Flink, so the name carries all three and an upgrade starts a new archive instead of
meeting a stale one.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from flinklab.version import FLINK_VERSION

#: Paths that pass through a launcher's word splitting (Flink's scripts `eval echo` them unquoted, PyFlink's
#: launcher splits JVM_ARGS at spaces): anything else (spaces, $, quotes) goes without an archive.
SAFE_PATH = re.compile(r"^[\w./+-]+$")


def archive_path(cds_dir: Path, kind: str, java: str, flink_home: Path, extra: str = "") -> Path:
    """`cds_dir/KIND-KEY.jsa`, KEY naming the java binary, its JDK's module image, the Flink distribution and
    `extra` (what else the archive depends on: the JVM's options, say)."""
    real = os.path.realpath(java)
    modules = Path(real).parent.parent / "lib" / "modules"
    try:
        stamp = f"{modules.stat().st_mtime_ns}:{modules.stat().st_size}"
    except OSError:
        stamp = "-"
    key = f"{real}|{stamp}|{flink_home}|{FLINK_VERSION}" + (f"|{extra}" if extra else "")
    return cds_dir / f"{kind}-{hashlib.sha1(key.encode()).hexdigest()[:12]}.jsa"
