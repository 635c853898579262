"""Offline language identification: Unicode scripts first, then lingua-language-detector for
languages that share a script (Latin, German, French, ... or Russian, Bulgarian, ...)."""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any

from paperworks.core.errors import MissingDependencyError, UserError

# Scripts whose language is (nearly) determined by the script alone; lingua does not know these.
_SCRIPT_LANGUAGE = {"SYRIAC": ("syr", "Syriac"), "DEVANAGARI": ("san", "Sanskrit or Hindi")}
MIN_LETTERS = 3
# The default candidates (ISO 639-1): languages of the sources a historian meets most. Narrowing
# the set makes short texts far more reliable than all 75 languages; ``candidates=["all"]`` widens it.
DEFAULT_CANDIDATES = ("en", "la", "de", "fr", "it", "es", "pt", "nl", "ca", "ru", "uk", "pl", "cs", "el",
                      "ar", "he", "fa", "tr", "zh", "ja", "ko", "sv", "da", "hu", "ro", "hi")


@dataclass
class LanguageGuess:
    """The most likely language of a text."""

    iso639_3: str
    """ISO 639-3 code, e.g. ``lat``, ``deu``, ``grc``; ``und`` when undetermined."""
    name: str
    confidence: float
    """0–1; lingua's relative confidence, or the script's share of letters for script-only guesses."""
    script: str
    """Dominant Unicode script of the letters: LATIN, GREEK, CYRILLIC, ARABIC, HEBREW, CJK, ..."""
    alternatives: list[tuple[str, float]]
    """The next candidates as (ISO 639-3, confidence)."""


def letter_scripts(text: str) -> Counter[str]:
    """Count letters by Unicode script (the first word of the character's Unicode name)."""
    counts: Counter[str] = Counter()
    for ch in text:
        if ch.isalpha():
            name = unicodedata.name(ch, "")
            script = name.split(" ")[0] if name else "UNKNOWN"
            counts["CJK" if script in ("CJK", "HIRAGANA", "KATAKANA") else script] += 1
    return counts


def _is_polytonic(text: str) -> bool:
    """Greek with breathings/accents of the Extended block (U+1F00–U+1FFF): Ancient Greek."""
    return any("\u1f00" <= ch <= "\u1fff" for ch in text)


@functools.cache
def _detector(candidates: tuple[str, ...]) -> Any:
    try:
        from lingua import IsoCode639_1, IsoCode639_3, Language, LanguageDetectorBuilder
    except ImportError as exc:  # pragma: no cover
        raise MissingDependencyError("lingua-language-detector is not installed") from exc
    if candidates == ("all",):
        return LanguageDetectorBuilder.from_all_languages().build()
    languages = []
    for code in candidates:
        try:
            if len(code) == 2:
                languages.append(Language.from_iso_code_639_1(IsoCode639_1.from_str(code)))
            else:
                languages.append(Language.from_iso_code_639_3(IsoCode639_3.from_str(code)))
        except ValueError as exc:
            raise UserError(f"language '{code}' is not known to the language detector") from exc
    if len(languages) == 1:
        languages.append(Language.ENGLISH if languages[0] != Language.ENGLISH else Language.LATIN)
    return LanguageDetectorBuilder.from_languages(*languages).build()


SAMPLE_CHARS = 5000
"""The statistical detector reads at most this many characters (the first ones): its time grows with the
text (a 1 MB text took minutes), and a few thousand characters settle any language it can tell apart."""


def detect_language(text: str, candidates: list[str] | None = None) -> LanguageGuess:
    """Identify the language of ``text``.

    ``candidates`` (ISO 639-1 or 639-3 codes; default ``DEFAULT_CANDIDATES``, ``["all"]`` for every
    language lingua knows) narrows the choice and makes short texts more reliable. Raises
    ``UserError`` when the text has fewer than three letters.
    """
    scripts = letter_scripts(text)
    letters = sum(scripts.values())
    if letters < MIN_LETTERS:
        raise UserError(f"cannot identify the language of {text[:40]!r}: fewer than {MIN_LETTERS} letters")
    script, count = scripts.most_common(1)[0]
    share = count / letters
    if script in _SCRIPT_LANGUAGE:
        code, name = _SCRIPT_LANGUAGE[script]
        return LanguageGuess(code, name, share, script, [])
    if script == "GREEK" and _is_polytonic(text):
        return LanguageGuess("grc", "Ancient Greek", share, script, [("ell", 0.0)])
    detector = _detector(tuple(candidates) if candidates else DEFAULT_CANDIDATES)
    values = detector.compute_language_confidence_values(text[:SAMPLE_CHARS])  # bounded time on any text
    if not values or values[0].value <= 0:
        return LanguageGuess("und", "undetermined", 0.0, script, [])
    top = values[0]
    alternatives = [(v.language.iso_code_639_3.name.lower(), round(v.value, 4)) for v in values[1:4]]
    return LanguageGuess(top.language.iso_code_639_3.name.lower(), top.language.name.title(),
                         round(top.value, 4), script, alternatives)
