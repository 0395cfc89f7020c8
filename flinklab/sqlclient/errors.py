"""Turn a failure inside the PyFlink JVM into the text the SQL client prints after `Reason:`.

The client walks the Java exception's cause chain down to the deepest cause that still has a message and
prints `<class>: <message>` (CliStrings.messageError); with `sql-client.verbose` it prints the whole stack.
PyFlink hides the Java exception: for the types it maps (TableException, catalog exceptions) it raises its own
Python exception carrying only text, after handing the Java object to PythonEnvUtils.setPythonException.
"""

from __future__ import annotations

from typing import Any

from py4j.protocol import Py4JError, Py4JJavaError

_ENV_UTILS = "org.apache.flink.client.python.PythonEnvUtils"


def java_throwable(exc: BaseException, gateway: Any) -> Any | None:
    """The Java Throwable behind `exc`, or None when `exc` did not come from the JVM."""
    if isinstance(exc, Py4JJavaError):
        return exc.java_exception
    from pyflink.util.exceptions import JavaException

    if isinstance(exc, JavaException):
        # PyFlink stored the Throwable just before converting it; the field is package-private.
        try:
            field = gateway.jvm.java.lang.Class.forName(_ENV_UTILS).getDeclaredField("capturedJavaException")
            field.setAccessible(True)
            return field.get(None)
        except Py4JError:
            return None
    return None


def root_cause(throwable: Any) -> Any:
    """The deepest cause whose message is not empty (the walk CliStrings.messageError does)."""
    current = throwable
    while True:
        cause = current.getCause()
        if cause is None:
            return current
        message = cause.getMessage()
        if message is None or message == "":
            return current
        current = cause


def error_reason(exc: BaseException, gateway: Any, *, verbose: bool = False) -> str:
    """`<java class>: <message>` of the root cause (the full stack trace when `verbose`)."""
    throwable = java_throwable(exc, gateway) if gateway is not None else None
    if throwable is None:
        if hasattr(exc, "stack_trace"):  # a PyFlink JavaException whose Throwable was not found
            return _reason_from_text(str(exc))
        return f"{type(exc).__module__}.{type(exc).__name__}: {exc}"
    if verbose:
        return str(gateway.jvm.org.apache.flink.util.ExceptionUtils.stringifyException(throwable)).rstrip()
    cause = root_cause(throwable)
    return f"{cause.getClass().getName()}: {cause.getMessage()}"


def _reason_from_text(stack: str) -> str:
    """Fallback: the last `Caused by:` of a printed Java stack trace, up to its first `\\tat` line."""
    block = stack.split("Caused by: ")[-1]
    return block.split("\n\tat ")[0].strip()
