"""Run settings that travel in LangGraph's runtime context (not in state)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperworks.core.artifacts import ArtifactStore

if TYPE_CHECKING:
    from paperworks.models.gateway import Model


@dataclass
class RunContext:
    """What every node may read: the model, generation settings, seed and the run's folder."""

    model: str = "local/smollm2-135m"
    """litellm model string used by the workflow's agents."""
    seed: int = 0
    """Seed of the run (passed to sampling where the model supports it)."""
    generation: dict[str, Any] = field(default_factory=dict)
    """Generation settings for model calls (temperature, max_tokens, ...)."""
    cache: bool = False
    """Answer identical model requests from the on-disk response cache."""
    stream: bool = False
    """Stream model text as ``token`` events (the CLI shows them live)."""
    run_dir: str | None = None
    """The run directory (None outside a recorded run)."""
    artifact_dir: str | None = None
    """Where this thread's artifacts go (default ``<run_dir>/artifacts``; an eval gives each sample its own)."""
    max_retries: int | None = None
    """Retries of a failed model call (``--max-retries``; None: the gateway's default for the model)."""
    timeout_s: float | None = None
    """Seconds one model call attempt may take (``--timeout``; None: no limit of its own)."""

    @property
    def artifacts(self) -> ArtifactStore | None:
        """The artifact store of this thread, if there is a run directory."""
        if self.artifact_dir:
            return ArtifactStore(Path(self.artifact_dir))
        return ArtifactStore(Path(self.run_dir) / "artifacts") if self.run_dir else None

    def get_model(self) -> Model:
        """The gateway ``Model`` for this run's model string."""
        from paperworks.models.gateway import model_for

        return model_for(self.model, cache=self.cache, max_retries=self.max_retries, timeout_s=self.timeout_s)


def base_dir(run_dir: str | None) -> Path:
    """Where relative paths resolve: the suite folder of an eval run, else the current directory."""
    if run_dir:
        try:
            record = json.loads((Path(run_dir) / "run.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = {}
        if record.get("suite_path"):
            return Path(record["suite_path"])
    return Path.cwd()
