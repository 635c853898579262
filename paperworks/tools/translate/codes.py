"""Language codes for translation: everything is normalised to ISO 639-3 (``lat``, ``deu``, ``eng``)."""

from __future__ import annotations

from paperworks.core.errors import UserError

ISO1_TO_3 = {
    "en": "eng", "es": "spa", "fr": "fra", "de": "deu", "la": "lat", "it": "ita", "el": "ell",
    "ar": "ara", "ru": "rus", "pt": "por", "nl": "nld", "ca": "cat", "gl": "glg", "ja": "jpn",
    "zh": "zho", "he": "heb", "uk": "ukr", "pl": "pol", "eo": "epo", "eu": "eus", "oc": "oci",
    "ro": "ron", "sv": "swe", "da": "dan", "no": "nor", "nb": "nob", "nn": "nno", "is": "isl",
    "af": "afr", "bg": "bul", "mk": "mkd", "be": "bel", "sa": "san", "br": "bre", "cy": "cym",
    "an": "arg", "ast": "ast", "hi": "hin", "ur": "urd", "id": "ind", "ms": "zlm", "sl": "slv",
}
NAMES = {
    "english": "eng", "spanish": "spa", "french": "fra", "german": "deu", "latin": "lat",
    "italian": "ita", "greek": "ell", "modern greek": "ell", "ancient greek": "grc", "arabic": "ara",
    "russian": "rus", "portuguese": "por", "dutch": "nld", "catalan": "cat", "japanese": "jpn",
    "chinese": "zho", "hebrew": "heb", "sanskrit": "san", "syriac": "syr",
}
# Tesseract's and others' variants that name the same language.
VARIANTS = {"fre": "fra", "ger": "deu", "gre": "ell", "frk": "deu", "chi_sim": "zho", "chi_tra": "zho",
            "cmn": "zho", "spa_old": "spa", "nor": "nob"}


def normalise(code: str) -> str:
    """``de``/``ger``/``German``/``deu`` → ``deu``. Raises ``UserError`` for an empty or odd code."""
    key = code.strip().lower().replace("-", "_")
    if not key:
        raise UserError("empty language code")
    if key in NAMES:
        return NAMES[key]
    if key in ISO1_TO_3:
        return ISO1_TO_3[key]
    if key in VARIANTS:
        return VARIANTS[key]
    if key.isalpha() and len(key) == 3:
        return key
    raise UserError(f"'{code}' is not a language code (give ISO 639-1/639-3, e.g. 'la' or 'lat', or a name)")
