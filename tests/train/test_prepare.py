"""The run folder check of ``paperworks train``: one-line refusals before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperworks.core.errors import UserError
from paperworks.train.loop import prepare
from paperworks.train.settings import settings_from


def _settings():  # type: ignore[no-untyped-def]
    return settings_from({"workflow": "agent", "suite": "gen:arith", "eval_suite": "arith"})


def test_a_fresh_run_writes_its_record_and_a_resume_reads_the_same_settings(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    settings = prepare(folder, _settings(), resume=False)
    assert (folder / "train.json").is_file()
    assert prepare(folder, _settings(), resume=True) == settings


@pytest.mark.parametrize("case", ["file", "not_empty", "parent_is_file", "corrupt_record", "no_record"])
def test_bad_run_folders_are_refused_in_one_line(tmp_path: Path, case: str) -> None:
    folder, resume = tmp_path / "run", False
    if case == "file":
        folder.write_text("x")
    elif case == "not_empty":
        folder.mkdir()
        (folder / "other.txt").write_text("x")
    elif case == "parent_is_file":
        (tmp_path / "blocker").write_text("x")
        folder = tmp_path / "blocker" / "run"
    elif case == "corrupt_record":
        folder.mkdir()
        (folder / "train.json").write_text('{"settings": {"workflow": ')
        resume = True
    else:
        folder.mkdir()
        resume = True
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with pytest.raises(UserError) as info:
        prepare(folder, _settings(), resume=resume)
    message = str(info.value)
    assert "\n" not in message and str(folder) in message
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
