"""SPADA's sandbox: one warm CAD sandbox pool per process, shared by the graph's checks and the scorer.

The program and its tests run only there (``paperworks.tools.cad.sandbox``); this module only hands
them over and returns the result as a JSON-able dict.
"""

from __future__ import annotations

import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any

_pool: Any = None
_pool_lock = threading.Lock()


def _shared_pool() -> Any:
    """One warm sandbox pool per process (CadQuery imported once; each candidate still isolated)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            import atexit

            from paperworks.tools.cad.sandbox import WorkerPool

            _pool = WorkerPool(size=1)
            atexit.register(_pool.close)
        return _pool


def run_sandbox(code: str, tests: str | None, out_dir: Path, *, params: dict[str, Any] | None = None,
                wall_s: float = 60, renders: bool = True, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Check a program (and its tests) in the sandbox's warm pool; the result as a JSON-able dict."""
    from paperworks.tools.cad.sandbox import CheckOptions, SandboxLimits

    opts = CheckOptions(renders=renders, exports=True, **(options or {}))
    result = _shared_pool().check(code, tests, params=params, out_dir=out_dir, options=opts,
                                  limits=SandboxLimits(wall_s=wall_s))
    return asdict(result)
