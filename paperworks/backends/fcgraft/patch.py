"""Patching: fill the holes of a composite policy by constrained decoding, leaving the rest untouched.

The composite is ``main(robot)`` calling grafted skeletons, one call site per clause of the task (the
layout of the composite; the model does not decide where ``main`` ends, which SmolLM2-135M cannot: it
ranks another call line above the end after any number of calls). Its holes are each site's skeleton and
arguments. A hole's options come from the task: the skeletons retrieved for that clause; the objects,
places and numbers the clause names (else the clause before it, else the whole task, else every value).
The model chooses among the options token by token
(greedy over a token trie of the options, all other tokens masked), so it decodes only hole tokens;
tokens forced by a single remaining option are fed without a choice.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from paperworks.tools.robot import sim
from paperworks.tools.robot.tasks import ALIASES

OBJECTS = ("cup_red", "cup_blue", "mug", "glass", "plate", "bowl", "pot", "pan", "kettle", "knife", "apple", "bread",
           "carrot", "cheese", "egg", "milk")
TYPES: dict[str, tuple[str, ...]] = {
    "item": OBJECTS, "vessel": tuple(sim.VESSELS), "food": sim.FOOD,
    "place": tuple(p for p in sim.PLACES if p != "microwave"),
}


def mentioned(text: str, options: tuple[str, ...]) -> list[str]:
    """The options the task's words name (by name or alias), in order of first mention."""
    low = text.lower()
    hits = []
    for o in options:
        spots = [m.start() for m in re.finditer(r"\b" + re.escape(ALIASES.get(o, o).replace("_", " ")) + r"\b", low)]
        spots += [m.start() for m in re.finditer(r"\b" + re.escape(o) + r"\b", low)]
        if spots:
            hits.append((min(spots), o))
    return [o for _, o in sorted(hits)]


def numbers(text: str) -> list[int]:
    return list(dict.fromkeys(int(x) for x in re.findall(r"\b\d+\b", text)))


def options_for(kind: str, *texts: str) -> list[str]:
    """A typed hole's literal options: what the first of ``texts`` (the site's clause, then the clause
    before it, then the whole task) that names anything of this type names; else every value."""
    for text in texts:
        found = [str(n) for n in numbers(text)] if kind in ("ml", "seconds") else \
            [f'"{o}"' for o in mentioned(text, TYPES[kind])]
        if found:
            return found
    return ["1"] if kind in ("ml", "seconds") else [f'"{o}"' for o in TYPES[kind]]


@dataclass
class Hole:
    """One filled hole: where it sits in the patched text, its options and the choice."""

    kind: str
    options: list[str]
    choice: str
    start: int
    end: int


@dataclass
class Patched:
    """A patched ``main``: its text, the holes filled, and how many tokens took a model choice."""

    text: str
    holes: list[Hole] = field(default_factory=list)
    decoded_tokens: int = 0
    forced_tokens: int = 0


class TrieDecoder:
    """Greedy choice among option strings, token by token, feeding the chosen tokens to the model."""

    def __init__(self, model: torch.nn.Module, encode: Callable[[str], list[int]], cache: object,
                 last_logits: torch.Tensor) -> None:
        self.model, self.encode, self.cache, self.logits = model, encode, cache, last_logits
        self.decoded = 0
        self.forced = 0
        self.first_token_at: float | None = None

    @torch.no_grad()
    def _feed(self, ids: list[int]) -> None:
        out = self.model(input_ids=torch.tensor([ids]), cache=self.cache, use_cache=True)
        self.cache = out.cache if getattr(out, "cache", None) is not None else self.cache
        self.logits = out.logits[0, -1]

    def choose(self, options: list[str]) -> str:
        """The option the model prefers (greedy per token); its tokens are now in the cache."""
        import time

        seqs = {o: self.encode(o) for o in options}
        alive = list(options)
        pos = 0
        pending: list[int] = []
        while True:
            nexts = {seqs[o][pos] for o in alive if len(seqs[o]) > pos}
            done = [o for o in alive if len(seqs[o]) == pos]
            if len(alive) == 1 or (done and not nexts):
                winner = alive[0] if len(alive) == 1 else done[0]
                rest = seqs[winner][pos:]
                self.forced += len(rest)
                if pending or rest:
                    self._feed(pending + rest)
                return winner
            if pending:
                self._feed(pending)
                pending = []
            allowed = torch.tensor(sorted(nexts))
            tok = int(allowed[int(torch.argmax(self.logits[allowed]))])
            self.decoded += 1
            if self.first_token_at is None:
                self.first_token_at = time.perf_counter()
            alive = [o for o in alive if len(seqs[o]) > pos and seqs[o][pos] == tok]
            pending = [tok]
            pos += 1


def patch_main(dec: TrieDecoder, task: str, params: dict[str, tuple[str, ...]],
               sites: list[tuple[str, list[str]]]) -> Patched:
    """Decode ``main``'s call sites after its ``def main(robot):`` line (already in the cache).

    ``sites[i]``: (the clause, the skeletons call site ``i`` may call: those retrieved for the clause); the
    model picks one, then each of its arguments among what the clause (or the one before, or the task)
    names."""
    text, holes = "", []
    previous = ""
    for clause, names in sites:
        opts = [f"\n    {n}(robot" for n in names if n in params]
        if not opts:
            raise ValueError(f"no retrieved skeleton among {names}")
        start = len(text)
        pick = dec.choose(opts)
        text += pick
        holes.append(Hole("call", opts, pick, start, len(text)))
        kinds = params[pick.strip().split("(")[0]]
        for i, kind in enumerate(kinds):
            close = ")" if i == len(kinds) - 1 else ""
            lits = [f", {o}{close}" for o in options_for(kind, clause, previous, task)]
            start = len(text)
            arg = dec.choose(lits)
            text += arg
            holes.append(Hole(kind, lits, arg, start, len(text)))
        if not kinds:
            text += ")"
            dec.choose([")"])
        previous = clause
    return Patched(text + "\n", holes, dec.decoded, dec.forced)
