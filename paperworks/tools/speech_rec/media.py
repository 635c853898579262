"""Decoding audio and video with ffmpeg: 16 kHz mono PCM for recognisers, frames for image tools."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from paperworks.core.errors import MissingDependencyError
from paperworks.tools.documents.model import BadFileError

SAMPLE_RATE = 16_000


def _ffmpeg() -> str:
    exe = shutil.which("ffmpeg")
    if exe is None:
        raise MissingDependencyError("ffmpeg is not installed (Debian: apt-get install ffmpeg)")
    return exe


def _check(path: Path) -> None:
    if not path.is_file():
        raise BadFileError(path, "no such file")


def decode_pcm(path: str | Path, timeout_s: float = 300) -> bytes:
    """Any audio (or a video's sound track) → 16-bit little-endian mono PCM at 16 kHz."""
    p = Path(path)
    _check(p)
    proc = subprocess.run([_ffmpeg(), "-v", "error", "-nostdin", "-i", str(p), "-vn", "-ac", "1",
                           "-ar", str(SAMPLE_RATE), "-f", "s16le", "-"], capture_output=True, timeout=timeout_s)
    if proc.returncode != 0 or not proc.stdout:
        reason = " ".join(proc.stderr.decode("utf-8", "replace").split())[-200:] or "no audio stream"
        raise BadFileError(p, f"not readable audio ({reason})")
    return proc.stdout


def extract_frames(path: str | Path, out_dir: str | Path, every_s: float = 5.0, max_frames: int = 50,
                   timeout_s: float = 300) -> list[tuple[float, Path]]:
    """One PNG frame every ``every_s`` seconds of a video (at most ``max_frames``), as (time, path)."""
    p = Path(path)
    _check(p)
    if every_s <= 0:
        raise BadFileError(p, f"frame interval must be positive, not {every_s}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    pattern = out / f"{p.stem}_%04d.png"
    proc = subprocess.run([_ffmpeg(), "-v", "error", "-nostdin", "-y", "-i", str(p), "-vf", f"fps=1/{every_s}",
                           "-frames:v", str(max_frames), str(pattern)], capture_output=True, timeout=timeout_s)
    frames = sorted(out.glob(f"{p.stem}_*.png"))
    if proc.returncode != 0 or not frames:
        reason = " ".join(proc.stderr.decode("utf-8", "replace").split())[-200:] or "no video stream"
        raise BadFileError(p, f"not a readable video ({reason})")
    return [(round(i * every_s, 3), frame) for i, frame in enumerate(frames)]
