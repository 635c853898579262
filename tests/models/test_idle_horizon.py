"""Idle prefix-cache slots of a unified KV cache are freed after ``idle_horizon`` fed tokens without reuse (real
GGUF, slow); with a stream per sequence an idle one slows nobody and is kept."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_local_engine import _chat, _fresh, _gather  # noqa: E402

pytestmark = pytest.mark.slow
NOTE = _chat("Remember this note: the blue box holds seven red apples and two green pears.")
NOTE2 = _chat("Remember this other note: the tall shelf holds nine old books and one clock.")
OTHER = _chat("Write a long poem about the sea and the wind.")


def _after_other_work(horizon: int) -> tuple[int | None, int, int]:
    """The two notes decode together (two slots); another request then takes one note's slot over and
    feeds about 70 tokens while the other note's slot sits idle. Returns the prompt tokens the surviving
    note prefills when asked again (None when no slot holds either note any more), the slots aged out,
    and the KV cells held before asking again."""
    model = _fresh(idle_horizon=horizon, kv_unified=True)
    try:
        _gather(model, [(NOTE, {"max_tokens": 4}), (NOTE2, {"max_tokens": 4})])
        model.generate(OTHER, max_tokens=48)
        held = sum(len(s.tokens) for s in model.engine.slots)
        aged = model.engine.stats.aged_out
        prompts = {id(m): model.prompt_ids(m) for m in (NOTE, NOTE2)}
        kept = [m for m in (NOTE, NOTE2)
                if any(s.tokens[: len(prompts[id(m)])] == prompts[id(m)] for s in model.engine.slots)]
        if not kept:
            return None, aged, held
        model.generate(kept[0], max_tokens=4)
        job = model.recent_jobs[-1]
        return len(job.prompt) - job.reused, aged, held
    finally:
        model.close()


def test_a_prefix_unused_for_the_horizon_is_freed() -> None:
    recomputed, aged, held = _after_other_work(horizon=32)
    assert aged >= 1
    assert recomputed is None  # neither note's prompt is cached any more
    assert held < 130  # the idle note's cells are gone; only the other request's remain


def test_a_prefix_within_the_horizon_is_reused() -> None:
    recomputed, aged, _ = _after_other_work(horizon=4096)
    assert aged == 0
    assert recomputed == 1  # the surviving note's whole prompt but its last token came from the cache


def test_the_age_counts_from_when_the_slot_became_idle() -> None:
    # about 70 tokens are fed before the notes finish and 65 after: a horizon of 100 spares the idle note
    recomputed, aged, _ = _after_other_work(horizon=100)
    assert aged == 0 and recomputed == 1


def test_horizon_zero_keeps_idle_prefixes() -> None:
    recomputed, aged, _ = _after_other_work(horizon=0)
    assert aged == 0 and recomputed == 1


def test_the_horizon_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.models.local.llama_core import LlamaSettings

    monkeypatch.setenv("PAPERWORKS_LOCAL_IDLE_HORIZON", "77")
    assert LlamaSettings.from_env().idle_horizon == 77
    monkeypatch.setenv("PAPERWORKS_LOCAL_IDLE_HORIZON", "-5")
    assert LlamaSettings.from_env().idle_horizon == 0
    monkeypatch.delenv("PAPERWORKS_LOCAL_IDLE_HORIZON")
    assert LlamaSettings.from_env().idle_horizon == 2048
