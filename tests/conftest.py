"""Shared fixtures. Every test runs offline, in its own runs folder and cache home."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from paperworks.core.paths import set_offline_env

set_offline_env()
# The CLI's rich consoles are made at import; a COLUMNS present then fixes their width for the whole
# process. Tests set COLUMNS themselves where widths matter, so none is inherited (pytest-xdist's
# workers would otherwise carry their launcher's).
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs and the response cache go to the test's temporary folder. Converted model weights
    stay in the real cache home (converting the GGUF each time would cost seconds per test)."""
    monkeypatch.setenv("PAPERWORKS_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setenv("PAPERWORKS_RESPONSE_CACHE", str(tmp_path / "responses.sqlite"))


def cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, input: str | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``paperworks`` in a subprocess (the same interpreter), returning its completed process."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "paperworks", *args], cwd=cwd, env=full_env, input=input,
        capture_output=True, text=True, timeout=timeout,
    )
