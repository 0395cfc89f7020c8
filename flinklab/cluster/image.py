"""Build the offline stand-in for the official Flink image, for machines that reach no container registry.

Two cached layers, each tagged by a hash of its inputs so a rebuild with the same inputs is a no-op:

1. a base: `debootstrap --variant=minbase` of Debian bookworm with a Java 17 JRE, gettext-base (envsubst), procps
   and wget, tarred once into the cache dir and `docker import`-ed as `flinklab/debian-jre17:bookworm-<hash>`;
2. the image: `image_files/Dockerfile.offline` FROM that base (local, so nothing is pulled) plus the Flink
   distribution of the installed PyPI wheel (`pyflink/{bin,lib,opt,conf,plugins,log}` -> /opt/flink) and
   `image_files/docker-entrypoint.sh`, tagged `flinklab/flink-offline:<FLINK_VERSION>-<hash>`. Both files are
   package data of flinklab.cluster (read through importlib.resources), so an installed wheel builds it too.

It never tags anything as the official `flink:` image: tests point FLINK_IMAGE at the stand-in's own tag.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from flinklab.cluster.progress import ProgressFn, Step, quiet
from flinklab.errors import ClusterError, UsageError
from flinklab.settings import Settings
from flinklab.version import FLINK_VERSION

SUITE = "bookworm"
BASE_PACKAGES = ("openjdk-17-jre-headless", "gettext-base", "procps", "wget", "hostname", "ca-certificates")
BASE_REPOSITORY = "flinklab/debian-jre17"
IMAGE_REPOSITORY = "flinklab/flink-offline"
#: Bump when the recipe changes in a way the hashed inputs do not show.
RECIPE_VERSION = "1"
DIST_DIRS = ("bin", "lib", "opt", "conf", "plugins")
#: Shipped empty: PyFlink writes its gateway logs into the wheel's log/ (they would change the hash every run).
EMPTY_DIST_DIRS = ("log",)
DEFAULT_MIRROR = "http://deb.debian.org/debian"
#: Docker's default PATH, which an imported root lacks (`docker import` sets no ENV at all).
IMPORT_CHANGES = (
    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "ENV LANG=C.UTF-8",
    'CMD ["/bin/bash"]',
)

@dataclass
class ImageBuildResult:
    tag: str
    base_tag: str
    built: bool  # False when the tag already existed (cached)
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)  # step -> seconds (debootstrap, import, build)


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the debootstrap root tarball is kept: FLINKLAB_CACHE_DIR, else $XDG_CACHE_HOME/flinklab (read by
    Settings from `env`, default the process environment)."""
    return Settings.from_env(env).cache_dir


def flink_dist_dir() -> Path:
    """The Flink distribution inside the installed PyPI wheel (the same Flink the client runs)."""
    import pyflink

    return Path(pyflink.__file__).resolve().parent


def debian_mirror(env: Mapping[str, str] | None = None, sources_dir: Path = Path("/etc/apt")) -> str:
    """FLINKLAB_DEBIAN_MIRROR, else the first Debian (not -security) URI of this machine's apt sources."""
    configured = Settings.from_env(env).debian_mirror
    if configured:
        return configured
    files = sorted((sources_dir / "sources.list.d").glob("*.sources")) + sorted(
        (sources_dir / "sources.list.d").glob("*.list")
    )
    files.append(sources_dir / "sources.list")
    for path in files:
        try:
            text = path.read_text()
        except OSError:
            continue
        for uri in re.findall(r"(?:^URIs:\s*|^deb\s+(?:\[[^\]]*\]\s+)?)(\S+)", text, flags=re.MULTILINE):
            if "debian" in uri and "security" not in uri:
                return uri.rstrip("/")
    return DEFAULT_MIRROR


def _digest(parts: Iterable[bytes]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part)
        h.update(b"\0")
    return h.hexdigest()[:12]


def base_tag() -> str:
    """The base image's tag: a hash of the suite, package list, architecture and recipe version."""
    arch = os.uname().machine
    key = _digest(p.encode() for p in (RECIPE_VERSION, SUITE, arch, *BASE_PACKAGES, *IMPORT_CHANGES))
    return f"{BASE_REPOSITORY}:{SUITE}-{key}"


def _dist_files(dist: Path) -> list[Path]:
    files = []
    for name in DIST_DIRS:
        root = dist / name
        if not root.is_dir():
            raise UsageError(f"The Flink distribution in {dist} has no {name}/.", "Reinstall apache-flink.")
        files.extend(p for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts)
    return files


def image_file(name: str) -> bytes:
    """One of the image's build files (package data in flinklab/cluster/image_files/)."""
    return resources.files("flinklab.cluster").joinpath("image_files").joinpath(name).read_bytes()


def image_tag(dist: Path | None = None) -> str:
    """The stand-in's tag: a hash of the base tag, Dockerfile, entrypoint and the distribution's file list.

    The distribution is hashed by relative path and size (its jars are 300 MB; the wheel's version pins them).
    """
    dist = dist or flink_dist_dir()
    parts: list[bytes] = [RECIPE_VERSION.encode(), FLINK_VERSION.encode(), base_tag().encode()]
    for name in ("Dockerfile.offline", "docker-entrypoint.sh"):
        parts.append(image_file(name))
    for path in _dist_files(dist):
        parts.append(f"{path.relative_to(dist)}:{path.stat().st_size}".encode())
    return f"{IMAGE_REPOSITORY}:{FLINK_VERSION}-{_digest(parts)}"


