"""The acoustic prototype library: control settings rendered over texts x voices, measured, labelled, cached.

**Reconstructed** (no code is public; the paper describes "a large-scale acoustic prototype library").
For each (text, voice) pair the builder draws ``per_pair`` control vectors around the keyword table's emotion
profiles: class ``i % 9`` of :data:`~paperworks.backends.steertts.cues.CLASSES` (rotated per pair), an
intensity uniform in [0.2, 1], with probability ``mix_prob`` a second emotion at weight 0.2-0.45, with
probability ``modifier_prob`` one modifier, then Gaussian jitter of ``jitter`` in unit control space. Each
is rendered (``tools.speech.render``), measured against the neutral reading of the pair, and stored with
its JND-unit profile, the measured features, the spectral envelope and the neutral context. Every
prototype gets two labels: ``cls``, the class it was rendered from (ground truth of the disentanglement
corpus) and ``label``, the region the cue mapping (``cues.label_profile``) puts its measurement in.

Pairs render in parallel worker processes (``workers``, forked); the result is cached as one ``.npz`` under
``<PAPERWORKS_HOME>/steertts/`` keyed by the configuration and the espeak-ng version.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path
from typing import Any

import numpy as np

from paperworks.backends.steertts import cues
from paperworks.backends.steertts.acoustics import context_vector, spectral_envelope
from paperworks.core.paths import home_dir

LIBRARY_VERSION = "steertts-library-2"
"""Changes whenever what a prototype holds or how it is made changes (part of the cache key)."""

LIBRARY_TEXTS: tuple[str, ...] = (
    "We will leave at six, so be ready.",
    "They painted the fence, and then it rained.",
    "I found the letter under the table.",
    "My brother called, but I did not answer.",
    "The parcel came, and nobody was home.",
    "Where is the nearest station?",
)
"""Texts of the library (written for this project; the benchmark's texts are different ones)."""

SMALL_VOICES: tuple[str, ...] = ("en-us", "en-us+m3", "en-gb-x-rp", "en-us+klatt",
                                 "en-us+f1", "en-us+f3", "en-us+steph", "en-gb-x-rp+f2")
"""Eight curated speakers (four lower, four higher voices): the small library's and the benchmark's voices."""


@dataclass(frozen=True)
class LibraryConfig:
    """What the library renders (every field but ``workers`` is part of the cache key)."""

    texts: tuple[str, ...] = LIBRARY_TEXTS[:3]
    """Texts rendered by every voice."""
    voices: tuple[str, ...] = SMALL_VOICES
    """espeak-ng voices (speakers)."""
    per_pair: int = 18
    """Control settings per (text, voice) pair."""
    seed: int = 0
    """Seed of the control sampling."""
    modifier_prob: float = 0.3
    """Chance a setting carries one modifier (restrained, hurried, ...)."""
    mix_prob: float = 0.3
    """Chance a setting mixes in a second emotion."""
    jitter: float = 0.06
    """Standard deviation of the Gaussian jitter in unit control space."""
    workers: int = 2
    """Worker processes (not part of the cache key)."""

    def key(self) -> str:
        """Cache key: the settings, :data:`LIBRARY_VERSION` and the espeak-ng version."""
        data = {k: v for k, v in asdict(self).items() if k != "workers"}
        raw = json.dumps([LIBRARY_VERSION, _espeak_version(), data], sort_keys=True)
        return hashlib.sha256(raw.encode()).hexdigest()[:16]


def _all_voices() -> tuple[str, ...]:
    from paperworks.tools.speech import speakers

    return tuple(speakers())


def library_preset(name: str, workers: int | None = None) -> LibraryConfig:
    """``tiny`` (tests: 1 text x 2 voices x 12), ``quick`` (2 x 4 x 18), ``small`` (3 x 8 x 18 = 432, the
    workflow's default) or ``full`` (5 texts x the 20 curated voices x 20 = 2,000 prototypes)."""
    from paperworks.core.errors import UserError

    w = workers if workers is not None else min(2, os.cpu_count() or 1)
    if name == "tiny":
        return LibraryConfig(texts=LIBRARY_TEXTS[:1], voices=("en-us", "en-us+f3"), per_pair=12, workers=1)
    if name == "quick":
        return LibraryConfig(texts=LIBRARY_TEXTS[:2], voices=("en-us", "en-gb-x-rp", "en-us+f1", "en-us+f3"),
                             workers=w)
    if name == "small":
        return LibraryConfig(workers=w)
    if name == "full":
        return LibraryConfig(texts=LIBRARY_TEXTS[:5], voices=_all_voices(), per_pair=20, workers=w)
    raise UserError(f"unknown prototype library '{name}'; presets: tiny, quick, small, full")


@dataclass
class PrototypeLibrary:
    """Prototypes as parallel arrays (row i is one rendering)."""

    control_unit: np.ndarray
    """(N, 9) control vectors in unit space (``ControlVector.to_unit``)."""
    profile: np.ndarray
    """(N, 9) measured JND-unit profiles (``cues.PROFILE_DIMS``; NaN where unmeasurable)."""
    features: np.ndarray
    """(N, 18) measured features (``tools.speech.FEATURE_NAMES``)."""
    envelope: np.ndarray
    """(N, 24) spectral envelopes (``acoustics.spectral_envelope``)."""
    context: np.ndarray
    """(N, 7) the pair's neutral context (``acoustics.context_vector``)."""
    voice: np.ndarray
    """(N,) index into ``voices``."""
    text: np.ndarray
    """(N,) index into ``texts``."""
    cls: np.ndarray
    """(N,) class rendered from (index into ``cues.CLASSES``)."""
    intensity: np.ndarray
    """(N,) intensity rendered at."""
    label: np.ndarray
    """(N,) region the cue mapping assigns (index into ``cues.CLASSES``)."""
    voices: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    """Config, build time, versions."""

    def __len__(self) -> int:
        return int(self.control_unit.shape[0])

    def save(self, path: Path) -> Path:
        """Write an ``.npz`` atomically."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp.npz")
        arrays = {k: getattr(self, k) for k in _ARRAYS}
        np.savez_compressed(tmp, **arrays, meta=np.array(json.dumps(
            {"voices": self.voices, "texts": self.texts, **self.meta})))
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: Path) -> PrototypeLibrary:
        """Read what :meth:`save` wrote."""
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            arrays = {k: data[k] for k in _ARRAYS}
        voices, texts = tuple(meta.pop("voices")), tuple(meta.pop("texts"))
        arrays["profile"] = cues.clip_profile(arrays["profile"])
        return cls(**arrays, voices=voices, texts=texts, meta=meta)


_ARRAYS = ("control_unit", "profile", "features", "envelope", "context", "voice", "text", "cls", "intensity",
           "label")


def _espeak_version() -> str:
    try:
        out = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.split(":")[1].split()[0] if ":" in out else "unknown"


def sample_controls(cfg: LibraryConfig, pair: int) -> list[tuple[int, float, np.ndarray]]:
    """The (class index, intensity, unit control) settings of one pair (deterministic in seed and pair)."""
    from paperworks.tools.speech.control import ControlVector
    from paperworks.tools.speech.intent import MODIFIERS, Intent, intent_to_control

    rng = np.random.default_rng([cfg.seed, pair])
    mods = list(MODIFIERS)
    out = []
    for i in range(cfg.per_pair):
        cls = (i + pair) % len(cues.CLASSES)
        intensity = float(rng.uniform(0.2, 1.0))
        emotions: dict[str, float] = {}
        if cls > 0:
            emotions[cues.CLASSES[cls]] = 1.0
            if rng.random() < cfg.mix_prob:
                other = [e for e in cues.EMOTIONS if e != cues.CLASSES[cls]][int(rng.integers(len(cues.EMOTIONS) - 1))]
                w = float(rng.uniform(0.2, 0.45))
                emotions = {cues.CLASSES[cls]: 1.0 - w, other: w}
        modifiers = (mods[int(rng.integers(len(mods)))],) if rng.random() < cfg.modifier_prob else ()
        unit = intent_to_control(Intent(emotions, intensity, modifiers)).to_unit()
        unit = np.clip(unit + rng.normal(0.0, cfg.jitter, size=unit.shape), 0.0, 1.0)
        out.append((cls, intensity, ControlVector.from_unit(unit).to_unit()))
    return out


def _render_pair(job: tuple[LibraryConfig, int, int, int]) -> dict[str, np.ndarray]:
    """Render and measure one (text, voice) pair's settings (runs in a worker process)."""
    from paperworks.tools.speech import ControlVector, measure, neutral, relative, render

    cfg, pair, ti, vi = job
    text, voice = cfg.texts[ti], cfg.voices[vi]
    base = measure(neutral(text, voice))
    ctx = context_vector(base)
    rows: dict[str, list[Any]] = {k: [] for k in _ARRAYS}
    for cls, intensity, unit in sample_controls(cfg, pair):
        audio = render(text, ControlVector.from_unit(unit), voice)
        feats = measure(audio)
        prof = cues.profile_from_relative(relative(feats, base))
        rows["control_unit"].append(unit)
        rows["profile"].append(prof)
        rows["features"].append(feats.to_array())
        rows["envelope"].append(spectral_envelope(audio))
        rows["context"].append(ctx)
        rows["voice"].append(vi)
        rows["text"].append(ti)
        rows["cls"].append(cls)
        rows["intensity"].append(intensity)
        rows["label"].append(cues.CLASSES.index(cues.label_profile(prof).emotion))
    return {k: np.asarray(v) for k, v in rows.items()}


def _context() -> Any:
    """``fork`` where there is one (workers only run espeak-ng, Praat and numpy, and a forked child needs
    no importable ``__main__``, unlike ``spawn`` under a script without a main guard); else ``spawn``."""
    return get_context("fork" if "fork" in get_all_start_methods() else "spawn")


def build_library(cfg: LibraryConfig, progress: Callable[[str], None] | None = None) -> PrototypeLibrary:
    """Render the library now (no cache); ``progress`` hears how many pairs are done."""
    jobs = [(cfg, p, ti, vi) for p, (ti, vi) in enumerate((t, v) for t in range(len(cfg.texts))
                                                          for v in range(len(cfg.voices)))]
    start = time.monotonic()
    parts: list[dict[str, np.ndarray]] = []
    if cfg.workers <= 1 or len(jobs) == 1:
        for i, job in enumerate(jobs):
            parts.append(_render_pair(job))
            if progress and (i + 1) % max(1, len(jobs) // 5) == 0:
                progress(f"prototype library: {i + 1}/{len(jobs)} text-voice pairs")
    else:
        with ProcessPoolExecutor(max_workers=cfg.workers, mp_context=_context()) as pool:
            for i, part in enumerate(pool.map(_render_pair, jobs)):
                parts.append(part)
                if progress and (i + 1) % max(1, len(jobs) // 5) == 0:
                    progress(f"prototype library: {i + 1}/{len(jobs)} text-voice pairs")
    dtypes = {"voice": np.int16, "text": np.int16, "cls": np.int16, "label": np.int16}
    arrays = {k: np.concatenate([p[k] for p in parts]).astype(dtypes.get(k, np.float32)) for k in _ARRAYS}
    meta = {"config": asdict(cfg), "key": cfg.key(), "build_s": round(time.monotonic() - start, 2),
            "workers": cfg.workers, "espeak_ng": _espeak_version(), "version": LIBRARY_VERSION}
    return PrototypeLibrary(**arrays, voices=cfg.voices, texts=cfg.texts, meta=meta)


def cache_path(cfg: LibraryConfig) -> Path:
    """Where the library of ``cfg`` is cached."""
    return home_dir() / "steertts" / f"library-{cfg.key()}.npz"


def load_or_build(cfg: LibraryConfig, progress: Callable[[str], None] | None = None,
                  rebuild: bool = False) -> PrototypeLibrary:
    """The cached library of ``cfg``, built (and cached) first if needed; ``meta["cached"]`` says which."""
    path = cache_path(cfg)
    if path.is_file() and not rebuild:
        try:
            lib = PrototypeLibrary.load(path)
            lib.meta["cached"] = True
            return lib
        except (OSError, ValueError, KeyError):  # a torn or old file: build again
            pass
    lib = build_library(cfg, progress)
    lib.save(path)
    lib.meta["cached"] = False
    return lib
