"""Decoding audio and video with ffmpeg: 16 kHz mono PCM for recognisers, frames for image tools."""

from __future__ import annotations

import glob
import re
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
    """Still frames of a video as PNGs in ``out_dir``: the first frame of each ``every_s``-second slot
    (0, every_s, 2 * every_s ...), at most ``max_frames``, as (its time in seconds, path). Frames of an
    earlier call on a video of the same name are replaced. Raises ``BadFileError`` (one line) for a
    missing, empty or unreadable file, or one without a video stream."""
    p = Path(path)
    _check(p)
    if every_s <= 0:
        raise BadFileError(p, f"frame interval must be positive, not {every_s}")
    if p.stat().st_size == 0:
        raise BadFileError(p, "not a readable video (the file is empty)")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob(f"{glob.escape(p.stem)}_*.png"):
        stale.unlink()
    slot = f"floor((t+0.0005)/{every_s:g})"
    keep = f"select='isnan(prev_selected_t)+gt({slot}\\,{slot.replace('(t+', '(prev_selected_t+')})',showinfo"
    command = [_ffmpeg(), "-hide_banner", "-nostdin", "-loglevel", "level+info", "-y", "-i", str(p), "-vf", keep,
               "-fps_mode", "vfr", "-frames:v", str(max_frames), str(out / (p.stem.replace("%", "%%") + "_%04d.png"))]
    proc = subprocess.run(command, capture_output=True, timeout=timeout_s)
    log = proc.stderr.decode("utf-8", "replace").splitlines()
    if proc.returncode != 0 and any("Unrecognized option 'fps_mode'" in line for line in log):  # ffmpeg < 5.1
        command[command.index("-fps_mode")] = "-vsync"
        proc = subprocess.run(command, capture_output=True, timeout=timeout_s)
        log = proc.stderr.decode("utf-8", "replace").splitlines()
    frames = sorted(out.glob(f"{glob.escape(p.stem)}_*.png"))
    times = [float(m.group(1)) for line in log if "showinfo" in line and (m := _PTS_TIME.search(line))]
    if proc.returncode != 0 or not frames:
        raise BadFileError(p, f"not a readable video ({_reason(log, p)})")
    times = times[: len(frames)] + [round(i * every_s, 3) for i in range(len(times), len(frames))]
    return [(round(t, 3), frame) for t, frame in zip(times, frames, strict=True)]


_PTS_TIME = re.compile(r"pts_time:\s*(-?\d+(?:\.\d+)?)")
_SOURCE = re.compile(r"^\[[^\]]+ @ 0x[0-9a-f]+\]\s*")


def _reason(log: list[str], path: Path) -> str:
    """ffmpeg's error lines as one short reason: its [error]/[fatal] messages, without the file name."""
    said: list[str] = []
    for line in log:
        text = _SOURCE.sub("", line.strip())
        if not text.startswith(("[error]", "[fatal]")):
            continue
        text = text.split("]", 1)[1].strip().removeprefix(f"{path}:").strip()
        if "does not contain any stream" in text or "matches no streams" in text:
            text = "no video stream"
        if text and text not in said:
            said.append(text[:1].lower() + text[1:])
    return "; ".join(said)[:200] or "no video stream"
