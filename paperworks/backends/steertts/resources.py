"""Trained modules per library preset, cached on disk and in the process; plus the Dual-Stream Anchoring
Controller's two steps (retrieval per intent component, gated-attention synthesis).

``get_resources(preset)`` loads or builds the prototype library (``library.load_or_build``), then loads or
trains the surrogate and the fusion module on it (``<PAPERWORKS_HOME>/steertts/models-<key>.pt``).
``get_disentangler(preset)`` does the same for the speaker/emotion encoders (gradient reversal and the
cross-covariance term both on), which the ``speaker_leakage`` scorer uses.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch

from paperworks.backends.steertts import cues
from paperworks.backends.steertts.disentangle import DisentangleConfig, Disentangler, train_disentangler
from paperworks.backends.steertts.fusion import FusionConfig, GatedAttentionFusion, fuse, train_fusion
from paperworks.backends.steertts.index import Anchor, PrototypeIndex, QueryStats
from paperworks.backends.steertts.library import PrototypeLibrary, library_preset, load_or_build
from paperworks.backends.steertts.surrogate import Surrogate, SurrogateConfig, rule_unit, train_surrogate
from paperworks.core.paths import home_dir
from paperworks.tools.speech.intent import Intent, intent_to_control

MODELS_VERSION = "steertts-models-3"
"""Changes whenever a module's architecture or training changes (part of the cache key)."""


@dataclass
class Resources:
    """What the workflow's agents use."""

    library: PrototypeLibrary
    index: PrototypeIndex
    surrogate: Surrogate
    fusion: GatedAttentionFusion
    metrics: dict[str, Any] = field(default_factory=dict)
    """Library size and build time, surrogate and fusion training figures."""


_LOCK = threading.Lock()
_CACHE: dict[tuple[str, str], Any] = {}


def _models_path(lib: PrototypeLibrary, kind: str) -> Any:
    return home_dir() / "steertts" / f"{kind}-{lib.meta.get('key', 'nokey')}-{MODELS_VERSION}.pt"


def build_resources(lib: PrototypeLibrary, surrogate_cfg: SurrogateConfig | None = None,
                    fusion_cfg: FusionConfig | None = None) -> Resources:
    """Train the surrogate and the fusion module on ``lib`` (no cache)."""
    index = PrototypeIndex(lib)
    surrogate, s_metrics = train_surrogate(lib, surrogate_cfg)
    fusion, f_metrics = train_fusion(lib, surrogate, index, fusion_cfg)
    return Resources(lib, index, surrogate, fusion, {"prototypes": len(lib), "surrogate": s_metrics,
                                                      "fusion": f_metrics})


def get_resources(preset: str = "small", progress: Callable[[str], None] | None = None) -> Resources:
    """The library, index, surrogate and fusion module of a library preset (``library.library_preset``)."""
    with _LOCK:
        if (preset, "res") in _CACHE:
            return _CACHE[(preset, "res")]
        lib = load_or_build(library_preset(preset), progress)
        path = _models_path(lib, "models")
        res: Resources | None = None
        if path.is_file():
            try:
                saved = torch.load(path, weights_only=False)
                surrogate, fusion = Surrogate(lib.context.shape[1]), GatedAttentionFusion()
                surrogate.load_state_dict(saved["surrogate"])
                fusion.load_state_dict(saved["fusion"])
                res = Resources(lib, PrototypeIndex(lib), surrogate.eval(), fusion.eval(), saved["metrics"])
            except (OSError, RuntimeError, KeyError):
                res = None
        if res is None:
            if progress:
                progress("training the surrogate and the fusion module")
            res = build_resources(lib)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".tmp")
            torch.save({"surrogate": res.surrogate.state_dict(), "fusion": res.fusion.state_dict(),
                        "metrics": res.metrics}, tmp)
            tmp.replace(path)
        res.metrics["library"] = {k: lib.meta.get(k) for k in ("key", "build_s", "cached", "workers")}
        _CACHE[(preset, "res")] = res
        return res


