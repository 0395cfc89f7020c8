"""Flink's RPC system on the local JVMs' class path, so that their class-data archives hold it (local_cds).

flink-dist carries its RPC system (Pekko and the Scala library, some 10,000 classes) as a jar inside itself,
`flink-rpc-akka.jar`. At every start Flink's own loader (PekkoRpcSystemLoader) copies that jar out of flink-dist
into the JVM's tmp dir under a new random name and loads its classes through a class loader of their own: each
JobManager and TaskManager inflates 21 MB and parses and verifies some 1,950 classes, and no class-data archive can
hold them, since the path they come from changes at every start.

The local backend extracts the jar once per distribution (into the cache dir) and puts it on its JVMs' class path
through HADOOP_CLASSPATH, which Flink's scripts append to the class path they build, beside a jar holding a loader
of our own (rpc/ClasspathRpcSystemLoader.java), which `RpcSystem.load` asks before Flink's (a lower priority
number) and which finds the RPC system on the class path. The classes then come from the archive like the rest of
Flink's. Measured on 2 cores (4 cold starts each, with the gateway and its warm-ups): the JobManager's CPU to ready
4.9 -> 3.9 s, a TaskManager's 4.4 -> 3.6 s, `flink-up` 10.0 -> 9.2 s.

The RPC jar's Scala library is the one flink-scala's jar holds (2.12.20 in both; the first on the class path wins,
and the classes are the same). Where the files cannot be written, or flink-dist has no RPC jar, nothing is added:
Flink loads its RPC system as it always does (and so it does wherever our loader finds none).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from flinklab.cluster.launch import dist_jar
from flinklab.flink.cds_names import SAFE_PATH

#: The RPC system's jar inside flink-dist (the resource Flink's PekkoRpcSystemLoader reads)
RPC_JAR = "flink-rpc-akka.jar"
#: The loader's jar, written next to the extracted RPC jar
LOADER_JAR = "flinklab-rpc-loader.jar"
#: The compiled loader (from ClasspathRpcSystemLoader.java beside it) and its place in the jar
LOADER_CLASS = Path(__file__).with_name("rpc") / "ClasspathRpcSystemLoader.class"
_LOADER_ENTRY = "org/flinklab/rpc/ClasspathRpcSystemLoader.class"
_SERVICE_ENTRY = "META-INF/services/org.apache.flink.runtime.rpc.RpcSystemLoader"
_SERVICE = "org.flinklab.rpc.ClasspathRpcSystemLoader\n"


def rpc_classpath(home: Path, rpc_dir: Path) -> str:
    """The class path entries (the loader's jar, then the RPC system's) that put the distribution `home`'s RPC
    system on a JVM's class path, written into `rpc_dir` once per flink-dist jar; '' where flink-dist holds no RPC
    jar, the files cannot be written or their path would not pass through Flink's scripts."""
    dist = dist_jar(home)
    try:
        stat = dist.stat()
        key = hashlib.sha1(f"{os.path.realpath(dist)}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:12]
        target = rpc_dir / key
        rpc, loader = target / RPC_JAR, target / LOADER_JAR
        if not SAFE_PATH.match(str(target)):
            return ""
        if not rpc.is_file():
            with zipfile.ZipFile(dist) as jar:
                if RPC_JAR not in jar.namelist():
                    return ""
                target.mkdir(parents=True, exist_ok=True)
                with jar.open(RPC_JAR) as inner:
                    _write_whole(rpc, lambda out: shutil.copyfileobj(inner, out, 1 << 20))
        if not loader.is_file():  # the RPC jar's dir is there by now
            _write_whole(loader, _write_loader_jar)
    except (OSError, zipfile.BadZipFile):
        return ""
    return f"{loader}:{rpc}"


def _write_loader_jar(out: IO[bytes]) -> None:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n\n")
        jar.writestr(_SERVICE_ENTRY, _SERVICE)
        jar.writestr(_LOADER_ENTRY, LOADER_CLASS.read_bytes())


def _write_whole(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write `path` through a temporary file renamed into place: a JVM (or a second flink-up) sees all or none."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as out:
            write(out)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
