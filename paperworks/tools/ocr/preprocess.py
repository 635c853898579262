"""Image clean-up before OCR: grayscale, upscaling of small text, deskew and Otsu binarisation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image


@dataclass
class Preprocess:
    """Which clean-up steps run, in this order: grayscale → upscale → deskew → binarise."""

    grayscale: bool = True
    """Convert to 8-bit grey (always on when any later step is on)."""
    upscale: bool = True
    """Enlarge images whose estimated text height is under ``min_text_px`` (tesseract wants ≥ 20 px)."""
    min_text_px: int = 24
    """Target x-height-ish line height in pixels for ``upscale``."""
    deskew: bool = True
    """Estimate a small rotation (± ``max_skew_deg``) from the row profile and undo it."""
    max_skew_deg: float = 5.0
    """Largest skew searched, in degrees."""
    binarise: bool = True
    """Otsu threshold to black on white."""


def otsu_threshold(gray: np.ndarray) -> int:
    """Otsu's threshold of an 8-bit grey array (maximises between-class variance)."""
    import numpy as np

    hist = np.bincount(gray.ravel(), minlength=256).astype(np.float64)
    total = hist.sum()
    if total == 0:
        return 128
    weights = np.cumsum(hist)
    means = np.cumsum(hist * np.arange(256))
    w0, w1 = weights, total - weights
    with np.errstate(divide="ignore", invalid="ignore"):
        m0 = means / w0
        m1 = (means[-1] - means) / w1
        between = w0 * w1 * (m0 - m1) ** 2
    between = np.nan_to_num(between)
    return int(np.argmax(between))


def _ink(gray: np.ndarray) -> np.ndarray:
    """Boolean mask of dark (ink) pixels; light text on dark paper is inverted first."""
    t = otsu_threshold(gray)
    mask = gray <= t
    return mask if mask.mean() <= 0.5 else ~mask  # ink is the minority class


def text_line_height(gray: np.ndarray) -> float:
    """Median height in pixels of the runs of inked rows (≈ text line height); 0 if no ink."""
    import numpy as np

    rows = _ink(gray).any(axis=1).astype(np.int8)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], rows, [0]])))
    heights = edges[1::2] - edges[0::2]
    heights = heights[heights > 2]
    return float(np.median(heights)) if heights.size else 0.0


def estimate_skew(gray: np.ndarray, max_deg: float = 5.0, step: float = 0.25) -> float:
    """The rotation (degrees, counter-clockwise positive as PIL) that best aligns text rows.

    Projection-profile search: rotating the ink mask by the right angle makes the row sums most
    peaked (largest variance).
    """
    import numpy as np
    from PIL import Image

    mask = _ink(gray)
    if mask.sum() < 50:
        return 0.0
    img = Image.fromarray((mask * 255).astype(np.uint8))
    scale = min(1.0, 800 / max(img.size))
    if scale < 1.0:
        img = img.resize((max(1, int(img.width * scale)), max(1, int(img.height * scale))))

    def score(angle: float) -> float:
        rotated = np.asarray(img.rotate(angle, expand=True, fillcolor=0), dtype=np.float64)
        return float(np.var(rotated.sum(axis=1)))

    coarse = np.arange(-max_deg, max_deg + 1e-9, 1.0)
    best = float(coarse[int(np.argmax([score(a) for a in coarse]))])
    fine = np.arange(best - 1.0, best + 1.0 + 1e-9, step)
    best = float(fine[int(np.argmax([score(a) for a in fine]))])
    return best if abs(best) >= step else 0.0


def preprocess(image: Image.Image, options: Preprocess | None = None) -> tuple[Image.Image, dict[str, float]]:
    """Clean ``image`` for OCR; returns the new image and what was done (``scale``, ``skew_deg``,
    ``threshold``)."""
    import numpy as np
    from PIL import Image, ImageOps

    opts = options or Preprocess()
    done: dict[str, float] = {"scale": 1.0, "skew_deg": 0.0}
    img = ImageOps.exif_transpose(image) or image
    if not (opts.grayscale or opts.upscale or opts.deskew or opts.binarise):
        return img, done
    if img.mode in ("RGBA", "LA", "P"):
        background = Image.new("RGB", img.size, "white")
        rgba = img.convert("RGBA")
        background.paste(rgba, mask=rgba.getchannel("A"))
        img = background
    img = img.convert("L")
    if opts.upscale:
        height = text_line_height(np.asarray(img))
        if 0 < height < opts.min_text_px:
            factor = min(4.0, opts.min_text_px / height)
            img = img.resize((int(img.width * factor), int(img.height * factor)), Image.Resampling.LANCZOS)
            done["scale"] = round(factor, 3)
    if opts.deskew:
        angle = estimate_skew(np.asarray(img), opts.max_skew_deg)
        if angle:
            img = img.rotate(angle, expand=True, fillcolor=255, resample=Image.Resampling.BICUBIC)
            done["skew_deg"] = angle
    if opts.binarise:
        arr = np.asarray(img)
        t = otsu_threshold(arr)
        out = np.where(arr > t, 255, 0).astype(np.uint8)
        if (out == 0).mean() > 0.5:  # light text on dark ground: make it black on white
            out = 255 - out
        img = Image.fromarray(out)
        done["threshold"] = float(t)
    return img, done
