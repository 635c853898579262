"""Render a text page as a scanned-looking image: old paper colour, ink, noise, blur, slight rotation.

Everything is drawn with Pillow and numpy from a seed, so the same seed, fonts and library versions
give byte-identical PNGs. Right-to-left scripts (Arabic, Hebrew) are shaped and reordered by Pillow's
raqm layout engine (libraqm + fribidi); rendering them without raqm is refused rather than drawn wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont, features

FONT_DIRS = [Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype")]
FONTS: dict[str, str] = {
    "serif": "dejavu/DejaVuSerif.ttf",
    "serif_bold": "dejavu/DejaVuSerif-Bold.ttf",
    "fraktur": "blankenburg/Blankenburg_UNZ1A.ttf",
    "arabic": "fonts-hosny-amiri/Amiri-Regular.ttf",
    "hebrew": "dejavu/DejaVuSans.ttf",
    "cjk": "wqy/wqy-zenhei.ttc",
}
"""Font files (Debian packages fonts-dejavu-core, fonts-blankenburg, fonts-hosny-amiri, fonts-wqy-zenhei)."""


@dataclass(frozen=True)
class PageStyle:
    """How one page looks: font, size, direction and the amount of degradation."""

    font: str = "serif"
    size: int = 26
    rtl: bool = False
    language: str | None = None
    width: int = 1000
    margin: int = 70
    line_gap: float = 1.55
    rotation_deg: float = 1.0
    blur: float = 0.6
    noise: float = 9.0


def font_path(key: str) -> Path:
    """The absolute path of a font key of ``FONTS``; a clear error naming the Debian package if absent."""
    rel = FONTS[key]
    for base in FONT_DIRS:
        if (base / rel).exists():
            return base / rel
    raise FileNotFoundError(f"font {rel} not found under /usr/share/fonts (install the Debian font package)")


def _font(key: str, size: int) -> ImageFont.FreeTypeFont:
    engine = ImageFont.Layout.RAQM if features.check("raqm") else ImageFont.Layout.BASIC
    return ImageFont.truetype(str(font_path(key)), size, layout_engine=engine)


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont, width: int,
          direction: str | None, language: str | None, cjk: bool) -> list[str]:
    """Greedy line wrapping (by word; by character for CJK) to ``width`` pixels."""
    lines: list[str] = []
    for para in text.split("\n"):
        if not para.strip():
            lines.append("")
            continue
        units = list(para) if cjk else para.split(" ")
        sep = "" if cjk else " "
        cur = ""
        for unit in units:
            trial = unit if not cur else cur + sep + unit
            if draw.textlength(trial, font=font, direction=direction, language=language) <= width or not cur:
                cur = trial
            else:
                lines.append(cur)
                cur = unit
        lines.append(cur)
    return lines


def render_page(title: str, body: str, footer: str, style: PageStyle, seed: int) -> tuple[Image.Image, list[str]]:
    """Draw a page and degrade it; returns the image (palette PNG-ready) and its text lines as drawn."""
    if style.rtl and not features.check("raqm"):
        raise RuntimeError("right-to-left pages need Pillow with raqm (libraqm, libfribidi) for shaping")
    rng = np.random.default_rng(seed)
    direction = "rtl" if style.rtl else None
    cjk = style.font == "cjk"
    font = _font(style.font, style.size)
    head = _font("serif_bold" if style.font == "serif" else style.font, int(style.size * 1.2))
    small = _font(style.font, int(style.size * 0.75))
    scratch = ImageDraw.Draw(Image.new("L", (10, 10)))
    inner = style.width - 2 * style.margin
    title_lines = _wrap(scratch, title, head, inner, direction, style.language, cjk)
    body_lines = _wrap(scratch, body, font, inner, direction, style.language, cjk)
    step = int(style.size * style.line_gap)
    height = 2 * style.margin + len(title_lines) * int(step * 1.2) + step + len(body_lines) * step + 2 * step
    page = Image.new("L", (style.width, height), 255)
    draw = ImageDraw.Draw(page)
    y = style.margin
    anchor = "ra" if style.rtl else "la"
    x = style.width - style.margin if style.rtl else style.margin
    for line in title_lines:
        draw.text((x, y), line, font=head, fill=0, direction=direction, language=style.language, anchor=anchor)
        y += int(step * 1.2)
    y += step // 2
    for line in body_lines:
        if line:
            draw.text((x, y), line, font=font, fill=0, direction=direction, language=style.language,
                      anchor=anchor)
        y += step
    draw.text((style.width // 2, height - style.margin), footer, font=small, fill=0, anchor="ma")
    return _age(page, style, rng), title_lines + body_lines + [footer]


def _age(page: Image.Image, style: PageStyle, rng: np.random.Generator) -> Image.Image:
    """Blur, rotate, stain and speckle a clean page; map it onto a yellowed paper palette."""
    page = page.filter(ImageFilter.GaussianBlur(style.blur))
    page = page.rotate(style.rotation_deg, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    ink = 1.0 - np.asarray(page, dtype=np.float32) / 255.0
    h, w = ink.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cy, cx = rng.uniform(0.2, 0.8) * h, rng.uniform(0.2, 0.8) * w
    stain = np.exp(-(((yy - cy) / (0.45 * h)) ** 2 + ((xx - cx) / (0.45 * w)) ** 2))
    paper = 228.0 - 22.0 * stain - 14.0 * (np.abs(xx / w - 0.5) + np.abs(yy / h - 0.5))
    tone = paper * (1.0 - 0.88 * ink) + rng.normal(0.0, style.noise, size=ink.shape)
    speck = rng.random(ink.shape) < 0.0006
    tone[speck] -= 90.0
    tone = np.clip(tone, 0, 255)
    levels = 16
    index = np.clip((tone / 256.0 * levels).astype(np.uint8), 0, levels - 1)
    out = Image.fromarray(index, mode="P")
    palette: list[int] = []
    for i in range(levels):
        v = (i + 0.5) / levels
        palette += [int(40 + 205 * v), int(30 + 197 * v), int(20 + 160 * v)]  # sepia ink to cream paper
    out.putpalette(palette)
    return out
