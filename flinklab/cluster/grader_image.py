"""Build the grader image offline: the stand-in Flink image (flinklab/cluster/image.py) plus flinklab.

`flinklab image build-grader [--labs LAB...] [--tag TAG]`. Nothing is pulled or downloaded: the image is built FROM
the stand-in (itself from a debootstrap root and the PyPI wheel's Flink), and adds what runs flinklab on this
machine: its Python (`sys.base_prefix`, without the test suite, caches and static libraries), the packages flinklab
and the chosen labs need to run (their requirements' closure, not whatever else the environment holds: test tools,
notebooks; PyFlink's jars come from the image's /opt/flink instead of a second 300 MB copy), flinklab itself and the
chosen labs' packages (their entry points only: a lab left out is not found in the image). The entrypoint
(image_files/grader/entrypoint.sh) knows Gradescope's and PrairieLearn's layouts.

The build context is one tree, `rootfs/`, laid out as the image's file system, copied in by one COPY, and the
Dockerfile sets the image's metadata before it: on an engine whose storage driver diffs the whole file system at
each step (fuse-overlayfs: ~20 s a step once the packages are in), every step after the big COPY is expensive.

The building machine's Python must run on Debian bookworm's C library (it is copied, not reinstalled); the image
is tagged by a hash of everything that went in, so a second build with the same inputs is a no-op.
"""

from __future__ import annotations

import hashlib
import io
import re
import sys
import sysconfig
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path
from typing import IO

from flinklab.errors import UsageError
from flinklab.version import FLINK_VERSION

GRADER_REPOSITORY = "flinklab/grader"
RECIPE_VERSION = "2"
LAB_GROUP = "flinklab.labs"
#: Parts of the Python installation an image does not need.
_SKIP_PYTHON = {"test", "site-packages", "__pycache__", "idlelib", "tkinter", "turtledemo", "ensurepip", "include",
                "share", "lib2to3"}
#: Parts of the environment's packages an image does not need (PyFlink's jars: the image's /opt/flink has them).
_SKIP_PACKAGES = {"__pycache__"}
_SKIP_PYFLINK = {"lib", "opt", "plugins", "log", "examples"}

Progress = Callable[[str], None]


@dataclass
class GraderBuildResult:
    tag: str
    standin_tag: str
    built: bool
    labs: list[str]
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)


def grader_file(name: str) -> bytes:
    """One of the grader image's build files (package data in flinklab/cluster/image_files/grader/)."""
    return resources.files("flinklab.cluster").joinpath("image_files", "grader", name).read_bytes()


def _lab_entry_points(labs: Sequence[str] | None) -> list[metadata.EntryPoint]:
    points = {ep.name: ep for ep in metadata.entry_points(group=LAB_GROUP)}
    if not labs:
        return [points[name] for name in sorted(points)]
    unknown = [name for name in labs if name not in points]
    if unknown:
        raise UsageError(f"No lab {', '.join(map(repr, unknown))}.", f"Labs: {', '.join(sorted(points))}.")
    return [points[name] for name in labs]


def _package_dir(module: str) -> Path:
    import importlib

    top = importlib.import_module(module.split(".", 1)[0])
    return Path(top.__file__ or "").resolve().parent


@dataclass
class _Source:
    """One folder of the build context: files under `root` go to `arcname`, `skip(relative parts)` leaves some out."""

    root: Path
    arcname: str
    skip: Callable[[tuple[str, ...]], bool]
    #: linked folders become real ones (a lab package links its sql/ and data/ to the top-level sql/LAB, fixtures/LAB)
    follow: bool = False


#: Where each part of the context goes in the image (the context's `rootfs/` is the image's `/`).
ROOTFS = "rootfs"
PYTHON = f"{ROOTFS}/opt/python"
SITE_PACKAGES = f"{ROOTFS}/opt/flinklab/site-packages"
APP = f"{ROOTFS}/opt/flinklab/app"
#: The generated files that are programs (mode 755).
_PROGRAMS = {f"{ROOTFS}/opt/flinklab/bin/flinklab", f"{ROOTFS}/usr/local/bin/flinklab-grade",
             f"{ROOTFS}/autograder/run_autograder"}


#: What a build context holds: the folders, and the generated files (arcname -> bytes).
Contents = tuple[list["_Source"], dict[str, bytes]]


