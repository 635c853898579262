"""The archive corpus: >= 200 short Markdown documents of invented towns' records (CC0), plus
public-domain Tang poems that the Debian package fortunes-zh ships.

Seven invented families (burial registers, shipping intelligence, council minutes, merchants' letters, river
landing ledgers, granary reports, notarial abstracts) are generated from a seeded ``random.Random``;
a few documents carry the facts that the scanned pages' level-3 questions chain into.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from hist_offline.model import Doc

TANG300 = Path("/usr/share/games/fortunes/tang300")
TANG_SOURCE = "Debian package fortunes-zh 2.98, /usr/share/games/fortunes/tang300 (Three Hundred Tang Poems)"
TANG_LICENCE = "public domain (Tang-dynasty poems, 7th-10th century); Debian packaging GPL-3.0+"

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
MONATE = ["Jänner", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "October",
          "November", "December"]
MOIS = ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
        "novembre", "décembre"]
MESI = ["gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre",
        "ottobre", "novembre", "dicembre"]

EN_FIRST = ["John", "William", "Thomas", "Richard", "Henry", "James", "Samuel", "Joseph", "Peter", "Nicholas",
            "Mary", "Elizabeth", "Jane", "Grace", "Ann", "Honor", "Catherine", "Philippa", "Loveday", "Thomasine"]
EN_LAST = ["Penrose", "Trevail", "Nance", "Polglase", "Rowe", "Jago", "Kitto", "Pascoe", "Tonkin", "Hocking",
           "Menheniot", "Chenoweth", "Trounson", "Vosper", "Bolitho", "Curnow", "Angwin", "Rosevear",
           "Tregarthen", "Lanyon", "Penhallow", "Skewes"]
EN_TRADES = ["fisherman", "mariner", "shipwright", "ropemaker", "labourer", "cooper", "blacksmith",
             "carpenter", "innkeeper", "tide waiter", "sailmaker", "farmer"]
EN_WOMEN = {"Mary", "Elizabeth", "Jane", "Grace", "Ann", "Honor", "Catherine", "Philippa", "Loveday", "Thomasine"}
EN_WOMEN_TRADES = ["widow", "spinster", "laundress", "fish jowster", "mariner's wife"]
EN_ABODES = ["Fish Street", "Quay Lane", "Chapel Hill", "the Strand", "Lower Town", "Penvose", "Trelissick Row",
             "Bar Road"]
VESSELS = ["Providence", "Good Intent", "Betsey", "Two Brothers", "Friendship", "Hope", "Ceres", "Endeavour",
           "Mayflower", "Industry", "Speedwell", "Diligence", "Liberty", "Neptune", "Dolphin", "Fortitude",
           "Rose", "Unity", "Swallow", "Active"]
RIGS = ["brig", "sloop", "schooner", "snow", "galliot", "ketch"]
PORTS = ["Bergen", "Riga", "Danzig", "Bordeaux", "Lisbon", "Cork", "Bristol", "Memel", "Oporto", "Hamburg",
         "Swansea", "Morlaix"]
CARGOES = ["barrels of herring", "tons of coal", "deals of timber", "hogsheads of wine", "quarters of wheat",
           "bushels of salt", "bales of hemp", "casks of tallow"]
DE_FIRST = ["Johann", "Georg", "Matthias", "Andreas", "Caspar", "Michael", "Lorenz", "Jacob", "Franz", "Anton"]
DE_LAST = ["Huber", "Gruber", "Haas", "Moser", "Steiner", "Hofer", "Wimmer", "Brandl", "Eder", "Leitner",
           "Pichler", "Schwaiger", "Zauner", "Aigner"]
FR_FIRST = ["Jean", "Pierre", "Bernard", "Arnaud", "Guillaume", "Antoine", "Étienne", "Raymond"]
FR_LAST = ["Lafargue", "Dubernet", "Castaing", "Labat", "Cazenave", "Daney", "Ducasse", "Lalande", "Peyrot",
           "Sabourin"]
WINES = ["Graves", "Médoc", "Entre-deux-Mers", "Blaye", "Bourg", "Sauternes"]
FR_PORTS = ["Dublin", "Hambourg", "Amsterdam", "Bristol", "Dantzig", "Cork"]
RU_NAMES = ["Pyotr Lapin", "Semyon Gorshkov", "Fyodor Rybin", "Timofei Kulikov", "Mikhail Ozerov",
            "Yegor Belousov", "Luka Shchukin", "Savva Morozov"]
RU_VILLAGES = ["Krasny Bor", "Ust-Vetka", "Nizhnie Pody", "Zabolotye", "Staraya Gat"]
RU_GOODS = ["hemp", "flax", "tallow", "potash", "linseed"]
IT_FIRST = ["Zuane", "Piero", "Alvise", "Bortolo", "Marco", "Nicolò", "Anzolo", "Iseppo"]
IT_LAST = ["Boscolo", "Tiozzo", "Varisco", "Penzo", "Ravagnan", "Scarpa", "Zennaro", "Nordio"]
IT_GOODS = ["una casa in calle", "un magazzino in riva", "una barca da pesca", "un orto in contrada"]

SOURCE = "written for paperworks (invented record)"


def _ymd(first_year: int, k: int) -> tuple[int, int, int]:
    """Day number ``k`` (28-day months, so every date exists) → (year, month index, day of month)."""
    return first_year + k // 336, (k % 336) // 28, k % 28 + 1


def _md(title: str, body: list[str]) -> list[str]:
    return [f"# {title}", "", *body]


def burials(rng: random.Random) -> list[Doc]:
    """St Kea, Port Aldwen: 60 monthly burial abstracts, 1785-1834; one holds the pilot Eben Tregothnan."""
    names = [f"{f} {s}" for f in EN_FIRST for s in EN_LAST]
    rng.shuffle(names)
    slots = sorted(rng.sample([(y, m) for y in range(1785, 1835) for m in range(12) if (y, m) != (1801, 1)], 59)
                   + [(1801, 1)])
    docs = []
    for year, month in slots:
        entries: list[tuple[int, str, str, str, int]] = []
        for _ in range(rng.randint(3, 5)):
            name = names.pop()
            trade = rng.choice(EN_WOMEN_TRADES if name.split()[0] in EN_WOMEN else EN_TRADES)
            entries.append((rng.randint(1, 28), name, trade, rng.choice(EN_ABODES), rng.randint(1, 89)))
        if (year, month) == (1801, 1):
            entries.append((3, "Eben Tregothnan", "pilot", "this port", 63))
        entries.sort()
        lines = [f"- {d} {MONTHS[month]} {year}. {n}, {t} of {a}, aged {age}." for d, n, t, a, age in entries]
        title = f"St Kea, Port Aldwen: Register of Burials, {MONTHS[month]} {year}"
        body = ["Abstract of the parish register of burials.", "", *lines, "",
                f"Examined by the curate, {rng.choice(EN_FIRST[:10])} Veale."]
        docs.append(Doc(f"archive/burials/stkea_burials_{year}_{month + 1:02d}.md", title, "en", "Latin",
                        "burial register", [_md(title, body)], SOURCE,
                        facts={"entries": entries, "year": year, "month": month}))
    return docs


def arrivals(rng: random.Random) -> list[Doc]:
    """Port Aldwen shipping intelligence: 50 dated notices of arrivals, 1786-1830."""
    days = sorted(rng.sample(range(0, 45 * 336), 50))
    docs = []
    for k in days:
        year, month, day = _ymd(1786, k)
        date = f"{day} {MONTHS[month]} {year}"
        entries = []
        for vessel in rng.sample(VESSELS, rng.randint(2, 4)):
            entries.append((rng.choice(RIGS), vessel, f"{rng.choice(EN_FIRST[:10])} {rng.choice(EN_LAST)}",
                            rng.choice(PORTS), rng.randint(20, 400), rng.choice(CARGOES)))
        title = f"Port Aldwen Shipping Intelligence, {date}"
        body = [f"Arrived, the {r} {v}, {m}, master, from {p}, with {q} {c}." for r, v, m, p, q, c in entries]
        docs.append(Doc(f"archive/shipping/aldwen_shipping_{year}_{month + 1:02d}_{day:02d}.md", title, "en",
                        "Latin", "shipping notice", [_md(title, body)], SOURCE,
                        facts={"date": date, "entries": entries}))
    return docs


def council(rng: random.Random) -> list[Doc]:
    """Hohenwalde council minutes in German: 30 sittings, 1740-1760, fines on bakers and other business."""
    names = [f"{f} {s}" for f in DE_FIRST for s in DE_LAST]
    rng.shuffle(names)
    days = sorted(rng.sample(range(0, 21 * 336), 30))
    docs = []
    for k in days:
        year, month, day = _ymd(1740, k)
        baker, butcher = names.pop(), names.pop()
        fine, wood = rng.randint(1, 12), rng.randint(10, 90)
        date = f"{day}. {MONATE[month]} {year}"
        title = f"Rathsprotokoll der Stadt Hohenwalde vom {date}"
        body = [f"1. Dem Becker {baker} wurde wegen zu leichten Brodts eine Strafe von {fine} Gulden auferlegt.",
                f"2. Der Metzger {butcher} bittet um Erlaubnis, eine Fleischbank am Unteren Thor zu halten; "
                "wird bis zur nächsten Sitzung verschoben.",
                f"3. Der Stadtschreiber meldet, dass für das Spital {wood} Klafter Holz angekauft worden sind."]
        docs.append(Doc(f"archive/council/hohenwalde_rath_{year}_{month + 1:02d}_{day:02d}.md", title, "de",
                        "Latin", "council minutes", [_md(title, body)], SOURCE,
                        facts={"date": date, "baker": baker, "fine": fine, "wood": wood}))
    return docs


def letters(rng: random.Random) -> list[Doc]:
    """Letters of Bordeaux wine brokers in French: 30 shipments, 1760-1789."""
    names = [f"{f} {s}" for f in FR_FIRST for s in FR_LAST]
    rng.shuffle(names)
    days = sorted(rng.sample(range(0, 30 * 336), 30))
    ships = ["la Marie-Thérèse", "le Saint-Nicolas", "l'Aimable Rose", "la Bonne Espérance", "le Dauphin",
             "la Victoire", "le Jeune Henri", "la Providence"]
    docs = []
    for k in days:
        year, month, day = _ymd(1760, k)
        sender, captain = names.pop(), names.pop()
        n, freight = rng.randint(12, 160), rng.randint(30, 95)
        ship, wine, port = rng.choice(ships), rng.choice(WINES), rng.choice(FR_PORTS)
        date = f"{day} {MOIS[month]} {year}"
        title = f"Lettre de {sender}, courtier à Bordeaux, {date}"
        body = ["Monsieur,",
                f"Nous avons l'honneur de vous informer que nous avons chargé {n} barriques de vin de {wine} "
                f"sur le navire {ship}, capitaine {captain}, à destination de {port}.",
                f"Le fret est convenu à {freight} livres le tonneau.",
                f"Nous sommes, Monsieur, vos très humbles serviteurs. {sender}."]
        docs.append(Doc(f"archive/letters/bordeaux_{year}_{month + 1:02d}_{day:02d}.md", title, "fr", "Latin",
                        "letter", [_md(title, body)], SOURCE,
                        facts={"date": date, "sender": sender, "n": n, "ship": ship, "captain": captain,
                               "freight": freight, "port": port}))
    return docs


def riga(rng: random.Random) -> list[Doc]:
    """Riga Düna landing ledger abstracts (English translation): 20 months of 1855-1860 arrivals."""
    slots = sorted(rng.sample([(y, m) for y in range(1855, 1861) for m in range(3, 11) if (y, m) != (1859, 5)], 19)
                   + [(1859, 5)])
    docs = []
    for year, month in slots:
        entries = []
        for _ in range(rng.randint(2, 4)):
            entries.append((rng.randint(1, 28), rng.randint(1, 60), rng.choice(RU_NAMES), rng.choice(RU_VILLAGES),
                            rng.randint(40, 400), rng.choice(RU_GOODS)))
        if (year, month) == (1859, 5):
            entries = [e for e in entries if e[1] != 17]
            entries.append((2, 17, "Ivan Dremov", "Verkhnie Luzhki", 140, "hemp"))
        entries.sort()
        title = f"Riga, Düna landing: arrivals of river barges, {MONTHS[month]} {year}"
        body = ["Abstract translated from the landing clerk's ledger (dates Old Style).", "",
                *[f"- {d} {MONTHS[month]}: barge No. {b} of the shipowner {o}, from {v}, with {q} poods of {g}."
                  for d, b, o, v, q, g in entries]]
        docs.append(Doc(f"archive/riga/riga_landing_{year}_{month + 1:02d}.md", title, "en", "Latin",
                        "landing ledger", [_md(title, body)], SOURCE, facts={"entries": entries}))
    return docs


def granary(rng: random.Random) -> list[Doc]:
    """Baisha county ever-normal granary reports (English translation), Jiaqing 8-17 (1803-1812)."""
    docs = []
    for reign_year in range(8, 18):
        stock = 5000 if reign_year == 12 else rng.randint(30, 60) * 100
        bought = rng.randint(2, 12) * 100
        title = f"Baisha county ever-normal granary: annual report, Jiaqing {reign_year} ({1795 + reign_year})"
        body = [f"Stock at the start of the year: {stock} shi of unhusked grain.",
                f"Purchased in the autumn: {bought} shi.",
                "Losses to damp and rats are within the permitted allowance.",
                "Submitted by the granary clerk to the county magistrate."]
        docs.append(Doc(f"archive/granary/baisha_granary_jiaqing_{reign_year:02d}.md", title, "en", "Latin",
                        "granary report", [_md(title, body)], SOURCE,
                        facts={"stock": stock, "bought": bought, "year": 1795 + reign_year}))
    return docs


def notaries(rng: random.Random) -> list[Doc]:
    """Chioggia notarial abstracts in Italian: 10 sales, 1690-1720."""
    names = [f"{f} {s}" for f in IT_FIRST for s in IT_LAST]
    rng.shuffle(names)
    docs = []
    for k in sorted(rng.sample(range(0, 30 * 336), 10)):
        year, month, day = _ymd(1690, k)
        seller, buyer = names.pop(), names.pop()
        price, thing = rng.randint(40, 900), rng.choice(IT_GOODS)
        date = f"{day} {MESI[month]} {year}"
        title = f"Atti del notaio Alvise Penzo, Chioggia, {date}"
        body = [f"{seller} vende a {buyer} {thing} per il prezzo di ducati {price}, "
                "pagati in contanti alla presenza dei testimoni."]
        docs.append(Doc(f"archive/notai/chioggia_{year}_{month + 1:02d}_{day:02d}.md", title, "it", "Latin",
                        "notarial abstract", [_md(title, body)], SOURCE,
                        facts={"date": date, "seller": seller, "buyer": buyer, "price": price, "thing": thing}))
    return docs


def tang_poems(rng: random.Random, count: int = 12) -> list[Doc]:
    """Public-domain Tang poems from the Debian package fortunes-zh (simplified characters, ANSI colours
    removed): a seeded choice of ``count`` of the first 120 entries of ``tang300``."""
    if not TANG300.exists():
        raise FileNotFoundError(f"{TANG300} is missing: apt-get install fortunes-zh (the archive's public-domain "
                                "Tang poems come from it)")
    text = re.sub(r"\x1b\[[0-9;]*m", "", TANG300.read_text(encoding="utf-8"))
    entries = [e.strip().splitlines() for e in text.split("\n%\n") if e.strip()]
    docs = []
    for index in sorted(rng.sample(range(min(120, len(entries))), count)):
        lines = entries[index]
        title = lines[0].strip().strip("《》")
        author = lines[1].split("：", 1)[-1].strip()
        body = [f"作者：{author}", "", *[line.strip() for line in lines[2:] if line.strip()]]
        docs.append(Doc(f"archive/tang/tang300_{index + 1:03d}.md", f"《{title}》", "lzh", "Han (simplified)",
                        "poem", [_md(f"《{title}》", body)], TANG_SOURCE, TANG_LICENCE,
                        facts={"title": title, "author": author}))
    return docs


def build_archive(seed: int) -> dict[str, list[Doc]]:
    """All archive families, each from its own seeded generator (so adding one leaves the others alone)."""
    families = {"burials": burials, "shipping": arrivals, "council": council, "letters": letters,
                "riga": riga, "granary": granary, "notai": notaries, "tang": tang_poems}
    return {name: fn(random.Random(f"{seed}-{name}")) for name, fn in families.items()}
