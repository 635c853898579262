"""An empty -m is refused (not silently the default model), a workflow reference that is not a dotted module
path is a one-line error, and an artifact write naming a folder is refused: nothing is created for any."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperworks.core.artifacts import ArtifactStore
from paperworks.core.errors import UserError
from tests.cli.test_audit_cli import outcome


@pytest.mark.parametrize("argv", [
    ["run", "agent", "-m", "", "-i", "hi"],
    ["eval", "arith", "-m", "", "--limit", "1"],
    ["run", "../../etc:x", "-i", "hi"],
    ["run", "os.path:not-a-name", "-i", "hi"],
    ["run", "/abs/mod:SPEC", "-i", "hi"],
])
def test_refused_in_one_line_before_anything_exists(argv: list[str], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, err = outcome(capsys, *argv)
    assert code != 0 and err.startswith("error:") and "\n" not in err and "internal error" not in err
    assert list(tmp_path.iterdir()) == []  # no runs/ folder, nothing else


def test_a_user_module_failing_at_import_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "brokenwf.py").write_text("raise RuntimeError('boom\\nsecond line')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    code, err = outcome(capsys, "run", "brokenwf:SPEC", "-i", "hi")
    assert code != 0 and "importing workflow module 'brokenwf' failed: RuntimeError: boom" in err
    assert "\n" not in err and not (tmp_path / "runs").exists()


@pytest.mark.parametrize("rel", ["", ".", "sub", "artifacts/"])
def test_an_artifact_write_naming_a_folder_is_refused(rel: str, tmp_path: Path) -> None:
    root = tmp_path / "run" / "artifacts"
    (root / "sub").mkdir(parents=True)
    store = ArtifactStore(root)
    with pytest.raises(UserError, match="names a folder"):
        store.write_text(rel, "x")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["artifacts", "run", "sub"]  # no stray .tmp
    assert store.write_text("sub/a.txt", "x").read_text() == "x"
