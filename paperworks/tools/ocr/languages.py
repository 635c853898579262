"""Language names and codes: tesseract's traineddata names, ISO 639-1/639-3 codes and English names."""

from __future__ import annotations

import functools
import shutil
import subprocess

from paperworks.core.errors import MissingDependencyError, UserError

# tesseract code -> (ISO 639-1 or "", English name). Fraktur appears as "frk" (German Fraktur)
# and "Fraktur" (script model, Debian's tesseract-ocr-script-frak).
LANGUAGES: dict[str, tuple[str, str]] = {
    "eng": ("en", "English"), "lat": ("la", "Latin"), "grc": ("", "Ancient Greek"),
    "ell": ("el", "Greek"), "deu": ("de", "German"), "frk": ("", "German Fraktur"),
    "Fraktur": ("", "Fraktur script"), "fra": ("fr", "French"), "ita": ("it", "Italian"),
    "spa": ("es", "Spanish"), "por": ("pt", "Portuguese"), "nld": ("nl", "Dutch"),
    "rus": ("ru", "Russian"), "ara": ("ar", "Arabic"), "heb": ("he", "Hebrew"),
    "chi_sim": ("zh", "Chinese (simplified)"), "chi_tra": ("", "Chinese (traditional)"),
    "jpn": ("ja", "Japanese"), "san": ("sa", "Sanskrit"), "syr": ("", "Syriac"),
    "osd": ("", "orientation and script detection"),
}
_ALIASES = {
    "zh": "chi_sim", "zho": "chi_sim", "chinese": "chi_sim", "classical chinese": "chi_tra",
    "ger": "deu", "german": "deu", "fre": "fra", "french": "fra", "gre": "ell", "greek": "ell",
    "ancient greek": "grc", "fraktur": "frk", "latin": "lat", "english": "eng", "italian": "ita",
    "spanish": "spa", "russian": "rus", "arabic": "ara", "hebrew": "heb", "japanese": "jpn",
    "sanskrit": "san", "syriac": "syr", "portuguese": "por", "dutch": "nld",
}


@functools.cache
def installed_languages() -> frozenset[str]:
    """Tesseract's installed traineddata names (``tesseract --list-langs``)."""
    exe = shutil.which("tesseract")
    if exe is None:
        raise MissingDependencyError("tesseract is not installed (Debian: apt-get install tesseract-ocr)")
    out = subprocess.run([exe, "--list-langs"], capture_output=True, text=True, timeout=30)
    lines = (out.stdout + out.stderr).splitlines()
    return frozenset(line.strip() for line in lines[1:] if line.strip() and " " not in line.strip())


def to_tesseract(language: str) -> str:
    """One language (``de``, ``deu``, ``German``, ``chi_sim``, ``Fraktur``) → tesseract's code.

    Raises ``UserError`` naming the language when it is unknown or its pack is not installed.
    """
    key = language.strip()
    if key in LANGUAGES:
        code = key
    elif key.lower() in _ALIASES:
        code = _ALIASES[key.lower()]
    else:
        by_iso = {iso: code for code, (iso, _) in LANGUAGES.items() if iso}
        code = by_iso.get(key.lower(), key.lower())
    if code not in installed_languages():
        raise UserError(f"OCR language '{language}' is not installed; installed: "
                        f"{', '.join(sorted(installed_languages()))} (Debian: tesseract-ocr-<code>)")
    return code


def tesseract_langs(languages: str | list[str] | None) -> str:
    """A ``+``-joined tesseract language string from ``"deu+lat"``, ``["de", "la"]`` or ``None`` (eng)."""
    if not languages:
        return "eng"
    items = languages.replace(",", "+").split("+") if isinstance(languages, str) else languages
    return "+".join(to_tesseract(item) for item in items if item.strip())


def iso_to_tesseract(iso: str) -> str | None:
    """ISO 639-1 code → tesseract code, or ``None`` when no pack covers it."""
    for code, (code_iso, _) in LANGUAGES.items():
        if code_iso == iso.lower():
            return code
    return None
