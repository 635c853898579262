"""``njit``: numba's compiler when numba is importable, else the identity (same code, pure Python, slow)."""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])

try:  # pragma: no cover - depends on the environment
    _numba: Any = importlib.import_module("numba")
except ImportError:  # pragma: no cover
    _numba = None

HAVE_NUMBA = _numba is not None
"""Whether the simulator's hot loops are compiled."""

_PKG = Path(__file__).resolve().parent


def _drop_stale_cache(pkg: Path = _PKG) -> None:
    """Delete numba's on-disk kernels when any source file of this package changed.

    numba keys a cached kernel on the file of the jitted function only, so a kernel that inlines a score
    function from another module (``policies.py``) would keep running the old code after that module is
    edited. A stamp holding the hash of every ``.py`` file here decides; unwritable folders are left alone
    (numba then caches nothing there either)."""
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in sorted(pkg.glob("*.py")))).hexdigest()[:16]
    cache = pkg / "__pycache__"
    stamp = cache / "numba-sources.stamp"
    try:
        if stamp.is_file() and stamp.read_text() == digest:
            return
        for f in [*cache.glob("*.nbi"), *cache.glob("*.nbc")]:
            f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass


if _numba is not None:  # pragma: no branch
    _drop_stale_cache()


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
