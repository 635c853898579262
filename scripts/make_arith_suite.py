"""Generate ``evals/arith/data.jsonl``: arithmetic word problems with exact answers.

Deterministic (a fixed seed), so re-running it reproduces the committed file byte for byte::

    python scripts/make_arith_suite.py            # writes evals/arith/data.jsonl
    python scripts/make_arith_suite.py --check    # exit 1 if the committed file differs

Answers are computed with ``Fraction`` so that decimals are exact (no 7.3500000000000005); an
answer is written as an integer when it is one, else as a float rounded to 4 decimals.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

SEED = 20260703
PER_CATEGORY = 10
OUT = Path(__file__).resolve().parents[1] / "evals" / "arith" / "data.jsonl"

Problem = tuple[str, Fraction]
NAMES = ["Ana", "Ben", "Chloe", "Dev", "Elif", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kemi", "Luca"]


def _money(rng: random.Random, low: int, high: int) -> Fraction:
    """A price with cents: low..high dollars, cents in steps of 5."""
    return Fraction(rng.randint(low, high)) + Fraction(rng.choice(range(0, 100, 5)), 100)


def _fmt(value: Fraction) -> str:
    """A number as written in a question: 3, 2.5, 12.75."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


def _dollars(value: Fraction) -> str:
    """A price as written in a question: $7 or $8.60."""
    return f"${value.numerator}" if value.denominator == 1 else f"${float(value):.2f}"


def shopping(rng: random.Random) -> Problem:
    name = rng.choice(NAMES)
    if rng.random() < 0.5:
        a, b = rng.randint(2, 9), rng.randint(2, 6)
        pa, pb = rng.randint(2, 15), rng.randint(3, 25)
        return (f"{name} buys {a} notebooks at ${pa} each and {b} pens at ${pb} each. "
                f"How many dollars does {name} spend in total?", Fraction(a * pa + b * pb))
    n, price, paid = rng.randint(2, 6), _money(rng, 1, 9), rng.choice([20, 50, 100])
    return (f"{name} buys {n} sandwiches at {_dollars(price)} each and pays with a ${paid} bill. "
            f"How much change, in dollars, does {name} get back?", paid - n * price)


def rates(rng: random.Random) -> Problem:
    kind = rng.randrange(3)
    if kind == 0:
        speed, hours = rng.randint(40, 110), rng.randint(2, 7)
        return (f"A train travels at {speed} km per hour for {hours} hours. How many kilometres does it cover?",
                Fraction(speed * hours))
    if kind == 1:
        per_min, minutes = rng.randint(3, 25), rng.randint(10, 90)
        return (f"A printer prints {per_min} pages per minute. How many pages does it print in {minutes} minutes?",
                Fraction(per_min * minutes))
    hours, speed = rng.randint(2, 9), rng.randint(12, 30)
    distance = hours * speed
    return (f"A cyclist rides {distance} km in {hours} hours at a steady pace. What is her speed in km per hour?",
            Fraction(speed))


def area(rng: random.Random) -> Problem:
    kind = rng.randrange(3)
    if kind == 0:
        w, h = rng.randint(3, 40), rng.randint(3, 40)
        return (f"A rectangular garden is {w} m long and {h} m wide. What is its area in square metres?",
                Fraction(w * h))
    if kind == 1:
        base, height = rng.randint(4, 30), rng.randint(3, 25)
        return (f"A triangle has a base of {base} cm and a height of {height} cm. What is its area in square cm?",
                Fraction(base * height, 2))
    side, tile = rng.randint(4, 12), rng.choice([Fraction(1, 2), Fraction(1), Fraction(2)])
    unit = "square metre" if tile == 1 else "square metres"
    return (f"A square floor measures {side} m on each side. Each tile covers {_fmt(tile)} {unit}. "
            f"How many tiles are needed to cover the floor?", Fraction(side * side) / tile)


def percentages(rng: random.Random) -> Problem:
    kind = rng.randrange(3)
    if kind == 0:
        price, off = rng.randint(4, 40) * 5, rng.choice([10, 15, 20, 25, 30, 40, 50])
        return (f"A jacket costs ${price}. It is on sale for {off}% off. What is the sale price in dollars?",
                Fraction(price) * (100 - off) / 100)
    if kind == 1:
        bill, tip = rng.randint(12, 90), rng.choice([10, 15, 18, 20])
        return (f"A dinner bill is ${bill}. How many dollars is a {tip}% tip?", Fraction(bill * tip, 100))
    total, pct = rng.randint(2, 30) * 20, rng.choice([5, 15, 35, 45, 60, 75])
    return (f"Of the {total} students in a school, {pct}% walk to school. How many students walk?",
            Fraction(total * pct, 100))


