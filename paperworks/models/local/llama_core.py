"""A thin wrapper over llama.cpp's C API (through llama-cpp-python's ctypes bindings) for batched decoding.

One model and one context holding up to ``n_seq`` sequences, each in its own KV stream by default (or all in
one unified cache, ``kv_unified``); a sequence can take over another's common prefix (``seq_cp``) and be
trimmed (``seq_rm``). Only the serving engine's
thread touches a :class:`LlamaCore`; nothing here is thread-safe. ``llama_cpp`` is imported on
construction only.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DecodeError", "KVFullError", "LlamaCore", "LlamaSettings", "llama_cpp_available"]


class DecodeError(RuntimeError):
    """llama.cpp refused or failed a batch."""


class KVFullError(DecodeError):
    """The KV cache has no room for the batch (llama_decode returned 1; nothing was changed)."""


def llama_cpp_available() -> str | None:
    """None when llama-cpp-python can be imported, else a one-line reason."""
    try:
        import llama_cpp  # noqa: F401
    except Exception as exc:  # noqa: BLE001 - an ImportError or a broken shared library
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".strip()
    return None


@dataclass(frozen=True)
class LlamaSettings:
    """Sizes of the llama.cpp context."""

    n_ctx: int = 65536
    """KV cells in all, about 23 KB each (1.5 GB by default): each sequence's own stream holds ``n_ctx / n_seq``
    of them, which bounds one request's prompt and reply; with ``kv_unified`` all sequences share them."""
    kv_unified: bool = False
    """One KV cache for all sequences instead of a stream each. A prefix is then shared without a copy and a
    request may use every cell, but a sequence's cells can come to lie out of position order (its later
    positions in cells freed before its earlier ones, when a request ends while another is mid-reply), and
    attention sums in cell order: its logits then differ in the last bits, and long greedy replies with
    several requests in flight are not reproducible (``benchmarks/kv_cell_order.py``). In its own stream a
    sequence's cells always stay in position order."""
    n_seq: int = 16
    """Sequence ids: concurrently decoding requests plus idle ones kept as prefix cache."""
    n_batch: int = 512
    """Most tokens in one llama_decode call (decode tokens of all requests plus prefill chunks)."""
    n_ubatch: int = 63
    """Tokens per physical step. Below 64 (ggml's flash-attention tile), every query row goes through the
    same attention kernel whatever else is in the batch, so batched, chunked and cached prefills give
    bit-identical logits; at 64 and more a tiled kernel with other rounding takes over (measured: logits
    differ by up to 1.0). Costs about 20% of prefill speed."""
    idle_horizon: int = 2048
    """With ``kv_unified`` only: tokens fed (by any request) after which an unused idle slot's cells are
    freed; 0 keeps them until the cache is full. Every cell below the highest one in use costs every later
    token a mask check in each attention head of each layer, reused or not (the unified cache's attention
    spans all of them; ``benchmarks/kv_extent.py`` on BF16, 2 cores: 14,000 idle cells slow 4 requests
    decoding together from 256 to 157 tokens/s, one request from 99 to 73; 2,000 cells cost 16% at 4).
    Reusing an idle prefix saves about 1 ms of prefill per token, an idle cell costs about 0.15 µs per token
    fed, so after about 2,000 tokens an unused prefix has cost a quarter to a third of what its reuse would
    save. An idle stream slows nobody."""
    n_threads_batch: int = 0
    """CPU threads for steps of several tokens (prefill chunks, or several requests decoding together);
    0 means every core this process may use. Measured on a quiet 2-core machine: 8 requests decode
    together at 2.0x one request's rate with two threads, 1.2x with one."""
    n_threads: int = 0
    """CPU threads; 0 means half the cores this process may use (at least one). Measured on a 2-core
    machine shared with other work: two threads decode only ~10% faster than one when it is quiet, and
    several times slower as soon as another process competes for the cores (threads wait at barriers)."""
    adaptive_threads: bool = True
    """Choose each step's thread count by measurement (:class:`~.threads.ThreadTuner`: half the cores or
    all of them, whichever is faster right now for steps of that size). Off when ``n_threads`` or
    ``n_threads_batch`` is set, or with one core."""

    @staticmethod
    def from_env() -> LlamaSettings:
        """Defaults, overridden by ``PAPERWORKS_LOCAL_CTX``, ``_SEQS``, ``_BATCH``, ``_UBATCH``, ``_THREADS``,
        ``_THREADS_BATCH``, ``_ADAPTIVE_THREADS`` (0 turns the tuner off), ``_IDLE_HORIZON``, ``_KV_UNIFIED``
        (1 turns it on)."""
        env = os.environ

        def get(key: str, default: int) -> int:
            try:
                return int(env.get(f"PAPERWORKS_LOCAL_{key}", default))
            except ValueError:
                return default

        base = LlamaSettings()
        return LlamaSettings(
            n_ctx=get("CTX", base.n_ctx),
            n_seq=get("SEQS", base.n_seq),
            n_batch=get("BATCH", base.n_batch),
            n_ubatch=get("UBATCH", base.n_ubatch),
            n_threads=get("THREADS", 0),
            n_threads_batch=get("THREADS_BATCH", 0),
            adaptive_threads=get("ADAPTIVE_THREADS", 1) != 0,
            idle_horizon=max(0, get("IDLE_HORIZON", base.idle_horizon)),
            kv_unified=get("KV_UNIFIED", int(base.kv_unified)) != 0,
        )


