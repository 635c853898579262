"""``njit``: numba's compiler when numba is importable, else the identity (same code, pure Python, slow)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

try:  # pragma: no cover - depends on the environment
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    numba = None
    HAVE_NUMBA = False


def njit(fn: F) -> F:
    """Compile ``fn`` with ``numba.njit(cache=True)`` if numba is installed; otherwise return it unchanged."""
    if HAVE_NUMBA:
        return numba.njit(cache=True)(fn)  # type: ignore[no-any-return]
    return fn
