"""Class-data sharing for the SQL gateway's JVM: its classes (the planner, Calcite, Janino, py4j, the REST client)
mapped from an archive instead of loaded and verified one by one at every start.

It makes a gateway's start and its first statement markedly faster (scripts/bench.py measures it; the figures are
in docs/performance.md).

The planner comes through Flink's planner loader, a class loader of its own over a jar it unpacks under a new
name at every start, so a static archive made from a class list (what the cluster's JVMs use,
flinklab.cluster.local_cds) cannot hold it. A dynamic archive can (Java 17's `VM.cds dynamic_dump`: it matches
such classes by name and bytes, not by path). So:
1. a gateway that finds no archive starts its JVM with `-XX:+RecordDynamicDumpInfo`;
2. once its warm-ups are over and no statement came for a while (flinklab.environment.serve_gateway
   .dump_when_quiet), that JVM dumps what it loaded (the warm-ups: the planner, job submission and results) into
   `KIND-KEY.jsa.PID` and renames it into place once complete: a start only ever sees a whole archive. That is a
   few seconds' pause of the gateway, once, at a moment nobody waits for it; its stop (flink-down) dumps nothing.
   Where dumps keep being killed (a gateway stopped while dumping), gateways stop recording;
3. every later start maps it (`-XX:SharedArchiveFile`; one that the JVM does not map is removed, and the next
   gateway records anew), and so does the JVM of `sql-client.sh embedded` (a
   JVM for one call, which never records: it would dump seconds of work for a few seconds of use).

The archive lives in the cache dir (`FLINKLAB_CACHE_DIR`, default ~/.cache/flinklab), not a state dir: it depends
only on the java, its JDK, the Flink and the gateway's JVM options, which its name carries, so every state dir
of the user shares it. No archive without a host Java of 17 or newer (the JVM in a container, the java shim,
goes without), or when the path cannot pass PyFlink's launcher. Deleting `cache_dir/cds` resets it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from flinklab.errors import FlinklabError
from flinklab.flink.cds_names import SAFE_PATH, archive_path
from flinklab.flink.java import MIN_DYNAMIC_CDS_JAVA, host_java, java_major
from flinklab.settings import Settings
from flinklab.text import first_line

log = logging.getLogger("flinklab.gateway")

T = TypeVar("T")

#: The JVM option that keeps what a dynamic dump needs (without it `VM.cds dynamic_dump` refuses)
RECORD = "-XX:+RecordDynamicDumpInfo"
#: The archive's warnings (a class it leaves out, say) would go into the gateway's log at every dump and start
QUIET = "-Xlog:cds*=off"


@dataclass(frozen=True)
class GatewayArchive:
    """The gateway JVM's archive: `options` for its JVM, and `path`, to dump into once warm when `record`."""

    path: Path | None
    options: str = ""
    record: bool = False


NONE = GatewayArchive(None)


def _recording(path: Path) -> GatewayArchive:
    """A JVM that records its classes, to dump into `path` once warm."""
    return GatewayArchive(path, f"{RECORD} {QUIET}", record=True)


