"""Class-data sharing for the local backend's JVMs: an archive of the classes a JobManager or TaskManager loads.

A Flink JVM spends most of its start loading and verifying some ten thousand classes from the jars in lib/. A CDS
archive holds them pre-parsed, and the JVM maps it instead. There is one archive per kind of JVM (JobManager,
TaskManager) in `state_dir/local/cds/`, named after what it depends on (the java, its JDK's module image, the
Flink distribution), so a JDK or Flink upgrade starts a new one instead of using a stale one.

How an archive comes to be (a static archive: any Java from 11 on, nothing written while a JVM stops):
1. a start without an archive has one JVM of each kind list the classes it loads (`-XX:DumpLoadedClassList`);
   the JVM goes on listing while it runs, so the list grows by what its jobs load (tasks, operators, the network
   stack, the table runtime: most of what makes a first job on a new TaskManager slow);
2. once the cluster is ready, `start_dump` starts a background dumper that waits until the list has stopped
   growing for LIST_QUIET seconds (flink-up's warm-up jobs have run by then: their classes are in it), then runs
   `java -Xshare:dump` on a copy of it at the lowest priority (nice 19, and the idle I/O class where there is
   ionice), with the JVM's own classpath; it writes `KIND-KEY.jsa.tmp`, renames it when complete (a start only ever
   sees a whole archive) and removes the list;
3. every later start maps it (`-XX:SharedArchiveFile`). A dump that failed leaves its log (`KIND-KEY.log`) and no
   archive: the next start lists and dumps again. `flink-down` ends a dumper still waiting or dumping
   (`stop_dumps`): it leaves no process behind, and the next start lists again.

The options travel in FLINK_ENV_JAVA_OPTS_JM / _TM (the scripts' per-component options), not in config.yaml.
Deleting the cds dir resets it.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

from flinklab.flink.cds_names import SAFE_PATH, archive_path
from flinklab.flink.procs import find_processes, process_args
from flinklab.flink.waiting import Wait
from flinklab.settings import QUICK_JIT

__all__ = ["archive_path", "cds_options", "class_list", "dumps_underway", "start_dump", "stop_dumps"]


def class_list(archive: Path) -> Path:
    """Where the JVM that records lists the classes it loads."""
    return archive.with_suffix(".classlist")


def cds_options(archive: Path, java_major: int, record: bool) -> str:
    """The JVM options that map `archive` or (when `record`, and there is none yet) list the classes to put in it;
    '' otherwise, and when the path cannot pass through Flink's scripts."""
    if java_major < 11 or not SAFE_PATH.match(str(archive)):
        return ""
    if archive.is_file():
        return f"-XX:SharedArchiveFile={archive}"
    return f"-XX:DumpLoadedClassList={class_list(archive)}" if record else ""


#: Seconds the class list must stay the same size before the dumper dumps it (the cluster is idle: its start and
#: flink-up's warm-up jobs are over)
LIST_QUIET = 5


def start_dump(archive: Path, java: str, argv: list[str]) -> bool:
    """Start the background dumper of `archive` (step 2 above), with the classpath of `argv` (a JVM of this kind:
    the same classpath); True when one was started. Returns at once."""
    classes = class_list(archive)
    snapshot = classes.with_suffix(".classlist.dump")  # the recording JVM still appends to its list
    if archive.is_file() or not classes.is_file() or "-classpath" not in argv or _dumping(snapshot):
        return False
    classpath = argv[argv.index("-classpath") + 1]
    tmp = archive.with_suffix(".jsa.tmp")
    try:
        snapshot.touch()  # the mark of a dumper at work (_dumping), kept fresh while it waits
    except OSError:
        return False
    # the quick JIT (as the JVMs it serves): a dump is seconds of work, the optimising compiler's cost never pays
    dump = [java, QUICK_JIT, "-Xshare:dump", f"-XX:SharedClassListFile={snapshot}", f"-XX:SharedArchiveFile={tmp}",
            "-classpath", classpath]
    # The lowest CPU priority, and the idle I/O class where there is ionice (Linux): the dump only takes what the
    # learner's queries leave.
    lowest = ["nice", "-n", "19", *(["ionice", "-c", "3"] if shutil.which("ionice") else [])]
    quoted = {name: shlex.quote(str(path)) for name, path in
              (("list", classes), ("snapshot", snapshot), ("tmp", tmp), ("archive", archive))}
    wait = (f"p=-1; while s=$(wc -c < {quoted['list']}) && [ \"$s\" != \"$p\" ]; do p=$s; "
            f"touch {quoted['snapshot']}; sleep {LIST_QUIET}; done")
    command = (f"{wait}; cp {quoted['list']} {quoted['snapshot']} && {shlex.join([*lowest, *dump])} && "
               f"mv -f {quoted['tmp']} {quoted['archive']}; rm -f {quoted['snapshot']} {quoted['list']}")
    with open(archive.with_suffix(".log"), "wb") as log:
        proc = subprocess.Popen(["sh", "-c", command], stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)
    with contextlib.suppress(OSError):
        _dumper_file(archive).write_text(f"{proc.pid}\n")
    return True


def _dumper_file(archive: Path) -> Path:
    return archive.with_suffix(".dumper")


def stop_dumps(cds_dir: Path) -> int:
    """End every dumper of `cds_dir` still waiting or dumping (its whole process group: the shell and its java),
    and remove what it left; how many were ended. A pid is signalled only while its command names this dir."""
    ended = 0
    for marker in cds_dir.glob("*.dumper"):
        try:
            pid = int(marker.read_text().strip())
        except (OSError, ValueError):
            pid = 0
        args = process_args(pid) if pid else None
        if args and args[:2] == ["sh", "-c"] and str(marker.with_suffix(".classlist")) in " ".join(args):
            group = find_processes(lambda each, leader=pid: _pgid(each) == leader)  # the shell, its java or sleep
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
                ended += 1
            Wait("an archive dumper to end", 10).poll(lambda members=group: not any(map(process_args, members)))
        for leftover in (marker, marker.with_suffix(".classlist.dump"), marker.with_suffix(".jsa.tmp")):
            with contextlib.suppress(OSError):
                leftover.unlink()
    return ended


def dumps_underway(cds_dir: Path) -> bool:
    """A dumper of `cds_dir` is waiting or dumping (its snapshot, the mark it keeps fresh, is there and recent)."""
    return any(_dumping(snapshot) for snapshot in cds_dir.glob("*.classlist.dump"))


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def _dumping(snapshot: Path) -> bool:
    """A dump of this archive is underway (its snapshot is there and recent: a killed dump's is not)."""
    try:
        return time.time() - snapshot.stat().st_mtime < 600
    except OSError:
        return False
