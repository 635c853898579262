"""Checkpoints are written whole or not at all: a full disk or a kill leaves the previous one intact."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from paperworks.core.errors import UserError
from paperworks.train import checkpoint


def _fill(tag: str):
    def fill(folder: Path) -> None:
        (folder / "adapter").mkdir()
        (folder / "adapter" / "w").write_text(tag)
        (folder / "state.json").write_text(json.dumps({"tag": tag}))
    return fill


def test_latest_moves_only_when_complete(tmp_path: Path) -> None:
    assert checkpoint.latest(tmp_path) is None
    checkpoint.write(tmp_path, 1, _fill("one"))
    assert checkpoint.latest(tmp_path) == tmp_path / "checkpoints" / "step-000001"

    def dies_halfway(folder: Path) -> None:
        (folder / "adapter").mkdir()
        raise KeyboardInterrupt  # a Ctrl-C (or any death) in the middle of writing

    with pytest.raises(KeyboardInterrupt):
        checkpoint.write(tmp_path, 2, dies_halfway)
    kept = checkpoint.latest(tmp_path)
    assert kept is not None and kept.name == "step-000001"
    assert (kept / "adapter" / "w").read_text() == "one"


def test_full_disk_is_one_line_and_keeps_the_last_checkpoint(tmp_path: Path) -> None:
    checkpoint.write(tmp_path, 3, _fill("three"))

    def disk_full(folder: Path) -> None:
        (folder / "adapter").mkdir()
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(UserError) as info:
        checkpoint.write(tmp_path, 4, disk_full)
    message = str(info.value)
    assert "\n" not in message and "disk full" in message and "step-000003" in message and "--resume" in message
    assert checkpoint.latest(tmp_path).name == "step-000003"  # type: ignore[union-attr]
    assert not [p for p in (tmp_path / "checkpoints").iterdir() if p.name.startswith(".step-000004")]


def test_only_the_two_newest_are_kept(tmp_path: Path) -> None:
    for step in range(1, 5):
        checkpoint.write(tmp_path, step, _fill(str(step)))
    names = sorted(p.name for p in (tmp_path / "checkpoints").glob("step-*"))
    assert names == ["step-000003", "step-000004"]
    assert checkpoint.latest(tmp_path).name == "step-000004"  # type: ignore[union-attr]
