"""``archive add / search / list / remove`` in separate processes on one archive folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("chromadb")
ROOT = Path(__file__).resolve().parents[2]


def archive(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "paperworks.cli.archive_cmd", *args], capture_output=True,
                          text=True, env=env, timeout=180)


@pytest.mark.slow
def test_add_search_list_remove_across_processes(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "hastings.txt").write_text("Harold fell at Hastings in 1066.\n")
    (docs / "vienna.md").write_text("# Vienna\nThe Congress of Vienna opened in 1814.\n")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 nothing")
    idx = ["--archive", str(tmp_path / "idx")]
    first = archive("add", str(docs), *idx)
    assert first.returncode == 1  # one file failed, the rest went in
    assert "2 added, 0 updated, 0 unchanged, 1 failed" in first.stdout
    assert f"error: {docs / 'broken.pdf'}: not a readable PDF" in first.stderr
    assert len(first.stderr.strip().splitlines()) == 1
    again = archive("add", str(docs / "hastings.txt"), str(docs / "vienna.md"), *idx, "-q")
    assert again.returncode == 0 and "0 added, 0 updated, 2 unchanged, 0 failed" in again.stdout
    found = archive("search", "Congress of Vienna", *idx, "-k", "1", "--json")
    hit = json.loads(found.stdout.strip())
    assert hit["document"] == str((docs / "vienna.md").resolve()) and hit["lines"] == [1, 2]
    listing = archive("list", *idx)
    assert "2 documents, 2 passages" in listing.stdout
    gone = archive("remove", str(docs / "vienna.md"), *idx)
    assert gone.returncode == 0 and "removed" in gone.stdout
    assert "1 documents" in archive("list", *idx).stdout
    missing = archive("remove", str(docs / "nothing.txt"), *idx)
    assert missing.returncode == 1 and "nothing.txt: not in the archive" in missing.stderr
    empty = archive("search", "  ", *idx)
    assert empty.returncode == 1 and empty.stderr.strip() == "error: empty search query"


def test_archive_cli_help_does_not_import_heavy_libraries() -> None:
    code = ("import sys; import paperworks.cli.archive_cmd; "
            "print(any(m in sys.modules for m in ('chromadb', 'torch', 'pytesseract', 'bm25s')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert out.stdout.strip() == "False"
