"""Content-addressed artifact store inside a run directory.

Large things (renders, meshes, audio, documents) live here; graph state keeps only the returned
relative path. Identical content is stored once (``sha256`` prefix in the name).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from paperworks.core.errors import UserError


class ArtifactStore:
    """Files of one run, under ``<run>/artifacts``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)

    def put(self, data: bytes, name: str) -> str:
        """Store ``data`` content-addressed as ``<sha12>-<name>``; returns the path relative to the run."""
        digest = hashlib.sha256(data).hexdigest()[:12]
        safe = Path(name).name or "blob"
        target = self.root / f"{digest}-{safe}"
        if not target.exists():
            tmp = target.with_suffix(target.suffix + ".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, target)
        return f"artifacts/{target.name}"

    def resolve(self, relpath: str) -> Path:
        """A path inside the artifact folder; refuses anything that would escape it."""
        rel = relpath[len("artifacts/") :] if relpath.startswith("artifacts/") else relpath
        candidate = (self.root / rel).resolve()
        root = self.root.resolve()
        if candidate != root and root not in candidate.parents:
            raise UserError(f"path '{relpath}' is outside the run's artifact folder")
        return candidate

    def write_text(self, relpath: str, text: str) -> Path:
        """Write a named (not content-addressed) text file inside the artifact folder."""
        path = self.resolve(relpath)
        if path == self.resolve(".") or path.is_dir():  # the tmp file would land beside the folder, or replace it
            raise UserError(f"'{relpath}' names a folder in the run's artifact folder, not a file")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        return path

    def read_text(self, relpath: str) -> str:
        """Read a text file inside the artifact folder."""
        path = self.resolve(relpath)
        if not path.is_file():
            raise UserError(f"no file '{relpath}' in the run's artifact folder")
        return path.read_text(encoding="utf-8")

    def list(self) -> list[str]:
        """Relative paths of all files stored so far."""
        return sorted(str(p.relative_to(self.root)) for p in self.root.rglob("*") if p.is_file())