def _sources(entry_points: Sequence[metadata.EntryPoint]) -> Contents:
    """What the context of an image with these labs holds (read once per build: the tag and the context share it)."""
    prefix = Path(sys.base_prefix)
    purelib = Path(sysconfig.get_paths()["purelib"])
    packages = {"flinklab"}
    dists: dict[str, metadata.Distribution] = {}
    for ep in entry_points:
        packages.add(ep.value.split(":", 1)[0].split(".", 1)[0])
        if ep.dist is not None:
            dists[ep.dist.metadata["Name"]] = ep.dist
    dists.setdefault("flinklab", metadata.distribution("flinklab"))
    needed = runtime_entries(dists.values())
    sources = [
        _Source(prefix / "bin", f"{PYTHON}/bin", lambda parts: False),
        _Source(prefix / "lib", f"{PYTHON}/lib", lambda parts: bool(_SKIP_PYTHON.intersection(parts))
                or parts[-1].endswith(".a") or (len(parts) > 1 and parts[1].startswith("config-"))),
        _Source(purelib, SITE_PACKAGES, lambda parts: parts[0] not in needed or parts[0] in packages
                or parts[0].startswith("__editable__")
                or parts[0].endswith((".dist-info", ".pth")) and _dist_name(parts[0]) in _names(dists)
                or bool(_SKIP_PACKAGES.intersection(parts)) or (parts[0] == "pyflink" and len(parts) > 1
                                                                and parts[1] in _SKIP_PYFLINK)),
    ]
    for name in sorted(packages):
        sources.append(_Source(_package_dir(name), f"{APP}/{name}", lambda parts: "__pycache__" in parts,
                               follow=True))
    generated = {f"{ROOTFS}/opt/flinklab/bin/flinklab": grader_file("flinklab"),
                 f"{ROOTFS}/usr/local/bin/flinklab-grade": grader_file("entrypoint.sh"),
                 f"{ROOTFS}/autograder/run_autograder": grader_file("run_autograder"),
                 "Dockerfile": grader_file("Dockerfile")}
    chosen = {ep.name for ep in entry_points}
    for dist_name, dist in sorted(dists.items()):
        # the distribution's metadata, its lab entry points only: discovery finds exactly the chosen labs
        info = f"{APP}/{_normal(dist_name)}-{dist.version}.dist-info"
        generated[f"{info}/METADATA"] = (dist.read_text("METADATA") or f"Name: {dist_name}\n").encode()
        points = [ep for ep in dist.entry_points if ep.group != LAB_GROUP or ep.name in chosen]
        lines: list[str] = []
        for group in dict.fromkeys(ep.group for ep in points):
            lines.append(f"[{group}]")
            lines.extend(f"{ep.name} = {ep.value}" for ep in points if ep.group == group)
            lines.append("")
        generated[f"{info}/entry_points.txt"] = "\n".join(lines).encode()
    return sources, generated


def _normal(name: str) -> str:
    return name.replace("-", "_").lower()


def _requirement_name(requirement: str) -> str | None:
    """The distribution a `Requires-Dist` line names, or None when it is an extra's. Other markers (a platform,
    a Python version) are not evaluated: a requirement that does not apply here is not installed either, and one
    installed anyway costs a little room."""
    name, _, marker = requirement.partition(";")
    if re.search(r"\bextra\b", marker):
        return None
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", name)
    return match.group(1) if match else None


def runtime_entries(dists: Iterable[metadata.Distribution]) -> set[str]:
    """The top-level entries of site-packages (packages, modules, .dist-info folders) that belong to `dists` or to
    what they require, transitively (their extras left out: a test tool or a notebook is not needed to grade)."""
    todo = list(dists)
    seen: set[str] = set()
    entries: set[str] = set()
    while todo:
        dist = todo.pop()
        key = _normal(dist.metadata["Name"] or "")
        if key in seen:
            continue
        seen.add(key)
        entries.update(f.parts[0] for f in dist.files or () if f.parts and f.parts[0] != "..")
        for requirement in dist.requires or ():
            name = _requirement_name(requirement)
            if name is None:
                continue
            try:
                todo.append(metadata.distribution(name))
            except metadata.PackageNotFoundError:
                continue  # not installed here (e.g. only for another platform): nothing to copy
    return entries


def _names(dists: Mapping[str, metadata.Distribution]) -> set[str]:
    return {_normal(name) for name in dists}


def _dist_name(entry: str) -> str:
    """`flinklab_mylab-0.1.0.dist-info` -> `flinklab_mylab`; an editable finder's .pth -> its name."""
    stem = entry.removeprefix("__editable__.").rsplit(".", 1)[0]
    return _normal(stem.split("-", 1)[0])