def gateway_archive(settings: Settings, java: str | None = None) -> GatewayArchive:
    """What the gateway JVM of `settings` maps, or records to dump once warm; NONE when it can have no archive."""
    java = java if java is not None else host_java()
    try:
        major = java_major(java) if java is not None else None
    except (OSError, subprocess.TimeoutExpired):
        major = None
    if java is None or (major or 0) < MIN_DYNAMIC_CDS_JAVA:
        return NONE
    from pyflink.find_flink_home import _find_flink_home

    path = archive_path(settings.cache_dir / "cds", "gateway", java, Path(_find_flink_home()),
                        settings.gateway_jvm_args)
    if not SAFE_PATH.match(str(path)):
        return NONE
    if path.is_file():
        # a damaged archive crashes the JVM as it maps it (the caller then starts again without, discard()): its
        # crash report goes to the gateway's logs, not into the directory flink-up was run from
        logs = settings.state_dir / "logs"
        report = f" -XX:ErrorFile={logs}/gateway-jvm-crash-%p.log" if SAFE_PATH.match(str(logs)) else ""
        return GatewayArchive(path, f"-XX:SharedArchiveFile={path} {QUIET}{report}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return NONE  # an unwritable cache: no archive, as before
    if _killed_dumps(path) >= GIVE_UP_AFTER:
        return NONE  # its dumps never finish before the gateway is stopped here: stop paying for them
    return _recording(path)


#: Dumps killed before they ended (a SIGKILL at flink-down's timeout, on a machine too busy for a nice-19 dump)
#: after which gateways stop recording (delete the cds dir to try again)
GIVE_UP_AFTER = 2


def _killed_dumps(path: Path) -> int:
    """Remove the partial dumps (`NAME.PID`) of gateways that died dumping; how many there have been so far (kept
    in `NAME.killed`)."""
    tally = path.with_name(f"{path.name}.killed")
    try:
        killed = int(tally.read_text().strip() or 0)
    except (OSError, ValueError):
        killed = 0
    found = 0
    for partial in path.parent.glob(f"{path.name}.*"):
        # NAME.PID, and NAME.PID.temp that the JVM itself writes before it renames it to NAME.PID
        pid = partial.name[len(path.name) + 1:].split(".")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            with contextlib.suppress(OSError):
                partial.unlink()
                found += 1
    if found:
        killed += found
        with contextlib.suppress(OSError):
            tally.write_text(f"{killed}\n")
    return killed


def discard(archive: GatewayArchive) -> GatewayArchive:
    """Remove `archive` (a JVM did not start with it); what the next start records instead."""
    if archive.path is not None and not archive.record:
        with contextlib.suppress(OSError):
            archive.path.unlink()
        return _recording(archive.path)
    return NONE


def launched(settings: Settings, start: Callable[[Settings], T], *, record: bool) -> tuple[T, GatewayArchive]:
    """`start(settings)` (a gateway service on a new JVM) with the JVM's archive in its options: mapped when there
    is one, else recorded when `record` (the gateway process, which dumps it once warm: dump()); returns what
    `start` returned and the archive. A JVM that does not start with an archive (a damaged one crashes it as it
    maps it) is started again without it, the archive removed."""
    from pyflink import java_gateway

    # an exported JVM_ARGS is what PyFlink's launcher passes instead of the settings' (flinklab.gateway.jvm)
    archive = NONE if os.environ.get("JVM_ARGS") else gateway_archive(settings)
    if archive.record and not record:
        archive = NONE  # a JVM for one call (`sql-client.sh embedded`) only maps what a gateway process dumped
    try:
        service = start(with_archive(settings, archive))
    except FlinklabError as exc:
        if archive.record or archive.path is None or java_gateway._gateway is not None:
            raise  # not a JVM that failed to start with its archive
        # INFO: a client process without logging set up would print a WARNING into the user's output
        log.info("the JVM did not start with the class-data archive %s (%s): starting again without it",
                 archive.path, first_line(str(exc)))
        discarded = discard(archive)  # the next gateway process records anew
        archive = discarded if record else NONE
        return start(with_archive(settings, archive)), archive
    if archive.path is not None and not archive.record and _mapped(service, archive.path) is False:
        # the JVM turned sharing off without a word (a classpath or JDK that differs from the dump's): the next
        # gateway process records a new one
        log.info("the JVM did not map the class-data archive %s: removed", archive.path)
        discard(archive)
    return service, archive


def _mapped(service: Any, path: Path) -> bool | None:
    """Does the JVM of `service` (a GatewayService) map `path` (its /proc maps)? None when that cannot be told."""
    try:
        pid = int(service.jvm.jvm.java.lang.ProcessHandle.current().pid())
        return str(path) in Path(f"/proc/{pid}/maps").read_text()
    except Exception:  # noqa: BLE001 - no /proc, a JVM in a container: nothing is removed on a guess
        return None


def with_archive(settings: Settings, archive: GatewayArchive) -> Settings:
    """`settings` whose gateway JVM options carry `archive`'s."""
    if not archive.options:
        return settings
    return replace(settings, gateway_jvm_args=f"{settings.gateway_jvm_args} {archive.options}")


def dump(jvm: Any, archive: GatewayArchive) -> bool:
    """Dump the classes `jvm` (a flinklab.gateway.jvm.Jvm started with RECORD) loaded into `archive.path` (the JVM
    pauses meanwhile, then goes on serving: its priority is left as it is); True once the whole archive is in
    place. A failed dump only says so in the log: the next start records again."""
    if not archive.record or archive.path is None or archive.path.is_file():  # another gateway dumped it since
        return False
    tmp = archive.path.with_name(f"{archive.path.name}.{os.getpid()}")
    started = time.monotonic()
    log.info("writing the gateway's class-data archive (the JVM pauses for a few seconds)")
    try:
        said = jvm.new("FlinklabCds").dynamicDump(str(tmp))  # jcmd PID VM.cds dynamic_dump, from inside
        if not tmp.is_file():
            log.info("the gateway's class-data archive was not written: %s", " ".join(str(said).split())[:300])
            return False
        tmp.replace(archive.path)
    except Exception as exc:  # noqa: BLE001 - an archive is a nicety: the gateway stops either way
        log.info("the gateway's class-data archive was not written: %s", first_line(str(exc)) or type(exc).__name__)
        return False
    finally:
        for leftover in (tmp, tmp.with_name(f"{tmp.name}.temp")):  # the JVM's own partial file, if it stopped
            with contextlib.suppress(OSError):
                leftover.unlink()
    log.info("wrote the gateway's class-data archive %s in %.1f s", archive.path, time.monotonic() - started)
    return True
