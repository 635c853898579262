"""``paperworks lean info`` and ``find_lean`` / ``lean_available`` / ``open_repl``, with no Lean here and
with a fake toolchain and project (fake ``lean``, ``lake env`` and ``repl`` executables)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from paperworks.core.errors import MissingDependencyError
from paperworks.tools.lean import find_lean, lean_available, open_repl
from tests.conftest import cli
from tests.fixtures.lean.helpers import fake_repl, requests

VERSION = "Lean (version 4.19.0, x86_64-unknown-linux-gnu, commit 0123abc, Release)"


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def no_lean_env(tmp_path: Path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "ELAN_HOME": str(tmp_path / "elan"),
            "PAPERWORKS_LEAN_PROJECT": "", "PAPERWORKS_LEAN_REPL": ""}


def fake_setup(tmp_path: Path) -> tuple[dict[str, str], Path, Path]:
    """A PATH with fake ``lean`` and ``lake`` (``lake env CMD`` runs CMD), and a Mathlib project whose REPL
    package build holds the fake repl. Returns (env, project, repl log)."""
    bin_dir = tmp_path / "bin"
    executable(bin_dir / "lean", f"#!/bin/sh\necho '{VERSION}'\n")
    executable(bin_dir / "lake", '#!/bin/sh\n[ "$1" = env ] && shift && exec "$@"\nexit 2\n')
    project = tmp_path / "proj"
    project.mkdir()
    (project / "lean-toolchain").write_text("leanprover/lean4:v4.19.0\n")
    (project / "lake-manifest.json").write_text(json.dumps({"version": 7, "packages": [
        {"name": "REPL", "rev": "f00"}, {"name": "mathlib", "rev": "5b3e9f1c0d"}]}))
    cmd, log = fake_repl(tmp_path, {})
    executable(project / ".lake/packages/REPL/.lake/build/bin/repl", Path(cmd[0]).read_text())
    env = {**no_lean_env(tmp_path), "PATH": f"{bin_dir}:/usr/bin:/bin"}
    return env, project, log


def test_info_without_lean_is_one_line(tmp_path: Path) -> None:
    done = cli("lean", "info", env=no_lean_env(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Lean isn't available here: no lean or lake")
    assert "--lean-project DIR" in lines[0] and "PAPERWORKS_LEAN_PROJECT" in lines[0]
    as_json = json.loads(cli("lean", "info", "--json", env=no_lean_env(tmp_path)).stdout)
    assert as_json["ready"] is False and as_json["lean"] is None


def test_info_with_a_project_but_no_toolchain(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    done = cli("lean", "info", "--lean-project", str(tmp_path / "p"), env=no_lean_env(tmp_path))
    assert done.returncode == 0
    assert "project:   " + str((tmp_path / "p").resolve()) in done.stdout
    assert "status:    not ready: " in done.stdout and "no lean-toolchain file" in done.stdout


def test_info_with_a_fake_toolchain(tmp_path: Path) -> None:
    env, project, _ = fake_setup(tmp_path)
    done = cli("lean", "info", "--lean-project", str(project), env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"lean:      {tmp_path / 'bin' / 'lean'} ({VERSION})" in out
    assert "toolchain: leanprover/lean4:v4.19.0" in out and "mathlib:   5b3e9f1c0d" in out
    assert f"repl:      {project / '.lake/packages/REPL/.lake/build/bin/repl'}" in out
    assert "status:    ready" in out
    by_env = cli("lean", "info", env={**env, "PAPERWORKS_LEAN_PROJECT": str(project)})
    assert "status:    ready" in by_env.stdout


def test_lean_available_and_open_repl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env, project, log = fake_setup(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert lean_available() is None  # no project given
    setup = lean_available(project)
    assert setup is not None and setup.mathlib_rev == "5b3e9f1c0d" and setup.lean_version is None
    assert setup.repl_command() == [str(tmp_path / "bin" / "lake"), "env", str(setup.repl)]
    assert find_lean(project).lean_version == VERSION
    with open_repl(setup, tactic_timeout_s=10) as repl:  # lake env <repl>, run in the project
        assert repl.run_command("example : True := trivial").proved
    assert requests(log)[0]["cmd"].startswith("import Mathlib")
    monkeypatch.setenv("PAPERWORKS_LEAN_REPL", str(tmp_path / "nope"))
    assert lean_available(project) is None
    assert "PAPERWORKS_LEAN_REPL=" in " ".join(find_lean(project).problems)


def test_open_repl_without_lean_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in no_lean_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    with pytest.raises(MissingDependencyError) as err:
        open_repl()
    assert str(err.value).startswith("Lean isn't available here (no lean or lake") and "\n" not in str(err.value)
