"""GGUF copies of the embedded model in another tensor type, derived once from the shipped Q4_1 file.

``local/smollm2-135m-bf16`` serves the shipped weights converted to BF16: the Q4_1 values are
dequantised exactly as llama.cpp computes them, then rounded to BF16 (perplexity 58.2 vs 58.5 on
the same text, ``benchmarks/results/llama_quant_ceiling_native.json``). Nothing is downloaded: the copy is
written next to the converted torch weights (``~/.cache/paperworks/models/gguf/``, about 260 MB) the
first time it is asked for, atomically, and reused after.

Why a second copy: on CPUs with AVX512_BF16 and a llama.cpp built for them (``make setup`` builds one
per CPU), BF16 weights are memory-bound: decoding 4 requests together is about 2.5x one request's rate,
against about 1.5x for Q4_1, whose kernels are compute-bound per token, and prompts prefill about 2.5x
faster. One request alone decodes about 20% slower than on Q4_1. So ``local/smollm2-135m`` is served from
this copy where the CPU has the kernels (:func:`default_kind`); ``local/smollm2-135m-q4_1`` is always the
shipped file. Greedy outputs differ from Q4_1's (top-1 agreement 99% on the benchmark text): runs record
which weights served them (``local_weights`` in ``run.json``).
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

from paperworks.core.paths import models_cache_dir

FTYPES = {"bf16": 32, "f16": 1}
"""llama.cpp's ``LLAMA_FTYPE_MOSTLY_*`` values of the derived types."""
_LOCK = threading.Lock()


class DeriveError(RuntimeError):
    """The derived GGUF cannot be made (the message says why, in one line)."""


def derived_path(source: Path, kind: str, root: Path | None = None) -> Path:
    """Where the ``kind`` copy of ``source`` lives (it may not exist yet)."""
    return (root or models_cache_dir()) / "gguf" / f"{source.stem}.{kind}.gguf"


def _system_info() -> str:
    try:
        import llama_cpp

        return str(llama_cpp.llama_print_system_info().decode("utf-8", "replace"))
    except Exception:  # noqa: BLE001 - no or a broken llama-cpp-python
        return ""


def cpu_has_bf16_kernels() -> bool:
    """Whether the installed llama.cpp was built with AVX512_BF16 (a native build on such a CPU)."""
    return "AVX512_BF16 = 1" in _system_info()


def batch_invariant_build() -> bool:
    """Whether the installed llama.cpp computes a token's matrix products the same way whatever the number of
    tokens in the step: built from the source ``scripts/llama_patch.py`` changed (``BATCH_INVARIANT = 1``, what
    ``make setup`` builds), or without llamafile's GEMMs (``GGML_LLAMAFILE=OFF``). Upstream, llamafile serves
    products of 2 or more tokens and ``ggml_vec_dot`` those of one, which sum in another order: a BF16 model's
    greedy output would change with the requests decoding beside it (Q4_1 has no such GEMM: unaffected)."""
    info = _system_info()
    return "BATCH_INVARIANT = 1" in info or (bool(info) and "LLAMAFILE = 1" not in info)


def default_kind() -> str:
    """The tensor type ``local/smollm2-135m`` is served in here: ``bf16`` where llama.cpp has AVX512_BF16
    kernels and a batch-invariant build, else ``""`` (the shipped Q4_1 file)."""
    return "bf16" if cpu_has_bf16_kernels() and batch_invariant_build() else ""


def derive(source: Path, kind: str, root: Path | None = None) -> Path:
    """The ``kind`` (``bf16`` or ``f16``) copy of GGUF ``source``, written once; raises :class:`DeriveError`."""
    if kind not in FTYPES:
        raise DeriveError(f"unknown derived weight type {kind!r}; known: {', '.join(FTYPES)}")
    target = derived_path(source, kind, root)
    with _LOCK:
        if target.is_file() and target.stat().st_size > source.stat().st_size:
            return target
        try:
            import llama_cpp

            from paperworks.models.local.llama_core import _quiet_logs
        except Exception as exc:  # noqa: BLE001
            raise DeriveError(f"making the {kind} copy of {source.name} needs llama-cpp-python "
                              f"(run `make setup`): {type(exc).__name__}") from exc
        _quiet_logs(llama_cpp)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype, params.allow_requantize, params.nthread = FTYPES[kind], True, 1
        try:
            code = llama_cpp.llama_model_quantize(str(source).encode(), str(tmp).encode(), ctypes.byref(params))
            if code != 0 or not tmp.is_file():
                raise DeriveError(f"llama.cpp could not convert {source.name} to {kind} (code {code})")
            os.replace(tmp, target)
        except OSError as exc:
            raise DeriveError(f"cannot write {target}: {exc.strerror or exc}") from exc
        finally:
            tmp.unlink(missing_ok=True)
        return target
