"""Associative key–value retrieval data (``!K:V!`` pairs, queries ``?!K:``) and a character tokenizer.

A context holds ``n_pairs`` pairs with unique keys, written back to back (``!ab:xy!!cd:zw!...``) and
closed by ``|``; the query asks for one of them (``?!cd:``) and the target is its value followed by ``!``.
Everything is drawn from a ``random.Random`` seeded by the caller, so a seed gives the same samples on
every machine, and :func:`parse_kv_context` reads a context back into its pairs.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass, field
from typing import ClassVar

STRUCT = "!?:|"
"""Reserved syntax characters: pair delimiters, the query mark, the key/value separator, end of context."""
ALPHABET = string.ascii_lowercase + string.digits
"""Default characters of keys and values (36)."""
SPECIALS = ("<pad>", "<bos>", "<eos>")


@dataclass(frozen=True)
class KVSample:
    """One retrieval problem."""

    pairs: tuple[tuple[str, str], ...]
    """The key–value pairs in the order they appear in the context."""
    context: str
    """``!K1:V1!!K2:V2!...|``"""
    query: str
    """``?!Kq:``"""
    target: str
    """``Vq!`` — what a model must produce after the query."""


@dataclass(frozen=True)
class KVTaskConfig:
    """Sizes of the key–value data."""

    key_len: int = 2
    """Characters per key (the authors' preset: 2)."""
    value_len: int = 2
    """Characters per value (the authors' preset: 2)."""
    alphabet: str = ALPHABET
    """Characters keys and values are drawn from (must avoid :data:`STRUCT`)."""


def make_kv_sample(rng: random.Random, n_pairs: int, cfg: KVTaskConfig = KVTaskConfig()) -> KVSample:
    """Draw ``n_pairs`` pairs with unique keys (values may repeat) and a query about one of them."""
    if n_pairs < 1:
        raise ValueError(f"n_pairs must be at least 1, got {n_pairs}")
    if len(cfg.alphabet) ** cfg.key_len < n_pairs:
        raise ValueError(f"{n_pairs} unique keys of length {cfg.key_len} need a larger alphabet than {cfg.alphabet!r}")
    if set(cfg.alphabet) & set(STRUCT):
        raise ValueError(f"the alphabet must not contain the reserved characters {STRUCT!r}")
    keys: list[str] = []
    seen: set[str] = set()
    while len(keys) < n_pairs:
        key = "".join(rng.choice(cfg.alphabet) for _ in range(cfg.key_len))
        if key not in seen:
            seen.add(key)
            keys.append(key)
    values = ["".join(rng.choice(cfg.alphabet) for _ in range(cfg.value_len)) for _ in keys]
    pairs = tuple(zip(keys, values, strict=True))
    q = rng.randrange(n_pairs)
    context = "".join(f"!{k}:{v}!" for k, v in pairs) + "|"
    return KVSample(pairs=pairs, context=context, query=f"?!{keys[q]}:", target=f"{values[q]}!")


def make_kv_batch(seed: int, n_samples: int, n_pairs: int, cfg: KVTaskConfig = KVTaskConfig()) -> list[KVSample]:
    """``n_samples`` samples of ``n_pairs`` pairs from ``random.Random(seed)`` (the same list for a seed)."""
    rng = random.Random(seed)
    return [make_kv_sample(rng, n_pairs, cfg) for _ in range(n_samples)]


_PAIR = re.compile(r"!([^!?:|]+):([^!?:|]+)!")


def parse_kv_context(context: str) -> dict[str, str]:
    """The pairs of a context written by :func:`make_kv_sample` (key → value); raises ``ValueError``
    when the text is not a sequence of ``!K:V!`` pairs closed by ``|``."""
    if not context.endswith("|"):
        raise ValueError(f"a KV context ends with '|': {context[-10:]!r}")
    body = context[:-1]
    found = list(_PAIR.finditer(body))
    if "".join(m.group(0) for m in found) != body:
        raise ValueError(f"not a sequence of !K:V! pairs: {body[:40]!r}")
    return {m.group(1): m.group(2) for m in found}


def answer_kv_query(context: str, query: str) -> str:
    """The target a query asks for, read back from the context text (``Vq!``)."""
    if not (query.startswith("?!") and query.endswith(":")):
        raise ValueError(f"a KV query looks like '?!K:', got {query!r}")
    return parse_kv_context(context)[query[2:-1]] + "!"


@dataclass
class CharTokenizer:
    """One id per character: ``<pad>=0, <bos>=1, <eos>=2``, then :data:`STRUCT`, then the alphabet."""

    alphabet: str = ALPHABET
    vocab: dict[str, int] = field(init=False)
    pad_token_id: ClassVar[int] = 0
    bos_token_id: ClassVar[int] = 1
    eos_token_id: ClassVar[int] = 2

    def __post_init__(self) -> None:
        chars = list(SPECIALS) + list(STRUCT) + [c for c in self.alphabet if c not in STRUCT]
        self.vocab = {c: i for i, c in enumerate(chars)}
        self._inverse = {i: c for c, i in self.vocab.items()}

    @property
    def vocab_size(self) -> int:
        """Number of ids."""
        return len(self.vocab)

    def encode(self, text: str) -> list[int]:
        """Ids of ``text``; raises ``ValueError`` naming a character outside the vocabulary."""
        try:
            return [self.vocab[c] for c in text]
        except KeyError as exc:
            raise ValueError(f"character {exc.args[0]!r} is not in the tokenizer's vocabulary") from None

    def decode(self, ids: list[int]) -> str:
        """Text of ``ids``, special ids dropped."""
        return "".join(self._inverse[i] for i in ids if i >= len(SPECIALS))
