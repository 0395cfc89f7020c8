"""A small SVG writer: elements built with xml.etree (so text and attributes are always escaped), styles inline,
no fonts or images fetched from anywhere. The result is a standalone `.svg` file or an `<svg>` for an HTML page."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from flinklab.errors import UsageError

Attr = str | int | float | None

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
#: Roughly how wide a character of an 11 px sans-serif font is; used to decide whether a label fits a bar.
CHAR_PX = 6.4


def num(value: float) -> str:
    """A coordinate as SVG text: two decimals at most, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _attrs(attrs: dict[str, Attr]) -> dict[str, str]:
    out = {}
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        out[name] = num(value) if isinstance(value, float) else str(value)
    return out


class Svg:
    """An SVG document of a fixed size; `add` appends an element to the root or to a group made by `group`."""

    def __init__(self, width: float, height: float, title: str = ""):
        self.width = width
        self.height = height
        self.root = ET.Element("svg", _attrs({
            "xmlns": "http://www.w3.org/2000/svg", "width": float(width), "height": float(height),
            "viewBox": f"0 0 {num(width)} {num(height)}", "font_family": FONT, "font_size": 11,
        }))
        if title:
            ET.SubElement(self.root, "title").text = title
        self.background = ET.SubElement(self.root, "rect", _attrs({
            "x": 0, "y": 0, "width": float(width), "height": float(height), "fill": "#ffffff"}))

    def add(self, tag: str, parent: ET.Element | None = None, text: str | None = None, **attrs: Attr) -> ET.Element:
        """A child element; `data_kind=...` becomes `data-kind`, a trailing `_` is dropped (`class_`), None skipped."""
        element = ET.SubElement(self.root if parent is None else parent, tag, _attrs(attrs))
        if text is not None:
            element.text = text
        return element

    def group(self, parent: ET.Element | None = None, **attrs: Attr) -> ET.Element:
        """A `<g>`."""
        return self.add("g", parent, **attrs)

    def text(self, x: float, y: float, text: str, parent: ET.Element | None = None, **attrs: Attr) -> ET.Element:
        """A `<text>` at (x, y), its content escaped."""
        return self.add("text", parent, text, x=float(x), y=float(y), **attrs)

    def tooltip(self, element: ET.Element, text: str) -> None:
        """A hover text (SVG `<title>` child)."""
        ET.SubElement(element, "title").text = text

    def resize(self, height: float) -> None:
        """Set the height once the content is placed (the background follows)."""
        self.height = height
        self.root.set("height", num(height))
        self.root.set("viewBox", f"0 0 {num(self.width)} {num(height)}")
        self.background.set("height", num(height))

    def to_string(self) -> str:
        """The `<svg>` element alone (for inlining in HTML)."""
        return ET.tostring(self.root, encoding="unicode")

    def document(self) -> str:
        """A standalone SVG file's text."""
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + self.to_string() + "\n"


def write_svg(svg: Svg, path: Path) -> Path:
    """Write `svg` to `path`; a path that cannot be written is a UsageError naming it."""
    path = Path(path).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg.document(), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"Cannot write {path}: {exc.strerror or exc}.", "Choose a writable path for --svg.") from None
    return path
