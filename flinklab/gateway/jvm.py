"""The gateway's JVM: PyFlink's py4j gateway, plus two small Java helpers compiled inside it.

The helpers (FlinklabHelpers.java) are compiled by Janino, which flink-table-runtime ships, so neither a JDK nor a
jar of ours is needed: a per-session planner thread (FlinklabWorker), a row pump that turns result rows into
JSON lines on a Java thread (FlinklabRowPump), so a page of rows costs one py4j call, not several per row, and a
JobClient that shares one REST client per cluster (FlinklabExecutors, FlinklabJobClient).
"""

from __future__ import annotations

import contextlib
import os
import threading
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

from flinklab.errors import FlinklabError
from flinklab.settings import Settings
from flinklab.text import first_line

_HELPERS_SOURCE = Path(__file__).with_name("FlinklabHelpers.java")
_OPS = "org.apache.flink.table.operations."


def launch_gateway(settings: Settings, image: Callable[[], str] | None = None) -> Any:
    """PyFlink's gateway JVM (one per process); its log goes to the state dir, not into site-packages.

    Without Java on the host, the JVM runs in a container of the Flink image (java_shim; the image `image()`
    names, asked only then, default the settings' one): a machine with only Docker can do the labs. A JVM that
    cannot start is one FlinklabError line, not PyFlink's RuntimeError.
    """
    from pyflink import java_gateway

    from flinklab.gateway.java_shim import gateway_java_home

    if java_gateway._gateway is not None or "PYFLINK_GATEWAY_PORT" in os.environ:
        return java_gateway.get_gateway()  # a JVM is already there: nothing to find or write
    java_home = gateway_java_home(settings, image=image)
    # PyFlink copies os.environ for the JVM when it launches; all three go back after (a JVM_ARGS left in this
    # process would reach Flink's scripts: a local cluster started from it would get the gateway's options; a
    # FLINK_LOG_DIR would send a gateway process started from it to this state dir's logs)
    saved = {name: os.environ.get(name) for name in ("JAVA_HOME", "JVM_ARGS", "FLINK_LOG_DIR")}
    if "FLINK_LOG_DIR" not in os.environ:
        log_dir = settings.state_dir / "client-logs"
        with contextlib.suppress(OSError):  # PyFlink then logs into its own dir
            log_dir.mkdir(parents=True, exist_ok=True)
            os.environ["FLINK_LOG_DIR"] = str(log_dir)
    os.environ.setdefault("JVM_ARGS", settings.gateway_jvm_args)  # read by PyFlink's launcher
    if java_home is not None:
        os.environ["JAVA_HOME"] = str(java_home)
    try:
        return java_gateway.get_gateway()
    except RuntimeError as exc:  # "Java gateway process exited before sending its port number.\nStderr:..."
        where = "in its container" if java_home is not None else "on this host"
        why = first_line("\n".join(str(exc).splitlines()[2:])) or "no reason printed"
        raise FlinklabError(f"The SQL gateway's JVM did not start {where}: {why}",
                            f"Logs: {os.environ.get('FLINK_LOG_DIR', settings.state_dir)}") from None
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


_LOADER_ATTR = "_flinklab_helpers_loader"
_LOADER_LOCK = threading.Lock()  # two services on one JVM compile the helpers once


class Jvm:
    """The py4j gateway and the compiled helper classes; safe to use from many threads."""

    def __init__(self, gateway: Any):
        self.gateway = gateway
        self.jvm = gateway.jvm
        self._classes: dict[str, Any] = {}
        self._lock = threading.Lock()

    @property
    def _helpers_loader(self) -> Any:
        """The class loader of the compiled helpers: one per JVM, kept on its py4j gateway. py4j caches a
        method by its class's name, so a second loader's FlinklabWorker would be handed the first one's methods
        ("object is not an instance of declaring class") when two services share a JVM (the test process)."""
        with _LOADER_LOCK:
            return self._shared_loader()

    def _shared_loader(self) -> Any:
        loader = vars(self.gateway).get(_LOADER_ATTR)  # not getattr: py4j's gateway answers any name
        if loader is None:
            compiler = self.jvm.org.codehaus.janino.SimpleCompiler()
            compiler.setParentClassLoader(self.jvm.java.lang.Thread.currentThread().getContextClassLoader())
            compiler.setTargetVersion(8)  # static interface methods (TableEnvironment.create)
            compiler.cook(_HELPERS_SOURCE.read_text(encoding="utf-8"))
            loader = compiler.getClassLoader()
            setattr(self.gateway, _LOADER_ATTR, loader)
            self._no_delay(loader)
        return loader

    def _no_delay(self, loader: Any) -> None:
        """TCP_NODELAY on the py4j server's connections (FlinklabNoDelay): an answer over 8 KB took 44 ms.
        The class comes from `loader` itself: java_class would take the locks its caller holds."""
        self._construct(loader.loadClass("FlinklabNoDelay")).install(self.gateway.java_gateway_server)

    def java_class(self, name: str) -> Any:
        """A Java Class object (ours or Flink's), looked up once."""
        with self._lock:
            if name not in self._classes:
                if name.startswith("Flinklab"):
                    self._classes[name] = self._helpers_loader.loadClass(name)
                else:
                    self._classes[name] = self.jvm.java.lang.Class.forName(name)
            return self._classes[name]

    def new(self, class_name: str, *args: Any) -> Any:
        """An instance of one of the helper classes (their only public constructor)."""
        return self._construct(self.java_class(class_name), *args)

    def _construct(self, cls: Any, *args: Any) -> Any:
        ctor = cls.getDeclaredConstructors()[0]
        ctor.setAccessible(True)
        array = self.gateway.new_array(self.jvm.java.lang.Object, len(args))
        for i, arg in enumerate(args):
            array[i] = arg
        return ctor.newInstance(array)

    def is_operation(self, obj: Any, class_name: str) -> bool:
        """`obj instanceof org.apache.flink.table.operations.<class_name>` (PyFlink's py4j is shaded, so py4j's
        own is_instance_of cannot find its helper class)."""
        return bool(self.java_class(_OPS + class_name).isInstance(obj))

    def worker(self, name: str) -> Any:
        return self.new("FlinklabWorker", name)

    @cached_property
    def _row_pumps(self) -> Any:
        return self.new("FlinklabRowPumps")

    def row_pump(self, result: Any) -> Any:
        """A started FlinklabRowPump over a TableResultInternal's rows (one py4j call)."""
        return self._row_pumps.start(result)

    def stringify(self, throwable: Any) -> str:
        """The Java stack trace text of `throwable` (with its causes), as Flink's REST handlers print it."""
        return str(self.jvm.org.apache.flink.util.ExceptionUtils.stringifyException(throwable))

    def shutdown(self) -> None:
        from pyflink import java_gateway

        with contextlib.suppress(Exception):
            self.gateway.shutdown()
        java_gateway._gateway = None
