"""A torch nearest-neighbour index over the prototype library, with perceptual pruning.

Distance between a query profile ``t`` and a prototype's measured profile ``p`` is the weighted RMS in JND
units over the dimensions both have (HNR excluded: targets leave it free): targeted dimensions of the
query weigh 1, the others ``off_target_weight``. Prototypes of another voice than the query's pay
``voice_penalty`` JNDs (the same command moves different voices differently).

**Perceptual pruning** (reconstructed; the paper names it without details), in order:

1. *radius*: candidates farther than ``max_distance`` JNDs are dropped - an anchor a listener would hear as
   clearly different from the intent is no anchor (the nearest one is always kept, flagged);
2. *redundancy*: walking outwards, a candidate closer than ``min_separation`` JNDs (RMS over all profile
   dimensions) to an anchor already chosen is dropped - two anchors nobody could tell apart add nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from paperworks.backends.steertts import cues
from paperworks.backends.steertts.library import PrototypeLibrary

_SEARCH_DIMS = np.array([d != "hnr" for d in cues.PROFILE_DIMS])


@dataclass(frozen=True)
class Anchor:
    """One retrieved prototype."""

    index: int
    """Row in the library."""
    distance: float
    """Perceptual distance to the query (JND RMS, voice penalty included)."""
    component: str
    """The intent component it was retrieved for (an emotion, or "modifiers")."""
    weight: float
    """That component's weight in the intent."""

    def as_dict(self) -> dict[str, object]:
        """JSON-friendly form."""
        return {"index": self.index, "distance": round(self.distance, 4), "component": self.component,
                "weight": round(self.weight, 4)}


@dataclass
class QueryStats:
    """What pruning did to one query."""

    candidates: int
    pruned_radius: int
    pruned_redundant: int
    beyond_radius: bool
    """True when even the nearest prototype lay outside the radius (it was kept anyway)."""


class PrototypeIndex:
    """Brute-force index (torch) over a library's measured profiles."""

    def __init__(self, library: PrototypeLibrary, off_target_weight: float = 0.5, voice_penalty: float = 0.5) -> None:
        prof = library.profile[:, _SEARCH_DIMS].astype(np.float32)
        self.valid = torch.from_numpy(np.isfinite(prof))
        self.profiles = torch.from_numpy(np.nan_to_num(prof))
        self.voice = torch.from_numpy(library.voice.astype(np.int64))
        self.voices = library.voices
        self.off_target_weight = off_target_weight
        self.voice_penalty = voice_penalty

    def __len__(self) -> int:
        return int(self.profiles.shape[0])

    def distances(self, target: np.ndarray, voice: str | None = None) -> torch.Tensor:
        """(N,) perceptual distance of every prototype to ``target`` (a full JND-unit profile)."""
        t = np.asarray(target, dtype=np.float32)[_SEARCH_DIMS]
        finite = torch.from_numpy(np.isfinite(t))
        w = torch.where(torch.from_numpy(cues.targeted(np.asarray(target))[_SEARCH_DIMS]), 1.0, self.off_target_weight)
        w = w * finite
        q = torch.from_numpy(np.nan_to_num(t))
        mask = self.valid & finite
        sq = ((self.profiles - q) ** 2) * w * mask
        d = torch.sqrt(sq.sum(1) / (w * mask).sum(1).clamp_min(1e-6))
        if voice is not None:
            same = self.voice == (self.voices.index(voice) if voice in self.voices else -1)
            d = d + torch.where(same, 0.0, self.voice_penalty)
        return d

    def query(self, target: np.ndarray, k: int = 4, voice: str | None = None, max_distance: float = 4.0,
              min_separation: float = 1.0, component: str = "", weight: float = 1.0) -> tuple[list[Anchor], QueryStats]:
        """Up to ``k`` anchors for ``target`` after perceptual pruning (module docstring), nearest first."""
        d = self.distances(target, voice)
        order = torch.argsort(d)
        inside = int((d <= max_distance).sum())
        chosen: list[int] = []
        redundant = 0
        for idx in order[: max(inside, 1)].tolist():
            if len(chosen) >= k:
                break
            if chosen:
                sep = torch.sqrt(((self.profiles[chosen] - self.profiles[idx]) ** 2).mean(1))
                if bool((sep < min_separation).any()):
                    redundant += 1
                    continue
            chosen.append(idx)
        anchors = [Anchor(i, float(d[i]), component, weight) for i in chosen]
        return anchors, QueryStats(len(self), len(self) - max(inside, 1), redundant, inside == 0)

    def neighbours(self, queries: torch.Tensor, k: int,
                   exclude: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Batch form for training: the ``k`` nearest rows (plain RMS over the search dimensions, NaN as 0)
        of each query row (B, 8); ``exclude`` (B,) rows are never returned for their query."""
        d = torch.cdist(queries, self.profiles) / float(self.profiles.shape[1]) ** 0.5
        if exclude is not None:
            d[torch.arange(len(queries)), exclude] = float("inf")
        dist, idx = torch.topk(d, k, largest=False)
        return idx, dist


def search_part(profile: np.ndarray) -> np.ndarray:
    """The dimensions the index searches (all but HNR), NaN as 0."""
    return np.nan_to_num(np.asarray(profile, dtype=np.float32)[..., _SEARCH_DIMS])
