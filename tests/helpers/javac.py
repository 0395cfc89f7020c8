"""The JDK's javac, for the tests that compile a Java class as Flink's own tests do (set.q's LowerUDF in the .q
replay, the local backend's RPC loader against its shipped class file): the javac beside the java that runs Flink,
else one on PATH; classes compiled for Java 11 against the distribution's jars."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from flinklab.cluster.local_config import flink_home
from flinklab.flink.java import host_java


def find_javac() -> str | None:
    """The javac beside the java PyFlink starts (its real path: /usr/bin/java is a link), else `javac` on PATH."""
    java = host_java()
    beside = Path(java).resolve().with_name("javac") if java else None
    return str(beside) if beside is not None and beside.is_file() else shutil.which("javac")


def compile_java(javac: str, source: Path, out_dir: Path) -> subprocess.CompletedProcess[str]:
    """`javac --release 11` of `source` into `out_dir`, against the Flink distribution's lib/ jars."""
    lib = os.pathsep.join(str(jar) for jar in sorted((flink_home() / "lib").glob("*.jar")))
    return subprocess.run([javac, "--release", "11", "-cp", lib, "-d", str(out_dir), str(source)],
                          capture_output=True, text=True, timeout=120, check=False)
