"""The control vector: named, bounded, continuous prosody and voice-quality dimensions.

Every engine reads the same :class:`ControlVector`. All zeros-or-ones is the neutral reading
(:meth:`ControlVector.neutral`): additive dimensions (semitones, dB) are 0 there and
multiplicative ones (scales) are 1. The array form (:meth:`ControlVector.to_array`, order
:data:`CONTROL_NAMES`) is what torch modules read and write::

    x = torch.from_numpy(cv.to_array())                 # float32, shape (len(CONTROL_NAMES),)
    cv = ControlVector.from_array(x.detach().cpu().numpy(), clip=True)

:meth:`to_unit` / :meth:`from_unit` map each dimension linearly onto [0, 1] within its bounds,
for models that prefer a normalised space.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from paperworks.core.errors import UserError


@dataclass(frozen=True)
class Dimension:
    """One control dimension: its name, bounds, neutral value, unit and meaning."""

    name: str
    low: float
    high: float
    neutral: float
    unit: str
    help: str


DIMENSIONS: tuple[Dimension, ...] = (
    Dimension("f0_shift_st", -12.0, 12.0, 0.0, "semitones",
              "F0 level relative to the voice's neutral reading (every pitch point shifted)"),
    Dimension("f0_range_scale", 0.0, 3.0, 1.0, "x",
              "F0 excursions around the neutral median, scaled in semitones (0 = monotone)"),
    Dimension("f0_slope_st_per_s", -10.0, 10.0, 0.0, "semitones/s",
              "linear F0 trend added across the utterance, centred so the mean is kept (declination < 0)"),
    Dimension("f0_final_st", -8.0, 8.0, 0.0, "semitones",
              "F0 movement added over the last 0.3 s of voicing (rise > 0, as in a question; fall < 0)"),
    Dimension("tempo_scale", 0.5, 2.0, 1.0, "x",
              "speaking rate: > 1 is faster; every duration is divided by it"),
    Dimension("pause_scale", 0.25, 4.0, 1.0, "x",
              "length of the pauses (silences >= 0.1 s inside the utterance), on top of tempo"),
    Dimension("intensity_db", -24.0, 12.0, 0.0, "dB",
              "overall level change (the only dimension that moves measured energy)"),
    Dimension("tilt_db_per_oct", -12.0, 12.0, 0.0, "dB/octave",
              "spectral tilt added around 1 kHz at constant RMS (< 0 darker/softer, > 0 brighter/tenser)"),
    Dimension("breathiness", 0.0, 1.0, 0.0, "0-1",
              "aspiration noise mixed into the voiced stretches at constant RMS (1 = strongly breathy)"),
)
"""The dimensions, in array order."""

CONTROL_NAMES: tuple[str, ...] = tuple(d.name for d in DIMENSIONS)
"""Names in array order (``to_array`` / ``from_array``)."""

_BY_NAME = {d.name: d for d in DIMENSIONS}


def _fmt(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class ControlVector:
    """Continuous control of one rendering. Defaults are the neutral reading; see :data:`DIMENSIONS`."""

    f0_shift_st: float = 0.0
    """F0 level in semitones relative to the voice's neutral reading."""
    f0_range_scale: float = 1.0
    """Scale of F0 excursions (semitones) around the neutral median; 0 is monotone."""
    f0_slope_st_per_s: float = 0.0
    """Linear F0 trend in semitones per second, centred on the utterance (negative: declination)."""
    f0_final_st: float = 0.0
    """Semitones added by a ramp over the last 0.3 s of voicing (final rise > 0, fall < 0)."""
    tempo_scale: float = 1.0
    """Speaking-rate factor; durations are divided by it."""
    pause_scale: float = 1.0
    """Pause-length factor for silences inside the utterance, applied on top of tempo."""
    intensity_db: float = 0.0
    """Level change in dB."""
    tilt_db_per_oct: float = 0.0
    """Spectral tilt added around 1 kHz, in dB per octave, keeping the RMS."""
    breathiness: float = 0.0
    """Aspiration noise in voiced stretches, 0..1, keeping the RMS."""

    def __post_init__(self) -> None:
        self.validate()

    # -- validation -------------------------------------------------------------------------
    def validate(self) -> ControlVector:
        """Raise :class:`UserError` (one line) when a value is not finite or out of bounds."""
        for d in DIMENSIONS:
            v = getattr(self, d.name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
                raise UserError(f"control {d.name} must be a finite number, got {v!r}")
            if not d.low <= v <= d.high:
                raise UserError(f"control {d.name}={_fmt(v)} is out of bounds [{_fmt(d.low)}, {_fmt(d.high)}] "
                                f"({d.unit}: {d.help})")
        return self

    # -- constructors -----------------------------------------------------------------------
    @classmethod
    def neutral(cls) -> ControlVector:
        """The neutral reading (no change)."""
        return cls()

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], base: ControlVector | None = None) -> ControlVector:
        """Build from ``{name: number}``, starting from ``base`` (neutral by default).

        Unknown names and non-numbers raise one-line :class:`UserError` naming the valid keys."""
        out = asdict(base or cls())
        for key, raw in values.items():
            if key not in _BY_NAME:
                raise UserError(f"unknown control '{key}'; valid controls: {', '.join(CONTROL_NAMES)}")
            try:
                out[key] = float(raw)
            except (TypeError, ValueError):
                raise UserError(f"control {key} must be a number, got {raw!r}") from None
        return cls(**out)

    @classmethod
    def parse(cls, assignments: Iterable[str], base: ControlVector | None = None) -> ControlVector:
        """Build from ``["f0_shift_st=4", "tempo_scale=1.2"]`` (the CLI's ``--control`` values)."""
        values: dict[str, str] = {}
        for item in assignments:
            key, sep, value = item.partition("=")
            if not sep or not key.strip() or not value.strip():
                raise UserError(f"--control expects key=value, got '{item}'; valid keys: {', '.join(CONTROL_NAMES)}")
            values[key.strip()] = value.strip()
        return cls.from_mapping(values, base)

    @classmethod
    def from_array(cls, array: Any, clip: bool = False) -> ControlVector:
        """Build from a length-``len(CONTROL_NAMES)`` array-like (numpy, list, CPU torch tensor).

        ``clip=True`` clips each value into its bounds instead of raising."""
        arr = np.asarray(array, dtype=np.float64).reshape(-1)
        if arr.shape[0] != len(DIMENSIONS):
            raise UserError(f"control array must have {len(DIMENSIONS)} values ({', '.join(CONTROL_NAMES)}), "
                            f"got {arr.shape[0]}")
        if clip:
            arr = np.clip(np.nan_to_num(arr, nan=0.0), lower_bounds(), upper_bounds())
        return cls(**{n: float(v) for n, v in zip(CONTROL_NAMES, arr, strict=True)})

    @classmethod
    def from_unit(cls, unit: Any, clip: bool = True) -> ControlVector:
        """Inverse of :meth:`to_unit`: 0 maps to each lower bound, 1 to each upper bound."""
        u = np.asarray(unit, dtype=np.float64).reshape(-1)
        return cls.from_array(lower_bounds() + u * (upper_bounds() - lower_bounds()), clip=clip)

    # -- conversions ------------------------------------------------------------------------
    def to_array(self) -> np.ndarray:
        """float32 array in :data:`CONTROL_NAMES` order."""
        return np.array([getattr(self, n) for n in CONTROL_NAMES], dtype=np.float32)

    def to_unit(self) -> np.ndarray:
        """float32 array in [0, 1], each dimension scaled linearly within its bounds."""
        lo, hi = lower_bounds(), upper_bounds()
        return ((self.to_array() - lo) / (hi - lo)).astype(np.float32)

    def as_dict(self) -> dict[str, float]:
        """``{name: value}`` in array order (JSON-friendly)."""
        return {n: float(getattr(self, n)) for n in CONTROL_NAMES}

    def changed(self) -> dict[str, float]:
        """Only the dimensions that differ from neutral."""
        return {d.name: v for d in DIMENSIONS if (v := float(getattr(self, d.name))) != d.neutral}

    def replace(self, **values: float) -> ControlVector:
        """A copy with some dimensions changed (validated)."""
        return ControlVector.from_mapping(values, base=self)

    def clip(self) -> ControlVector:
        """A copy with every dimension clipped into its bounds (always valid)."""
        return ControlVector.from_array(self.to_array(), clip=True)

    def __str__(self) -> str:
        changed = self.changed()
        return "neutral" if not changed else " ".join(f"{k}={_fmt(round(v, 4))}" for k, v in changed.items())


def lower_bounds() -> np.ndarray:
    """float32 lower bounds in :data:`CONTROL_NAMES` order."""
    return np.array([d.low for d in DIMENSIONS], dtype=np.float32)


def upper_bounds() -> np.ndarray:
    """float32 upper bounds in :data:`CONTROL_NAMES` order."""
    return np.array([d.high for d in DIMENSIONS], dtype=np.float32)


def neutral_array() -> np.ndarray:
    """float32 neutral values in :data:`CONTROL_NAMES` order."""
    return np.array([d.neutral for d in DIMENSIONS], dtype=np.float32)


def dimension(name: str) -> Dimension:
    """The :class:`Dimension` called ``name`` (one-line :class:`UserError` if unknown)."""
    if name not in _BY_NAME:
        raise UserError(f"unknown control '{name}'; valid controls: {', '.join(CONTROL_NAMES)}")
    return _BY_NAME[name]


assert tuple(f.name for f in fields(ControlVector)) == CONTROL_NAMES  # the dataclass and table agree
