"""Tesseract OCR through pytesseract: words with confidence and boxes, lines, and OSD (in known languages;
``engine.ocr_image`` is the entry point, ``auto`` chooses the languages)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperworks.core.errors import MissingDependencyError
from paperworks.tools.documents.model import BadFileError
from paperworks.tools.ocr.languages import installed_languages, tesseract_langs
from paperworks.tools.ocr.preprocess import Preprocess, preprocess

if TYPE_CHECKING:
    from PIL import Image


@dataclass
class Word:
    """One recognised word: text, confidence 0–100 and box (left, top, width, height) in the
    coordinates of the image as given (before any upscaling)."""

    text: str
    confidence: float
    box: tuple[int, int, int, int]
    line: int
    """0-based index of the line the word belongs to."""


@dataclass
class OcrResult:
    """Text of an image, line by line, with its words and what preprocessing did."""

    text: str
    words: list[Word] = field(default_factory=list)
    languages: str = "eng"
    preprocessing: dict[str, float] = field(default_factory=dict)
    detected: str = ""
    """With ``languages="auto"``: how the languages were chosen (script, then language)."""

    @property
    def mean_confidence(self) -> float:
        """Mean word confidence (0 when no word was found)."""
        return sum(w.confidence for w in self.words) / len(self.words) if self.words else 0.0


@dataclass
class Orientation:
    """Tesseract's orientation and script detection (OSD) for a page."""

    rotate: int
    """Degrees to rotate the image (clockwise) to make the text upright: 0, 90, 180 or 270."""
    orientation_confidence: float
    script: str
    """Detected script: Latin, Cyrillic, Greek, Arabic, Hebrew, Han, Japanese, Devanagari, Fraktur, ..."""
    script_confidence: float


class _TesseractEnv(Mapping[str, str]):
    """The process environment as tesseract sees it: ``OMP_THREAD_LIMIT`` defaults to
    ``PAPERWORKS_OCR_THREADS`` (1). Tesseract's OpenMP threads oversubscribe a busy machine: one
    thread read a 12-line page 7x faster than the default on 2 shared cores. Only the tesseract
    child processes get it; this process's own OpenMP (torch) is left alone."""

    def _merged(self) -> dict[str, str]:
        env = dict(os.environ)
        env.setdefault("OMP_THREAD_LIMIT", os.environ.get("PAPERWORKS_OCR_THREADS", "1"))
        return env

    def __getitem__(self, key: str) -> str:
        return self._merged()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._merged())

    def __len__(self) -> int:
        return len(self._merged())


def _pytesseract() -> Any:
    try:
        import pytesseract
        import pytesseract.pytesseract as runner
    except ImportError as exc:  # pragma: no cover - dependency listed in the set-up
        raise MissingDependencyError("pytesseract is not installed (pip install pytesseract)") from exc
    installed_languages()  # raises a clear error when the tesseract binary is missing
    runner.environ = _TesseractEnv()  # the env pytesseract hands to every tesseract it starts
    return pytesseract


def load_image(source: str | Path | Image.Image) -> Image.Image:
    """Open an image file (any format PIL reads), or pass a PIL image through.

    Raises ``BadFileError`` naming the file when it is missing or not a readable image.
    """
    from PIL import Image, UnidentifiedImageError

    if isinstance(source, Image.Image):
        return source
    path = Path(source)
    if not path.is_file():
        raise BadFileError(path, "no such file")
    try:
        with Image.open(path) as img:
            img.load()
            copy = img.copy()
            copy.format = img.format  # copy() drops it; image_info reports it
            return copy
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise BadFileError(path, f"not a readable image ({type(exc).__name__}: {exc})") from exc


