"""The rule-based supervisor: reads a measured profile against the intent and re-plans when they disagree.

The workflow's Supervisor is a model (``agents/steertts``); these rules are its fallback when the model's
reply cannot be read, and the repro's stand-in (backends call no model). **Reconstructed** from "resolves
semantic-acoustic mismatches using high-level perceptual critique":

1. *Decomposition* (semantic): emotions or modifiers the instruction names (keyword table,
   ``tools.speech.intent.parse_intent``) that the plan lacks are added (emotions at equal weight).
2. *Acoustics*: the plan disagrees with the measurement when the control error exceeds the tolerance or
   the expression's strength (intensity ratio) is off by more than its tolerance; the critique names
   the worst dimensions and the region the measurement falls in (``cues.label_profile``).
3. *Re-plan*: with a new decomposition, the new intent's target; otherwise the same intent with an
   acoustic *aim* moved past the target by ``gain`` x the remaining residual on the targeted dimensions
   (at most ``max_shift`` JNDs), so that retrieval looks for prototypes that measured where the engine
   must be pushed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from paperworks.backends.steertts import cues
from paperworks.core.errors import UserError
from paperworks.tools.speech.intent import Intent, parse_intent


@dataclass
class Critique:
    """The supervisor's verdict."""

    agree: bool
    """True: the measurement realises the intent; no re-plan."""
    reasons: list[str] = field(default_factory=list)
    """Why not (one short line each)."""
    perceived: str = "neutral"
    """The emotion region of the measurement."""
    intent: Intent | None = None
    """A new decomposition (None: keep the plan's)."""
    aim: np.ndarray | None = None
    """A new acoustic aim (JND profile) for retrieval and correction (None: the target)."""
    source: str = "rules"
    """``rules``, or ``model`` when a model's verdict was used."""


def worst_dims(measured: np.ndarray, target: np.ndarray, n: int = 3) -> list[str]:
    """The targeted dimensions furthest from the target, as ``name +x.x JND`` (measured minus target)."""
    mask = cues.targeted(target) & np.isfinite(measured)
    diffs = [(abs(float(measured[i] - target[i])), cues.PROFILE_DIMS[i], float(measured[i] - target[i]))
             for i in np.flatnonzero(mask)]
    return [f"{name} {d:+.1f} JND" for _, name, d in sorted(diffs, reverse=True)[:n]]


def add_missing(intent: Intent, instruction: str | None) -> tuple[Intent | None, list[str]]:
    """Rule 1: the intent with what the instruction names but it lacks (None when nothing is missing)."""
    if not instruction:
        return None, []
    try:
        named = parse_intent(instruction)
    except UserError:
        return None, []
    missing_e = [e for e in named.emotions if e not in intent.emotions]
    missing_m = [m for m in named.modifiers if m not in intent.modifiers]
    if not missing_e and not missing_m:
        return None, []
    names = sorted({*intent.emotions, *missing_e})
    emotions = {e: 1.0 / len(names) for e in names}
    mods = tuple(dict.fromkeys([*intent.modifiers, *missing_m]))
    reasons = [f"the instruction names {', '.join(missing_e + missing_m)}, which the plan lacks"]
    return Intent(emotions, intent.intensity, mods), reasons


def critique(intent: Intent, target: np.ndarray, measured: np.ndarray, instruction: str | None = None,
             tolerance: float = 0.3, intensity_tolerance: float = 0.15, gain: float = 0.5,
             max_shift: float = 3.0) -> Critique:
    """The rules of the module docstring."""
    perceived = cues.label_profile(measured).emotion
    revised, reasons = add_missing(intent, instruction)
    if revised is not None:
        return Critique(False, reasons, perceived, revised, None)
    err, ratio = cues.control_error(measured, target), cues.intensity_ratio(measured, target)
    if math.isnan(err):
        err = cues.control_error(measured, target, dims="all")
    if err > tolerance:
        worst = ", ".join(worst_dims(measured, target))
        reasons.append(f"control error {err:.2f} JND > {tolerance:g} (worst: {worst})")
    if math.isfinite(ratio) and abs(ratio - 1.0) > intensity_tolerance:
        reasons.append(f"the expression measures {ratio:.0%} of the intended strength")
    if not reasons:
        return Critique(True, [], perceived)
    if intent.emotions and perceived not in intent.emotions:
        reasons.append(f"the measured profile reads as {perceived}")
    return Critique(False, reasons, perceived, None, residual_aim(target, measured, gain, max_shift))


def residual_aim(target: np.ndarray, measured: np.ndarray, gain: float = 0.5, max_shift: float = 3.0) -> np.ndarray:
    """Rule 3's aim: the target moved past itself by ``gain`` x the residual on the targeted dimensions."""
    t = np.asarray(target, dtype=np.float32)
    mask = cues.targeted(t) & np.isfinite(measured)
    shift = np.zeros_like(t)
    shift[mask] = np.clip(gain * (t[mask] - measured[mask]), -max_shift, max_shift)
    return t + shift
