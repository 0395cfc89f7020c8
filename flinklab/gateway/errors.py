"""A failure inside the gateway's JVM as the text Flink's REST API returns: the Java stack trace with its causes.

PyFlink hides the Java exception: for the types it maps (TableException, catalog exceptions) it raises its own
Python exception carrying only text, after handing the Java object to PythonEnvUtils.setPythonException.
"""

from __future__ import annotations

from typing import Any

from py4j.protocol import Py4JError, Py4JJavaError

from flinklab.gateway.jvm import Jvm

_ENV_UTILS = "org.apache.flink.client.python.PythonEnvUtils"


def java_throwable(exc: BaseException, jvm: Jvm) -> Any | None:
    """The Java Throwable behind `exc`, or None when `exc` did not come from the JVM."""
    if isinstance(exc, Py4JJavaError):
        return exc.java_exception
    from pyflink.util.exceptions import JavaException

    if isinstance(exc, JavaException):
        # PyFlink stored the Throwable just before converting it; the field is package-private.
        try:
            field = jvm.jvm.java.lang.Class.forName(_ENV_UTILS).getDeclaredField("capturedJavaException")
            field.setAccessible(True)
            return field.get(None)
        except Py4JError:
            return None
    if _is_java_object(exc):
        return exc
    return None


def _is_java_object(obj: Any) -> bool:
    return type(obj).__name__ == "JavaObject"


def error_text(jvm: Jvm, exc: Any) -> str:
    """The stack trace text of what went wrong (a Java Throwable, or a Python exception from the gateway)."""
    from flinklab.gateway.jobs import ClusterActionError
    from flinklab.gateway.session import SetRejected, StatementError

    if isinstance(exc, (StatementError, ClusterActionError)):
        return with_gateway_frames(jvm, exc.text())
    if isinstance(exc, SetRejected):
        return f"{SQL_EXECUTION_EXCEPTION}: {exc.message}\nCaused by: {error_text(jvm, exc.cause)}"
    throwable = exc if _is_java_object(exc) else java_throwable(exc, jvm)
    if throwable is None:
        if hasattr(exc, "stack_trace"):  # a PyFlink JavaException whose Throwable was not found
            return str(exc)
        return f"{type(exc).__module__}.{type(exc).__name__}: {exc}"
    return jvm.stringify(throwable).rstrip()


def with_gateway_frames(jvm: Jvm, chain: str) -> str:
    """`chain` (exceptions the gateway raises itself, `Caused by:`-joined) with real frames under its root cause
    when it has none: those of a Throwable made in the gateway's JVM as the error is raised (the py4j call that
    raised it), so that the root reads as Java prints one. Flink's clients take the root cause's text up to its
    first frame; without one they would print the REST body's closing `End of exception on server side>` too."""
    if "\n\tat " in chain.split("\nCaused by: ")[-1]:
        return chain
    frames = jvm.stringify(jvm.jvm.java.lang.Throwable()).partition("\n")[2].rstrip()
    return f"{chain}\n{frames}" if frames else chain


SQL_GATEWAY_EXCEPTION = "org.apache.flink.table.gateway.api.utils.SqlGatewayException"
SQL_EXECUTION_EXCEPTION = "org.apache.flink.table.gateway.service.utils.SqlExecutionException"


def wrapped(cause: str, *layers: str) -> str:
    """`cause` (a stack trace text) under the outer exceptions `layers` (`<class>: <message>`, outermost first),
    as Java prints a cause chain. The layers the gateway adds itself have no frames (Java prints a throwable without
    a stack trace so), never made-up ones: a reader that takes the text after the last `Caused by: ` up to its first
    `\\tat ` (Flink's SQL client does) still finds the root cause, nothing else."""
    return "\nCaused by: ".join([*layers, cause])
