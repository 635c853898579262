"""Apertium rule-based translation (Debian's ``apertium`` with ``apertium-<pair>`` packages)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from paperworks.core.errors import MissingDependencyError, UserError
from paperworks.tools.translate.codes import normalise

MODES_DIR = Path("/usr/share/apertium/modes")


def modes_dir() -> Path:
    """Where installed Apertium modes live (``APERTIUM_MODES_DIR`` overrides, for tests)."""
    return Path(os.environ.get("APERTIUM_MODES_DIR", str(MODES_DIR)))


def apertium_pairs() -> dict[tuple[str, str], str]:
    """Installed translation directions: (source, target) in ISO 639-3 → Apertium mode name.

    Only plain ``src-tgt`` modes count (not ``spa-eng_US`` variants or debugging modes); an
    empty dict when Apertium is not installed.
    """
    folder = modes_dir()
    if not folder.is_dir() or shutil.which("apertium") is None:
        return {}
    pairs: dict[tuple[str, str], str] = {}
    for mode in sorted(folder.glob("*.mode")):
        parts = mode.stem.split("-")
        if len(parts) != 2 or "_" in mode.stem:
            continue
        try:
            key = (normalise(parts[0]), normalise(parts[1]))
        except UserError:
            continue
        pairs.setdefault(key, mode.stem)
    return pairs


def apertium_translate(text: str, source: str, target: str, timeout_s: float = 120) -> str:
    """Translate with the installed Apertium pair; unknown words pass through unmarked (``-u``)."""
    exe = shutil.which("apertium")
    if exe is None:
        raise MissingDependencyError("apertium is not installed (Debian: apertium apertium-<pair>)")
    mode = apertium_pairs().get((normalise(source), normalise(target)))
    if mode is None:
        raise UserError(f"no Apertium pair {source}→{target} is installed")
    proc = subprocess.run([exe, "-u", mode], input=text, capture_output=True, text=True, timeout=timeout_s)
    if proc.returncode != 0:
        raise UserError(f"apertium {mode} failed: {' '.join(proc.stderr.split())[:200]}")
    return proc.stdout.rstrip("\n")
