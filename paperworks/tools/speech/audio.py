"""Mono audio as a float32 array plus its sampling rate, and 16-bit WAV input/output."""

from __future__ import annotations

import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paperworks.core.errors import UserError


@dataclass(frozen=True, eq=False)
class Audio:
    """Mono audio: ``samples`` float32 in [-1, 1] (nominally), ``sr`` samples per second."""

    samples: np.ndarray
    """float32, shape (n,)."""
    sr: int
    """Sampling rate in Hz."""

    def __post_init__(self) -> None:
        samples = np.asarray(self.samples, dtype=np.float32).reshape(-1)
        object.__setattr__(self, "samples", samples)
        if self.sr <= 0:
            raise UserError(f"audio sampling rate must be positive, got {self.sr}")

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return len(self.samples) / self.sr

    @property
    def peak(self) -> float:
        """Largest absolute sample value (above 1.0 clips when written as PCM)."""
        return float(np.max(np.abs(self.samples))) if len(self.samples) else 0.0

    def gained(self, db: float) -> Audio:
        """A copy scaled by ``db`` decibels."""
        return Audio(self.samples * np.float32(10.0 ** (db / 20.0)), self.sr)

    def write(self, path: str | Path) -> Path:
        """Write 16-bit PCM mono WAV (samples beyond +-1 are clipped); returns the path."""
        return write_wav(self, path)


def write_wav(audio: Audio, path: str | Path) -> Path:
    """Write ``audio`` as 16-bit PCM mono WAV, clipping to [-1, 1]; creates parent folders."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pcm = (np.clip(audio.samples, -1.0, 1.0) * 32767.0).round().astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(int(audio.sr))
        w.writeframes(pcm.tobytes())
    return path


def read_wav(path: str | Path) -> Audio:
    """Read a PCM WAV file (8/16/24/32-bit, any channels: averaged to mono).

    One-line :class:`UserError` when the file is missing or is not PCM WAV."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"no audio file {path}")
    try:
        with wave.open(str(path), "rb") as w:
            channels, width, sr, n = w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()
            raw = w.readframes(n)
    except (wave.Error, EOFError) as exc:
        raise UserError(f"{path} is not a PCM WAV file ({exc})") from None
    if width == 1:
        x = (np.frombuffer(raw, dtype=np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width == 2:
        x = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
    elif width == 3:
        b = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        x = (np.where(v >= 1 << 23, v - (1 << 24), v)).astype(np.float32) / float(1 << 23)
    elif width == 4:
        x = np.frombuffer(raw, dtype="<i4").astype(np.float32) / float(1 << 31)
    else:
        raise UserError(f"{path}: unsupported sample width {width} bytes")
    if channels > 1:
        x = x.reshape(-1, channels).mean(axis=1)
    return Audio(x, sr)
