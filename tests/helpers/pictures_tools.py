"""What the picture tests share: a windows workspace built from the captured outputs (the solution, with one
captured mistake copied over it), SVG parsing helpers and a small PNG reader for browser screenshots."""

from __future__ import annotations

import re
import shutil
import struct
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import numpy as np

from flinklab.labs.windows import reference as ref
from helpers.captures import write_captured_sql

DATA = Path(__file__).parent.parent / "data"
WINDOWS = DATA / "windows" / "outputs"
JOINS = DATA / "joins" / "outputs"
SVG_NS = "{http://www.w3.org/2000/svg}"
STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")


def windows_workspace(root: Path, mistake: str | None = None) -> Path:
    """root/windows holding the captured solution outputs, with the captured mistake's outputs over them, and the
    SQL that wrote them."""
    ws = root / "windows"
    shutil.copytree(WINDOWS / "solution", ws)
    write_captured_sql(ws, "windows", root / "data", mistake)
    if mistake:
        for path in (WINDOWS / "mistakes" / mistake).iterdir():
            shutil.copy(path, ws / path.name)
    return ws


def svg_elements(text: str, tag: str) -> list[ET.Element]:
    root = ET.fromstring(text)
    assert root.tag == f"{SVG_NS}svg"
    return list(root.iter(f"{SVG_NS}{tag}"))


def ms(stamp: str) -> int:
    assert STAMP.match(stamp), stamp
    return ref.to_ms(stamp)


def read_png(path: Path) -> np.ndarray:
    """An 8-bit RGB(A) non-interlaced PNG (what Chromium writes) as a height × width × channels array."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = bpp = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    stride = width * bpp
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.uint8)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:]
        if kind == 0:
            row = line.copy()
        elif kind == 1:  # Sub: a running sum per channel
            row = (np.cumsum(line.reshape(width, bpp).astype(np.int64), axis=0) % 256).astype(np.uint8).ravel()
        elif kind == 2:
            row = line + prev
        else:  # Average, Paeth: depend on the reconstructed left byte
            row = bytearray(line.tobytes())
            up = prev.tolist()
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b = up[i]
                if kind == 3:
                    row[i] = (row[i] + (a + b) // 2) & 255
                else:
                    c = up[i - bpp] if i >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            row = np.frombuffer(bytes(row), dtype=np.uint8)
        out[y] = row
        prev = row
    return out.reshape(height, width, bpp)


def pixels_of(image: np.ndarray, color: str, tolerance: int = 6) -> int:
    """How many pixels have `color` (#rrggbb), within `tolerance` per channel."""
    rgb = np.array([int(color[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.int16)
    diff = np.abs(image[:, :, :3].astype(np.int16) - rgb)
    return int(np.count_nonzero(np.all(diff <= tolerance, axis=2)))
