"""Where Lean is on this machine: the toolchain (``lake``/``lean`` on PATH or in ``~/.elan/bin``), the
Mathlib project (``--lean-project`` or ``PAPERWORKS_LEAN_PROJECT``), its versions, and the REPL binary
(``PAPERWORKS_LEAN_REPL``, the project's REPL package build, or ``repl`` on PATH)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperworks.core.errors import MissingDependencyError

PROJECT_ENV = "PAPERWORKS_LEAN_PROJECT"
REPL_ENV = "PAPERWORKS_LEAN_REPL"
HOW_TO = (f"install elan and build a Mathlib project with the leanprover-community/repl, then pass "
          f"--lean-project DIR or set {PROJECT_ENV} (and {REPL_ENV}=/path/to/repl if it is elsewhere)")
_REPL_PLACES = (".lake/packages/REPL/.lake/build/bin/repl", ".lake/packages/repl/.lake/build/bin/repl",
                ".lake/build/bin/repl")


@dataclass(frozen=True)
class LeanSetup:
    """What was found; any part may be missing (None). ``ready`` when a REPL can be started."""

    lean: Path | None = None
    lake: Path | None = None
    lean_version: str | None = None
    project: Path | None = None
    toolchain: str | None = None
    mathlib_rev: str | None = None
    repl: Path | None = None
    problems: tuple[str, ...] = ()

    @property
    def ready(self) -> bool:
        return self.repl is not None and self.project is not None and (self.lake is not None or self.lean is not None)

    def repl_command(self) -> list[str]:
        """``lake env <repl>`` (run in the project) when lake is there, else the repl binary itself."""
        if self.repl is None:
            raise MissingDependencyError(f"no Lean REPL binary found; {HOW_TO}")
        return [str(self.lake), "env", str(self.repl)] if self.lake else [str(self.repl)]

    def as_dict(self) -> dict[str, Any]:
        return {k: (str(v) if isinstance(v, Path) else list(v) if isinstance(v, tuple) else v)
                for k, v in self.__dict__.items()} | {"ready": self.ready}


def _which(name: str) -> Path | None:
    found = shutil.which(name)
    if found:
        return Path(found)
    elan = Path(os.environ.get("ELAN_HOME", Path.home() / ".elan")) / "bin" / name
    return elan if elan.is_file() and os.access(elan, os.X_OK) else None


def _version(lean: Path, cwd: Path | None) -> str | None:
    try:
        out = subprocess.run([str(lean), "--version"], capture_output=True, text=True, timeout=30,
                             cwd=cwd if cwd and cwd.is_dir() else None)
    except (OSError, subprocess.SubprocessError):
        return None
    text = (out.stdout or "").strip().splitlines()
    return text[0].strip() if out.returncode == 0 and text else None


def mathlib_rev(project: Path) -> str | None:
    """The Mathlib revision pinned in ``lake-manifest.json`` (None when absent)."""
    try:
        manifest = json.loads((project / "lake-manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for pkg in manifest.get("packages") or []:
        if isinstance(pkg, dict) and str(pkg.get("name", "")).lower() == "mathlib":
            rev = pkg.get("rev")
            return str(rev) if rev else None
    return None


def find_lean(project: str | Path | None = None, *, run_lean: bool = True) -> LeanSetup:
    """Look for everything; never raises. ``run_lean`` asks ``lean --version`` (up to 30 s)."""
    problems: list[str] = []
    lean, lake = _which("lean"), _which("lake")
    raw = project or os.environ.get(PROJECT_ENV) or None
    proj: Path | None = None
    toolchain = rev = None
    if raw:
        proj = Path(raw).expanduser().resolve()
        if not proj.is_dir():
            problems.append(f"the Lean project {proj} is not a folder")
            proj = None
        else:
            tc = proj / "lean-toolchain"
            toolchain = tc.read_text(encoding="utf-8").strip() if tc.is_file() else None
            if toolchain is None:
                problems.append(f"{proj} has no lean-toolchain file (not a Lake project?)")
            rev = mathlib_rev(proj)
            if rev is None:
                problems.append(f"{proj}/lake-manifest.json pins no Mathlib")
    repl = _find_repl(proj, problems)
    version = _version(lean, proj) if lean and run_lean else None
    if lean is None and lake is None:
        problems.append("no lean or lake on PATH or in ~/.elan/bin")
    if proj is None and raw is None:
        problems.append(f"no Lean project given (--lean-project or {PROJECT_ENV})")
    return LeanSetup(lean, lake, version, proj, toolchain, rev, repl, tuple(problems))


def _find_repl(project: Path | None, problems: list[str]) -> Path | None:
    env = os.environ.get(REPL_ENV)
    if env:
        path = Path(env).expanduser()
        if path.is_file() and os.access(path, os.X_OK):
            return path.resolve()
        problems.append(f"{REPL_ENV}={env} is not an executable file")
        return None
    for place in _REPL_PLACES if project else ():
        assert project is not None
        if (project / place).is_file():
            return project / place
    found = shutil.which("repl")
    if found:
        return Path(found)
    if project is not None:
        problems.append(f"no REPL binary in {project} (add leanprover-community/repl and `lake build repl`)")
    return None


def lean_available(project: str | Path | None = None) -> LeanSetup | None:
    """The setup when a Lean REPL can be started here, else None (for ``pytest.mark.skipif``)."""
    setup = find_lean(project, run_lean=False)
    return setup if setup.ready else None


def open_repl(setup: LeanSetup | None = None, **options: Any) -> Any:
    """A started-on-demand ``SubprocessRepl`` for ``setup`` (default: ``find_lean()``); options go to it.
    Raises ``MissingDependencyError`` (one line) when Lean is not available."""
    from paperworks.tools.lean.subprocess_repl import SubprocessRepl

    setup = setup or find_lean(run_lean=False)
    if not setup.ready:
        why = "; ".join(setup.problems) or "it is incomplete"
        raise MissingDependencyError(f"Lean isn't available here ({why}); {HOW_TO}")
    return SubprocessRepl(setup.repl_command(), cwd=setup.project, **options)
