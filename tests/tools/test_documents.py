"""Readers on files written in the test: PDF pages (text and scanned), DOCX, XLSX, PPTX, CSV,
JSON, text and images; bad files give one line naming the file."""

from __future__ import annotations

import asyncio
import zipfile
from pathlib import Path

import pytest

from paperworks.tools.documents import BadFileError, read_document
from tests.fixtures.hist_files import write_all, write_pdf, write_xlsx


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_all(tmp_path_factory.mktemp("docs"))


def test_pdf_pages_are_numbered(files: dict[str, Path]) -> None:
    doc = read_document(files["pdf"])
    assert doc.kind == "pdf" and [s.page for s in doc.sections] == [1, 2]
    assert "founded in 910" in doc.sections[0].text and "Fleury" in doc.sections[1].text
    assert doc.metadata["pages"] == "2" and doc.metadata["title"] == "Test chronicle"
    assert "[page 2]\nAbbot Odo" in doc.render()


def test_scanned_pdf_page_is_ocrd(tmp_path: Path) -> None:
    pytest.importorskip("pytesseract")
    pdf = write_pdf(tmp_path / "scan.pdf", ["Typed page."], scanned=["Gallia est omnis divisa"])
    doc = read_document(pdf, "lat")
    assert doc.sections[1].page == 2 and "Gallia est omnis divisa" in doc.sections[1].text
    assert "pages_without_text" not in doc.metadata


def test_docx_paragraphs_and_tables(files: dict[str, Path]) -> None:
    doc = read_document(files["docx"])
    assert doc.sections[0].text.startswith("A letter from Lisbon\nThe earthquake struck Lisbon")
    assert doc.sections[1].table == [["ship", "cargo"], ["Santa Maria", "pepper"]]
    assert doc.metadata["title"] == "Test letter"


def test_xlsx_sheets_as_tables(files: dict[str, Path]) -> None:
    doc = read_document(files["xlsx"])
    assert [s.label for s in doc.sections] == ["sheet 'Tithes 1620'", "sheet 'Mills'"]
    assert doc.sections[0].table == [["village", "bushels"], ["Oberdorf", "412"]]
    assert doc.sections[1].page == 2 and "Untermühle\tHans Krebs" in doc.sections[1].text


def test_pptx_slides_with_notes(files: dict[str, Path]) -> None:
    doc = read_document(files["pptx"])
    assert [s.label for s in doc.sections] == ["slide 1", "slide 2"]
    assert "Lübeck led the league." in doc.sections[0].text
    assert "notes: mention Bryggen" in doc.sections[1].text


def test_csv_json_text_markdown(files: dict[str, Path]) -> None:
    assert read_document(files["csv"]).sections[0].table == [
        ["parish", "year", "baptisms"], ["St Giles", "1701", "57"], ["St Mary", "1701", "33"]]
    assert '"sealed": "1215-06-15"' in read_document(files["json"]).text
    assert read_document(files["markdown"]).kind == "markdown"
    assert "1661" in read_document(files["text"]).text


def test_jsonl_records(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\n')
    doc = read_document(path)
    assert [s.label for s in doc.sections] == ["record 1", "record 2"]


def test_image_through_ocr(files: dict[str, Path]) -> None:
    pytest.importorskip("pytesseract")
    doc = read_document(files["image"], "lat")
    assert doc.kind == "image" and "Gallia est omnis divisa in partes tres" in doc.text


@pytest.mark.parametrize(("name", "data", "problem"), [
    ("broken.pdf", b"%PDF-1.4\n garbage", "not a readable PDF"),
    ("broken.docx", b"PK\x03\x04 not a zip", "not a readable DOCX"),
    ("broken.xlsx", b"nonsense", "not a readable XLSX"),
    ("broken.pptx", b"nonsense", "not a readable PPTX"),
    ("broken.json", b'{"a": ', "invalid JSON at line 1"),
    ("broken.png", b"\x89PNG\r\n\x1a\nxx", "not a readable image"),
    ("thing.xyz", b"abc", "unsupported file type '.xyz'"),
])
def test_bad_files_give_one_line_naming_the_file(tmp_path: Path, name: str, data: bytes, problem: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(BadFileError) as info:
        read_document(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and problem in message and "\n" not in message


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(BadFileError, match=r"nothere\.pdf: no such file"):
        read_document(tmp_path / "nothere.pdf")
    with pytest.raises(BadFileError, match="not a file"):
        read_document(tmp_path)


def test_xlsx_written_with_zip_but_no_workbook(tmp_path: Path) -> None:
    path = tmp_path / "empty.xlsx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("hello.txt", "hi")
    with pytest.raises(BadFileError, match="not a readable XLSX"):
        read_document(path)
    ok = write_xlsx(tmp_path / "ok.xlsx", {"S": [["x"]]})
    assert read_document(ok).sections[0].table == [["x"]]


def test_read_document_tool_pages_and_errors(files: dict[str, Path], tmp_path: Path) -> None:
    from paperworks.core.artifacts import ArtifactStore
    from paperworks.models.types import ToolCall
    from paperworks.tools.documents import tools as doc_tools
    from paperworks.tools.documents.inputs import allow_input_dir
    from paperworks.tools.registry import ToolContext, execute_call

    tools = {"read_document": doc_tools.read_document}
    ctx = ToolContext(artifacts=ArtifactStore(tmp_path / "artifacts"))
    call = ToolCall("1", "read_document", {"path": str(files["pdf"]), "pages": "2"})
    obs, ok = asyncio.run(execute_call(call, tools, ctx))
    assert not ok and "outside the run's artifact folder" in obs
    allow_input_dir(files["pdf"].parent)
    obs, ok = asyncio.run(execute_call(call, tools, ctx))
    assert ok and "Fleury" in obs and "founded in 910" not in obs and "[page 2]" in obs
    obs, ok = asyncio.run(execute_call(ToolCall("2", "read_document", {"path": "chronicle.pdf", "pages": "x"}),
                                       tools, ctx))
    assert not ok and "pages 'x'" in obs


def test_hist_tools_register_with_schemas() -> None:
    from paperworks.tools.registry import TOOLS

    names = {"read_document", "ocr", "image_orientation", "identify_language", "translate_text",
             "archive_search", "archive_list", "describe_image"}
    assert names <= set(TOOLS)
    for name in names:
        fn = TOOLS[name].schema()["function"]
        assert fn["description"] and "ctx" not in fn["parameters"].get("properties", {})
    assert TOOLS["ocr"].schema()["function"]["parameters"]["required"] == ["path"]
