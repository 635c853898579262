"""Image facts for any model: size, format, EXIF and other metadata, dominant colours, and OCR; and,
for vision models, the image itself as an OpenAI-style content part (a downscaled base64 data URL)."""

from __future__ import annotations

import base64
import functools
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperworks.core.errors import UserError
from paperworks.tools.base import ToolContext, ToolError, tool
from paperworks.tools.documents.inputs import resolve_input
from paperworks.tools.ocr.engine import load_image

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


IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff"})
"""File suffixes treated as images (what a vision model is shown)."""
MAX_SIDE = 1024
"""Default longest side, in pixels, of an image sent to a vision model."""
MAX_BYTES = 1_000_000
"""Default cap on the encoded size of one image sent to a vision model (before base64)."""


def is_image(path: str | Path) -> bool:
    """Whether ``path`` names an image file by its suffix."""
    return Path(path).suffix.lower() in IMAGE_SUFFIXES


def image_data_url(source: str | Path, max_side: int = MAX_SIDE, max_bytes: int = MAX_BYTES) -> str:
    """The image as a ``data:image/jpeg;base64,...`` URL for a vision model: turned upright by its EXIF
    orientation, downscaled so its longer side is at most ``max_side`` pixels (never upscaled), and
    re-encoded as JPEG, smaller still until it is at most ``max_bytes``. Raises ``BadFileError`` for a
    missing or unreadable image."""
    path = Path(source)
    stat = path.stat() if path.is_file() else None
    return _encoded(str(path), stat.st_mtime_ns if stat else 0, stat.st_size if stat else 0, max_side, max_bytes)


@functools.lru_cache(maxsize=64)
def _encoded(path: str, _mtime: int, _size: int, max_side: int, max_bytes: int) -> str:
    from PIL import Image, ImageOps

    img = ImageOps.exif_transpose(load_image(path))
    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        img = Image.new("RGB", rgba.size, (255, 255, 255))
        img.paste(rgba, mask=rgba.getchannel("A"))  # transparency on white, as a page would show it
    img = img.convert("L" if img.mode in ("1", "L", "I", "I;16", "F") else "RGB")
    side = max(16, min(max_side, max(img.size)))
    while True:
        copy = img.copy()
        copy.thumbnail((side, side), Image.Resampling.LANCZOS)
        buffer = io.BytesIO()
        copy.save(buffer, format="JPEG", quality=85, optimize=True)
        if buffer.tell() <= max_bytes or side <= 64:
            break
        side = int(side * 0.75)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def image_part(source: str | Path, max_side: int = MAX_SIDE, max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """An OpenAI-style image content part, ``{"type": "image_url", "image_url": {"url": <data URL>}}``,
    for a message's ``content`` list (litellm passes it on to every vision provider)."""
    return {"type": "image_url", "image_url": {"url": image_data_url(source, max_side, max_bytes)}}
