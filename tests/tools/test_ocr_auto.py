"""OCR with ``languages="auto"``: script from OSD (or, for a line or two, the most confident pack),
then the language of the first reading picks the pack for the second."""

from __future__ import annotations

import pytest

pytest.importorskip("pytesseract")
from paperworks.tools.ocr import ocr_image  # noqa: E402
from paperworks.tools.ocr.auto import _cjk_pack  # noqa: E402
from paperworks.tools.ocr.languages import installed_languages  # noqa: E402
from tests.fixtures.hist_render import SAMPLES, cer, render  # noqa: E402

CASES = [("eng", 1), ("deu", 1), ("fra", 3), ("lat", 3), ("rus", 3), ("grc", 3), ("ell", 3), ("heb", 3),
         ("ara", 1), ("chi_tra", 3), ("chi_sim", 3), ("jpn", 1)]
pytestmark = pytest.mark.skipif(not {lang for lang, _ in CASES} <= installed_languages(),
                                reason="tesseract language packs missing")


@pytest.mark.slow
@pytest.mark.parametrize(("lang", "lines"), CASES)
def test_auto_picks_the_language_pack(lang: str, lines: int) -> None:
    font, text = SAMPLES[lang]
    page_text = "\n".join([text] * lines)
    result = ocr_image(render(page_text, font, rtl=lang in ("heb", "ara")), "auto", psm=6)
    assert result.languages == lang, result.detected
    cjk = lang in ("chi_sim", "chi_tra", "jpn")
    assert cer(page_text, result.text, ignore_spaces=cjk) <= (0.1 if cjk else 0.02)


def test_auto_on_a_sideways_page() -> None:
    text = SAMPLES["deu"][1]
    page = render("\n".join([text] * 3), "serif", size=30).rotate(270, expand=True, fillcolor=255)
    result = ocr_image(page, "auto", psm=6)
    assert result.languages == "deu" and cer("\n".join([text] * 3), result.text) <= 0.02


def test_cjk_pack_choice() -> None:
    assert _cjk_pack("吾輩は猫である。名前はまだ無い。") == "jpn"
    assert _cjk_pack("學而時習之，不亦說乎") == "chi_tra"
    assert _cjk_pack("学而时习之，不亦说乎") == "chi_sim"
