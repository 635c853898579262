"""The data an evaluation reads and writes. Every other eval module shares these shapes.

On disk, an eval run directory (``runs/<stamp>_eval-<suite>_<id>/``) holds:

- ``run.json``      kind "eval": suite, suite_version, workflow, model, judge_model, args, seed,
                    epochs, limits, concurrency, status, versions, git sha.
- ``samples.jsonl`` one ``SampleRecord`` per finished (sample, epoch), appended as each finishes.
- ``events.jsonl``  node/model/tool events; each carries ``"sample": "<id>#<epoch>"``.
- ``results.json``  ``Results``: metrics with standard errors, error counts, usage, timing.
- ``checkpoints.sqlite`` LangGraph checkpoints, one thread per (sample, epoch): ``"<id>#<epoch>"``.
- ``artifacts/<id>#<epoch>/`` each sample's artifacts (``folder_name``: an id that is not a plain file name,
  e.g. ``../x`` or ``a/b``, gets a sanitised name with a hash, so no sample writes outside its folder).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from paperworks.core.scoring import Sample, Score

__all__ = ["ERROR_KINDS", "Metric", "Results", "Sample", "SampleRecord", "Score", "folder_name"]

_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.#+=@-]{0,150}")


def folder_name(key: str) -> str:
    """A single, safe path component for a sample's ``<id>#<epoch>`` key (its artifact folder).

    Sample ids come from the suite's data: ``../../x``, ``/abs/path``, ``a/b`` or control characters must not
    reach the file system as a path. A plain key is used as it is; any other is replaced by its safe
    characters plus a hash of the whole key (distinct keys keep distinct folders)."""
    if _PLAIN_NAME.fullmatch(key) and not key.endswith("."):
        return key
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    safe = re.sub(r"[^A-Za-z0-9_.#+=@-]+", "-", key).strip("-.")[:100]
    return f"{safe}~{digest}" if safe else f"sample~{digest}"


ERROR_KINDS = ("model_error", "limit_exceeded", "step_limit", "tool_error", "input_error", "scorer_error",
               "workflow_error", "cancelled")
"""How a failed sample is classified in ``Results.errors``."""


@dataclass
class SampleRecord:
    """One line of ``samples.jsonl``: a finished (sample, epoch)."""

    id: str
    epoch: int
    """1-based."""
    input: dict[str, Any]
    target: Any
    output: Any = None
    """The workflow's output (``WorkflowSpec.output`` of the final state); None on error."""
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Scorer name → ``Score.to_dict()``. Empty when the sample failed before scoring."""
    status: str = "succeeded"
    """The run status of the sample: succeeded, failed, limit_exceeded, step_limit, cancelled."""
    error: str | None = None
    """One-line error, if any."""
    error_kind: str | None = None
    """One of ``ERROR_KINDS`` when ``error`` is set."""
    usage: dict[str, Any] = field(default_factory=dict)
    """``Usage.to_dict()`` of the sample's own model calls (judge calls are in the scores' details)."""
    time_s: float = 0.0
    """Wall-clock seconds of the sample's workflow and scoring."""
    working_s: float | None = None
    """Wall seconds of the workflow minus ``waiting_s`` (what ``--working-limit`` bounds)."""
    waiting_s: float | None = None
    """Seconds the sample's model calls spent queued for a model-concurrency slot."""
    limit: str | None = None
    """Which limit stopped it (time, working_time, tokens, cost) when ``status`` is limit_exceeded."""
    started_at: str = ""
    finished_at: str = ""
    artifacts: list[str] = field(default_factory=list)
    """Paths relative to the run directory."""
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """``<id>#<epoch>``: the thread id and the tag of its events."""
        return f"{self.id}#{self.epoch}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SampleRecord:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in d.items() if k in known})


@dataclass
class Metric:
    """A named figure with its uncertainty."""

    value: float
    stderr: float | None = None
    n: int = 0
    """Observations the value is computed from."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Results:
    """``results.json``."""

    suite: str
    model: str
    n_samples: int
    """Distinct samples evaluated (not counting epochs)."""
    epochs: int
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    """``"<scorer>/<metric>"`` → ``Metric.to_dict()``, e.g. ``"numeric/accuracy"``, ``"numeric/pass@2"``,
    ``"judge/mean"``; plus ``"time_s/mean"``, ``"tokens/mean"``, ``"cost/mean"`` per sample; then, for a
    suite with ``group_by``, each graded scorer's accuracy and pass@k per group, e.g.
    ``"match/accuracy[level=2]"``, ``"match/pass@2[tools=ocr]"`` (``paperworks.eval.groups``)."""
    errors: dict[str, int] = field(default_factory=dict)
    """Error kind → count of failed (sample, epoch) pairs."""
    usage: dict[str, Any] = field(default_factory=dict)
    """Total usage of the eval (workflow and judge calls)."""
    elapsed_s: float = 0.0
    limited: bool = False
    """True when ``--limit`` or ``--sample-id`` cut the suite: results are for testing only."""
