"""Where paperworks keeps things on disk. Every location can be moved with an environment variable."""

from __future__ import annotations

import os
from pathlib import Path


def home_dir() -> Path:
    """Cache root: converted model weights, the response cache. ``PAPERWORKS_HOME`` overrides."""
    env = os.environ.get("PAPERWORKS_HOME")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "paperworks"


def models_cache_dir() -> Path:
    """Converted weights of embedded models (one sub-folder per model)."""
    return home_dir() / "models"


def runs_dir() -> Path:
    """Where run directories are created. ``PAPERWORKS_RUNS_DIR`` overrides; default ``./runs``."""
    return Path(os.environ.get("PAPERWORKS_RUNS_DIR", "runs")).expanduser()


def set_offline_env() -> None:
    """Make every library we use stay off the network (idempotent; call before heavy imports)."""
    for key, value in {
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "DISABLE_REMOTE_CACHE": "1",
        "RAY_USAGE_STATS_ENABLED": "0",
        "TOKENIZERS_PARALLELISM": "false",
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }.items():
        os.environ.setdefault(key, value)
