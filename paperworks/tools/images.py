"""Image facts for any model: size, format, EXIF and other metadata, dominant colours, and OCR.
(Sending the image itself to a vision model is the gateway's job.)"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperworks.core.errors import UserError
from paperworks.tools.documents.inputs import resolve_input
from paperworks.tools.ocr.engine import load_image
from paperworks.tools.registry import ToolContext, ToolError, tool

if TYPE_CHECKING:
    from PIL import Image


@dataclass
class ImageInfo:
    """What can be told about an image without a vision model."""

    width: int
    height: int
    mode: str
    format: str
    exif: dict[str, str] = field(default_factory=dict)
    """EXIF tags by name (DateTime, Make, Model, Artist, GPSInfo, ...), values as text."""
    metadata: dict[str, str] = field(default_factory=dict)
    """Other embedded metadata: PNG text chunks, DPI, ICC profile presence."""
    colours: list[tuple[str, float]] = field(default_factory=list)
    """Dominant colours as (``#rrggbb``, share of pixels), largest first."""


def dominant_colours(image: Image.Image, n: int = 5) -> list[tuple[str, float]]:
    """The ``n`` main colours (median-cut quantisation of a 200 px thumbnail) with pixel shares."""
    from PIL import Image

    thumb = image.convert("RGB")
    thumb.thumbnail((200, 200))
    quant = thumb.quantize(colors=max(1, n), method=Image.Quantize.MEDIANCUT)
    palette = quant.getpalette() or []
    counts = sorted(quant.getcolors() or [], reverse=True)
    total = sum(c for c, _ in counts) or 1
    out = []
    for count, index in counts[:n]:
        i = int(index)  # type: ignore[call-overload]  # a palette index for a "P" image
        r, g, b = palette[i * 3: i * 3 + 3]
        out.append((f"#{r:02x}{g:02x}{b:02x}", round(count / total, 3)))
    return out


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace").strip("\x00 ")[:200]
    return str(value)[:200]


def image_info(source: str | Path, colours: int = 5) -> ImageInfo:
    """Size, mode, format, EXIF, metadata and dominant colours of an image file.

    Raises ``BadFileError`` for a missing or unreadable image.
    """
    from PIL import ExifTags

    img = load_image(source)
    exif: dict[str, str] = {}
    raw = img.getexif()
    for tag, value in raw.items():
        exif[ExifTags.TAGS.get(tag, str(tag))] = _text(value)
    for ifd in (ExifTags.IFD.Exif, ExifTags.IFD.GPSInfo):
        try:
            sub = raw.get_ifd(ifd)
        except (KeyError, ValueError):
            continue
        names = ExifTags.GPSTAGS if ifd == ExifTags.IFD.GPSInfo else ExifTags.TAGS
        for tag, value in sub.items():
            exif[names.get(tag, str(tag))] = _text(value)
    meta: dict[str, str] = {}
    for key, value in img.info.items():
        if key == "exif":
            continue
        meta[str(key)] = "present" if key == "icc_profile" else _text(value)
    return ImageInfo(img.width, img.height, img.mode, img.format or Path(str(source)).suffix.lstrip(".").upper(),
                     exif, meta, dominant_colours(img, colours) if colours else [])


@tool
def describe_image(path: str, ctx: ToolContext) -> str:
    """Facts about an image: size, format, EXIF (date, camera, GPS, artist), embedded metadata and
    dominant colours. Use the ocr tool for its text.

    Args:
        path: the image file, relative to the run's files or an attachment path.
    """
    try:
        info = image_info(resolve_input(path, ctx))
    except UserError as exc:
        raise ToolError(str(exc)) from exc
    lines = [f"{path}: {info.width}x{info.height} pixels, {info.format}, mode {info.mode}"]
    if info.exif:
        lines.append("EXIF: " + "; ".join(f"{k}={v}" for k, v in info.exif.items()))
    if info.metadata:
        lines.append("metadata: " + "; ".join(f"{k}={v}" for k, v in info.metadata.items()))
    lines.append("dominant colours: " + ", ".join(f"{c} {s:.0%}" for c, s in info.colours))
    return "\n".join(lines)