def splitting(rng: random.Random) -> Problem:
    kind = rng.randrange(3)
    if kind == 0:
        people, each = rng.randint(3, 9), _money(rng, 6, 30)
        total = people * each
        return (f"{people} friends share a restaurant bill of {_dollars(total)} equally. "
                f"How many dollars does each friend pay?", each)
    if kind == 1:
        per_box, boxes, extra = rng.randint(6, 24), rng.randint(5, 30), rng.randint(1, 5)
        items = per_box * boxes + extra
        return (f"A baker packs {items} cookies into boxes of {per_box}. How many boxes can be filled completely?",
                Fraction(boxes))
    per_bus, buses = rng.choice([30, 40, 45, 50]), rng.randint(2, 6)
    children = per_bus * (buses - 1) + rng.randint(1, per_bus - 1)
    return (f"{children} children go on a trip. Each bus holds {per_bus} children. "
            f"How many buses are needed?", Fraction(buses))


def conversions(rng: random.Random) -> Problem:
    kind = rng.randrange(4)
    if kind == 0:
        km = Fraction(rng.randint(3, 95), rng.choice([1, 10]))
        return f"How many metres are in {_fmt(km)} km?", km * 1000
    if kind == 1:
        hours, minutes = rng.randint(1, 6), rng.randint(5, 55)
        return f"How many minutes are in {hours} hours and {minutes} minutes?", Fraction(hours * 60 + minutes)
    if kind == 2:
        inches = rng.randint(2, 40)
        return (f"One inch is 2.54 cm. How many centimetres long is a {inches}-inch ruler?",
                Fraction(254, 100) * inches)
    grams = rng.randint(2, 40) * 250
    return f"A bag of flour weighs {grams} grams. How many kilograms is that?", Fraction(grams, 1000)


def multistep(rng: random.Random) -> Problem:
    kind = rng.randrange(2)
    name = rng.choice(NAMES)
    if kind == 0:
        start, spent, earned = rng.randint(40, 200), rng.randint(5, 39), rng.randint(10, 60)
        return (f"{name} has ${start}, spends ${spent} on a book, then earns ${earned} babysitting. "
                f"How many dollars does {name} have now?", Fraction(start - spent + earned))
    days, pages, skipped = rng.randint(5, 14), rng.randint(12, 40), rng.randint(1, 3)
    return (f"{name} reads {pages} pages a day for {days} days but skips {skipped} of those days. "
            f"How many pages does {name} read?", Fraction(pages * (days - skipped)))


CATEGORIES: dict[str, Callable[[random.Random], Problem]] = {
    "shopping": shopping, "rates": rates, "area": area, "percentages": percentages,
    "splitting": splitting, "conversions": conversions, "multistep": multistep,
}


def _number(value: Fraction) -> int | float:
    return value.numerator if value.denominator == 1 else round(float(value), 4)


def generate(seed: int = SEED, per_category: int = PER_CATEGORY) -> list[dict[str, object]]:
    """The rows, categories interleaved (so that the first N rows cover every category)."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    seen: set[str] = set()
    for _ in range(per_category):
        for category, make in CATEGORIES.items():
            question, answer = make(rng)
            while question in seen:
                question, answer = make(rng)
            seen.add(question)
            rows.append({"id": f"arith-{len(rows) + 1:03d}", "question": question, "answer": _number(answer),
                         "category": category})
    return rows


def render(rows: list[dict[str, object]]) -> str:
    """The JSONL text of ``rows``."""
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def main(argv: list[str] | None = None) -> int:
    """Write (or ``--check``) the suite's data file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--per-category", type=int, default=PER_CATEGORY)
    parser.add_argument("--check", action="store_true", help="exit 1 if --out differs from what would be written")
    args = parser.parse_args(argv)
    text = render(generate(args.seed, args.per_category))
    if args.check:
        same = args.out.is_file() and args.out.read_text(encoding="utf-8") == text
        print(f"{args.out}: {'up to date' if same else 'differs from the generator'}")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {text.count(chr(10))} problems to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
