"""The embedded local model (SmolLM2-135M-Instruct) served in-process through a litellm custom provider.

Importing this package is cheap: torch, transformers and litellm load only when a model is used.
``local/<name>`` model strings route here once :func:`register` has run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paperworks.models.local.engines import Engine
    from paperworks.models.local.smollm import LocalModel

__all__ = ["DEFAULT_LOCAL_MODEL", "get_engine", "get_local_model", "known_local_models", "register"]

DEFAULT_LOCAL_MODEL = "smollm2-135m"


def known_local_models() -> list[str]:
    """Names of the embedded models (use them as ``local/<name>``)."""
    from paperworks.models.local.smollm import LOCAL_MODELS

    return sorted(LOCAL_MODELS)


def get_local_model(name: str = DEFAULT_LOCAL_MODEL) -> LocalModel:
    """The process-wide torch (transformers) model ``name``, loaded on first use: what backends use."""
    from paperworks.models.local.smollm import get_local_model as _get

    return _get(name)


def get_engine(name: str = DEFAULT_LOCAL_MODEL) -> Engine:
    """The engine serving ``local/<name>``: llama.cpp for ``smollm2-135m``, torch for ``smollm2-135m-torch``."""
    from paperworks.models.local.engines import get_engine as _get

    return _get(name)


def register() -> None:
    """Route ``local/<name>`` litellm model strings to the embedded models (idempotent; imports litellm)."""
    from paperworks.models.local.provider import register as _register

    _register()
