"""Class-data sharing for the local backend's JVMs: an archive of the classes a JobManager or TaskManager loads.

A Flink JVM spends most of its start loading and verifying some ten thousand classes from the jars in lib/. A CDS
archive holds them pre-parsed, and the JVM maps it instead. There is one archive per kind of JVM (JobManager,
TaskManager) in `state_dir/local/cds/`, named after what it depends on (the java, its JDK's module image, the
Flink distribution), so a JDK or Flink upgrade starts a new one instead of using a stale one.

How an archive comes to be (a static archive: any Java from 11 on, nothing written while a JVM stops):
1. a start without an archive has one JVM of each kind list the classes it loads (`-XX:DumpLoadedClassList`);
   the JVM goes on listing while it runs, so the list grows by what its jobs load (tasks, operators, the network
   stack, the table runtime: most of what makes a first job on a new TaskManager slow);
2. once the cluster is ready, `start_dump` runs `java -Xshare:dump` on a copy of that list in the background, at
   the lowest priority (nice 19, and the idle I/O class where there is ionice), with the JVM's own classpath; it
   writes `KIND-KEY.jsa.tmp` and renames it when complete, so a start only ever sees a whole archive;
3. when that cluster stops (`flink-down`), `start_dump(..., again=True)` dumps the archive once more from the
   whole list (what every job of that session loaded), then removes the list: the archives of the next starts
   hold the classes of a first job too (which makes the first query after a cold start much faster: the figures
   are in docs/performance.md);
4. every later start maps it (`-XX:SharedArchiveFile`). A dump that failed leaves its log (`KIND-KEY.log`) and no
   archive: the next start lists and dumps again.

The options travel in FLINK_ENV_JAVA_OPTS_JM / _TM (the scripts' per-component options), not in config.yaml.
Deleting the cds dir resets it.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from pathlib import Path

from flinklab.flink.cds_names import SAFE_PATH, archive_path
from flinklab.settings import QUICK_JIT

__all__ = ["archive_path", "cds_options", "class_list", "start_dump"]


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


def start_dump(archive: Path, java: str, argv: list[str], again: bool = False) -> bool:
    """Dump `archive` in the background from its class list, with the classpath of `argv` (a JVM of this kind:
    the same classpath); True when a dump was started. Returns at once: the dump runs at the lowest priority.
    The first dump (cluster ready) keeps the list, which its JVM goes on writing; `again` (the cluster stopping)
    dumps over the archive from the whole list and removes the list."""
    classes = class_list(archive)
    snapshot = classes.with_suffix(".classlist.dump")  # the recording JVM still appends to its list
    if (archive.is_file() and not again) or not classes.is_file() or "-classpath" not in argv \
            or _dumping(snapshot):
        return False
    classpath = argv[argv.index("-classpath") + 1]
    tmp = archive.with_suffix(".jsa.tmp")
    try:
        snapshot.write_bytes(classes.read_bytes())
    except OSError:
        return False
    # the quick JIT (as the JVMs it serves): a dump is seconds of work, the optimising compiler's cost never pays
    dump = [java, QUICK_JIT, "-Xshare:dump", f"-XX:SharedClassListFile={snapshot}", f"-XX:SharedArchiveFile={tmp}",
            "-classpath", classpath]
    # The lowest CPU priority, and the idle I/O class where there is ionice (Linux): the cluster is ready and its
    # first queries come now; the dump only takes what they leave.
    lowest = ["nice", "-n", "19", *(["ionice", "-c", "3"] if shutil.which("ionice") else [])]
    done = [str(snapshot), *([str(classes)] if again else [])]
    command = f"{shlex.join([*lowest, *dump])} && mv -f {shlex.quote(str(tmp))} " \
              f"{shlex.quote(str(archive))}; {shlex.join(['rm', '-f', *done])}"
    with open(archive.with_suffix(".log"), "wb") as log:
        subprocess.Popen(["sh", "-c", command], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True, close_fds=True)
    return True


def _dumping(snapshot: Path) -> bool:
    """A dump of this archive is underway (its snapshot is there and recent: a killed dump's is not)."""
    try:
        return time.time() - snapshot.stat().st_mtime < 600
    except OSError:
        return False
