"""``njit``: numba's compiler when numba is importable, else the identity (same code, pure Python, slow)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])

try:  # pragma: no cover - depends on the environment
    _numba: Any = importlib.import_module("numba")
except ImportError:  # pragma: no cover
    _numba = None

HAVE_NUMBA = _numba is not None
"""Whether the simulator's hot loops are compiled."""


def njit(fn: F) -> F:
    """Compile ``fn`` with ``numba.njit(cache=True)`` if numba is installed; otherwise return it unchanged."""
    if _numba is not None:
        return cast(F, _numba.njit(cache=True)(fn))
    return fn


def njit_nocache(fn: F) -> F:
    """Compile ``fn`` without an on-disk cache (closures, generated functions); identity without numba."""
    if _numba is not None:
        return cast(F, _numba.njit(fn))
    return fn


def is_compiled(fn: Any) -> bool:
    """Whether ``fn`` is a numba dispatcher."""
    return _numba is not None and isinstance(fn, _numba.core.dispatcher.Dispatcher)