def encoder_rows(lib: PrototypeLibrary) -> np.ndarray:
    """The disentanglement input of every prototype (features, then spectral envelope)."""
    return np.concatenate([lib.features, lib.envelope], axis=1).astype(np.float32)


def get_disentangler(preset: str = "small",
                     cfg: DisentangleConfig | None = None) -> tuple[Disentangler, PrototypeLibrary]:
    """Speaker/emotion encoders trained on a preset's library (both leakage terms on), cached."""
    cfg = cfg or DisentangleConfig()
    with _LOCK:
        if (preset, "dis") in _CACHE:
            return _CACHE[(preset, "dis")]
        lib = load_or_build(library_preset(preset))
        path = _models_path(lib, "disentangler")
        n_in, n_spk, n_emo = encoder_rows(lib).shape[1], len(lib.voices), len(cues.CLASSES)
        model = Disentangler(n_in, n_spk, n_emo, cfg.dim)
        try:
            saved = torch.load(path, weights_only=False)
            if saved.get("config") != asdict(cfg):
                raise KeyError("config")
            model.load_state_dict(saved["state"])
            model.eval()
        except (OSError, RuntimeError, KeyError):
            model, _ = train_disentangler(encoder_rows(lib), lib.voice, lib.cls, n_spk, n_emo, cfg)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".tmp")
            torch.save({"state": model.state_dict(), "config": asdict(cfg)}, tmp)
            tmp.replace(path)
        _CACHE[(preset, "dis")] = (model, lib)
        return model, lib


def components(intent: Intent) -> list[tuple[str, float, Intent]]:
    """The intent's components: one per emotion (that emotion alone, at the intent's intensity, with its
    modifiers) with its weight; an intent of modifiers only is one component, ``modifiers``."""
    if not intent.emotions:
        return [("modifiers", 1.0, intent)]
    return [(e, w, Intent({e: 1.0}, intent.intensity, intent.modifiers)) for e, w in intent.emotions.items()]


def retrieve(res: Resources, intent: Intent, voice: str | None, aim_shift: np.ndarray | None = None, k: int = 4,
             max_distance: float = 4.0, min_separation: float = 1.0) -> tuple[list[Anchor], list[QueryStats]]:
    """Retrieval Agent: anchors for each component's target profile (moved by ``aim_shift`` when the
    supervisor gave an aim), pruned perceptually (``index.PrototypeIndex.query``)."""
    anchors: list[Anchor] = []
    stats: list[QueryStats] = []
    for name, weight, part in components(intent):
        query = cues.target_profile(part)
        if aim_shift is not None:
            query = query + np.nan_to_num(aim_shift)
        found, st = res.index.query(query, k, voice, max_distance, min_separation, component=name, weight=weight)
        anchors += found
        stats.append(st)
    return anchors, stats


def rule_anchor(res: Resources, aim: np.ndarray, intent: Intent, context: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rule stream's anchor for ``aim``: the ideal engine's control (breathiness from the keyword table's
    control of ``intent``) and the surrogate's prediction of its profile."""
    breath = float(intent_to_control(intent).breathiness)
    with torch.no_grad():
        unit = rule_unit(torch.from_numpy(np.asarray(aim, dtype=np.float32))[None], breath)
        prof = res.surrogate(unit, torch.from_numpy(np.asarray(context, dtype=np.float32))[None])
    return unit[0].numpy(), prof[0].numpy()


def synthesize(res: Resources, aim: np.ndarray, anchors: list[Anchor], intent: Intent | None = None,
               context: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Synthesis Agent: the fused unit control for ``aim`` from ``anchors`` (and the rule anchor when the
    ``intent`` and the neutral ``context`` are given) -> (unit, attention (rule anchor first), gate)."""
    rule = rule_anchor(res, aim, intent, context) if intent is not None and context is not None else None
    return fuse(res.fusion, aim, res.library, [a.index for a in anchors], [a.weight for a in anchors], rule)
