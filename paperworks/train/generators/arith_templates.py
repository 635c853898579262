"""Word-problem templates for the arith generator: per category, training phrasings and held-out phrasings.

Each template draws its numbers from ``rng`` and returns ``(question, expression, value)``: the expression
is what a correct agent sends to the ``calculate`` tool, the value its exact result (``Fraction``). The six
categories of the ``arith`` suite come with four training phrasings each (one close to the suite's own
wording, three others) and two held-out phrasings; three more grade-school categories (ages, averages,
time) likewise.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction as F

Drawn = tuple[str, str, F]
Template = Callable[[random.Random], Drawn]

NAMES = ["Amara", "Bruno", "Chen", "Dara", "Emil", "Fatima", "Goran", "Hana", "Ivo", "Jia", "Kofi", "Lena",
         "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sami", "Tess", "Uma", "Viktor", "Wen", "Yara"]
ITEMS = ["notebook", "lamp", "mug", "scarf", "ticket", "plant", "puzzle", "candle", "basket", "kite"]


def num(v: F) -> str:
    """A number as written in text and expressions: 3, 2.5, 12.75."""
    if v.denominator == 1:
        return str(v.numerator)
    return f"{float(v):.2f}".rstrip("0").rstrip(".")


def money(rng: random.Random, low: int, high: int) -> F:
    """A price with cents in steps of 5."""
    return F(rng.randint(low, high)) + F(rng.choice(range(0, 100, 5)), 100)


def usd(v: F) -> str:
    return f"${v.numerator}" if v.denominator == 1 else f"${float(v):.2f}"


def _name(rng: random.Random) -> str:
    return rng.choice(NAMES)


# ------------------------------------------------------------------ shopping
def shop_two_items(r: random.Random) -> Drawn:
    n, a, b, pa, pb = _name(r), r.randint(2, 9), r.randint(2, 6), r.randint(2, 15), r.randint(3, 25)
    return (f"{n} buys {a} notebooks at ${pa} each and {b} pens at ${pb} each. How many dollars does {n} spend "
            "in total?", f"{a}*{pa} + {b}*{pb}", F(a * pa + b * pb))


def shop_change(r: random.Random) -> Drawn:
    n, k, p, paid = _name(r), r.randint(2, 6), money(r, 1, 9), r.choice([20, 50, 100])
    return (f"{n} buys {k} sandwiches at {usd(p)} each and pays with a ${paid} bill. How much change, in dollars, "
            f"does {n} get back?", f"{paid} - {k}*{num(p)}", paid - k * p)


def shop_many(r: random.Random) -> Drawn:
    item, k, p = r.choice(ITEMS), r.randint(3, 24), money(r, 2, 40)
    return f"One {item} costs {usd(p)}. What do {k} of them cost altogether, in dollars?", f"{k}*{num(p)}", k * p


def shop_left(r: random.Random) -> Drawn:
    n, m, a, b = _name(r), r.choice([50, 80, 100, 120, 200]), money(r, 3, 20), money(r, 5, 25)
    return (f"{n} has ${m}, then spends {usd(a)} on lunch and {usd(b)} on a book. How many dollars does {n} have "
            "left?", f"{m} - {num(a)} - {num(b)}", m - a - b)


def shop_delivery(r: random.Random) -> Drawn:
    n, k, p, f = _name(r), r.randint(2, 9), money(r, 3, 18), r.randint(3, 12)
    return (f"At the market, {n} orders {k} bags of rice at {usd(p)} per bag and pays ${f} for delivery. What is "
            "the whole bill in dollars?", f"{k}*{num(p)} + {f}", k * p + f)


def shop_note(r: random.Random) -> Drawn:
    k, p, paid = r.randint(2, 5), money(r, 4, 15), r.choice([50, 100])
    return (f"Paying for {k} concert tickets priced at {usd(p)} apiece with a ${paid} note, what change comes back "
            "in dollars?", f"{paid} - {k}*{num(p)}", paid - k * p)


# ------------------------------------------------------------------ rates
def rate_train(r: random.Random) -> Drawn:
    v, t = r.randint(40, 120), r.randint(2, 9)
    return f"A train travels at {v} km per hour for {t} hours. How many kilometres does it cover?", f"{v}*{t}", F(v * t)


def rate_speed(r: random.Random) -> Drawn:
    t = r.randint(2, 8)
    v = r.randint(30, 110)
    return (f"A car drives {v * t} km in {t} hours. What is its average speed in km per hour?",
            f"{v * t}/{t}", F(v))


def rate_printer(r: random.Random) -> Drawn:
    p, m = r.randint(8, 45), r.randint(3, 30)
    return (f"A printer makes {p} pages every minute. How many pages does it print in {m} minutes?",
            f"{p}*{m}", F(p * m))


def rate_ride(r: random.Random) -> Drawn:
    v, t = r.choice([10, 12, 15, 16, 18, 20, 24, 25]), r.randint(2, 7)
    return (f"A cyclist rides {v * t} km at a steady {v} km per hour. How many hours does the ride take?",
            f"{v * t}/{v}", F(t))


def rate_tank(r: random.Random) -> Drawn:
    s, q, m = r.randint(10, 90), r.randint(3, 25), r.randint(4, 30)
    return (f"A tank already holds {s} litres and water runs in at {q} litres per minute. How many litres are in it "
            f"after {m} minutes?", f"{s} + {q}*{m}", F(s + q * m))


def rate_walk(r: random.Random) -> Drawn:
    n, v, t = _name(r), r.randint(3, 7), r.randint(2, 9)
    return f"Walking {v} km every hour, how far does {n} get in {t} hours, in km?", f"{v}*{t}", F(v * t)


# ------------------------------------------------------------------ area
def area_rect(r: random.Random) -> Drawn:
    a, b = r.randint(3, 40), r.randint(2, 30)
    return f"A rectangle is {a} cm long and {b} cm wide. What is its area in square cm?", f"{a}*{b}", F(a * b)


def area_triangle(r: random.Random) -> Drawn:
    b, h = r.randint(3, 30), r.randint(2, 24)
    return (f"A triangle has a base of {b} cm and a height of {h} cm. What is its area in square cm?",
            f"{b}*{h}/2", F(b * h, 2))


def area_perimeter(r: random.Random) -> Drawn:
    a, b = r.randint(4, 60), r.randint(3, 45)
    return (f"A rectangular garden measures {a} m by {b} m. What is its perimeter in metres?",
            f"2*({a} + {b})", F(2 * (a + b)))


def area_square(r: random.Random) -> Drawn:
    s = r.randint(3, 35)
    return f"A square tile has sides of {s} cm. What is the area of the tile in square cm?", f"{s}*{s}", F(s * s)


def area_carpet(r: random.Random) -> Drawn:
    a, b = r.randint(2, 12), r.randint(2, 9)
    return (f"How many square metres of carpet cover a floor measuring {a} m by {b} m?", f"{a}*{b}", F(a * b))


def area_fence(r: random.Random) -> Drawn:
    s = r.randint(5, 80)
    return f"A fence runs all the way round a square field with {s} m sides. How long is the fence in metres?", \
        f"4*{s}", F(4 * s)


# ------------------------------------------------------------------ percentages
def pct_sale(r: random.Random) -> Drawn:
    p, k = r.randint(20, 200), r.choice([10, 15, 20, 25, 30, 40, 50])
    return (f"A jacket costs ${p}. It is on sale for {k}% off. What is the sale price in dollars?",
            f"{p} - {p}*{k}/100", p - F(p * k, 100))


def pct_of(r: random.Random) -> Drawn:
    k, n = r.choice([5, 10, 12, 15, 20, 25, 30, 40, 60, 75]), r.randint(20, 900)
    return f"What is {k}% of {n}?", f"{n}*{k}/100", F(n * k, 100)


def pct_growth(r: random.Random) -> Drawn:
    n, k = r.randint(10, 90) * 100, r.choice([2, 4, 5, 8, 10, 12, 20])
    return (f"A town of {n} people grows by {k}% in a year. How many people live there after that year?",
            f"{n} + {n}*{k}/100", n + F(n * k, 100))


def pct_score(r: random.Random) -> Drawn:
    n, b = _name(r), r.choice([20, 25, 40, 50, 80])
    a = r.randint(b // 3, b)
    return f"{n} got {a} out of {b} questions right. What percentage is that?", f"{a}/{b}*100", F(a * 100, b)


def pct_tip(r: random.Random) -> Drawn:
    p, k = r.randint(20, 150), r.choice([10, 15, 18, 20])
    return (f"A restaurant bill of ${p} gets a {k}% tip added. How much is paid in total, in dollars?",
            f"{p} + {p}*{k}/100", p + F(p * k, 100))


def pct_students(r: random.Random) -> Drawn:
    n, k = r.choice([200, 300, 400, 500, 600, 800]), r.choice([15, 20, 25, 35, 45, 60])
    return f"Of the {n} students at a school, {k}% walk there. How many students walk?", f"{n}*{k}/100", F(n * k, 100)


# ------------------------------------------------------------------ splitting
def split_buses(r: random.Random) -> Drawn:
    c = r.choice([30, 40, 45, 50, 52])
    n = r.randint(c + 1, 5 * c)
    return (f"{n} children go on a trip. Each bus holds {c} children. How many buses are needed?",
            f"ceil({n}/{c})", F(-(-n // c)))


def split_sweets(r: random.Random) -> Drawn:
    n, k = _name(r), r.randint(3, 9)
    total = k * r.randint(4, 30)
    return (f"{n} shares {total} sweets equally among {k} friends. How many sweets does each friend get?",
            f"{total}/{k}", F(total, k))


def split_ribbon(r: random.Random) -> Drawn:
    p = r.randint(6, 25)
    length = p * r.randint(3, 15) + r.randint(0, p - 1)
    return (f"A {length} cm ribbon is cut into pieces of {p} cm. How many whole pieces are there?",
            f"floor({length}/{p})", F(length // p))


def split_eggs(r: random.Random) -> Drawn:
    c = r.choice([6, 10, 12])
    n = r.randint(2 * c, 30 * c)
    return f"{n} eggs are packed into boxes of {c}. How many boxes are completely filled?", f"floor({n}/{c})", F(n // c)


def split_bill(r: random.Random) -> Drawn:
    k = r.randint(2, 8)
    t = F(r.randint(8, 60) * k, 2)
    return (f"A bill of {usd(t)} is split evenly between {k} friends. How much does each pay, in dollars?",
            f"{num(t)}/{k}", t / k)


def split_tables(r: random.Random) -> Drawn:
    c = r.choice([4, 6, 8, 10])
    n = r.randint(c + 1, 12 * c)
    return (f"Each table seats {c} guests. How many tables does a party of {n} guests need?",
            f"ceil({n}/{c})", F(-(-n // c)))


# ------------------------------------------------------------------ units
def unit_cm(r: random.Random) -> Drawn:
    m = r.choice([F(r.randint(2, 40)), F(r.randint(5, 95), 10)])
    return f"How many centimetres are in {num(m)} metres?", f"{num(m)}*100", m * 100


def unit_minutes(r: random.Random) -> Drawn:
    h = r.choice([F(r.randint(2, 12)), F(r.randint(3, 19), 2)])
    return f"How many minutes are there in {num(h)} hours?", f"{num(h)}*60", h * 60


def unit_ml(r: random.Random) -> Drawn:
    v = r.choice([F(r.randint(2, 9)), F(r.randint(3, 45), 10)])
    return f"A bottle holds {num(v)} litres. How many millilitres is that?", f"{num(v)}*1000", v * 1000


def unit_grams(r: random.Random) -> Drawn:
    k = r.choice([F(r.randint(2, 25)), F(r.randint(5, 95), 10)])
    return f"How many grams are in {num(k)} kilograms?", f"{num(k)}*1000", k * 1000


def unit_seconds(r: random.Random) -> Drawn:
    s = 60 * r.randint(2, 40) + r.choice([0, 30])
    return f"Convert {s} seconds to minutes.", f"{s}/60", F(s, 60)


def unit_race(r: random.Random) -> Drawn:
    km = r.choice([F(5), F(10), F(21), F(42), F(r.randint(3, 30), 2)])
    return f"A race is {num(km)} km long. How many metres is it?", f"{num(km)}*1000", km * 1000


# ------------------------------------------------------------------ ages
def age_older(r: random.Random) -> Drawn:
    a, b, x, d = _name(r), _name(r), r.randint(5, 40), r.randint(2, 30)
    return f"{a} is {x} years old. {b} is {d} years older than {a}. How old is {b}?", f"{x} + {d}", F(x + d)


def age_future(r: random.Random) -> Drawn:
    a, x, d = _name(r), r.randint(4, 60), r.randint(3, 25)
    return f"{a} is {x} years old now. How old will {a} be in {d} years?", f"{x} + {d}", F(x + d)


def age_born(r: random.Random) -> Drawn:
    a, y, z = _name(r), r.randint(1950, 2015), r.randint(2020, 2030)
    return f"{a} was born in {y}. How old does {a} turn in {z}?", f"{z} - {y}", F(z - y)


def age_times(r: random.Random) -> Drawn:
    a, b, k, x = _name(r), _name(r), r.randint(2, 5), r.randint(3, 15)
    return f"{a} is {k} times as old as {b}, who is {x}. How old is {a}?", f"{k}*{x}", F(k * x)


def age_today(r: random.Random) -> Drawn:
    a, d = _name(r), r.randint(2, 20)
    x = d + r.randint(3, 50)
    return f"In {d} years {a} will be {x}. How old is {a} today?", f"{x} - {d}", F(x - d)


def age_sisters(r: random.Random) -> Drawn:
    y, o = r.randint(3, 30), r.randint(1, 15)
    s = 2 * y + o
    return (f"Two sisters' ages add up to {s}. The younger one is {y}. How old is the older sister?",
            f"{s} - {y}", F(s - y))


# ------------------------------------------------------------------ averages
def avg_tests(r: random.Random) -> Drawn:
    n, xs = _name(r), [r.randint(40, 100) for _ in range(3)]
    return (f"{n} scored {xs[0]}, {xs[1]} and {xs[2]} on three tests. What is the average score?",
            f"({xs[0]} + {xs[1]} + {xs[2]})/3", F(sum(xs), 3))


def avg_temps(r: random.Random) -> Drawn:
    xs = [r.randint(5, 35) for _ in range(4)]
    return (f"The temperatures on four days were {xs[0]}, {xs[1]}, {xs[2]} and {xs[3]} degrees. What was the mean "
            "temperature?", f"({' + '.join(map(str, xs))})/4", F(sum(xs), 4))


def avg_spend(r: random.Random) -> Drawn:
    k, each = r.randint(2, 8), money(r, 5, 40)
    t = k * each
    return (f"{k} friends spend {usd(t)} in total. On average, how much did each spend, in dollars?",
            f"{num(t)}/{k}", each)


def avg_runs(r: random.Random) -> Drawn:
    xs = [r.randint(2, 15) for _ in range(3)]
    return (f"A runner covers {xs[0]} km, {xs[1]} km and {xs[2]} km on three runs. What is the average distance "
            "per run in km?", f"({xs[0]} + {xs[1]} + {xs[2]})/3", F(sum(xs), 3))


def avg_five(r: random.Random) -> Drawn:
    xs = [r.randint(1, 50) for _ in range(5)]
    return f"What is the mean of {', '.join(map(str, xs[:4]))} and {xs[4]}?", f"({' + '.join(map(str, xs))})/5", \
        F(sum(xs), 5)


def avg_boxes(r: random.Random) -> Drawn:
    xs = [r.randint(2, 30) for _ in range(3)]
    return (f"Three boxes weigh {xs[0]} kg, {xs[1]} kg and {xs[2]} kg. What is their average weight in kg?",
            f"({xs[0]} + {xs[1]} + {xs[2]})/3", F(sum(xs), 3))


# ------------------------------------------------------------------ time
def time_film(r: random.Random) -> Drawn:
    m = r.choice([75, 90, 105, 120, 135, 150, 165])
    return f"A film lasts {m} minutes. How many hours long is it?", f"{m}/60", F(m, 60)


def time_work(r: random.Random) -> Drawn:
    n, h, d = _name(r), r.randint(3, 10), r.randint(3, 20)
    return f"{n} works {h} hours a day for {d} days. How many hours is that in total?", f"{h}*{d}", F(h * d)


def time_lessons(r: random.Random) -> Drawn:
    m, k = r.choice([30, 40, 45, 50, 55, 60]), r.randint(2, 12)
    return f"A lesson lasts {m} minutes. How many minutes do {k} lessons take?", f"{m}*{k}", F(m * k)


def time_buses(r: random.Random) -> Drawn:
    m, h = r.choice([5, 6, 10, 12, 15, 20, 30]), r.randint(1, 8)
    return f"A bus comes every {m} minutes. How many buses come in {h} hours?", f"{h}*60/{m}", F(h * 60, m)


def time_week(r: random.Random) -> Drawn:
    n, m = _name(r), r.randint(10, 90)
    return f"{n} practises piano for {m} minutes every day. How many minutes is that in a week?", f"{m}*7", F(m * 7)


def time_shifts(r: random.Random) -> Drawn:
    h, k = r.choice([F(15, 2), F(8), F(6), F(17, 2), F(10)]), r.randint(2, 6)
    return f"A nurse works {k} shifts of {num(h)} hours each. How many hours does the nurse work?", \
        f"{k}*{num(h)}", k * h


TEMPLATES: dict[str, dict[str, list[Template]]] = {
    "shopping": {"train": [shop_two_items, shop_change, shop_many, shop_left], "heldout": [shop_delivery, shop_note]},
    "rates": {"train": [rate_train, rate_speed, rate_printer, rate_ride], "heldout": [rate_tank, rate_walk]},
    "area": {"train": [area_rect, area_triangle, area_perimeter, area_square], "heldout": [area_carpet, area_fence]},
    "percentages": {"train": [pct_sale, pct_of, pct_growth, pct_score], "heldout": [pct_tip, pct_students]},
    "splitting": {"train": [split_buses, split_sweets, split_ribbon, split_eggs],
                  "heldout": [split_bill, split_tables]},
    "units": {"train": [unit_cm, unit_minutes, unit_ml, unit_grams], "heldout": [unit_seconds, unit_race]},
    "ages": {"train": [age_older, age_future, age_born, age_times], "heldout": [age_today, age_sisters]},
    "averages": {"train": [avg_tests, avg_temps, avg_spend, avg_runs], "heldout": [avg_five, avg_boxes]},
    "time": {"train": [time_film, time_work, time_lessons, time_buses], "heldout": [time_week, time_shifts]},
}
"""Category → phrasing set → templates. ``train`` and ``heldout`` never share a template."""
