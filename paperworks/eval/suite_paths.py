"""Where suites are: by name in ``./evals``, then the package's own suites, then ``PAPERWORKS_EVALS_DIR``;
or by a path to a suite folder or its ``suite.yaml``."""

from __future__ import annotations

import os
from pathlib import Path

import paperworks
from paperworks.core.errors import UserError

SUITE_FILE = "suite.yaml"


def display_path(path: Path) -> str:
    """``path`` relative to the current directory when it lies inside it, else absolute."""
    absolute = str(path)
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive
        return absolute
    return relative if not relative.startswith("..") and len(relative) < len(absolute) else absolute


def package_suites_dir() -> Path:
    """The suites that come with paperworks: ``paperworks/suites/`` inside an installed package (a wheel
    carries them as package data), else the checkout's ``evals/`` beside the package (source or editable)."""
    package = Path(paperworks.__file__).resolve().parent
    shipped = package / "suites"
    return shipped if shipped.is_dir() else package.parent / "evals"


def evals_dirs() -> list[Path]:
    """Where suites are looked up by name, in order: ``./evals``, the package's own suites, then each
    folder of ``PAPERWORKS_EVALS_DIR`` (``os.pathsep``-separated). The first folder with the name wins."""
    extra = [Path(p).expanduser() for p in os.environ.get("PAPERWORKS_EVALS_DIR", "").split(os.pathsep) if p]
    out: list[Path] = []
    for folder in [Path("evals"), package_suites_dir(), *extra]:
        if not any(_same(folder, seen) for seen in out):
            out.append(folder)
    return out


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def suite_folders() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for root in evals_dirs():
        if root.is_dir():
            for spec_file in sorted(root.glob(f"*/{SUITE_FILE}")):
                found.setdefault(spec_file.parent.name, spec_file.parent.resolve())
    return found


def find_suite(name_or_path: str) -> Path:
    """A suite's folder, from its name (under ``evals_dirs()``) or a path to its folder or suite.yaml."""
    path = Path(name_or_path).expanduser()
    looks_like_path = os.sep in name_or_path or "/" in name_or_path or name_or_path.endswith((".yaml", ".yml")) \
        or name_or_path in (".", "..")
    if not looks_like_path:
        folders = suite_folders()
        if name_or_path in folders:
            return folders[name_or_path]
        if not (path / SUITE_FILE).is_file():
            known = ", ".join(sorted(folders)) or "none"
            looked = ", ".join(display_path(d.absolute()) + "/" for d in evals_dirs())
            raise UserError(f"unknown suite '{name_or_path}' (looked in {looked}); known: {known}")
    if path.is_dir():
        if not (path / SUITE_FILE).is_file():
            raise UserError(f"{display_path(path)}: no {SUITE_FILE} in this folder")
        return path.resolve()
    if path.is_file():
        if path.name != SUITE_FILE:
            raise UserError(f"{display_path(path)}: expected a suite folder or its {SUITE_FILE}")
        return path.parent.resolve()
    raise UserError(f"no suite folder or file '{name_or_path}'")
