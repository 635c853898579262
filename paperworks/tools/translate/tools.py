"""Agent tool: translate text with a model, Apertium, or a FreeDict gloss."""

from __future__ import annotations

from paperworks.core.errors import UserError
from paperworks.tools.base import ToolError, tool
from paperworks.tools.translate.core import translate


@tool
async def translate_text(text: str, target: str = "eng", source: str = "auto", model: str = "",
                         engine: str = "auto") -> str:
    """Translate text; the answer starts with the engine used ([apertium ...], [freedict ...] for a
    word-by-word gloss, or [model ...]).

    Args:
        text: the text to translate.
        target: target language code, e.g. "eng", "fr", "German".
        source: source language code, or "auto" to identify it.
        model: a litellm model to translate with (best quality); empty for offline engines.
        engine: "auto", "model", "apertium" or "freedict".
    """
    try:
        result = await translate(text, target, source, model or None, engine)
    except UserError as exc:
        raise ToolError(str(exc)) from exc
    return result.render()