def read_image(source: str | Path | Image.Image, languages: str | list[str] | None = None,
               options: Preprocess | None = None, psm: int = 3, timeout_s: float = 120,
               auto_rotate: bool = False) -> OcrResult:
    """OCR an image in the given languages: preprocess, run tesseract, return text with per-word
    confidence and boxes (``engine.ocr_image`` is the entry point, which also takes ``"auto"``).

    ``languages`` accepts ``"deu+lat"``, ``["de", "la"]``, names or tesseract codes (default eng);
    ``psm`` is tesseract's page segmentation mode (3 = automatic, 6 = one block, 7 = one line).
    ``auto_rotate`` first turns a page lying on its side or upside down upright (tesseract OSD;
    boxes are then in the upright page's coordinates, ``preprocessing['rotated_deg']`` says how far).
    """
    pytesseract = _pytesseract()
    langs = tesseract_langs(languages)
    image = load_image(source)
    rotated = 0
    if auto_rotate:
        try:
            rotated = detect_orientation(image).rotate
        except BadFileError:
            rotated = 0  # too little text to tell: read it as it is
        if rotated:
            image = image.rotate(-rotated, expand=True, fillcolor="white" if image.mode != "L" else 255)
    clean, done = preprocess(image, options)
    if rotated:
        done["rotated_deg"] = float(rotated)
    scale = done.get("scale", 1.0)
    try:
        data = pytesseract.image_to_data(clean, lang=langs, config=f"--psm {psm}",
                                         output_type=pytesseract.Output.DICT, timeout=timeout_s)
    except RuntimeError as exc:  # pytesseract's timeout
        raise BadFileError(_name(source), f"OCR took longer than {timeout_s} s") from exc
    except pytesseract.TesseractError as exc:
        raise BadFileError(_name(source), f"tesseract failed: {exc}") from exc
    words: list[Word] = []
    line_keys: dict[tuple[int, int, int], int] = {}
    lines: list[list[str]] = []
    for i, raw in enumerate(data["text"]):
        text = str(raw).strip()
        conf = float(data["conf"][i])
        if not text or conf < 0:
            continue
        key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
        if key not in line_keys:
            line_keys[key] = len(lines)
            lines.append([])
        line = line_keys[key]
        lines[line].append(text)
        box = tuple(int(round(float(data[k][i]) / scale)) for k in ("left", "top", "width", "height"))
        words.append(Word(text, conf, (box[0], box[1], box[2], box[3]), line))
    text = "\n".join(join_words(ws) for ws in lines)
    return OcrResult(text=text, words=words, languages=langs, preprocessing=done)


def detect_orientation(source: str | Path | Image.Image) -> Orientation:
    """Tesseract OSD: how far the page is rotated and which script it is in.

    Raises ``BadFileError`` when the image has too little text for OSD to decide.
    """
    pytesseract = _pytesseract()
    image = load_image(source)
    clean, _ = preprocess(image, Preprocess(deskew=False))
    try:
        osd = pytesseract.image_to_osd(clean, output_type=pytesseract.Output.DICT, config="--psm 0")
    except pytesseract.TesseractError as exc:
        raise BadFileError(_name(source), "too little text for orientation and script detection") from exc
    return Orientation(rotate=int(osd["rotate"]), orientation_confidence=float(osd["orientation_conf"]),
                       script=str(osd["script"]), script_confidence=float(osd["script_conf"]))


def _is_cjk(ch: str) -> bool:
    return ("\u3000" <= ch <= "\u9fff") or ("\uf900" <= ch <= "\ufaff") or ("\uff00" <= ch <= "\uffef")


def join_words(words: list[str]) -> str:
    """Join a line's words with spaces, except between Chinese/Japanese characters (tesseract
    returns each CJK character as its own word)."""
    out = ""
    for word in words:
        a, b = out[-1:], word[0]
        tight = (_is_cjk(a) and (_is_cjk(b) or not b.isalnum())) or (_is_cjk(b) and a and not a.isalnum())
        if out and not tight:
            out += " "
        out += word
    return out


def _name(source: Any) -> str:
    return str(source) if isinstance(source, (str, Path)) else "<image>"
