"""Checkpoints of a training run: written whole into a temporary folder, then renamed, then named in
``checkpoints/latest``; so a kill -9 or a full disk at any moment leaves the previous one intact.

``checkpoints/step-NNNNNN/``: ``adapter/`` (PEFT), ``trainer_state.pt`` (optimiser, RNG states) and
``state.json`` (step, counters, history). The two newest are kept.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from paperworks.core.errors import UserError

KEEP = 2


def latest(root: Path) -> Path | None:
    """The newest complete checkpoint folder, or None."""
    pointer = root / "checkpoints" / "latest"
    try:
        name = pointer.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    folder = root / "checkpoints" / name
    return folder if (folder / "state.json").is_file() and (folder / "adapter").is_dir() else None


def write(root: Path, step: int, fill: Callable[[Path], None]) -> Path:
    """A checkpoint of ``step``: ``fill(folder)`` writes its files into a temporary folder, which is then
    renamed and named as the latest. On a full disk the partial folder is removed and a one-line
    ``UserError`` says which checkpoint is still intact."""
    base = root / "checkpoints"
    base.mkdir(parents=True, exist_ok=True)
    name = f"step-{step:06d}"
    tmp = base / f".{name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir()
        fill(tmp)
        final = base / name
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        pointer = base / ".latest.tmp"
        pointer.write_text(name + "\n", encoding="utf-8")
        os.replace(pointer, base / "latest")
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            kept = latest(root)
            raise UserError(f"disk full while writing checkpoint {name} in {base}; "
                            + (f"the last checkpoint ({kept.name}) is intact: resume with --resume {root}"
                               if kept else "no earlier checkpoint exists")) from None
        raise
    for old in sorted(p for p in base.glob("step-*") if p.is_dir())[:-KEEP]:
        shutil.rmtree(old, ignore_errors=True)
    return final
