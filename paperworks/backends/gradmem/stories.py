"""bAbI-style stories and questions, written for this project (not the bAbI data).

Actors move between rooms (``Mary went to the kitchen.``) and pick up or drop objects
(``John picked up the apple.``); a question asks where an actor is (the single-supporting-fact kind)
or where an object is (two supporting facts: who holds it and where they went). Every story comes from a
``random.Random`` seeded by the caller, and :func:`answer_question` re-derives the answer by reading the
story text back, so a generated answer can always be checked against the text alone.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

ACTORS = ("Mary", "John", "Sandra", "Daniel")
ROOMS = ("kitchen", "garden", "office", "bathroom", "bedroom", "hallway")
OBJECTS = ("apple", "football", "milk")
MOVES = ("went to", "moved to", "travelled to", "journeyed to")
TAKES = ("picked up", "grabbed", "took")
DROPS = ("dropped", "put down", "left")


@dataclass(frozen=True)
class Story:
    """One story with its question."""

    sentences: tuple[str, ...]
    question: str
    """``Where is Mary?`` or ``Where is the apple?``"""
    answer: str
    """A room name."""
    subject: str
    """Whom or what the question is about (``Mary``, ``the apple``)."""

    @property
    def text(self) -> str:
        """The sentences joined by spaces."""
        return " ".join(self.sentences)


def make_story(rng: random.Random, n_sentences: int = 5, objects: bool = False, n_actors: int = 3) -> Story:
    """A story of ``n_sentences`` events among ``n_actors`` actors; with ``objects`` it also moves objects and
    asks about one of them when some actor has carried it somewhere, otherwise about an actor."""
    if n_sentences < 1 or not 1 <= n_actors <= len(ACTORS):
        raise ValueError(f"need n_sentences >= 1 and 1 <= n_actors <= {len(ACTORS)}")
    actors = rng.sample(ACTORS, n_actors)
    where: dict[str, str] = {}
    held: dict[str, str] = {}  # object -> actor holding it
    sentences: list[str] = []
    for i in range(n_sentences):
        free = [o for o in OBJECTS if o not in held]
        here = [a for a in actors if a in where]
        holders = sorted(set(held.values()))
        roll = rng.random()
        if objects and i > 0 and roll < 0.25 and free and here:
            a, o = rng.choice(here), rng.choice(free)
            held[o] = a
            sentences.append(f"{a} {rng.choice(TAKES)} the {o}.")
        elif objects and roll < 0.35 and holders:
            a = rng.choice(holders)
            o = rng.choice(sorted(k for k, v in held.items() if v == a))
            del held[o]
            sentences.append(f"{a} {rng.choice(DROPS)} the {o}.")
        else:
            a = rng.choice(actors)
            room = rng.choice([r for r in ROOMS if r != where.get(a)])
            where[a] = room
            sentences.append(f"{a} {rng.choice(MOVES)} the {room}.")
    carried = [o for o, a in held.items() if a in where]
    if objects and carried:
        o = rng.choice(sorted(carried))
        subject, question, answer = f"the {o}", f"Where is the {o}?", where[held[o]]
    else:
        a = rng.choice(sorted(where))
        subject, question, answer = a, f"Where is {a}?", where[a]
    story = Story(sentences=tuple(sentences), question=question, answer=answer, subject=subject)
    assert answer_question(story.text, question) == answer
    return story


def make_stories(seed: int, n: int, n_sentences: int = 5, objects: bool = False, n_actors: int = 3) -> list[Story]:
    """``n`` stories from ``random.Random(seed)`` (the same list for a seed)."""
    rng = random.Random(seed)
    return [make_story(rng, n_sentences, objects, n_actors) for _ in range(n)]


_MOVE = re.compile(rf"^(\w+) (?:{'|'.join(MOVES)}) the (\w+)\.$")
_TAKE = re.compile(rf"^(\w+) (?:{'|'.join(TAKES)}) the (\w+)\.$")
_DROP = re.compile(rf"^(\w+) (?:{'|'.join(DROPS)}) the (\w+)\.$")
_QUESTION = re.compile(r"^Where is (?:the )?(\w+)\?$")


def parse_story(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """Replay a story's sentences: (actor → room, object → last known room). Raises ``ValueError`` on a
    sentence this generator does not write."""
    where: dict[str, str] = {}
    held: dict[str, str] = {}
    last: dict[str, str] = {}
    for sentence in re.findall(r"[^.]+\.", text):
        s = sentence.strip()
        if m := _MOVE.match(s):
            where[m.group(1)] = m.group(2)
            for o, a in held.items():
                if a == m.group(1):
                    last[o] = m.group(2)
        elif m := _TAKE.match(s):
            held[m.group(2)] = m.group(1)
            if m.group(1) in where:
                last[m.group(2)] = where[m.group(1)]
        elif m := _DROP.match(s):
            held.pop(m.group(2), None)
        else:
            raise ValueError(f"not a story sentence: {s!r}")
    return where, last


def answer_question(text: str, question: str) -> str:
    """The answer to ``question`` from the story ``text`` alone; raises ``ValueError`` when it has none."""
    m = _QUESTION.match(question.strip())
    if not m:
        raise ValueError(f"not a story question: {question!r}")
    where, last = parse_story(text)
    name = m.group(1)
    table = where if name[:1].isupper() else last
    if name not in table:
        raise ValueError(f"the story does not say where {name} is")
    return table[name]
