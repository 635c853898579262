"""Level-3 questions: each chains at least three tools across a scan or file and the archive or a table."""

from __future__ import annotations

from datetime import date

from hist_offline.files import INVENTORY as INVENTORY_ROWS
from hist_offline.model import Doc, Question
from hist_offline.questions import CHRONICLE, CREW, INVENTORY, PHOTO, PRICES, SCAN


def chain_questions(docs: dict[str, Doc], fam: dict[str, list[Doc]]) -> list[Question]:
    """The level-3 questions, answers computed from the generated facts."""
    letter, decree = docs[SCAN.format("eng_letter_1787")], docs[SCAN.format("deu_fraktur_1743")]
    receipt, gaz = docs[SCAN.format("rus_receipt_1859")], docs[SCAN.format("zho_gazetteer")]
    ledger, deed = docs[SCAN.format("ita_ledger_1702")], docs[SCAN.format("ara_contract_1248ah")]
    photo, prices, chron = docs[PHOTO], docs[PRICES], docs[CHRONICLE]
    crew, inv = docs[CREW], docs[INVENTORY]
    burial = next(d for d in fam["burials"] if d.facts["year"] == 1801 and d.facts["month"] == 1)
    landing = next(d for d in fam["riga"] if "riga_landing_1859_06" in d.path)
    granary = next(d for d in fam["granary"] if d.facts["year"] == 1807)
    rye = prices.facts["Roggen"]
    lifted = next(f"{m} {y}" for y, start in [(1743, 9), (1744, 0), (1745, 0)] for i, m in
                  enumerate(["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]) if i >= start and rye[y][i] < 40)
    warehouse = sum(p * 20 + s for where, _, p, s, _d in INVENTORY_ROWS if "warehouse" in where)
    youngest = min(int(line.split(",")[2]) for line in crew.pages[0][1:])
    bdx = next(d for d in fam["letters"] if d.facts["n"] % 4 == 0)
    freight = bdx.facts["n"] // 4 * bdx.facts["freight"]
    q = [
        Question("chain-01", "The pilot named in the attached ship master's letter was later buried at St Kea, Port "
                 "Aldwen. Using the burial register in the archive, in what year was he born (burial year minus his "
                 "age at burial)?", 1801 - 63, "numeric", 3, ["ocr", "archive_search", "calculate"], [letter.path],
                 [letter.locate("The pilot Eben Tregothnan"), burial.locate("Eben Tregothnan, pilot")]),
        Question("chain-02", "The headstone in the attached photograph names the woman's husband. Using the archive's "
                 "burial registers, how many years after her death was he buried (difference of the years)?",
                 1801 - 1794, "numeric", 3, ["ocr", "archive_search", "calculate"], [photo.path],
                 [photo.locate("WIFE OF EBEN TREGOTHNAN"), photo.locate("WHO DIED 9 NOV 1794"),
                  burial.locate("Eben Tregothnan, pilot")]),
        Question("chain-03", "The attached Russian receipt names the barge the hemp was loaded on and its owner. "
                 "Using the Riga landing ledgers in the archive, how many days after the receipt was written did "
                 "that barge arrive at Riga?", (date(1859, 6, 2) - date(1859, 5, 6)).days, "numeric", 3,
                 ["ocr", "translate", "archive_search", "calculate"], [receipt.path],
                 [receipt.locate("Мая 6 дня 1859 года"), receipt.locate("барку № 17"),
                  landing.locate("barge No. 17 of the shipowner Ivan Dremov")]),
        Question("chain-04", "The attached gazetteer page records a grain relief after the flood of the twelfth year "
                 "of Jiaqing (1807). Using the granary report for that year in the archive, how many shi were left "
                 "of the stock at the start of the year after that relief (ignore the autumn purchases)?",
                 granary.facts["stock"] - 2400, "numeric", 3, ["ocr", "translate", "archive_search", "calculate"],
                 [gaz.path], [gaz.locate("發穀二千四百石"), granary.locate("Stock at the start of the year")]),
        Question("chain-05", "The attached decree is dated. Using the attached price table, what was the market price "
                 "of rye, in Kreuzer per Metzen, in the month and year of the decree?", rye[1743][9], "numeric", 3,
                 ["ocr", "translate", "read_file"], [decree.path, prices.path],
                 [decree.locate("den 12. October 1743"), prices.locate("Roggen 1743: ")]),
        Question("chain-06", "The attached chronicle says until when the bread ordinance of the attached decree was to "
                 "hold. Using the attached price table, in which month and year was it lifted? Answer as "
                 "'Month YYYY' in English.", lifted, "exact", 3, ["ocr", "translate", "read_file"],
                 [decree.path, chron.path, prices.path],
                 [decree.locate("den 12. October 1743"), chron.locate("unter 40 Kreuzer das Metzen"),
                  prices.locate("Roggen 1744: ")]),
        Question("chain-07", "The attached letter names the cook who lay ashore with a fever. Using the attached crew "
                 "list, how many years older was he than the youngest member of the crew?",
                 34 - youngest, "numeric", 3, ["ocr", "read_file", "calculate"], [letter.path, crew.path],
                 [letter.locate("the cook, William Ashe"), crew.locate("William Ashe,cook,34")]),
        Question("chain-08", "The attached letter says in whose warehouse the herring was lodged. Using the attached "
                 "inventory of that merchant's goods, what was the total appraised value, in shillings, of the items "
                 "in that warehouse?", warehouse, "numeric", 3, ["ocr", "read_file", "calculate"],
                 [letter.path, inv.path],
                 [letter.locate("warehouse of Mr. Corran on Fish Street"),
                  inv.locate("the warehouse on Fish Street | Forty empty herring barrels")]),
        Question("chain-09", "Using the attached Italian account book page, what was the merchant's net balance for "
                 "March (receipts minus payments), in lire? Twenty soldi make one lira; give a decimal number.",
                 270 - 54.5, "numeric", 3, ["ocr", "translate", "calculate"], [ledger.path],
                 [ledger.locate("Somma delle entrate lire 270")]),
        Question("chain-10", "Using the attached Arabic deed, what was the price of one bolt of cloth, in qirsh?",
                 3600 // 120, "numeric", 3, ["ocr", "translate", "calculate"], [deed.path],
                 [deed.locate("مئة وعشرين ثوبا"), deed.locate("ثلاثة آلاف وستمائة قرش")]),
        Question("chain-11", f"Search the archive for the letter of the Bordeaux broker {bdx.facts['sender']} dated "
                 f"{bdx.facts['date']}. Counting four barriques to the tonneau, what was the whole freight of that "
                 "shipment, in livres?", freight, "numeric", 3, ["archive_search", "translate", "calculate"], [],
                 [bdx.locate(f"{bdx.facts['n']} barriques"), bdx.locate("livres le tonneau")]),
        Question("chain-12", "Reconstruct what the sources say about the pilot Eben Tregothnan: use the attached "
                 "letter, the attached photograph and the archive, and give each fact with its year.",
                 "In March 1787 he was the pilot who brought the brig Amity of Falmouth over the bar at Port Aldwen "
                 "(paid two guineas); his wife Mary Ann died on 9 November 1794 aged 51; he was buried at St Kea on "
                 "3 February 1801 aged 63, so born about 1738.", "open", 3,
                 ["ocr", "image_info", "archive_search", "calculate"], [letter.path, photo.path],
                 [letter.locate("two guineas"), photo.locate("MARY ANN TREGOTHNAN"),
                  burial.locate("Eben Tregothnan, pilot")]),
        Question("chain-13", "How many years after the death of the woman commemorated on the headstone was the "
                 "attached photograph taken, according to its embedded metadata (difference of the years)?",
                 1998 - 1794, "numeric", 3, ["ocr", "image_info", "calculate"], [photo.path],
                 [photo.locate("WHO DIED 9 NOV 1794"), photo.locate("DateTimeOriginal: 1998")]),
        Question("chain-14", "According to the attached Spanish manifest, how many of the crew were neither grumetes "
                 "nor pajes?", 42 - 8 - 4, "numeric", 3, ["ocr", "translate", "calculate"],
                 [docs[SCAN.format("spa_manifest_1781")].path],
                 [docs[SCAN.format("spa_manifest_1781")].locate("cuarenta y dos hombres"),
                  docs[SCAN.format("spa_manifest_1781")].locate("ocho grumetes y cuatro pajes")]),
        Question("chain-15", "By how many Kreuzer per Metzen had the price of rye risen between June 1743 and the "
                 "month of the attached decree, according to the attached price table?", rye[1743][9] - rye[1743][5],
                 "numeric", 3, ["ocr", "translate", "read_file", "calculate"], [decree.path, prices.path],
                 [decree.locate("den 12. October 1743"), prices.locate("Roggen 1743: ")]),
        Question("chain-16", "According to the attached Greek inventory, what was the combined weight, in drachmas, of "
                 "the silver phialai and the golden crown?", 1200 + 120, "numeric", 3,
                 ["ocr", "translate", "calculate"],
                 [docs[SCAN.format("grc_inventory")].path],
                 [docs[SCAN.format("grc_inventory")].locate("δραχμαὶ χίλιαι διακόσιαι"),
                  docs[SCAN.format("grc_inventory")].locate("δραχμαὶ ἑκατὸν εἴκοσι")]),
        Question("chain-17", "Using the attached decree, the attached chronicle and the attached price table, explain "
                 "when and why the bread ordinance came to an end.",
                 f"The chronicle says the ordinance was to hold until rye again cost less than 40 Kreuzer the Metzen. "
                 f"The table shows rye at {rye[1743][9]} in October 1743, when the decree was issued, staying at 40 or "
                 f"more until February 1744 ({rye[1744][1]}), and first falling below 40 in {lifted} "
                 f"({rye[1744][2]}), so the council lifted it then.", "open", 3, ["ocr", "translate", "read_file"],
                 [decree.path, chron.path, prices.path],
                 [decree.locate("den 12. October 1743"), chron.locate("unter 40 Kreuzer das Metzen"),
                  prices.locate("Roggen 1743: "), prices.locate("Roggen 1744: ")]),
    ]
    assert lifted == "March 1744" and all(v >= 40 for v in rye[1743][9:] + rye[1744][:2])
    return q