def _client():
    import docker
    from docker.errors import DockerException

    try:
        client = docker.from_env(timeout=600)
        client.ping()
    except DockerException as exc:
        raise ClusterError(
            f"The Docker engine does not answer: {exc}.", "Start Docker (or check DOCKER_HOST), then retry."
        ) from None
    return client


def _image_exists(client, tag: str) -> bool:
    from docker.errors import ImageNotFound

    try:
        client.images.get(tag)
        return True
    except ImageNotFound:
        return False


def _debootstrap_tarball(target: Path, mirror: str, progress: ProgressFn) -> None:
    """debootstrap a minimal root, drop apt caches, and tar it to `target` (written atomically)."""
    if os.geteuid() != 0:
        raise UsageError("Building the stand-in base needs root (debootstrap).", "Run it with sudo, or as root.")
    if shutil.which("debootstrap") is None:
        raise UsageError("debootstrap is not installed.", "apt-get install -y debootstrap")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix="rootfs-") as tmp:
        root = Path(tmp) / "root"
        cmd = [
            "debootstrap",
            "--variant=minbase",
            f"--include={','.join(BASE_PACKAGES)}",
            SUITE,
            str(root),
            mirror,
        ]
        progress(Step(f"debootstrap {SUITE} from {mirror} (about a minute)"))
        proc = subprocess.run(cmd, check=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            tail = "\n".join(proc.stdout.splitlines()[-5:])
            raise ClusterError(f"debootstrap failed (exit {proc.returncode}): {tail}", f"Check the mirror {mirror}.")
        # Package caches are dead weight in an image.
        for sub in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for entry in (root / sub).glob("*"):
                if entry.is_file():
                    entry.unlink()
        progress(Step("packing the root file system"))
        partial = target.with_suffix(".partial")
        # GNU tar keeps device nodes, ownership and xattrs as debootstrap made them (tarfile is slower here).
        subprocess.run(["tar", "-C", str(root), "--numeric-owner", "-cf", str(partial), "."], check=True)
        partial.replace(target)


def _build_context(dist: Path) -> io.BufferedRandom:
    """A tar stream: Dockerfile, the entrypoint (mode 755) and flink/<dist dirs> (no copy of the jars on disk)."""
    fileobj = tempfile.TemporaryFile()  # noqa: SIM115 - returned open; the caller closes it
    with tarfile.open(fileobj=fileobj, mode="w") as tar:
        for name, arcname, mode in (("Dockerfile.offline", "Dockerfile", 0o644),
                                    ("docker-entrypoint.sh", "docker-entrypoint.sh", 0o755)):
            data = image_file(name)
            info = tarfile.TarInfo(arcname)
            info.size, info.mode, info.mtime = len(data), mode, int(time.time())
            tar.addfile(info, io.BytesIO(data))
        for name in DIST_DIRS:
            tar.add(str(dist / name), arcname=f"flink/{name}", filter=_skip_pycache)
        for name in EMPTY_DIST_DIRS:
            info = tarfile.TarInfo(f"flink/{name}")
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
    fileobj.seek(0)
    return fileobj  # type: ignore[return-value]


def _skip_pycache(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    return None if "__pycache__" in info.name else info


def build_offline_image(
    *,
    env: Mapping[str, str] | None = None,
    progress: ProgressFn | None = None,
    force: bool = False,
) -> ImageBuildResult:
    """Build (or find cached) the stand-in image and return its tag; instant when the tag already exists."""
    say = progress or quiet
    started = time.monotonic()
    dist = flink_dist_dir()
    tag = image_tag(dist)
    base = base_tag()
    client = _client()
    timings: dict[str, float] = {}
    if not force and _image_exists(client, tag):
        return ImageBuildResult(tag, base, built=False, seconds=time.monotonic() - started)

    if force or not _image_exists(client, base):
        tarball = cache_dir(env) / f"rootfs-{base.split(':', 1)[1]}.tar"
        if force or not tarball.exists():
            t0 = time.monotonic()
            _debootstrap_tarball(tarball, debian_mirror(env), say)
            timings["debootstrap"] = time.monotonic() - t0
        t0 = time.monotonic()
        say(Step(f"importing {tarball.name} as {base}"))
        repository, version = base.split(":", 1)
        client.api.import_image_from_file(
            str(tarball), repository=repository, tag=version, changes=list(IMPORT_CHANGES)
        )
        if not _image_exists(client, base):
            raise ClusterError(f"`docker import` of {tarball} did not produce {base}.")
        timings["import"] = time.monotonic() - t0

    t0 = time.monotonic()
    say(Step(f"building {tag} (Flink {FLINK_VERSION} from {dist})"))
    from docker.errors import BuildError

    context = _build_context(dist)
    try:
        client.images.build(
            fileobj=context,
            custom_context=True,
            tag=tag,
            buildargs={"BASE_IMAGE": base},
            pull=False,
            rm=True,
            forcerm=True,
            labels={"io.flinklab.stand-in": "true", "io.flinklab.flink-version": FLINK_VERSION},
        )
    except BuildError as exc:
        raise build_failed("the stand-in image", exc) from None
    finally:
        context.close()
    timings["build"] = time.monotonic() - t0
    return ImageBuildResult(tag, base, built=True, seconds=time.monotonic() - started, timings=timings)


def build_failed(what: str, exc: Any, keep: int = 600) -> ClusterError:
    """A failed image build (docker.errors.BuildError) as one error: `what` failed, Docker's message, the log's end."""
    lines = [str(item.get("stream", item.get("error", ""))).strip() for item in exc.build_log]
    tail = " | ".join(line for line in lines if line)[-keep:]
    return ClusterError(f"Building {what} failed: {exc.msg}. {tail}")
