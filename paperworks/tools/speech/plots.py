"""Audio in reports: an F0-contour PNG of an utterance against its neutral reading, and an
``<audio>`` HTML snippet. matplotlib (Agg) loads inside :func:`f0_plot` only."""

from __future__ import annotations

import base64
import html
import textwrap
from pathlib import Path

import numpy as np

from paperworks.tools.speech.audio import Audio
from paperworks.tools.speech.features import f0_track

AUDIO_INLINE_BYTES = 400_000
"""Largest WAV that :func:`audio_html` embeds as a data URI when ``inline=True``; larger ones are linked."""


def _contour(audio: Audio) -> tuple[np.ndarray, np.ndarray]:
    """Times and semitones (re 100 Hz) with NaN across unvoiced gaps longer than 30 ms (for plotting)."""
    t, hz = f0_track(audio)
    if not len(t):
        return t, hz
    st = 12.0 * np.log2(hz / 100.0)
    gap = np.flatnonzero(np.diff(t) > 0.03)
    return np.insert(t, gap + 1, np.nan), np.insert(st, gap + 1, np.nan)


def f0_plot(audio: Audio, neutral: Audio | None, path: str | Path, title: str | None = None,
            label: str = "rendered") -> Path:
    """Write a PNG of ``audio``'s F0 contour (semitones re 100 Hz over time), with ``neutral``'s
    contour beside it when given; returns the path. Unvoiced audio gives an empty plot with a note."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(7.0, 2.6), dpi=100)
    try:
        drawn = False
        if neutral is not None:
            t, st = _contour(neutral)
            if len(t):
                ax.plot(t, st, color="#9ca3af", lw=1.6, label="neutral")
                drawn = True
        t, st = _contour(audio)
        if len(t):
            ax.plot(t, st, color="#1d4ed8", lw=1.6, label=label)
            drawn = True
        if not drawn:
            ax.text(0.5, 0.5, "no voicing found", ha="center", va="center", transform=ax.transAxes)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("F0 (st re 100 Hz)")
        ax.grid(alpha=0.3)
        if drawn:
            ax.legend(loc="upper right", fontsize=8, frameon=False)
        if title:
            ax.set_title(textwrap.shorten(title, 110, placeholder=" ..."), fontsize=8)
        fig.tight_layout()
        fig.savefig(path)
    finally:
        plt.close(fig)
    return path


def audio_html(path: str | Path, inline: bool = False, href: str | None = None) -> str:
    """An ``<audio controls>`` element for a WAV file.

    By default it links ``href`` (or the file name, for reports written beside the audio);
    ``inline=True`` embeds files up to :data:`AUDIO_INLINE_BYTES` as a base64 data URI."""
    path = Path(path)
    if inline and path.is_file() and path.stat().st_size <= AUDIO_INLINE_BYTES:
        src = "data:audio/wav;base64," + base64.b64encode(path.read_bytes()).decode("ascii")
    else:
        src = href if href is not None else path.name
    return f'<audio controls preload="none" src="{html.escape(src, quote=True)}"></audio>'
