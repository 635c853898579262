"""Agent tools: transcribe speech (English, offline) and take frames from a video."""

from __future__ import annotations

from pathlib import Path

from paperworks.core.errors import UserError
from paperworks.tools.base import ToolContext, ToolError, tool
from paperworks.tools.documents.inputs import resolve_input
from paperworks.tools.speech_rec.media import extract_frames
from paperworks.tools.speech_rec.recognize import transcribe


@tool
def transcribe_audio(path: str, ctx: ToolContext, phrases: str = "") -> str:
    """Transcribe English speech in an audio or video file offline (PocketSphinx; rough on free
    speech, reliable when the candidate phrases are given).

    Args:
        path: the audio or video file.
        phrases: optional candidate phrases separated by "|", e.g. "the treaty of westphalia|the peace of augsburg".
    """
    try:
        result = transcribe(resolve_input(path, ctx), [p for p in phrases.split("|") if p.strip()] or None)
    except UserError as exc:
        raise ToolError(str(exc)) from exc
    timing = " ".join(f"{w}@{a:.1f}s" for w, a, _ in result.words)
    chosen = f"\nbest matching phrase: {result.choice}" if result.choice else ""
    return f"[{result.engine}, {result.duration_s:.1f} s of audio]\n{result.text or '(nothing recognised)'}" \
           f"{chosen}\nwords: {timing}"


@tool
def video_frames(path: str, ctx: ToolContext, every_s: float = 5.0, max_frames: int = 12) -> str:
    """Take still frames from a video (one every few seconds) for the image and OCR tools; lists
    the frame files with their times.

    Args:
        path: the video file.
        every_s: seconds between frames.
        max_frames: most frames to take (1-50).
    """
    if ctx.artifacts is None:
        raise ToolError("video_frames needs a run's artifact folder to write the frames into")
    if not 1 <= max_frames <= 50:
        raise ToolError("max_frames must be between 1 and 50")
    source = resolve_input(path, ctx)
    try:
        frames = extract_frames(source, ctx.artifacts.root / "frames", every_s, max_frames)
    except UserError as exc:
        raise ToolError(str(exc)) from exc
    head = f"{len(frames)} frame(s) of {Path(path).name}, one every {every_s:g} s (time, then the file for the ocr " \
           "and describe_image tools):"
    return "\n".join([head, *(f"{t:.1f}s\tframes/{p.name}" for t, p in frames)])
