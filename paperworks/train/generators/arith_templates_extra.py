"""Two more training phrasings per arith category (six per category in all), in other sentence shapes than
:mod:`.arith_templates`: the question first, the numbers in another order, other verbs and units. They are
added to the ``train`` set only; the held-out phrasings stay as they were, so held-out accuracy stays
comparable across runs.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

from paperworks.train.generators.arith_templates import Drawn, Template, money, num, usd


def _name(r: random.Random) -> str:
    return r.choice(["Abel", "Bea", "Cyrus", "Dina", "Eero", "Flor", "Gus", "Hiro", "Ines", "Jonas", "Kira",
                     "Luca", "Mina", "Nils", "Ola", "Pia", "Ravi", "Sofia", "Tariq", "Vera", "Zane"])


def shop_receipt(r: random.Random) -> Drawn:
    a, pa, b, pb = r.randint(2, 8), money(r, 1, 12), r.randint(2, 8), money(r, 1, 12)
    return (f"What is the total on a receipt listing {a} apples at {usd(pa)} each and {b} oranges at {usd(pb)} "
            "each, in dollars?", f"{a}*{num(pa)} + {b}*{num(pb)}", a * pa + b * pb)


def shop_saved(r: random.Random) -> Drawn:
    n, w, k = _name(r), r.randint(5, 40), r.randint(3, 20)
    return f"{n} saves ${w} every week. After {k} weeks, how many dollars has {n} saved?", f"{w}*{k}", F(w * k)


def rate_pages(r: random.Random) -> Drawn:
    n, p, d = _name(r), r.randint(8, 60), r.randint(3, 14)
    return f"How many pages does {n} read in {d} days at {p} pages a day?", f"{p}*{d}", F(p * d)


def rate_fuel(r: random.Random) -> Drawn:
    km, per = r.randint(60, 900), r.choice([10, 12, 15, 20, 25])
    return (f"A car uses 1 litre of fuel for every {per} km. How many litres does a {km} km trip use?",
            f"{km}/{per}", F(km, per))


def area_garden(r: random.Random) -> Drawn:
    a, b = r.randint(2, 25), r.randint(2, 25)
    return f"What is the area, in square metres, of a garden {a} m wide and {b} m long?", f"{a}*{b}", F(a * b)


def area_rect_perimeter(r: random.Random) -> Drawn:
    a, b = r.randint(2, 50), r.randint(2, 50)
    return f"Find the perimeter in cm of a rectangle with sides {a} cm and {b} cm.", f"2*({a} + {b})", F(2 * (a + b))


def pct_raise(r: random.Random) -> Drawn:
    w, k = r.randint(10, 90) * 100, r.choice([2, 3, 4, 5, 8, 10, 12])
    return (f"A salary of ${w} goes up by {k}%. What is the new salary in dollars?", f"{w} + {w}*{k}/100",
            w + F(w * k, 100))


def pct_battery(r: random.Random) -> Drawn:
    k, m = r.choice([10, 20, 25, 40, 50, 75]), r.choice([40, 60, 80, 120, 200, 240])
    return (f"A phone battery lasts {m} minutes when full. How many minutes does {k}% of a charge last?",
            f"{m}*{k}/100", F(m * k, 100))


def split_pizza(r: random.Random) -> Drawn:
    s, k = r.choice([6, 8, 10, 12]), r.randint(2, 6)
    n = r.randint(2, 9) * k
    return (f"{n} people share pizzas cut into {s} slices each, and each person eats {s // 2} slices. How many "
            "pizzas are needed?", f"ceil({n}*{s // 2}/{s})", F(-(-(n * (s // 2)) // s)))


def split_marbles(r: random.Random) -> Drawn:
    k = r.randint(2, 9)
    t = k * r.randint(3, 40)
    return f"Divide {t} marbles equally among {k} jars. How many marbles go in each jar?", f"{t}/{k}", F(t, k)


def unit_kg(r: random.Random) -> Drawn:
    g = r.choice([250, 500, 750, 1250, 1500, 2500, 3200, 4800])
    return f"Write {g} grams in kilograms.", f"{g}/1000", F(g, 1000)


def unit_litres(r: random.Random) -> Drawn:
    litres = r.choice([F(r.randint(2, 20)), F(r.randint(3, 39), 2)])
    return f"How many millilitres is {num(litres)} litres?", f"{num(litres)}*1000", litres * 1000


def age_diff(r: random.Random) -> Drawn:
    a, b = _name(r), _name(r)
    x, d = r.randint(20, 80), r.randint(2, 15)
    return f"{a} is {x} and {b} is {x - d}. How many years older is {a} than {b}?", f"{x} - {x - d}", F(d)


def age_decades(r: random.Random) -> Drawn:
    n, k, y = _name(r), r.randint(2, 6), r.randint(0, 9)
    return f"{n} is {k} decades and {y} years old. How many years old is {n}?", f"{k}*10 + {y}", F(10 * k + y)


def avg_quiz(r: random.Random) -> Drawn:
    xs = [r.randint(4, 10) for _ in range(4)]
    return (f"Find the average of four quiz marks: {xs[0]}, {xs[1]}, {xs[2]}, {xs[3]}.",
            f"({' + '.join(map(str, xs))})/4", F(sum(xs), 4))


def avg_sales(r: random.Random) -> Drawn:
    k, each = r.randint(3, 7), r.randint(12, 90)
    return (f"A shop sold {k * each} cups over {k} days. How many cups did it sell per day on average?",
            f"{k * each}/{k}", F(each))


def time_trip(r: random.Random) -> Drawn:
    a, b = r.randint(20, 95), r.randint(20, 95)
    return (f"A trip has two legs of {a} and {b} minutes. How long is the whole trip in hours?", f"({a} + {b})/60",
            F(a + b, 60))


def time_days(r: random.Random) -> Drawn:
    w = r.randint(2, 30)
    return f"How many days are there in {w} weeks?", f"{w}*7", F(7 * w)


EXTRA_TRAIN: dict[str, list[Template]] = {
    "shopping": [shop_receipt, shop_saved],
    "rates": [rate_pages, rate_fuel],
    "area": [area_garden, area_rect_perimeter],
    "percentages": [pct_raise, pct_battery],
    "splitting": [split_pizza, split_marbles],
    "units": [unit_kg, unit_litres],
    "ages": [age_diff, age_decades],
    "averages": [avg_quiz, avg_sales],
    "time": [time_trip, time_days],
}
"""Category → two more training templates."""
