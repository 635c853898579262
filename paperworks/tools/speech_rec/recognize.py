"""Offline English speech recognition with PocketSphinx (its PyPI wheel ships the en-us model).

Free dictation from the generic model is rough; given candidate ``phrases`` (names, a question's
answer options) the decoder uses a grammar over them and picks the one spoken, far more reliably.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from paperworks.core.errors import MissingDependencyError, UserError
from paperworks.tools.speech_rec.media import SAMPLE_RATE, decode_pcm

FRAMES_PER_S = 100


@dataclass
class Transcript:
    """What was recognised, with word timings in seconds."""

    text: str
    words: list[tuple[str, float, float]] = field(default_factory=list)
    engine: str = "pocketsphinx en-us"
    duration_s: float = 0.0
    choice: str | None = None
    """With ``phrases``: the phrase that shares the most words with what was heard."""


def _grammar(phrases: list[str]) -> str:
    cleaned = [" ".join(re.findall(r"[a-z']+", p.lower())) for p in phrases]
    cleaned = [c for c in cleaned if c]
    if not cleaned:
        raise UserError("phrases must contain words")
    return "#JSGF V1.0;\ngrammar choices;\npublic <choice> = " + " | ".join(f"( {c} )" for c in cleaned) + " ;\n"


def transcribe(path: str | Path, phrases: list[str] | None = None) -> Transcript:
    """Recognise English speech in an audio (or video) file; ``phrases`` restricts the result to
    one of them. Raises ``BadFileError`` for unreadable audio."""
    try:
        from pocketsphinx import Decoder
    except ImportError as exc:  # pragma: no cover
        raise MissingDependencyError("pocketsphinx is not installed (pip install pocketsphinx)") from exc
    pcm = decode_pcm(path)
    decoder = Decoder(samprate=SAMPLE_RATE, logfn=os.devnull)
    with tempfile.TemporaryDirectory() as tmp:
        if phrases:
            grammar = _grammar(phrases)
            body = grammar.split("=", 1)[1]
            unknown = sorted({w for w in re.findall(r"[a-z']+", body) if decoder.lookup_word(w) is None})
            if unknown:
                raise UserError(f"not in the en-us pronunciation dictionary: {', '.join(unknown)}")
            gram = Path(tmp) / "choices.gram"
            gram.write_text(grammar)
            decoder = Decoder(samprate=SAMPLE_RATE, jsgf=str(gram), logfn=os.devnull)
        decoder.start_utt()
        decoder.process_raw(pcm, full_utt=True)
        decoder.end_utt()
        hyp = decoder.hyp()
        words = [(s.word, s.start_frame / FRAMES_PER_S, s.end_frame / FRAMES_PER_S) for s in decoder.seg()
                 if not s.word.startswith(("<", "[")) and s.word != "(NULL)"]
    text = hyp.hypstr if hyp is not None else ""
    words = [(re.sub(r"\(\d+\)$", "", w), round(a, 2), round(b, 2)) for w, a, b in words]
    choice = _closest(text, phrases) if phrases and text else None
    return Transcript(text=text, words=words, duration_s=round(len(pcm) / 2 / SAMPLE_RATE, 3), choice=choice)


def _closest(heard: str, phrases: list[str]) -> str:
    """The phrase whose words best match ``heard`` (in order), first on ties."""
    said = heard.lower().split()

    def score(phrase: str) -> tuple[int, int]:
        words = re.findall(r"[a-z']+", phrase.lower())
        prefix = next((i for i, (a, b) in enumerate(zip(words, said, strict=False)) if a != b),
                      min(len(words), len(said)))
        return (prefix, len(set(words) & set(said)))

    return max(phrases, key=score)
