"""Attachments other than page scans: PDFs (fpdf2), an XLSX workbook (openpyxl), a CSV crew list, a
DOCX inventory (python-docx) and a JPEG photograph with EXIF metadata (Pillow).

Office files are ZIP archives whose entries carry the time of writing; ``normalize_zip`` rewrites
them with a fixed timestamp, and every document property is set to a fixed date, so the bytes repeat.
"""

from __future__ import annotations

import csv
import io
import random
import re
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from hist_offline.model import CC0, Doc
from hist_offline.render import font_path

FIXED = datetime(2026, 1, 1, tzinfo=UTC)
MONATE = ["Jänner", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "October",
          "November", "December"]


def normalize_zip(path: Path) -> None:
    """Rewrite a ZIP (XLSX/DOCX) in entry order with fixed timestamps, permissions and document dates."""
    with zipfile.ZipFile(path) as src:
        items = [(info.filename, src.read(info.filename)) for info in src.infolist()]
    stamp = FIXED.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    items = [(name, re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)", rb"\g<1>" + stamp + rb"\g<2>",
                           data) if name == "docProps/core.xml" else data) for name, data in items]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as dst:
        for name, data in items:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            dst.writestr(info, data)
    path.write_bytes(buf.getvalue())


def _pdf(title: str) -> Any:
    from fpdf import FPDF

    class _Paged(FPDF):
        def footer(self) -> None:
            self.set_y(-15)
            self.set_font("DejaVu", size=9)
            self.cell(0, 10, f"Page {self.page_no()}", align="C")

    pdf = _Paged(format="A4")
    pdf.set_creation_date(FIXED)
    pdf.set_title(title)
    pdf.set_author("paperworks hist_offline generator")
    pdf.set_producer("fpdf2")
    pdf.add_font("DejaVu", fname=str(font_path("serif")))
    pdf.add_font("DejaVu", style="B", fname=str(font_path("serif_bold")))
    pdf.set_auto_page_break(auto=False)
    return pdf


EXTRA_VESSELS = ["Amelia", "Brothers' Adventure", "Concord", "Duke of Clarence", "Elizabeth and Ann", "Fame",
                 "Gleaner", "Harmony", "Isis", "Jubilee", "Kitty", "Lark", "Minerva", "Nautilus", "Olive Branch",
                 "Pomona", "Queen Charlotte", "Recovery", "Sisters", "Triton", "Venus", "William and Mary",
                 "Zephyr", "Alert", "Brilliant", "Comet", "Delight", "Eagle", "Flora", "Gannet"]


