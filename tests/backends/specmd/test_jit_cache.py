"""numba's on-disk kernels are dropped when any source file of the package changes."""

from __future__ import annotations

from pathlib import Path

from paperworks.backends.specmd._jit import _drop_stale_cache


def test_stale_kernels_are_dropped_when_a_source_changes(tmp_path: Path) -> None:
    (tmp_path / "policies.py").write_text("A = 1\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    _drop_stale_cache(tmp_path)
    kernel = cache / "simulator._kernel-1.py311.nbc"
    kernel.write_bytes(b"compiled")
    _drop_stale_cache(tmp_path)  # nothing changed: the kernel stays
    assert kernel.exists()
    (tmp_path / "policies.py").write_text("A = 2\n")
    _drop_stale_cache(tmp_path)  # a source changed: every kernel goes
    assert not kernel.exists()
    (cache / "x.nbi").write_bytes(b"index")
    _drop_stale_cache(tmp_path)
    assert (cache / "x.nbi").exists()
