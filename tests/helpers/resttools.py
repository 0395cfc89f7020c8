"""A jar upload on a cluster's REST port, for the live tests of every backend (the cluster must refuse it)."""

from __future__ import annotations

import io
import zipfile

import httpx

#: What Flink 2.2.1 answers `POST /jars/upload` with `web.submit.enable: false` (measured; with the default it
#: answers 200 {"filename": ".../flink-web-upload/<uuid>_tiny.jar", "status": "success"}).
REFUSED_UPLOAD = (400, {"errors": ["POST request not allowed"]})


def tiny_jar() -> bytes:
    """A real, minimal jar: a zip with a manifest and one class-less entry."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nCreated-By: flinklab tests\r\n\r\n")
        jar.writestr("hello.txt", "hello\n")
    return buffer.getvalue()


def upload_jar(rest_url: str) -> httpx.Response:
    """`POST /jars/upload` as the Web UI's "Submit New Job" page sends it (multipart, field `jarfile`)."""
    files = {"jarfile": ("tiny.jar", tiny_jar(), "application/x-java-archive")}
    return httpx.post(f"{rest_url}/jars/upload", files=files, timeout=30.0)
