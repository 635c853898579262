"""OCR when the language is not known: the script from tesseract OSD picks a first set of
language packs, the first reading's language (lingua) picks the pack for a second reading."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from paperworks.core.errors import UserError
from paperworks.tools.documents.model import BadFileError
from paperworks.tools.ocr.languages import installed_languages
from paperworks.tools.ocr.preprocess import Preprocess
from paperworks.tools.ocr.tesseract import OcrResult, detect_orientation, load_image, read_image

if TYPE_CHECKING:
    from PIL import Image

# OSD script → packs for the first reading (the first installed ones are used).
SCRIPT_LANGUAGES = {
    "Latin": ["eng", "lat", "deu", "fra"], "Fraktur": ["frk"], "Cyrillic": ["rus"], "Greek": ["ell", "grc"],
    "Arabic": ["ara"], "Hebrew": ["heb"], "Han": ["chi_sim", "chi_tra"], "HanS": ["chi_sim", "chi_tra"],
    "HanT": ["chi_tra", "chi_sim"], "Japanese": ["jpn"], "Katakana": ["jpn"], "Hiragana": ["jpn"],
    "Devanagari": ["san"], "Syriac": ["syr"],
}
# ISO 639-3 from lingua → the tesseract pack for the second reading.
CJK_SCRIPTS = ("Han", "HanS", "HanT", "Japanese", "Katakana", "Hiragana")
# When OSD cannot tell (a line or two of text): packs tried one by one if a Latin reading is poor.
FALLBACK_PACKS = ["ara", "heb", "rus", "ell", "chi_sim", "jpn"]
CONFIDENT = 70.0
LANGUAGE_PACK = {"eng": "eng", "lat": "lat", "deu": "deu", "fra": "fra", "ita": "ita", "spa": "spa",
                 "por": "por", "nld": "nld", "rus": "rus", "ell": "ell", "grc": "grc", "ara": "ara",
                 "heb": "heb", "jpn": "jpn", "san": "san", "syr": "syr"}


def ocr_auto(source: str | Path | Image.Image, options: Preprocess | None = None, psm: int = 3) -> OcrResult:
    """OCR an image in an unknown language and script (upright first, as with ``auto_rotate``).

    Raises ``BadFileError`` for an unreadable image and ``UserError`` when no pack for the
    detected script is installed.
    """
    image = load_image(source)
    installed = installed_languages()
    try:
        orientation = detect_orientation(image)
        script = orientation.script
        if orientation.rotate:
            image = image.rotate(-orientation.rotate, expand=True, fillcolor=255 if image.mode == "L" else "white")
    except BadFileError:
        script = ""  # too little text for OSD
    if not script:
        return _without_osd(image, installed, options, psm)
    packs = [p for p in SCRIPT_LANGUAGES.get(script, ["eng"]) if p in installed]
    if not packs:
        raise UserError(f"no OCR language pack for the {script} script is installed")
    first = read_image(image, packs, options, psm)
    how = f"script {script}"
    pack = ""
    if script in CJK_SCRIPTS:
        pack = _cjk_pack(first.text)
    elif len(packs) > 1 and len(first.text.split()) >= 3:
        from paperworks.tools.ocr.langid import detect_language

        try:
            guess = detect_language(first.text).iso639_3
        except UserError:
            guess = ""
        pack = LANGUAGE_PACK.get(guess, "")
    if pack in installed and pack != first.languages:
        second = read_image(image, pack, options, psm)
        second.detected = f"{how}, language {pack}"
        return second
    first.detected = how
    return first


def _without_osd(image: Image.Image, installed: frozenset[str], options: Preprocess | None, psm: int) -> OcrResult:
    """A Latin reading; if it is not confident, the most confident reading of the other scripts."""
    latin = [p for p in SCRIPT_LANGUAGES["Latin"] if p in installed] or ["eng"]
    best = read_image(image, latin, options, psm)
    best.detected = "no OSD, Latin"
    if best.mean_confidence >= CONFIDENT:
        return best
    for pack in (p for p in FALLBACK_PACKS if p in installed):
        other = read_image(image, pack, options, psm)
        if other.mean_confidence > best.mean_confidence:
            best, best.detected = other, f"no OSD, most confident pack {pack}"
    if best.languages in ("chi_sim", "jpn"):
        pack = _cjk_pack(best.text)
        if pack != best.languages and pack in installed:
            best = read_image(image, pack, options, psm)
            best.detected = f"no OSD, Han script, language {pack}"
    return best


def _cjk_pack(text: str) -> str:
    """``jpn`` when kana appear, else traditional or simplified Chinese by their distinct characters."""
    kana = sum("\u3040" <= ch <= "\u30ff" for ch in text)
    han = sum("\u4e00" <= ch <= "\u9fff" for ch in text)
    if kana and kana / (kana + han) >= 0.15:
        return "jpn"
    return "chi_tra" if _traditional_share(text) > 0.5 else "chi_sim"


def _traditional_share(text: str) -> float:
    """Share of Han characters that differ between the traditional and simplified forms we know."""
    traditional, simplified = set("學時習說來樂國書為經會長門東車馬見貝"), set("学时习说来乐国书为经会长门东车马见贝")
    t = sum(ch in traditional for ch in text)
    s = sum(ch in simplified for ch in text)
    return t / (t + s) if t + s else 0.0
