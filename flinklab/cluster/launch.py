"""Replaying the JVM command line Flink's scripts computed, so that a later start skips their helper JVMs.

`jobmanager.sh` / `taskmanager.sh` run two helper JVMs (BashJavaUtils: flatten the config, then derive the memory
flags) before they `exec` the real one: on a 2-core machine that is most of a second or more per component, on the
critical path of every start. What they compute depends only on their inputs (the config, the environment they
are given, the distribution and the java), so the local backend records what they produced, the final argv and the
environment variables they added, from /proc once the cluster is ready, and the next start with the same inputs
runs that JVM directly: the same command the scripts would have run. Anything different (a setting, a Flink or
Java upgrade, a new class-data-sharing archive) is a miss, and the scripts run and are recorded again. A replayed
JVM that fails to start is forgotten, so the next start goes through the scripts.

One record per component (`state_dir/local/launch/<component>.json`); none where there is no /proc.

A start with no record for its inputs (the first in a new state dir, or after a change) need not run the scripts
either: `Composer` builds the command they would compute, as flink-console.sh does (the classpath, the log
settings, the options), with one helper JVM per kind of component instead of three (BashJavaUtils for the memory
flags, run directly and for all the TaskManagers at once). It does so only for the inputs it knows: flinklab's
own config.yaml and an environment with none of the variables the scripts would read (JVM_ARGS, HADOOP_*, ...);
anything else goes through the scripts. A composed JVM that fails to start has the next start go through the
scripts. A live test holds the composed command equal to the scripts' recorded one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import socket
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from flinklab.files import write_atomic
from flinklab.version import FLINK_VERSION

#: The environment variables Flink's scripts read (or might): part of the key. Others (TERM, PWD...) are not.
_KEY_PREFIXES = ("FLINK_", "JVM_ARGS", "JAVA_", "HADOOP_", "HBASE_", "YARN_", "MAX_LOG_FILE_NUMBER", "HOSTNAME")
#: The one config line that changes at every start and that the scripts do not read: the JVM reads it itself.
_VOLATILE = re.compile(r"^jobmanager\.rpc\.port:.*$", re.MULTILINE)


@dataclass
class Launch:
    """A JVM as Flink's scripts started it: argv, the variables they added or changed, where stdout/err went."""

    key: str
    argv: list[str]
    env: dict[str, str]
    out: str
    err: str


def launch_key(component: str, config_text: str, env: dict[str, str], java: str, flink_home: Path) -> str:
    """What the scripts' output depends on, hashed."""
    relevant = sorted((k, v) for k, v in env.items() if k.startswith(_KEY_PREFIXES))
    inputs = [component, _VOLATILE.sub("", config_text), relevant, os.path.realpath(java), str(flink_home),
              FLINK_VERSION]
    return hashlib.sha1(json.dumps(inputs).encode()).hexdigest()


class LaunchCache:
    """Recorded launches in `directory`, one JSON file per component."""

    def __init__(self, directory: Path):
        self.directory = directory

    def _file(self, component: str) -> Path:
        return self.directory / f"{component}.json"

    def get(self, component: str, key: str) -> Launch | None:
        """The recorded launch of `component` when its key is `key` and it still looks runnable, else None."""
        try:
            launch = Launch(**json.loads(self._file(component).read_text()))
        except (OSError, ValueError, TypeError):
            return None
        if launch.key != key or not launch.argv or not os.access(launch.argv[0], os.X_OK):
            return None
        return launch

    def record(self, component: str, key: str, pid: int, given_env: dict[str, str]) -> bool:
        """Record what `pid` (a JVM the scripts exec'd with `given_env`) runs; False when it cannot be read."""
        proc = Path(f"/proc/{pid}")
        try:
            argv = [a.decode() for a in (proc / "cmdline").read_bytes().split(b"\0") if a]
            environ = dict(item.decode().partition("=")[::2]
                           for item in (proc / "environ").read_bytes().split(b"\0") if b"=" in item)
            out, err = os.readlink(proc / "fd" / "1"), os.readlink(proc / "fd" / "2")
        except (OSError, UnicodeDecodeError):
            return False
        if not argv or not argv[0].endswith("java") or not out.startswith("/") or not err.startswith("/"):
            return False  # not (yet) the JVM, or its output is not in files
        added = {k: v for k, v in environ.items() if given_env.get(k) != v}
        launch = Launch(key=key, argv=argv, env=added, out=out, err=err)
        try:
            write_atomic(self._file(component), json.dumps(asdict(launch), indent=1), mkdir=True)
        except OSError:
            return False
        return True

    def forget(self, component: str) -> None:
        with contextlib.suppress(OSError):
            self._file(component).unlink()

    def composed_failed(self, component: str, key: str) -> None:
        """A composed command for `key` did not start: the next start with these inputs runs the scripts."""
        with contextlib.suppress(OSError):
            self.directory.mkdir(parents=True, exist_ok=True)
            self._file(component).with_suffix(".composed-failed").write_text(key)

    def may_compose(self, component: str, key: str) -> bool:
        try:
            return self._file(component).with_suffix(".composed-failed").read_text() != key
        except OSError:
            return True