def _walk(source: _Source, root: Path | None = None, under: tuple[str, ...] = ()) -> Iterator[tuple[Path, tuple[str,
                                                                                                    ...]]]:
    """Every entry under the source's root that is not skipped; with `follow`, a linked folder's files come as
    files under the link's name (Path.rglob does not enter linked folders)."""
    root = root or source.root
    for path in sorted(root.rglob("*")):
        parts = under + path.relative_to(root).parts
        if source.skip(parts):
            continue
        if source.follow and path.is_symlink() and path.is_dir():
            yield from _walk(source, path.resolve(), parts)
            continue
        yield path, parts


def grader_tag(standin_tag: str, contents: Contents) -> str:
    """A hash of the stand-in's tag, the build files, the labs, flinklab's and the labs' files and the path and
    size of every other file."""
    sources, generated = contents
    h = hashlib.sha256()
    for part in (RECIPE_VERSION, FLINK_VERSION, standin_tag, sys.version):
        h.update(part.encode() + b"\0")
    for name, data in sorted(generated.items()):
        h.update(name.encode() + b"\0" + data + b"\0")
    for source in sources:
        for path, parts in _walk(source):
            if path.is_file():
                # flinklab's and the labs' files by content (small, and edited); the Python and its packages by
                # path and size (installed, and large)
                body = path.read_bytes() if source.follow else str(path.stat().st_size).encode()
                h.update(f"{source.arcname}/{'/'.join(parts)}:".encode() + body + b"\0")
    return f"{GRADER_REPOSITORY}:{FLINK_VERSION}-{h.hexdigest()[:12]}"


def _context(contents: Contents) -> IO[bytes]:
    """The build context as a tar in a temporary file (symlinks inside the copied trees are kept as links)."""
    sources, generated = contents
    fileobj = tempfile.TemporaryFile()  # noqa: SIM115 - returned open; the caller closes it
    with tarfile.open(fileobj=fileobj, mode="w") as tar:
        for name, data in generated.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), int(time.time())
            info.mode = 0o755 if name in _PROGRAMS else 0o644
            tar.addfile(info, io.BytesIO(data))
        for source in sources:
            for path, parts in _walk(source):
                if path.is_dir() and not path.is_symlink():
                    continue  # directories come with their files
                arcname = f"{source.arcname}/{'/'.join(parts)}"
                tar.add(str(path.resolve() if source.follow else path), arcname=arcname, recursive=False)
    fileobj.seek(0)
    return fileobj


def build_grader_image(labs: Sequence[str] | None = None, tag: str | None = None, *,
                       env: Mapping[str, str] | None = None, progress: Progress | None = None,
                       force: bool = False) -> GraderBuildResult:
    """Build (or find, by its content tag) the grader image with `labs` (default: every discovered lab)."""
    from flinklab.cluster.image import _client, _image_exists, build_failed, build_offline_image

    say = progress or (lambda _message: None)
    started = time.monotonic()
    entry_points = _lab_entry_points(labs)
    timings: dict[str, float] = {}
    standin = build_offline_image(env=env, progress=say)
    timings["stand-in"] = standin.seconds
    contents = _sources(entry_points)
    content_tag = grader_tag(standin.tag, contents)
    client = _client()
    names = [ep.name for ep in entry_points]
    if not force and _image_exists(client, content_tag):
        if tag:
            client.images.get(content_tag).tag(*tag.rsplit(":", 1) if ":" in tag else (tag, "latest"))
        return GraderBuildResult(tag or content_tag, standin.tag, False, names, time.monotonic() - started, timings)
    from docker.errors import BuildError

    t0 = time.monotonic()
    say(f"building {content_tag} (labs: {', '.join(names)}) FROM {standin.tag}")
    context = _context(contents)
    try:
        # the labels through the Dockerfile (one step before the big COPY), not `labels=` (a step each, at the end)
        client.images.build(fileobj=context, custom_context=True, tag=content_tag, pull=False, rm=True,
                            forcerm=True, buildargs={"STANDIN_IMAGE": standin.tag, "LABS": ",".join(names)})
    except BuildError as exc:
        raise build_failed("the grader image", exc) from None
    finally:
        context.close()
    timings["build"] = time.monotonic() - t0
    if tag:
        client.images.get(content_tag).tag(*tag.rsplit(":", 1) if ":" in tag else (tag, "latest"))
    return GraderBuildResult(tag or content_tag, standin.tag, True, names, time.monotonic() - started, timings)
