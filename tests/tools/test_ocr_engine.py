"""``ocr_image``, the OCR entry point: ``"auto"`` goes to ``ocr.auto``, known languages straight to
tesseract (``ocr.tesseract``), with every setting passed on. No tesseract needed."""

from __future__ import annotations

from typing import Any

import pytest

from paperworks.tools.ocr import engine


def test_auto_chooses_the_languages_and_the_rest_reads_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(engine, "ocr_auto", lambda *a: calls.append(("auto", *a)) or "chosen")
    monkeypatch.setattr(engine, "read_image", lambda *a: calls.append(("read", *a)) or "read")
    assert engine.ocr_image("page.png", "auto", psm=6, auto_rotate=True) == "chosen"
    assert engine.ocr_image("page.png", "deu+lat", psm=7, timeout_s=5, auto_rotate=True) == "read"
    assert engine.ocr_image("page.png") == "read"
    assert calls == [("auto", "page.png", None, 6), ("read", "page.png", "deu+lat", None, 7, 5, True),
                     ("read", "page.png", None, None, 3, 120, False)]


def test_the_tesseract_names_stay_importable_from_engine() -> None:
    from paperworks.tools.ocr import tesseract

    for name in ("OcrResult", "Orientation", "Word", "detect_orientation", "join_words", "load_image"):
        assert getattr(engine, name) is getattr(tesseract, name)
