"""What a vision model sees as HistAgent's image analyst: the image attachments and the video frames
its tools extract, as OpenAI-style image content parts beside the text.

The parts are added to the prompt of each request only (``with_images``); the graph state keeps paths,
never image bytes. Images go on the task message (the attachments) and, after the tool results of a
``video_frames`` call, on one user message listing the frames (a tool message carries text only).
At most ``max_images`` images per request: the attachments first, then the frames of each call, an
evenly spaced selection when there are more. An image that cannot be encoded is named in a text part
instead, and the text tools (size, EXIF, OCR, colours) stay available either way.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from paperworks.models.types import Message

FRAMES_TOOL = "video_frames"
_FRAME_LINE = re.compile(r"^(\d+(?:\.\d+)?)s\t(\S.*)$")
"""A line of the ``video_frames`` tool's result: ``<seconds>s<TAB><path under the artifact folder>``."""


def frames_listed(observation: str) -> list[tuple[str, str]]:
    """(time, relative path) of each frame a ``video_frames`` result lists (none for an error)."""
    return [(m.group(1), m.group(2).strip()) for line in observation.splitlines()
            if (m := _FRAME_LINE.match(line.strip()))]


def spread(items: list[Any], n: int) -> list[Any]:
    """At most ``n`` of ``items``, evenly spaced, the first always included."""
    if n <= 0:
        return []
    if len(items) <= n:
        return list(items)
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def _parts(paths: list[tuple[str, Path]], max_side: int) -> list[dict[str, Any]]:
    """A text part naming each image, then the image (or why it could not be attached)."""
    from paperworks.core.errors import UserError
    from paperworks.tools.images import image_part

    out: list[dict[str, Any]] = []
    for label, path in paths:
        try:
            part = image_part(path, max_side)
        except (UserError, OSError) as exc:
            out.append({"type": "text", "text": f"[{label}: could not be attached as an image: {exc}]"})
            continue
        out += [{"type": "text", "text": f"[image: {label}]"}, part]
    return out


def with_images(messages: list[Message], attachments: list[str], artifacts: Path | None, *,
                max_images: int = 8, max_side: int = 1024) -> list[Message]:
    """``messages`` (system, task, then the specialist's turns) with the image attachments as image parts
    of the task message and each ``video_frames`` result's frames on a user message after the tool
    results of that turn. A new list: ``messages`` itself is not changed."""
    from paperworks.tools.images import is_image

    images = [(Path(a).name, Path(a)) for a in attachments if is_image(a)][:max_images]
    left = max_images - len(images)
    out: list[Message] = []
    pending: list[dict[str, Any]] = []
    task_done = False
    for message in messages:
        if pending and message.get("role") != "tool":
            out.append({"role": "user", "content": pending})
            pending = []
        if message.get("role") == "user" and not task_done:
            task_done = True
            if images:
                text = (f"{message.get('content') or ''}\n\nThe image attachments follow (downscaled to at most "
                        f"{max_side} px): look at them, and use the tools for exact facts (EXIF, size, OCR).")
                message = {**message, "content": [{"type": "text", "text": text}, *_parts(images, max_side)]}
        elif message.get("role") == "tool" and message.get("name") == FRAMES_TOOL and artifacts is not None:
            root = artifacts.resolve()
            listed = [(t, rel) for t, rel in frames_listed(str(message.get("content") or ""))
                      if root in (root / rel).resolve().parents]
            frames = spread(listed, left)
            if frames:
                left -= len(frames)
                pending += [{"type": "text", "text": "Frames of the video from the video_frames result above "
                                                     "(time: file):"},
                            *_parts([(f"{t}s: {rel}", artifacts / rel) for t, rel in frames], max_side)]
        out.append(message)
    if pending:
        out.append({"role": "user", "content": pending})
    return out
