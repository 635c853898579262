"""``translate()``: picks an engine (a model, Apertium, or FreeDict glossing) and says which it used.

Engine choice with ``engine="auto"``: a given model wins; otherwise an installed Apertium pair;
otherwise a FreeDict dictionary (word-by-word gloss); otherwise a clear error. Same source and
target: the text comes back unchanged (engine ``none``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from paperworks.core.errors import UserError
from paperworks.tools.translate.apertium import apertium_pairs, apertium_translate
from paperworks.tools.translate.codes import normalise
from paperworks.tools.translate.freedict import freedict_pairs, gloss_text

ENGINES = ("auto", "model", "apertium", "freedict")


@dataclass
class Translation:
    """A translation and where it came from."""

    text: str
    engine: str
    """``model``, ``apertium``, ``freedict`` (a word-by-word gloss, not a translation) or ``none``."""
    source: str
    """ISO 639-3 source language (detected when ``auto`` was asked)."""
    target: str
    model: str | None = None
    coverage: float | None = None
    """For ``freedict``: the share of words the dictionary knew."""

    def render(self) -> str:
        """``[engine src→tgt] text``, as a tool observation."""
        engine = f"model {self.model}" if self.engine == "model" else self.engine
        cover = f", {self.coverage:.0%} of words glossed" if self.coverage is not None else ""
        return f"[{engine}, {self.source}→{self.target}{cover}]\n{self.text}"


def choose_engine(source: str, target: str, model: str | None = None, engine: str = "auto") -> str:
    """The engine that will translate ``source``→``target`` (ISO codes), or ``UserError``."""
    if engine not in ENGINES:
        raise UserError(f"translation engine '{engine}' is not one of {', '.join(ENGINES)}")
    src, tgt = normalise(source), normalise(target)
    if src == tgt:
        return "none"
    if engine == "model" or (engine == "auto" and model):
        if not model:
            raise UserError("engine 'model' needs a model (e.g. --model openai/gpt-4o)")
        return "model"
    has_apertium = (src, tgt) in apertium_pairs()
    has_freedict = (src, tgt) in freedict_pairs()
    if engine == "apertium" and not has_apertium:
        raise UserError(f"no Apertium pair {src}→{tgt}; installed: {_names(apertium_pairs())}")
    if engine == "freedict" and not has_freedict:
        raise UserError(f"no FreeDict dictionary {src}→{tgt}; installed: {_names(freedict_pairs())}")
    if engine != "auto":
        return engine
    if has_apertium:
        return "apertium"
    if has_freedict:
        return "freedict"
    raise UserError(f"no offline translation engine for {src}→{tgt} (Apertium: {_names(apertium_pairs())}; "
                    f"FreeDict: {_names(freedict_pairs())}); give a model")


def _names(pairs: Mapping[tuple[str, str], object]) -> str:
    return ", ".join(f"{a}→{b}" for a, b in sorted(pairs)) or "none installed"


async def translate(text: str, target: str = "eng", source: str = "auto", model: str | None = None,
                    engine: str = "auto") -> Translation:
    """Translate ``text`` into ``target``. ``source="auto"`` identifies the language offline first.

    Raises ``UserError`` for empty text, unknown languages, or when no engine can do the pair.
    """
    if not text.strip():
        raise UserError("nothing to translate: the text is empty")
    if source == "auto":
        from paperworks.tools.ocr.langid import detect_language

        guess = detect_language(text)
        if guess.iso639_3 == "und":
            raise UserError(f"cannot identify the language of {text[:40]!r}; give the source language")
        source = guess.iso639_3
    src, tgt = normalise(source), normalise(target)
    chosen = choose_engine(src, tgt, model, engine)
    if chosen == "none":
        return Translation(text, "none", src, tgt)
    if chosen == "model":
        from paperworks.tools.translate.llm import model_translate

        assert model is not None
        return Translation(await model_translate(text, src, tgt, model), "model", src, tgt, model=model)
    if chosen == "apertium":
        return Translation(apertium_translate(text, src, tgt), "apertium", src, tgt)
    glossed, coverage = gloss_text(text, src, tgt)
    return Translation(glossed, "freedict", src, tgt, coverage=round(coverage, 3))
