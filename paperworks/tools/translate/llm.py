"""Translation through the model gateway (any litellm model), with a prompt that keeps names,
dates and numbers as they are."""

from __future__ import annotations

from paperworks.core.errors import UserError

SYSTEM = (
    "You are a translator of historical documents. Translate the user's text faithfully and "
    "completely. Keep every personal name, place name, date, number, regnal number and unit exactly "
    "as written (transliterate names only when the target script requires it). Do not explain, "
    "summarise or add notes. Reply with the translation only."
)


def prompt(text: str, source: str, target: str) -> list[dict[str, str]]:
    """The chat messages sent to the model."""
    src = "the source language (identify it)" if source == "auto" else source
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Translate from {src} into {target}.\n\n<text>\n{text}\n</text>"},
    ]


def clean_reply(reply: str) -> str:
    """Strip the ``<text>`` wrapper or a "Translation:" lead that models sometimes echo."""
    out = reply.strip()
    for tag in ("<text>", "</text>"):
        out = out.replace(tag, "")
    for lead in ("Translation:", "translation:"):
        if out.startswith(lead):
            out = out[len(lead):]
    return out.strip()


async def model_translate(text: str, source: str, target: str, model: str, max_tokens: int = 2048) -> str:
    """Translate with ``model`` through ``get_model(model).generate``; raises ``UserError`` on an
    empty reply."""
    from paperworks.models import get_model

    response = await get_model(model).generate(prompt(text, source, target), max_tokens=max_tokens,
                                               temperature=0.0)
    out = clean_reply(response.text)
    if not out:
        raise UserError(f"model {model} returned an empty translation")
    return out