_LOG_CALLBACK: Any = None
_GGML_LOG_ERROR = 4  # ggml's levels: 1 debug, 2 info, 3 warn, 4 error, 5 continuation


def _quiet_logs(llama_cpp: Any) -> None:
    """Let only llama.cpp's errors reach stderr (its own Python logger maps ggml's levels wrongly)."""
    global _LOG_CALLBACK
    if _LOG_CALLBACK is not None:
        return
    last = [0]

    def callback(level: int, text: bytes, user_data: Any) -> None:
        if level != 5:
            last[0] = level
        if last[0] == _GGML_LOG_ERROR:
            sys.stderr.write(text.decode("utf-8", "replace"))

    _LOG_CALLBACK = llama_cpp.llama_log_callback(callback)  # kept referenced: C holds the pointer
    llama_cpp.llama_log_set(_LOG_CALLBACK, ctypes.c_void_p(0))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class LlamaCore:
    """A GGUF model, its vocabulary and one multi-sequence context."""

    def __init__(self, gguf: Path, settings: LlamaSettings | None = None, adapter: Path | None = None,
                 adapter_scale: float = 1.0) -> None:
        """Load ``gguf`` and make the context; ``adapter``: a llama.cpp LoRA adapter GGUF served with it,
        scaled by ``adapter_scale`` (raises :class:`DecodeError`, nothing left allocated, if refused)."""
        import llama_cpp

        _quiet_logs(llama_cpp)
        self._ll: Any = llama_cpp
        s = settings or LlamaSettings()
        llama_cpp.llama_backend_init()
        mparams = llama_cpp.llama_model_default_params()
        mparams.n_gpu_layers = 0
        self.model = llama_cpp.llama_model_load_from_file(str(gguf).encode(), mparams)
        if not self.model:
            raise DecodeError(f"llama.cpp could not load {gguf}")
        self.vocab = llama_cpp.llama_model_get_vocab(self.model)
        self.n_vocab = int(llama_cpp.llama_vocab_n_tokens(self.vocab))
        self.n_ctx_train = int(llama_cpp.llama_model_n_ctx_train(self.model))
        threads = s.n_threads or max(1, _cores() // 2)
        cparams = llama_cpp.llama_context_default_params()
        cparams.n_ctx = max(s.n_ctx, 256)
        cparams.n_batch = s.n_batch
        cparams.n_ubatch = min(s.n_ubatch, s.n_batch)
        cparams.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED
        cparams.n_seq_max = s.n_seq
        cparams.n_threads = threads  # one-token steps (a lone request decoding)
        cparams.n_threads_batch = s.n_threads_batch or max(threads, _cores())  # steps of several tokens
        cparams.kv_unified = s.kv_unified
        cparams.no_perf = True
        self.ctx = llama_cpp.llama_init_from_model(self.model, cparams)
        if not self.ctx:
            llama_cpp.llama_model_free(self.model)
            raise DecodeError("llama.cpp could not create a context")
        self.n_ctx = int(llama_cpp.llama_n_ctx(self.ctx))
        self.n_ctx_seq = int(llama_cpp.llama_n_ctx_seq(self.ctx))
        """Cells one sequence can hold: its stream's, or all of them in a unified cache."""
        self.unified = bool(s.kv_unified)
        self.n_seq = s.n_seq
        self.n_batch = s.n_batch
        self.n_threads = threads
        self.n_threads_batch = int(cparams.n_threads_batch)
        self.thread_choices = tuple(sorted({threads, self.n_threads_batch}))
        """What :class:`~.threads.ThreadTuner` chooses from; one value when the tuner is off."""
        if not (s.adaptive_threads and not s.n_threads and not s.n_threads_batch):
            self.thread_choices = ()
        self._threads_now = 0
        self.mem = llama_cpp.llama_get_memory(self.ctx)
        self._batch = llama_cpp.llama_batch_init(s.n_batch, 0, 1)
        self._pieces: dict[int, bytes] = {}
        self._buf = ctypes.create_string_buffer(256)
        self._adapter: Any = None
        """The loaded ``llama_adapter_lora`` pointer (kept referenced; freed on swap and in close)."""
        if adapter is not None:
            try:
                self.set_adapter(adapter, adapter_scale)
            except DecodeError:
                self.close()
                raise

    # ---------------------------------------------------------------------------------- vocabulary

    def meta(self, key: str) -> str | None:
        """A GGUF metadata value as a string (None when absent)."""
        size = 1 << 16
        buf = ctypes.create_string_buffer(size)
        n = self._ll.llama_model_meta_val_str(self.model, key.encode(), buf, size)
        return buf.value.decode("utf-8", "replace") if n >= 0 else None

    def tokenize(self, text: str, *, special: bool = True) -> list[int]:
        """Token ids of ``text`` (no BOS added); ``special`` parses control tokens like ``<|im_start|>``."""
        data = text.encode("utf-8")
        cap = len(data) + 8
        arr = (self._ll.llama_token * cap)()
        n = self._ll.llama_tokenize(self.vocab, data, len(data), arr, cap, False, special)
        if n < 0:
            raise DecodeError(f"tokenizing {len(data)} bytes needs {-n} tokens")
        return list(arr[:n])

    def piece(self, token: int) -> bytes:
        """The bytes of one token (control tokens render as nothing)."""
        cached = self._pieces.get(token)
        if cached is None:
            n = self._ll.llama_token_to_piece(self.vocab, token, self._buf, len(self._buf), 0, False)
            cached = self._buf.raw[: max(n, 0)]
            self._pieces[token] = cached
        return cached

    def is_eog(self, token: int) -> bool:
        """Whether ``token`` ends a generation (end of turn, end of text)."""
        return bool(self._ll.llama_vocab_is_eog(self.vocab, token))

    def token_id(self, text: str) -> int | None:
        """The id of a single-token string such as ``<|im_end|>``, else None."""
        ids = self.tokenize(text)
        return ids[0] if len(ids) == 1 else None

    # ---------------------------------------------------------------------------------- decoding

    def set_threads(self, threads: int) -> None:
        """Run the following steps, of any size, on ``threads`` threads."""
        if threads != self._threads_now:
            self._ll.llama_set_n_threads(self.ctx, threads, threads)
            self._threads_now = threads

    def decode(self, tokens: Sequence[int], pos: Sequence[int], seqs: Sequence[int], outputs: Sequence[bool]) -> None:
        """Feed one batch: token ``i`` at position ``pos[i]`` of sequence ``seqs[i]``.

        Afterwards :meth:`logits` of batch index ``i`` is valid where ``outputs[i]``. Raises
        :class:`KVFullError` (state unchanged) or :class:`DecodeError`.
        """
        b = self._batch
        n = len(tokens)
        if not 0 < n <= self.n_batch:
            raise DecodeError(f"a batch of {n} tokens (at most {self.n_batch})")
        for i in range(n):
            b.token[i] = tokens[i]
            b.pos[i] = pos[i]
            b.n_seq_id[i] = 1
            b.seq_id[i][0] = seqs[i]
            b.logits[i] = outputs[i]
        b.n_tokens = n
        rc = self._ll.llama_decode(self.ctx, b)
        if rc == 1:
            raise KVFullError("the KV cache is full")
        if rc != 0:
            raise DecodeError(f"llama_decode returned {rc}")

    def logits(self, i: int) -> np.ndarray:
        """A copy of the next-token logits at batch index ``i`` of the last :meth:`decode`."""
        ptr = self._ll.llama_get_logits_ith(self.ctx, i)
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,)).copy()

    def seq_rm(self, seq: int, p0: int = 0, p1: int = -1) -> None:
        """Drop positions ``[p0, p1)`` of sequence ``seq`` (``p1 < 0``: to the end)."""
        self._ll.llama_memory_seq_rm(self.mem, seq, p0, p1)

    def seq_cp(self, src: int, dst: int, n: int) -> None:
        """Give the empty sequence ``dst`` positions ``[0, n)`` of ``src``. In a unified cache ``dst`` shares
        those cells (no data is copied); with a stream each, ``src``'s whole stream is copied (at the next
        decode) and cut back to ``n``, so ``dst``'s cells stay in position order."""
        if self.unified:
            self._ll.llama_memory_seq_cp(self.mem, src, dst, 0, n)
        else:
            self._ll.llama_memory_seq_cp(self.mem, src, dst, -1, -1)
            self._ll.llama_memory_seq_rm(self.mem, dst, n, -1)

    def seq_pos_max(self, seq: int) -> int:
        """The highest position stored for ``seq`` (-1 when empty)."""
        return int(self._ll.llama_memory_seq_pos_max(self.mem, seq))

    def set_adapter(self, path: Path | None, scale: float = 1.0) -> None:
        """Serve the model with the llama.cpp LoRA adapter GGUF at ``path`` scaled by ``scale`` (None: the base
        weights), freeing the previous adapter. Every KV cell is stale afterwards: the caller drops them."""
        ll = self._ll
        adapter = None
        if path is not None:
            adapter = ll.llama_adapter_lora_init(self.model, str(path).encode())
            if not adapter:
                raise DecodeError(f"llama.cpp could not load the LoRA adapter {path} (wrong base model?)")
            rc = ll.llama_set_adapters_lora(self.ctx, (ll.llama_adapter_lora_p_ctypes * 1)(adapter), 1,
                                            (ctypes.c_float * 1)(scale))
        else:
            rc = ll.llama_set_adapters_lora(self.ctx, None, 0, None)
        if rc != 0:
            if adapter:
                ll.llama_adapter_lora_free(adapter)
            raise DecodeError(f"llama.cpp refused the LoRA adapter {path} (code {rc})")
        old, self._adapter = self._adapter, adapter
        if old:
            ll.llama_adapter_lora_free(old)

    def close(self) -> None:
        """Free the batch, context and model (idempotent)."""
        if getattr(self, "ctx", None):
            if getattr(self, "_adapter", None):
                self._ll.llama_set_adapters_lora(self.ctx, None, 0, None)
                self._ll.llama_adapter_lora_free(self._adapter)
                self._adapter = None
            self._ll.llama_batch_free(self._batch)
            self._ll.llama_free(self.ctx)
            self._ll.llama_model_free(self.model)
            self.ctx = None
