"""What Belady knows: for every access and prefetch hint, a sortable key of its expert's future uses.

The key of an access is ``row(next) * W + rank(next)``: the row of the expert's next access, and, to break ties
between experts next used in the same row, that next access's rank among its row's accesses by the same key
(so by the row of the use after that, and so on, recursively); ``W`` exceeds the widest row. Experts never
used again get :data:`~paperworks.backends.specmd.trace.NEVER`. Ties in the row alone are not harmless under
the pinning rule: the expert kept for that row stays pinned through it, so which one is kept decides what is
cached afterwards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperworks.backends.specmd._jit import njit
from paperworks.backends.specmd.trace import NEVER, Stream


@njit
def _ranks(row_ptr: Any, rows: Any, nxt: Any, width: int, never: float) -> Any:
    """Keys of all accesses, filled from the last row backwards (a row's keys need the later rows' ranks)."""
    n = len(rows)
    key = np.full(n, never)
    rank = np.zeros(n)
    for r in range(len(row_ptr) - 2, -1, -1):
        a0 = row_ptr[r]
        a1 = row_ptr[r + 1]
        for a in range(a0, a1):
            b = nxt[a]
            if b >= 0:
                key[a] = rows[b] * width + rank[b]
        for a in range(a0, a1):
            c = 0.0
            for b in range(a0, a1):
                if key[b] < key[a]:
                    c += 1.0
            rank[a] = c
    return key, rank


def belady_keys(stream: Stream) -> tuple[np.ndarray, np.ndarray]:
    """float64 keys ``([A], [H])`` of every access and every hint: smaller = needed sooner (see the module)."""
    n_acc = len(stream.keys)
    rows = np.repeat(np.arange(stream.n_rows, dtype=np.int64), np.diff(stream.row_ptr))
    width = int(np.diff(stream.row_ptr).max()) + 1 if stream.n_rows else 1
    keys = stream.keys.astype(np.int64)
    order = np.lexsort((np.arange(n_acc), keys))  # by expert, then in execution order
    nxt = np.full(n_acc, -1, np.int64)
    if n_acc > 1:
        same = keys[order[1:]] == keys[order[:-1]]
        nxt[order[:-1][same]] = order[1:][same]
    key, rank = _ranks(stream.row_ptr, rows, nxt, width, float(NEVER))
    hint_key = np.full(len(stream.hint_keys), float(NEVER))
    if len(stream.hint_keys) and n_acc:
        hint_rows = np.repeat(np.arange(stream.n_rows, dtype=np.int64), np.diff(stream.hint_ptr))
        span = stream.n_rows + 1
        comb = keys * span + rows
        by = np.argsort(comb, kind="stable")
        q = stream.hint_keys.astype(np.int64) * span + hint_rows
        idx = np.searchsorted(comb[by], q, side="right")  # first access of the expert after the hint's row
        ok = idx < n_acc
        hit = by[np.minimum(idx, n_acc - 1)]
        ok &= keys[hit] == stream.hint_keys
        hint_key = np.where(ok, rows[hit] * width + rank[hit], float(NEVER))
    return key, hint_key