SHORT_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def harbour_register(out: Path, rng: random.Random, vessels: list[str]) -> Doc:
    """A 4-page PDF: Register of Vessels Entered Inwards, Port of Aldwen, 1824 (12 rows a page)."""
    from hist_offline.archive import CARGOES, EN_FIRST, EN_LAST, PORTS, RIGS

    names = rng.sample(vessels + EXTRA_VESSELS, 48)
    days = sorted(rng.sample(range(336), 48))
    rows = []
    for name, k in zip(names, days, strict=True):
        rows.append([f"{k % 28 + 1} {SHORT_MONTHS[k // 28]}",
                     name, rng.choice(RIGS), f"{rng.choice(EN_FIRST[:10])} {rng.choice(EN_LAST)}",
                     rng.choice(PORTS), str(rng.randint(30, 260)), rng.choice(CARGOES).split(" of ")[-1]])
    title = "Register of Vessels Entered Inwards, Port of Aldwen, 1824"
    pdf = _pdf(title)
    widths = [18, 42, 20, 36, 22, 12, 30]
    pages: list[list[str]] = []
    for p in range(4):
        pdf.add_page()
        pdf.set_font("DejaVu", style="B", size=13)
        pdf.cell(0, 10, title, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("DejaVu", size=9)
        pdf.cell(0, 6, "Transcribed from the collector's book of the customs house (invented for paperworks).",
                 new_x="LMARGIN", new_y="NEXT")
        head = ["Date", "Vessel", "Rig", "Master", "From", "Tons", "Cargo"]
        lines = [title, " | ".join(head)]
        for row in [head, *rows[12 * p: 12 * p + 12]]:
            for w, cell in zip(widths, row, strict=True):
                pdf.cell(w, 7, cell, border=1)
            pdf.ln(7)
        lines += [" | ".join(r) for r in rows[12 * p: 12 * p + 12]]
        lines.append(f"Page {p + 1}")
        pages.append(lines)
    path = "attachments/pdf/aldwen_register_1824.pdf"
    pdf.output(str(out / path))
    return Doc(path, title, "en", "Latin", "register (PDF)", pages, "written for paperworks (invented register)",
               CC0, facts={"rows": rows})


CHRONICLE = [
    ["Chronik der Stadt Hohenwalde, aufgezeichnet von dem Stadtschreiber Matthias Eder",
     "1729. In diesem Jahr wurde der neue Brunnen auf dem Marckt gesetzt; die Röhren kosteten 84 Gulden.",
     "1731. Am Tag Mariä Himmelfahrt brannte die Spitalkirche bis auf die Mauern ab.",
     "1734. Der Rath ließ die Stadtmauer beim Unteren Thor ausbessern.",
     "1738. Es starb der alte Bürgermeister Lorenz Haas; an seine Stelle wurde Johann Caspar Riedl gewählt."],
    ["1740. Ein sehr kalter Winter; die Mur war vom Advent bis Lichtmess zugefroren.",
     "1743. Wegen Missernte stieg das Korn so hoch, dass der Rath im Herbst eine Brodtordnung ausgehen ließ.",
     "Die Brodtordnung sollte gelten, bis der Roggen wieder unter 40 Kreuzer das Metzen gelte;",
     "sobald dies auf dem Wochenmarckt befunden wurde, hob sie der Rath auf und ließ es ausrufen."],
    ["1747. Die neue Spitalkirche wurde von dem Herrn Dechant geweiht.",
     "1751. Es starb der Bürgermeister Johann Caspar Riedl im 64. Jahr seines Alters.",
     "Anmerkung des Herausgebers: Die Jahreszahlen folgen der Handschrift."],
]


def chronicle(out: Path) -> Doc:
    """A 3-page German PDF (Latin type): excerpts of the Hohenwalde town chronicle."""
    title = CHRONICLE[0][0]
    pdf = _pdf(title)
    for p, lines in enumerate(CHRONICLE):
        pdf.add_page()
        for i, line in enumerate(lines):
            bold = p == 0 and i == 0
            pdf.set_font("DejaVu", style="B" if bold else "", size=13 if bold else 11)
            pdf.multi_cell(0, 7, line, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
    path = "attachments/pdf/hohenwalde_chronik.pdf"
    pdf.output(str(out / path))
    pages = [[*lines, f"Page {p + 1}"] for p, lines in enumerate(CHRONICLE)]
    return Doc(path, title, "de", "Latin", "chronicle (PDF)", pages, "written for paperworks (invented chronicle)")


def grain_prices(out: Path, rng: random.Random) -> Doc:
    """XLSX: monthly market prices (Kreuzer per Metzen) at Hohenwalde, 1740-1745, one sheet per grain.

    Rye rises from mid-1743, stays at 40 or above from the decree (October 1743) to February 1744 and
    first falls below 40 in March 1744 -- the month the chronicle's rule lifts the bread ordinance."""
    from openpyxl import Workbook

    years = list(range(1740, 1746))
    rye: dict[int, list[int]] = {}
    for y in years:
        rye[y] = [rng.randint(26, 34) for _ in range(12)]
    rye[1743] = [rng.randint(30, 35) for _ in range(5)] + [38, 41, 44, 47, 52, 55, 53]
    rye[1744] = [50, 46, 38, 36, 35] + [rng.randint(28, 34) for _ in range(7)]
    wheat = {y: [rng.randint(40, 52) + (8 if y == 1743 else 0) for _ in range(12)] for y in years}
    oats = {y: [rng.randint(14, 22) for _ in range(12)] for y in years}
    wb = Workbook()
    wb.properties.creator = "paperworks"
    wb.properties.created = wb.properties.modified = FIXED.replace(tzinfo=None)
    sheets = {"Roggen": rye, "Weizen": wheat, "Hafer": oats}
    pages: list[list[str]] = []
    for i, (name, table) in enumerate(sheets.items()):
        ws = wb.active if i == 0 else wb.create_sheet()
        assert ws is not None
        ws.title = name
        ws.append(["Jahr", *MONATE])
        lines = [f"{name}: Jahr | " + " | ".join(MONATE)]
        for y in years:
            ws.append([y, *table[y]])
            lines.append(f"{name} {y}: " + " | ".join(str(v) for v in table[y]))
        pages.append(lines)
    path = "attachments/tables/hohenwalde_kornpreise_1740_1745.xlsx"
    wb.save(str(out / path))
    normalize_zip(out / path)
    return Doc(path, "Kornpreise auf dem Wochenmarckt zu Hohenwalde 1740-1745 (Kreuzer das Metzen)", "de", "Latin",
               "price table (XLSX)", pages, "written for paperworks (invented price series)", CC0,
               facts={"Roggen": rye, "Weizen": wheat, "Hafer": oats})


CREW = [("John Pascoe", "mate", 41, "Falmouth", 50), ("Henry Rowe", "second mate", 29, "Flushing", 42),
        ("William Ashe", "cook", 34, "Penryn", 30), ("Richard Vosper", "carpenter", 46, "Mylor", 45),
        ("Samuel Kitto", "seaman", 23, "Falmouth", 28), ("Peter Nance", "seaman", 31, "St Mawes", 28),
        ("James Trounson", "seaman", 19, "Penzance", 28), ("Nicholas Jago", "seaman", 27, "Falmouth", 28),
        ("Thomas Curnow", "ordinary seaman", 18, "Helston", 22), ("Joseph Angwin", "ordinary seaman", 17, "Mylor", 22),
        ("Francis Lanyon", "boy", 14, "Falmouth", 10)]


def crew_list(out: Path) -> Doc:
    """CSV: the crew of the brig Amity of Falmouth, 1787 (eleven men besides the master)."""
    path = "attachments/tables/amity_crew_1787.csv"
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    head = ["name", "quality", "age", "born_at", "wages_per_month_shillings"]
    writer.writerow(head)
    writer.writerows(CREW)
    (out / path).write_text(buf.getvalue(), encoding="utf-8")
    lines = buf.getvalue().splitlines()
    return Doc(path, "Crew list of the brig Amity of Falmouth, Josiah Marrable master, 1787", "en", "Latin",
               "crew list (CSV)", [lines], "written for paperworks (invented muster roll)")


INVENTORY = [("the dwelling house", "A mahogany bureau", 3, 10, 0),
             ("the dwelling house", "Six rush-bottomed chairs", 0, 18, 0),
             ("the dwelling house", "A clock by Veale of Truro", 4, 4, 0),
             ("the dwelling house", "Bed and bedding", 2, 15, 0),
             ("the warehouse on Fish Street", "Forty empty herring barrels", 2, 0, 0),
             ("the warehouse on Fish Street", "Salt, six bushels", 1, 4, 0),
             ("the warehouse on Fish Street", "A pair of scales and weights", 1, 16, 0),
             ("the warehouse on Fish Street", "Nets and cordage", 3, 5, 0)]


def inventory(out: Path) -> Doc:
    """DOCX: the probate inventory of Thomas Corran, merchant of Port Aldwen, 1791."""
    import docx

    d = docx.Document()
    props = d.core_properties
    props.author, props.title = "paperworks", "Inventory of Thomas Corran, 1791"
    props.created = props.modified = FIXED.replace(tzinfo=None)
    props.last_modified_by, props.revision = "paperworks", 1
    title = "A true Inventory of the goods of Thomas Corran, late of Port Aldwen, merchant, deceased"
    paras = [title, "Taken the 2nd day of May 1791 and appraised by Richard Kitto and Samuel Nance.",
             "Sums in pounds, shillings and pence."]
    for i, text in enumerate(paras):
        d.add_heading(text, level=1) if i == 0 else d.add_paragraph(text)
    table = d.add_table(rows=1, cols=5)
    for cell, text in zip(table.rows[0].cells, ["Where", "Item", "£", "s", "d"], strict=True):
        cell.text = text
    lines = [*paras, "Where | Item | £ | s | d"]
    for row in INVENTORY:
        cells = table.add_row().cells
        for cell, value in zip(cells, row, strict=True):
            cell.text = str(value)
        lines.append(" | ".join(str(v) for v in row))
    path = "attachments/docs/corran_inventory_1791.docx"
    d.save(str(out / path))
    normalize_zip(out / path)
    return Doc(path, title, "en", "Latin", "inventory (DOCX)", [lines], "written for paperworks (invented inventory)")


STONE = ["IN MEMORY OF", "MARY ANN TREGOTHNAN", "WIFE OF EBEN TREGOTHNAN", "PILOT OF THIS PORT",
         "WHO DIED 9 NOV 1794", "AGED 51 YEARS"]
EXIF = {0x010E: "Churchyard of St Kea, Port Aldwen, headstone no. 112", 0x013B: "R. Penhale",
        0x8298: "Aldwen Local History Society, CC0", 0x010F: "Olympus", 0x0110: "OM-2",
        0x0132: "1998:06:21 14:32:10"}


def gravestone(out: Path, seed: int) -> Doc:
    """JPEG: a photograph-like render of a weathered headstone, with EXIF (artist, date, description)."""
    from PIL import ImageFont

    rng = np.random.default_rng(seed)
    w, h = 760, 860
    img = Image.new("L", (w, h), 30)
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle((50, 60, w - 50, h - 40), radius=160, fill=185)
    font = ImageFont.truetype(str(font_path("serif")), 30)
    y = 230
    for line in STONE:
        draw.text((w // 2, y), line, font=font, fill=45, anchor="ma")
        y += 62
    arr = np.asarray(img.filter(ImageFilter.GaussianBlur(1.2)), dtype=np.float32)
    arr = arr + rng.normal(0, 10, arr.shape) + 15 * np.sin(np.arange(h)[:, None] / 37.0)
    grey = np.clip(arr, 0, 255).astype(np.uint8)
    rgb = Image.merge("RGB", [Image.fromarray(grey), Image.fromarray(np.clip(grey * 0.97, 0, 255).astype(np.uint8)),
                              Image.fromarray(np.clip(grey * 0.9, 0, 255).astype(np.uint8))])
    rgb = rgb.rotate(-2.0, resample=Image.Resampling.BICUBIC, fillcolor=(40, 50, 35))
    exif = Image.Exif()
    for tag, value in EXIF.items():
        exif[tag] = value
    exif.get_ifd(0x8769)[0x9003] = "1998:06:21 14:32:10"
    path = "attachments/images/stkea_headstone_112.jpg"
    rgb.save(out / path, "JPEG", quality=80, exif=exif.tobytes())
    (out / "groundtruth" / "stkea_headstone_112.txt").write_text("\n".join(STONE) + "\n", encoding="utf-8")
    return Doc(path, "Photograph of a headstone in St Kea churchyard", "en", "Latin", "photograph (JPEG)",
               [STONE + [f"EXIF {k}: {v}" for k, v in [("ImageDescription", EXIF[0x010E]), ("Artist", EXIF[0x013B]),
                                                       ("DateTimeOriginal", "1998:06:21 14:32:10")]]],
               "written for paperworks (rendered photograph)")