@dataclass(frozen=True)
class Service:
    """What one of Flink's scripts launches: flink-console.sh's service name, the main class, the BashJavaUtils
    command that derives its memory flags, and the variable of its own JVM options."""

    name: str
    main: str
    params: str
    opts_variable: str


SERVICES = {
    "jobmanager.sh": Service("standalonesession",
                             "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                             "GET_JM_RESOURCE_PARAMS", "FLINK_ENV_JAVA_OPTS_JM"),
    "taskmanager.sh": Service("taskexecutor", "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                              "GET_TM_RESOURCE_PARAMS", "FLINK_ENV_JAVA_OPTS_TM"),
}
#: Variables the scripts read that would make them compute something else than `Composer` (set by the user).
_SCRIPT_INPUTS = ("JVM_ARGS", "FLINK_ENV_JAVA_OPTS", "FLINK_INHERITED_LOGS", "DYNAMIC_PARAMETERS",
                  "MAX_LOG_FILE_NUMBER", "ROOT_LOG_LEVEL", "HADOOP_", "HBASE_", "YARN_", "JAVA_RUN",
                  "_FLINK_HOME_DETERMINED")
#: The distribution's dirs the scripts take from the environment when set (pyflink sets some of them when
#: imported): fine when they are the distribution's own, as Composer has them.
_HOME_DIRS = {"FLINK_BIN_DIR": "bin", "FLINK_LIB_DIR": "lib", "FLINK_OPT_DIR": "opt", "FLINK_PLUGINS_DIR": "plugins"}
#: Directories whose presence config.sh adds to the classpath.
_SCRIPT_DIRS = ("/etc/hadoop/conf", "/etc/hbase/conf")
#: A word `eval echo` in flink-console.sh leaves as it is (no quotes, $, globs or backslashes).
_PLAIN_WORD = re.compile(r"^[\w./:=+,@%-]+$")
_RESULT = "BASH_JAVA_UTILS_EXEC_RESULT:"
#: The helper JVM runs for half a second: no optimising compiler, no parallel GC threads, no perf data file.
_HELPER_OPTS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData"]
_HELPER_TIMEOUT = 120.0  # seconds; it takes under one alone on 2 cores


class Composer:
    """Builds the command Flink's scripts would exec for a component (see the module docstring)."""

    def __init__(self, home: Path, conf_dir: Path, java_major: int):
        self.home, self.conf_dir, self.java_major = home, conf_dir, java_major
        self._params: dict[str, subprocess.Popen] = {}  # BashJavaUtils command -> its run
        self._output: dict[str, list[str] | None] = {}  # BashJavaUtils command -> what it printed (None: failed)

    def usable(self, user_env: dict[str, str], config_text: str) -> bool:
        """Whether the scripts would compute what `compose` does: flinklab's config (no `env.` option but the
        JVM options, all plain words) and no variable of the user's that the scripts read."""
        if any(key.startswith(_SCRIPT_INPUTS) for key in user_env) or any(os.path.isdir(d) for d in _SCRIPT_DIRS):
            return False
        if any(user_env.get(key, str(self.home / sub)) != str(self.home / sub) for key, sub in _HOME_DIRS.items()):
            return False
        for line in config_text.splitlines():
            key, _, value = line.partition(":")
            if key.startswith("env.") and key != "env.java.opts.all":
                return False
            if key == "env.java.opts.all" and not all(_PLAIN_WORD.match(w) for w in _json_str(value).split()):
                return False
        return "env.java.opts.all:" in config_text

    def start_params(self, script: str, env: dict[str, str]) -> None:
        """Start the helper JVM that derives `script`'s memory flags (once: every TaskManager shares them)."""
        command = SERVICES[script].params
        if command in self._params:
            return
        argv = [_java_run(env), *_HELPER_OPTS, "-classpath", f"{self.home / 'bin' / 'bash-java-utils.jar'}:"
                f"{dist_jar(self.home)}", "org.apache.flink.runtime.util.bash.BashJavaUtils", command,
                "--configDir", str(self.conf_dir)]
        self._params[command] = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                                 stderr=subprocess.STDOUT)

    def compose(self, script: str, env: dict[str, str], log_dir: Path, cwd: Path) -> Launch | None:
        """The command, added variables and output files the scripts would give `script`'s JVM in `env`; None
        when the helper JVM failed (the scripts then run, and say why)."""
        service = SERVICES[script]
        lines = self._helper_output(script, env)
        results = [line[len(_RESULT):] for line in lines or () if line.startswith(_RESULT)]
        if lines is None or len(results) != 2:
            return None
        jvm_params, dynamic = results
        logs = "\n".join(line for line in lines if not line.startswith(_RESULT)).rstrip("\n")
        opts = ["-XX:+IgnoreUnrecognizedVMOptions", *self._config_java_opts()]
        if self.java_major > 17:
            opts.append("-Djava.security.manager=allow")
        opts += env.get(service.opts_variable, "").split()
        if not all(_PLAIN_WORD.match(word) for word in opts):
            return None
        ident = env.get("FLINK_IDENT_STRING") or env.get("USER", "")
        prefix = log_dir / f"flink-{ident}-{service.name}-0-{env.get('HOSTNAME') or socket.gethostname()}"
        conf = self.conf_dir
        log_setting = [f"-Dlog.file={prefix}.log", f"-Dlog4j.configuration=file:{conf}/log4j-console.properties",
                       f"-Dlog4j.configurationFile=file:{conf}/log4j-console.properties",
                       f"-Dlogback.configurationFile=file:{conf}/logback-console.xml"]
        if env.get("STD_REDIRECT_TO_FILE") == "true":
            log_setting.insert(0, "-Dconsole.log.level=OFF")
        configdir = ["--configDir", str(conf)]
        args = [*dynamic.split(), *configdir] if script == "jobmanager.sh" else [*configdir, *dynamic.split()]
        java = _java_run(env)
        # as flink-console.sh joins them: lib/'s jars, the SQL gateway's (none here), then HADOOP_CLASSPATH (the
        # local backend's RPC system, local_rpc) and the Hadoop and YARN conf dirs (never set when composing)
        classpath = f"{self._classpath(env)}::{env.get('HADOOP_CLASSPATH', '')}::"
        argv = [java, *jvm_params.split(), *opts, *log_setting, "-classpath", classpath,
                service.main, *args]
        added = {
            **{key: str(self.home / sub) for key, sub in _HOME_DIRS.items()},
            "MAX_LOG_FILE_NUMBER": "10", "ROOT_LOG_LEVEL": "INFO", "JAVA_RUN": java, "PWD": str(cwd),
            "FLINK_ENV_JAVA_OPTS": " ".join(opts), "JVM_ARGS": f" {jvm_params}", "DYNAMIC_PARAMETERS": dynamic,
            "FLINK_INHERITED_LOGS": f"\n\n\nRESOURCE_PARAMS extraction logs:\njvm_params: {jvm_params}\n"
                                    f"dynamic_configs: {dynamic}\nlogs: {logs}\n",
        }
        added = {key: value for key, value in added.items() if env.get(key) != value}  # as `record` has them
        return Launch(key="", argv=argv, env=added, out=f"{prefix}.out", err=f"{prefix}.err")

    def _helper_output(self, script: str, env: dict[str, str]) -> list[str] | None:
        """The lines the helper JVM of `script` printed (the last 1000, as the scripts keep), None if it failed."""
        command = SERVICES[script].params
        if command not in self._output:
            self.start_params(script, env)
            proc = self._params[command]
            try:
                out, _ = proc.communicate(timeout=_HELPER_TIMEOUT)
            except subprocess.TimeoutExpired:  # then the scripts run, and their own helper JVMs say what is wrong
                proc.kill()
                out, _ = proc.communicate()
            ok = proc.returncode == 0
            self._output[command] = out.decode(errors="replace").splitlines()[-1000:] if ok else None
        return self._output[command]

    def close(self) -> None:
        """Reap the helper JVMs nobody asked for (a start that failed before using them)."""
        for command, proc in self._params.items():
            if command not in self._output:
                proc.kill()
                proc.communicate()
        self._params.clear()
        self._output.clear()

    def _config_java_opts(self) -> list[str]:
        try:
            text = (self.conf_dir / "config.yaml").read_text()
        except OSError:
            return []
        for line in text.splitlines():
            key, _, value = line.partition(":")
            if key == "env.java.opts.all":
                return _json_str(value).split()
        return []

    def _classpath(self, env: dict[str, str]) -> str:
        """lib/'s jars in `sort -z` order (the user's locale, as the scripts sort them), flink-dist's last."""
        found = subprocess.run(f"find {shlex.quote(str(self.home / 'lib'))} ! -type d -name '*.jar' -print0 | sort -z",
                               shell=True, env=env, capture_output=True, check=False).stdout
        jars = [j.decode() for j in found.split(b"\0") if j]
        dist = [j for j in jars if re.search(r"/flink-dist[^/]*\.jar$", j)]
        return ":".join([j for j in jars if j not in dist] + dist)


def dist_jar(home: Path) -> Path:
    """The distribution's flink-dist jar (lib/flink-dist*.jar)."""
    jars = sorted((home / "lib").glob("flink-dist*.jar"))
    return jars[0] if jars else home / "lib" / "flink-dist.jar"


def _java_run(env: dict[str, str]) -> str:
    """The java the scripts run: `$JAVA_HOME/bin/java` (flinklab always sets JAVA_HOME)."""
    home = env.get("JAVA_HOME", "")
    return f"{home}/bin/java" if home and os.path.isdir(home) else "java"


def _json_str(value: str) -> str:
    """A config.yaml value as local_config.write_config writes it (a JSON scalar)."""
    try:
        parsed = json.loads(value.strip())
    except ValueError:
        return value.strip()
    return parsed if isinstance(parsed, str) else str(parsed)

