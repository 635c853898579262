"""The expert-cache simulator: a fully associative cache of ``capacity`` experts, driven by a Stream.

Per row (one token, or a prefill chunk, at one layer): the row's experts are pinned (they must all be
resident to compute the layer); each access hits, hits a prefetched-not-yet-used entry, or misses and
loads the expert (evicting the policy's highest-scoring unpinned entry; with no candidate the expert
streams through uncached). Then the row's prefetch hints load experts not already cached, evicting the
same way (a hint with no candidate is dropped). Belady (``Policy.offline_admission``) may also stream a missed
expert through, or drop a hint, when caching it would displace something needed sooner. A collision miss is a
miss on an expert that was evicted earlier during the same token. The hot loop is one numba-compiled function
shared by all policies.

Numba caches the compiled kernel on disk keyed by this file only; ``_jit`` drops every cached kernel of
this package when any of its source files changes, so an edit to ``policies.py`` is never masked.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np

from paperworks.backends.specmd._jit import is_compiled, njit, njit_nocache
from paperworks.backends.specmd.future import belady_keys
from paperworks.backends.specmd.policies import ACT_DECAY as _DECAY
from paperworks.backends.specmd.policies import Policy, get_policy
from paperworks.backends.specmd.policies import builtin_score as _score
from paperworks.backends.specmd.result import SimResult
from paperworks.backends.specmd.trace import NEVER, Stream

HIT, MISS, PREFETCH_HIT = 0, 1, 2
"""Outcome codes of an access."""
_NEVER = int(NEVER)


def _kernel_src(pid: int, protect: bool, lists: int, offline: bool, capacity: int, n_layers: int, n_keys: int,
                seed: int, row_ptr: Any, keys: Any, row_layer: Any, row_token: Any, hint_ptr: Any, hint_keys: Any,
                next_acc: Any, next_hint: Any, outcome: Any, collision: Any, acc_pf: Any, hint_loaded: Any) -> Any:
    """The hot loop. ``lists`` 0: a victim is the unpinned slot with the highest ``score``; 1: the LRU end
    of one recency list; 2: the LRU end of per-layer recency lists taken in Least-Stale's layer order
    (1 and 2 give the same victims as scanning LRU's and Least-Stale's scores, in O(1) instead of O(capacity)).
    ``offline`` (Belady): at each row, admit only the missed experts among the ``capacity - pinned`` nearest next
    uses of (unpinned cached entries + the row's missed experts), streaming the rest through; load a hint only
    if its expert is needed sooner than the entry it would evict.
    Helpers are written inline on purpose: numba calls that pass arrays cost reference counting per call."""
    np.random.seed(seed)
    cap = capacity
    m = max(cap, 1)
    e_last = np.zeros(m)  # per-slot fields that score functions see
    e_ins = np.zeros(m)
    e_freq = np.zeros(m)
    e_next = np.zeros(m)
    e_act = np.zeros(m)
    e_acttok = np.zeros(m)
    slot_key = np.zeros(m, np.int64)
    slot_layer = np.zeros(m, np.int64)
    pf = np.full(m, -1, np.int64)  # hint index that loaded the slot, until its first use
    pf_row = np.zeros(m, np.int64)
    nxt = np.full(m, -1, np.int64)  # recency lists (lists > 0): towards the MRU end is prv
    prv = np.full(m, -1, np.int64)
    n_lists = n_layers if lists == 2 else 1
    head = np.full(n_lists, -1, np.int64)
    tail = np.full(n_lists, -1, np.int64)
    slot_of = np.full(n_keys, -1, np.int64)
    pinned = np.full(n_keys, -1, np.int64)
    evicted_tok = np.full(n_keys, -1, np.int64)
    count = np.zeros(n_keys)
    act = np.zeros(n_keys)
    act_tok = np.zeros(n_keys, np.int64)
    layer_row = np.full(n_layers, -1, np.int64)  # last row that ran each layer
    admit = np.ones(len(keys), np.bool_)  # offline: whether a missed access may take a slot
    cand = np.zeros(m + 1 + (int(np.max(np.diff(row_ptr))) if len(row_ptr) > 1 else 0))
    decay = _DECAY ** np.arange(256.0)  # a table instead of a power per access
    per_layer = n_keys // n_layers
    used = 0
    evictions = 0
    wasted = 0
    tick = 0.0
    for r in range(len(row_layer)):
        cur = row_layer[r]
        tok = row_token[r]
        a0 = row_ptr[r]
        a1 = row_ptr[r + 1]
        for a in range(a0, a1):
            pinned[keys[a]] = r
        if offline:  # which of the row's missed experts Belady keeps (the nearest next uses win the free slots)
            n_c = 0
            n_pin = 0
            for c in range(used):
                if pinned[slot_key[c]] == r:
                    n_pin += 1
                else:
                    cand[n_c] = e_next[c]
                    n_c += 1
            n_cached = n_c
            for a in range(a0, a1):
                if slot_of[keys[a]] < 0:
                    cand[n_c] = next_acc[a]
                    n_c += 1
            room = cap - n_pin
            if n_c > room:
                if room <= 0:
                    thr = -1.0
                    quota = 0
                else:
                    srt = np.sort(cand[:n_c])
                    thr = srt[room - 1]
                    quota = room
                    for i in range(n_c):
                        if cand[i] < thr or (i < n_cached and cand[i] == thr):
                            quota -= 1
                for a in range(a0, a1):
                    if slot_of[keys[a]] < 0:
                        v = float(next_acc[a])
                        ok = v < thr
                        if v == thr and quota > 0:
                            ok = True
                            quota -= 1
                        admit[a] = ok
        # demand accesses (j < a1), then the row's prefetch hints (h = j - a1 + hint_ptr[r])
        for j in range(a0, a1 + hint_ptr[r + 1] - hint_ptr[r]):
            demand = j < a1
            h = j - a1 + hint_ptr[r]
            k = keys[j] if demand else hint_keys[h]
            s = slot_of[k]
            if s >= 0 and not demand:
                continue
            if demand:
                count[k] += 1.0
                gap = tok - act_tok[k]
                act[k] = (act[k] * decay[gap] if gap < 256 else 0.0) + 1.0
                act_tok[k] = tok
            lst = slot_layer[s] if lists == 2 else 0
            if s >= 0:  # a hit
                if pf[s] >= 0:
                    outcome[j] = 2
                    acc_pf[j] = pf[s]
                    pf[s] = -1
                if lists > 0 and head[lst] != s:  # move to the MRU end (s has a predecessor)
                    nxt[prv[s]] = nxt[s]
                    if nxt[s] >= 0:
                        prv[nxt[s]] = prv[s]
                    else:
                        tail[lst] = prv[s]
                    prv[s] = -1
                    nxt[s] = head[lst]
                    prv[head[lst]] = s
                    head[lst] = s
            else:
                if demand:
                    outcome[j] = 1
                    if evicted_tok[k] == tok:
                        collision[j] = True
                    if offline and not admit[j]:  # Belady streams it through uncached
                        continue
                elif offline and next_hint[h] >= _NEVER:  # never used again: not worth a load
                    continue
                if used < cap:
                    s = used
                    used += 1
                else:
                    s = -1
                    if lists == 0:
                        best = -np.inf
                        for c in range(cap):
                            if pinned[slot_key[c]] == r:
                                continue
                            if protect and pf[c] >= 0 and layer_row[slot_layer[c]] <= pf_row[c]:
                                continue
                            v = _score(pid, float(slot_layer[c]), e_last[c], e_ins[c], e_freq[c], e_next[c], e_act[c],
                                       e_acttok[c], cur, n_layers, r, tok)
                            if v > best or s < 0:
                                best = v
                                s = c
                        if offline and not demand and s >= 0 and best <= next_hint[h]:
                            continue  # the hinted expert is needed no sooner than the victim: keep the victim
                    else:
                        for d in range(n_lists - 1, -1, -1):
                            c = tail[(cur + 1 + d) % n_lists]
                            while c >= 0:
                                if pinned[slot_key[c]] != r and not (
                                        protect and pf[c] >= 0 and layer_row[slot_layer[c]] <= pf_row[c]):
                                    s = c
                                    break
                                c = prv[c]
                            if s >= 0:
                                break
                    if s < 0:  # everything pinned or protected: stream through uncached / drop the hint
                        continue
                    old = slot_key[s]
                    slot_of[old] = -1
                    evicted_tok[old] = tok
                    evictions += 1
                    if pf[s] >= 0:
                        wasted += 1
                    if lists > 0:  # unlink the victim
                        ol = slot_layer[s] if lists == 2 else 0
                        if prv[s] >= 0:
                            nxt[prv[s]] = nxt[s]
                        else:
                            head[ol] = nxt[s]
                        if nxt[s] >= 0:
                            prv[nxt[s]] = prv[s]
                        else:
                            tail[ol] = prv[s]
                slot_of[k] = s
                slot_key[s] = k
                slot_layer[s] = k // per_layer
                e_ins[s] = tick
                if lists > 0:  # push at the MRU end
                    lst = slot_layer[s] if lists == 2 else 0
                    prv[s] = -1
                    nxt[s] = head[lst]
                    if head[lst] >= 0:
                        prv[head[lst]] = s
                    else:
                        tail[lst] = s
                    head[lst] = s
                if demand:
                    pf[s] = -1
                else:
                    hint_loaded[h] = True
                    pf[s] = h
                    pf_row[s] = r
            e_last[s] = tick
            e_freq[s] = count[k]
            e_next[s] = next_acc[j] if demand else next_hint[h]
            e_act[s] = act[k]
            e_acttok[s] = act_tok[k]
            tick += 1.0
        layer_row[cur] = r
    return evictions, wasted


_kernel = njit(_kernel_src)
"""The kernel of the built-in policies (``pid`` picks the score; compiled once, cached on disk)."""
_CUSTOM: dict[Any, Callable[..., Any]] = {}


def _custom_kernel(score: Callable[..., float]) -> Callable[..., Any]:
    """A kernel compiled from the same source for a new policy's ``score`` (once per process)."""
    if score not in _CUSTOM:
        fn = score if is_compiled(score) else njit_nocache(score)

        def _wrapped(pid: int, layer: float, last: float, ins: float, freq: float, next_use: float, act: float,
                     act_tok: float, cur_layer: int, n_layers: int, now: int, token: int) -> float:
            return fn(layer, last, ins, freq, next_use, act, act_tok, cur_layer, n_layers, now, token)

        glob = dict(_kernel_src.__globals__, _score=njit_nocache(_wrapped))
        _CUSTOM[score] = njit_nocache(types.FunctionType(_kernel_src.__code__, glob, "_kernel_custom"))
    return _CUSTOM[score]


def simulate(stream: Stream, policy: str | Policy, capacity: int, seed: int = 0,
             use_hints: bool = True, future: tuple[np.ndarray, np.ndarray] | None = None,
             fast: bool = True) -> SimResult:
    """Run ``stream`` through a cache of ``capacity`` experts managed by ``policy``.

    ``use_hints=False`` ignores the stream's prefetch hints; ``future`` may pass a precomputed
    :func:`~paperworks.backends.specmd.future.belady_keys` (Belady's knowledge) to save time across runs. ``fast=False``
    forces the generic score scan even for policies with a list-based fast path (same results).
    """
    pol = get_policy(policy)
    if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)):
        raise ValueError(f"capacity must be an integer number of experts; got {capacity!r}")
    if capacity < 0:
        raise ValueError(f"capacity must be >= 0; got {capacity}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be an integer in [0, 2**32); got {seed!r}")
    stream.validate()
    na, nh = future if future is not None else belady_keys(stream)
    na, nh = np.asarray(na, np.float64), np.asarray(nh, np.float64)
    if na.shape != (len(stream.keys),) or nh.shape != (len(stream.hint_keys),):
        raise ValueError(f"future must be belady_keys(stream): arrays of {len(stream.keys)} and "
                         f"{len(stream.hint_keys)} keys; got shapes {na.shape} and {nh.shape}")
    hptr = stream.hint_ptr if use_hints else np.zeros_like(stream.hint_ptr)
    A, H = len(stream.keys), len(stream.hint_keys)
    outcome = np.zeros(A, np.int8)
    collision = np.zeros(A, np.bool_)
    acc_pf = np.full(A, -1, np.int64)
    hint_loaded = np.zeros(H, np.bool_)
    lists = pol.lists if fast else 0
    kernel = _kernel if pol.builtin >= 0 else _custom_kernel(pol.score)
    slots = min(int(capacity), stream.n_keys)  # a bigger cache holds every expert: same results, no huge arrays
    ev, wasted = kernel(pol.builtin, pol.protect_prefetched, lists, pol.offline_admission, slots,
                        stream.n_layers, stream.n_keys, seed, stream.row_ptr, stream.keys, stream.row_layer,
                        stream.row_token, hptr, stream.hint_keys, na, nh, outcome, collision, acc_pf, hint_loaded)
    misses = int((outcome == MISS).sum())
    pfh = int((outcome == PREFETCH_HIT).sum())
    return SimResult(policy=pol.name, capacity=int(capacity), accesses=A, hits=A - misses, prefetch_hits=pfh,
                     misses=misses, collision_misses=int(collision.sum()), prefetches=int(hint_loaded.sum()),
                     wasted_prefetches=int(wasted), evictions=int(ev), outcome=outcome, acc_pf=acc_pf,
                     hint_loaded=hint_loaded)
