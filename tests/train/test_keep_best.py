"""``keep: best_heldout``: the adapter kept is the one of the first strictly best generated held-out eval."""

from __future__ import annotations

import json
from pathlib import Path

from paperworks.train.loop import Trainer
from paperworks.train.settings import settings_from


def _trainer(tmp_path: Path, keep: str) -> Trainer:
    settings = settings_from({"workflow": "agent", "suite": "gen:arith", "eval_suite": "arith", "keep": keep})
    return Trainer(tmp_path / "run", settings)


def _write_adapter(trainer: Trainer, tag: str) -> None:
    trainer.adapter_dir.mkdir(parents=True, exist_ok=True)
    (trainer.adapter_dir / "adapter_config.json").write_text(json.dumps({"tag": tag}))
    (trainer.adapter_dir / "adapter_model.safetensors").write_bytes(tag.encode())


def test_the_first_strictly_best_heldout_adapter_is_kept(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path, "best_heldout")
    assert trainer._best() is None
    for step, acc in [(0, 0.2), (5, 0.5), (10, 0.5), (15, 0.3), (20, None)]:
        _write_adapter(trainer, f"step{step}")
        trainer._keep_if_best(step, acc)
    kept = trainer.out / "adapter_best"
    assert trainer._best() == {"step": 5, "heldout_accuracy": 0.5}
    assert (kept / "adapter_model.safetensors").read_bytes() == b"step5"
    assert json.loads((kept / "adapter_config.json").read_text()) == {"tag": "step5"}
    assert not (trainer.out / "adapter_best.tmp").exists()
    _write_adapter(trainer, "step25")
    trainer._keep_if_best(25, 0.75)
    assert trainer._best() == {"step": 25, "heldout_accuracy": 0.75}
    assert (kept / "adapter_model.safetensors").read_bytes() == b"step25"


def test_a_bad_keep_value_is_refused_in_one_line() -> None:
    import pytest

    from paperworks.core.errors import UserError

    with pytest.raises(UserError) as err:
        settings_from({"workflow": "agent", "suite": "gen:arith", "eval_suite": "arith", "keep": "best"})
    assert "keep" in str(err.value) and "\n" not in str(err.value)
