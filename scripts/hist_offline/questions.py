"""The questions: hand-written ones over the scans and files, templated ones over the archive, and
level-3 chains. Every answer is either written beside the text it comes from or computed from the
generated facts, and every evidence item is located in its document (a missing needle is an error).

Tool names: ocr, translate, archive_search, read_file, image_info, calculate.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from hist_offline.archive import MONTHS
from hist_offline.model import Doc, Question

SCAN = "attachments/scans/{}.png"
PHOTO = "attachments/images/stkea_headstone_112.jpg"
REGISTER = "attachments/pdf/aldwen_register_1824.pdf"
CHRONICLE = "attachments/pdf/hohenwalde_chronik.pdf"
PRICES = "attachments/tables/hohenwalde_kornpreise_1740_1745.xlsx"
CREW = "attachments/tables/amity_crew_1787.csv"
INVENTORY = "attachments/docs/corran_inventory_1791.docx"


def _mc(options: list[str]) -> str:
    return " Options: " + "; ".join(f"{chr(65 + i)}) {o}" for i, o in enumerate(options)) + \
        ". Answer with the letter."


# (stem, level, answer_type, tools, question, answer, needles[, options])
SCAN_QUESTIONS: list[tuple[Any, ...]] = [
    ("eng_letter_1787", 1, "numeric", ["ocr"], "According to the ship master's letter in the attached scan, how many "
     "barrels of herring were found leaking?", 46, ["forty-six were found leaking"]),
    ("eng_letter_1787", 2, "numeric", ["ocr", "calculate"], "According to the attached letter, how many sound "
     "barrels of herring were lodged in the warehouse (barrels landed minus those found leaking)?", 266,
     ["three hundred and twelve barrels", "forty-six were found leaking"]),
    ("eng_letter_1787", 1, "exact", ["ocr"], "In the attached letter, who was the pilot who brought the brig over "
     "the bar?", "Eben Tregothnan", ["The pilot Eben Tregothnan"]),
    ("eng_letter_1787", 1, "numeric", ["ocr"], "According to the attached letter, how many days did the brig's "
     "passage from Bergen take?", 19, ["nineteen days from Bergen"]),
    ("eng_letter_1787", 2, "open", ["ocr"], "In the attached letter, what does the master advise about the herring "
     "not yet sold, and why?", "He is advised to hold the remaining herring until Lady Day, because the Lenten "
     "demand is expected to raise the price (it then stood at nineteen shillings the barrel).",
     ["hold the remainder until Lady Day", "Lenten demand"]),
    ("lat_register_1612", 2, "numeric", ["ocr", "translate"], "The attached scan is a page of a Latin baptism "
     "register. How many children were baptised in April 1612 according to it (count twins as two)?", 5,
     ["Die 3 Aprilis", "Die 9 Aprilis", "gemelli Joannes et Paulus", "Die 28 Aprilis"]),
    ("lat_register_1612", 2, "exact", ["ocr", "translate"], "In the attached baptism register, who was the "
     "godfather of Michael, son of Leonhard Strobl? Give the name as written.", "Casparus Widmann",
     ["Patrinus fuit Casparus Widmann"]),
    ("lat_register_1612", 2, "multiple_choice", ["ocr", "translate"], "In the attached baptism register, what was "
     "the trade of Joannes Kelner, father of Agnes?", "B", ["Kelner fabri ferrarii"],
     ["miller", "blacksmith", "shoemaker", "weaver"]),
    ("lat_register_1612", 2, "exact", ["ocr"], "Which godmother appears twice on the attached register page? Give "
     "the name as written.", "Ursula Hainin", ["Ursula Hainin"]),
    ("deu_fraktur_1743", 2, "numeric", ["ocr", "translate"], "The attached scan is a decree printed in Fraktur. "
     "What is the highest price, in Kreuzer, allowed for a six-pound loaf of rye bread?", 7,
     ["sechs Pfund nicht theurer als um sieben Kreuzer"]),
    ("deu_fraktur_1743", 2, "numeric", ["ocr", "translate"], "According to the attached decree, how many Gulden "
     "is the fine for a second offence?", 6, ["das andere Mal um sechs Gulden"]),
    ("deu_fraktur_1743", 2, "multiple_choice", ["ocr", "translate"], "According to the attached decree, on which "
     "days must the bakers offer their bread at the market?", "B", ["alle Mittwoch und Sonnabend"],
     ["Monday and Thursday", "Wednesday and Saturday", "Tuesday and Friday", "every day except Sunday"]),
    ("deu_fraktur_1743", 2, "open", ["ocr", "translate"], "Summarise what the attached decree orders and what "
     "happens to those who break it.", "A six-pound rye loaf may cost at most seven Kreuzer and a one-pound white "
     "loaf at most three Kreuzer; bakers must sell at the market before the town hall every Wednesday and "
     "Saturday; offenders are fined three Gulden the first time and six the second, and their bread is given to "
     "the poor in the hospital.", ["sieben Kreuzer", "drey Kreuzer", "Mittwoch und Sonnabend", "den Armen im Spital"]),
    ("fra_notaire_1768", 2, "numeric", ["ocr", "translate"], "According to the attached French notarial deed, "
     "what was the sale price of the vineyard, in livres tournois?", 1450,
     ["mille quatre cent cinquante livres tournois"]),
    ("fra_notaire_1768", 2, "numeric", ["ocr", "translate", "calculate"], "According to the attached deed, how many "
     "livres remained to be paid at the next feast of Saint Martin?", 650,
     ["mille quatre cent cinquante livres tournois", "dont huit cents livres"]),
    ("fra_notaire_1768", 1, "exact", ["ocr"], "What is the name of the vineyard sold in the attached deed?",
     "Clos-Berthaud", ["le Clos-Berthaud"]),
    ("fra_notaire_1768", 2, "exact", ["ocr", "translate"], "Which of the witnesses of the attached deed was a "
     "blacksmith (farrier)?", "Jean Bories", ["Jean Bories, maréchal"]),
    ("grc_inventory", 2, "numeric", ["ocr", "translate"], "The attached scan is a Greek temple inventory. How many "
     "silver phialai does it list?", 12, ["φιάλαι ἀργυραῖ δώδεκα"]),
    ("grc_inventory", 2, "numeric", ["ocr", "translate"], "According to the attached Greek inventory, what was the "
     "weight of the golden crown, in drachmas?", 120, ["δραχμαὶ ἑκατὸν εἴκοσι"]),
    ("grc_inventory", 2, "multiple_choice", ["ocr", "translate"], "According to the attached Greek inventory, who "
     "dedicated the golden crown?", "B", ["ἀνέθηκε Μενεκράτης Σωσιβίου"],
     ["Kallistratos son of Nikias", "Menekrates son of Sosibios", "Hegesippos son of Theon", "Lysikles son of Dion"]),
    ("rus_receipt_1859", 2, "numeric", ["ocr", "translate"], "According to the attached Russian receipt, how many "
     "poods of hemp were sold?", 140, ["сто сорокъ пудовъ пеньки"]),
    ("rus_receipt_1859", 2, "numeric", ["ocr", "translate"], "According to the attached Russian receipt, what was "
     "the total paid, in roubles?", 448, ["четыреста сорокъ восемь рублей"]),
    ("rus_receipt_1859", 2, "numeric", ["ocr", "translate"], "According to the attached Russian receipt, what was "
     "the number of the barge the hemp was loaded on?", 17, ["барку № 17"]),
    ("ara_contract_1248ah", 2, "numeric", ["ocr", "translate"], "According to the attached Arabic deed, how many "
     "bolts (thawb) of cotton cloth were bought?", 120, ["مئة وعشرين ثوبا"]),
    ("ara_contract_1248ah", 2, "numeric", ["ocr", "translate", "calculate"], "According to the attached Arabic deed, "
     "how many qirsh remained to be paid when the caravan arrived?", 1600,
     ["ثلاثة آلاف وستمائة قرش", "ألفي قرش نقدا"]),
    ("ara_contract_1248ah", 2, "multiple_choice", ["ocr", "translate"], "According to the attached Arabic deed, "
     "from which town was the caravan expected?", "C", ["وصول القافلة من حماة"],
     ["Damascus", "Aleppo", "Hama", "Homs"]),
    ("ara_contract_1248ah", 2, "open", ["ocr", "translate"], "Explain the payment terms of the sale in the attached "
     "Arabic deed.", "The price was 3,600 qirsh for 120 bolts of white cotton; 2,000 qirsh were paid in cash and the "
     "remaining 1,600 were to be paid when the caravan arrived from Hama.",
     ["ثلاثة آلاف وستمائة قرش", "ألفي قرش نقدا", "وصول القافلة من حماة"]),
    ("heb_pinkas_1795", 2, "numeric", ["ocr", "translate"], "According to the attached Hebrew minute book page, how "
     "many zehuvim did Shmuel son of Avraham give to the society's fund?", 18, ["שמונה עשר זהובים"]),
    ("heb_pinkas_1795", 2, "numeric", ["ocr", "translate"], "According to the attached Hebrew minute book page, how "
     "many zehuvim must each member give every year?", 3, ["שלושה זהובים"]),
    ("heb_pinkas_1795", 2, "multiple_choice", ["ocr", "translate"], "According to the attached Hebrew minute book "
     "page, who was chosen as treasurer of the fund?", "C", ["ולנאמן הקופה ר׳ יוסף בן מאיר"],
     ["Moshe son of Yaakov", "Zalman son of David", "Yosef son of Meir", "Aharon son of Zvi"]),
    ("zho_gazetteer", 2, "numeric", ["ocr", "translate"], "According to the attached page of a county gazetteer, how "
     "many qing of fields were ruined by the flood of the twelfth year of Jiaqing?", 340, ["壞民田三百四十頃"]),
    ("zho_gazetteer", 2, "numeric", ["ocr", "translate"], "According to the attached gazetteer page, how many shi of "
     "grain did the magistrate distribute in relief after that flood?", 2400, ["發穀二千四百石"]),
    ("zho_gazetteer", 2, "exact", ["ocr", "translate"], "According to the attached gazetteer page, which magistrate "
     "opened the ever-normal granary? Give his name in Chinese characters.", "林鶴年", ["知縣林鶴年開常平倉"]),
    ("zho_gazetteer", 2, "numeric", ["ocr", "translate"], "According to the attached gazetteer page, how many "
     "households were burned in the fire of the third year of Daoguang?", 120, ["延燒民居一百二十家"]),
    ("zho_gazetteer", 2, "open", ["ocr", "translate"], "According to the attached gazetteer page, what happened in "
     "the fourteenth year of Jiaqing?", "In the autumn locusts came from the north and ate almost all the crops; that "
     "year rice became dear, a dou of rice costing 300 cash.", ["蝗自北來", "斗米錢三百文"]),
    ("ita_ledger_1702", 2, "numeric", ["ocr", "translate"], "According to the attached Italian account book page, "
     "at how many lire a moggio was the salt sold?", 18, ["a lire 18 il"]),
    ("ita_ledger_1702", 2, "exact", ["ocr", "translate"], "According to the attached account book page, what was the "
     "name of the boatman paid for the transport to Padua?", "Toni Zennaro", ["barcaiolo Toni Zennaro"]),
    ("spa_manifest_1781", 1, "exact", ["ocr"], "According to the attached Spanish manifest, to which port was the "
     "frigate bound?", "Veracruz", ["con destino a Veracruz"]),
    ("spa_manifest_1781", 2, "numeric", ["ocr", "translate"], "According to the attached manifest, how many pipes "
     "of sherry wine did the frigate carry?", 180, ["ciento ochenta pipas de vino de Jerez"]),
    ("spa_manifest_1781", 2, "multiple_choice", ["ocr", "translate"], "According to the attached manifest, which "
     "passenger was a Franciscan friar?", "C", ["fray Tomás de"],
     ["Manuel Ibarra", "Francisco Xavier de Arrieta", "Tomás de Ulloa", "none of them"]),
    ("spa_manifest_1781", 2, "numeric", ["ocr", "translate"], "According to the attached manifest, how many "
     "grumetes (ship's boys) were among the crew?", 8, ["ocho grumetes"]),
]


def scan_questions(docs: dict[str, Doc]) -> list[Question]:
    """Questions answered from one page scan each."""
    out = []
    for i, (stem, level, kind, tools, text, answer, needles, *opts) in enumerate(SCAN_QUESTIONS, start=1):
        doc = docs[SCAN.format(stem)]
        choices = opts[0] if opts else None
        question = text + (_mc(choices) if choices else "")
        out.append(Question(f"scan-{i:02d}", question, answer, kind, level, tools, [doc.path],
                            [doc.locate(n) for n in needles], choices))
    return out


def file_questions(docs: dict[str, Doc], rng: random.Random) -> list[Question]:
    """Questions over the photograph, the PDFs, the tables and the inventory."""
    photo, reg, chron = docs[PHOTO], docs[REGISTER], docs[CHRONICLE]
    prices, crew, inv = docs[PRICES], docs[CREW], docs[INVENTORY]
    q: list[Question] = [
        Question("file-01", "According to the attached photograph's embedded metadata, who took it?", "R. Penhale",
                 "exact", 1, ["image_info"], [photo.path], [photo.locate("Artist: R. Penhale")]),
        Question("file-02", "According to the attached photograph's metadata description, what is the number of the "
                 "headstone?", 112, "numeric", 1, ["image_info"], [photo.path], [photo.locate("headstone no. 112")]),
        Question("file-03", "From the inscription on the headstone in the attached photograph, in what year was the "
                 "woman born (year of death minus her age)?", 1743, "numeric", 2, ["ocr", "calculate"], [photo.path],
                 [photo.locate("WHO DIED 9 NOV 1794"), photo.locate("AGED 51 YEARS")]),
    ]
    rows = reg.facts["rows"]
    pick = rng.sample(range(12, 48), 2)
    vessel, row = rows[pick[0]][1], rows[pick[0]]
    q.append(Question("file-04", f"On which page of the attached 1824 register of vessels is the arrival of the "
                      f"{row[2]} {vessel} recorded?", pick[0] // 12 + 1, "numeric", 1, ["read_file"], [reg.path],
                      [reg.locate(" | ".join(row))]))
    row2 = rows[pick[1]]
    rigs = ["brig", "sloop", "schooner", "ketch"] if row[2] in ["brig", "sloop", "schooner", "ketch"] else \
        ["brig", "sloop", "schooner", row[2]]
    q.append(Question("file-04b", f"According to the attached 1824 register, what rig was the {vessel}?" + _mc(rigs),
                      chr(65 + rigs.index(row[2])), "multiple_choice", 1, ["read_file"], [reg.path],
                      [reg.locate(" | ".join(row))], rigs))
    q.append(Question("file-05", f"According to the attached 1824 register, who was the master of the {row2[2]} "
                      f"{row2[1]} that arrived on {row2[0]}?", row2[3], "exact", 1, ["read_file"], [reg.path],
                      [reg.locate(" | ".join(row2))]))
    for qid, port, what in [("file-06", "Bergen", "count"), ("file-07", "Riga", "tons")]:
        hits = [r for r in rows if r[4] == port]
        assert hits, port
        value = len(hits) if what == "count" else sum(int(r[5]) for r in hits)
        text = (f"How many vessels from {port} does the attached 1824 register record?" if what == "count" else
                f"What is the total tonnage of the vessels from {port} in the attached 1824 register?")
        q.append(Question(qid, text, value, "numeric", 2, ["read_file", "calculate"], [reg.path],
                          [reg.locate(" | ".join(r)) for r in hits]))
    q += [
        Question("file-08", "According to the attached German town chronicle, in which year did the hospital church "
                 "burn down?", 1731, "numeric", 2, ["read_file", "translate"], [chron.path],
                 [chron.locate("brannte die Spitalkirche")]),
        Question("file-09", "According to the attached town chronicle, how many Gulden did the pipes of the new "
                 "market fountain cost?", 84, "numeric", 2, ["read_file", "translate"], [chron.path],
                 [chron.locate("die Röhren kosteten 84 Gulden")]),
    ]
    oats = prices.facts["Hafer"][1741][4]
    q.append(Question("file-10", "According to the attached price table, what was the price of oats (Hafer) in May "
                      "1741, in Kreuzer per Metzen?", oats, "numeric", 1, ["read_file"], [prices.path],
                      [prices.locate("Hafer 1741: ")]))
    wheat = prices.facts["Weizen"]
    means = {y: sum(v) / 12 for y, v in wheat.items()}
    best = max(means, key=lambda y: means[y])
    assert sorted(means.values())[-2] < means[best]
    q.append(Question("file-11", "According to the attached price table, in which year was the average monthly "
                      "price of wheat (Weizen) highest?", best, "numeric", 2, ["read_file", "calculate"],
                      [prices.path], [prices.locate(f"Weizen {y}: ") for y in sorted(wheat)]))
    q.append(Question("file-12", "According to the attached crew list, how old was the carpenter?", 46, "numeric", 1,
                      ["read_file"], [crew.path], [crew.locate("Richard Vosper,carpenter,46")]))
    wages = sum(int(line.rsplit(",", 1)[1]) for line in crew.pages[0][1:])
    q.append(Question("file-13", "According to the attached crew list, what were the crew's total wages per month, "
                      "in shillings?", wages, "numeric", 2, ["read_file", "calculate"], [crew.path],
                      [crew.locate(line) for line in crew.pages[0][1:]]))
    opts = ["Richard Kitto and Samuel Nance", "Thomas Corran and John Veale", "Josiah Marrable and Eben Tregothnan",
            "Samuel Kitto and Peter Nance"]
    q.append(Question("file-14", "According to the attached inventory, who appraised the goods?" + _mc(opts), "A",
                      "multiple_choice", 1, ["read_file"], [inv.path], [inv.locate("appraised by Richard Kitto")],
                      opts))
    return q


def _pick(rng: random.Random, docs: list[Doc], k: int, ok: Callable[[Doc], bool] = lambda d: True) -> list[Doc]:
    return rng.sample([d for d in docs if ok(d)], k)


def archive_questions(fam: dict[str, list[Doc]], rng: random.Random) -> list[Question]:
    """Templated questions, each answered by exactly one archive document."""
    q: list[Question] = []
    for i, doc in enumerate(_pick(rng, fam["burials"], 5, lambda d: d.facts["year"] != 1801), start=1):
        day, name, trade, abode, age = rng.choice(doc.facts["entries"])
        month = f"{MONTHS[doc.facts['month']]} {doc.facts['year']}"
        q.append(Question(f"arch-bur-{i}", f"Search the archive: how old was {name}, {trade} of {abode}, buried at "
                          f"St Kea, Port Aldwen, in {month}?", age, "numeric", 1, ["archive_search"], [],
                          [doc.locate(f"{day} {month}. {name}")]))
    for i, doc in enumerate(_pick(rng, fam["shipping"], 4), start=1):
        rig, vessel, master, port, qty, cargo = rng.choice(doc.facts["entries"])
        q.append(Question(f"arch-ship-{i}", f"Search the archive: from which port had the {rig} {vessel} (master "
                          f"{master}) come when Port Aldwen's shipping intelligence of {doc.facts['date']} reported "
                          "her arrival?", port, "exact", 1, ["archive_search"], [],
                          [doc.locate(f"the {rig} {vessel}, {master}")]))
    for i, doc in enumerate(_pick(rng, fam["council"], 3), start=1):
        f = doc.facts
        q.append(Question(f"arch-rath-{i}", f"Search the archive: what fine, in Gulden, did the Hohenwalde council "
                          f"impose on the baker {f['baker']} (sitting of {f['date']})?", f["fine"], "numeric", 2,
                          ["archive_search", "translate"], [], [doc.locate(f"Dem Becker {f['baker']}")]))
    for i, doc in enumerate(_pick(rng, fam["letters"], 3), start=1):
        f = doc.facts
        q.append(Question(f"arch-bdx-{i}", f"Search the archive: how many barriques of wine did the Bordeaux broker "
                          f"{f['sender']} ship aboard {f['ship']} in his letter of {f['date']}?", f["n"], "numeric",
                          2, ["archive_search", "translate"], [], [doc.locate(f"{f['n']} barriques")]))
    for i, doc in enumerate(_pick(rng, fam["notai"], 2), start=1):
        f = doc.facts
        q.append(Question(f"arch-not-{i}", f"Search the archive: for how many ducats did {f['seller']} sell to "
                          f"{f['buyer']} at Chioggia on {f['date']}?", f["price"], "numeric", 2,
                          ["archive_search", "translate"], [], [doc.locate(f"ducati {f['price']}")]))
    authors = sorted({d.facts["author"] for d in fam["tang"]})
    poet = max(authors, key=lambda a: sum(d.facts["author"] == a for d in fam["tang"]))
    poems = [d for d in fam["tang"] if d.facts["author"] == poet]
    q.append(Question("arch-tang-1", f"Search the archive: how many poems by {poet} does its collection of Tang poems "
                      "hold?", len(poems), "numeric", 2, ["archive_search"], [],
                      [d.locate(f"作者：{poet}") for d in poems]))
    doc = _pick(rng, fam["granary"], 1, lambda d: d.facts["year"] != 1807)[0]
    q.append(Question("arch-gran-1", f"Search the archive: how many shi of grain did the Baisha county granary hold at "
                      f"the start of {doc.facts['year']}?", doc.facts["stock"], "numeric", 1, ["archive_search"],
                      [], [doc.locate(f"{doc.facts['stock']} shi")]))
    return q
