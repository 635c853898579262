"""The OCR entry point: ``ocr_image`` reads an image in the given languages (``ocr.tesseract``) or
chooses them from the detected script and language (``ocr.auto``). The tesseract layer's names are
re-exported here, where callers import them from."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from paperworks.tools.ocr.auto import ocr_auto
from paperworks.tools.ocr.preprocess import Preprocess
from paperworks.tools.ocr.tesseract import (
    OcrResult,
    Orientation,
    Word,
    detect_orientation,
    join_words,
    load_image,
    read_image,
)

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["OcrResult", "Orientation", "Word", "detect_orientation", "join_words", "load_image", "ocr_image"]


def ocr_image(source: str | Path | Image.Image, languages: str | list[str] | None = None,
              options: Preprocess | None = None, psm: int = 3, timeout_s: float = 120,
              auto_rotate: bool = False) -> OcrResult:
    """OCR an image: preprocess, run tesseract, return text with per-word confidence and boxes.

    ``languages`` accepts ``"deu+lat"``, ``["de", "la"]``, names or tesseract codes (default eng),
    or ``"auto"`` to choose them from the detected script and language (``ocr.auto.ocr_auto``);
    ``psm`` is tesseract's page segmentation mode (3 = automatic, 6 = one block, 7 = one line).
    ``auto_rotate`` first turns a page lying on its side or upside down upright (tesseract OSD;
    boxes are then in the upright page's coordinates, ``preprocessing['rotated_deg']`` says how far).
    """
    if languages == "auto":
        return ocr_auto(source, options, psm)
    return read_image(source, languages, options, psm, timeout_s, auto_rotate)
