"""GradMem's data generators: key–value contexts and bAbI-style stories are deterministic per seed and
parse back to what was generated."""

from __future__ import annotations

import random

import pytest

from paperworks.backends.gradmem.data import (
    CharTokenizer,
    KVTaskConfig,
    answer_kv_query,
    make_kv_batch,
    make_kv_sample,
    parse_kv_context,
)
from paperworks.backends.gradmem.stories import answer_question, make_stories, parse_story


def test_kv_samples_are_deterministic_and_parse_back() -> None:
    cfg = KVTaskConfig(key_len=2, value_len=2)
    a, b = make_kv_batch(3, 20, 8, cfg), make_kv_batch(3, 20, 8, cfg)
    assert a == b and a != make_kv_batch(4, 20, 8, cfg)
    for s in a:
        pairs = parse_kv_context(s.context)
        assert list(pairs.items()) == list(s.pairs) and len(pairs) == 8  # keys unique, order kept
        assert s.context == "".join(f"!{k}:{v}!" for k, v in s.pairs) + "|"
        assert s.query.startswith("?!") and s.query.endswith(":") and s.query[2:-1] in pairs
        assert answer_kv_query(s.context, s.query) == s.target == pairs[s.query[2:-1]] + "!"
        assert all(len(k) == 2 and len(v) == 2 for k, v in s.pairs)


def test_kv_rejects_bad_inputs() -> None:
    with pytest.raises(ValueError, match="larger alphabet"):
        make_kv_sample(random.Random(0), 5, KVTaskConfig(key_len=1, alphabet="ab"))
    with pytest.raises(ValueError, match="reserved"):
        make_kv_sample(random.Random(0), 1, KVTaskConfig(alphabet="ab:"))
    with pytest.raises(ValueError, match="pairs"):
        parse_kv_context("!ab:cd!xx|")
    with pytest.raises(ValueError, match="ends with"):
        parse_kv_context("!ab:cd!")


def test_char_tokenizer_round_trips() -> None:
    tok = CharTokenizer()
    s = make_kv_sample(random.Random(1), 4)
    text = s.context + s.query + s.target
    ids = tok.encode(text)
    assert len(ids) == len(text) and tok.decode(ids) == text
    assert tok.vocab_size == 3 + 4 + 36 and min(ids) >= 3
    assert tok.decode([tok.pad_token_id, *tok.encode("a")]) == "a"
    with pytest.raises(ValueError, match="'#'"):
        tok.encode("#")


@pytest.mark.parametrize("objects", [False, True])
def test_stories_are_deterministic_and_answers_parse_back(objects: bool) -> None:
    a = make_stories(5, 30, n_sentences=6, objects=objects)
    assert a == make_stories(5, 30, n_sentences=6, objects=objects) != make_stories(6, 30, 6, objects=objects)
    asked_objects = 0
    for st in a:
        assert len(st.sentences) == 6
        assert answer_question(st.text, st.question) == st.answer
        where, _ = parse_story(st.text)
        assert st.question == f"Where is {st.subject}?"
        if st.subject in where:
            assert where[st.subject] == st.answer
        else:
            asked_objects += 1
    assert (asked_objects > 0) == objects


def test_story_parser_replays_moves_and_objects() -> None:
    text = "Mary went to the kitchen. Mary picked up the apple. Mary moved to the garden. John went to the office."
    assert answer_question(text, "Where is the apple?") == "garden"
    assert answer_question(text, "Where is Mary?") == "garden"
    assert answer_question(text + " Mary dropped the apple. Mary went to the hallway.", "Where is the apple?") == \
        "garden"
    with pytest.raises(ValueError, match="does not say"):
        answer_question(text, "Where is Sandra?")
    with pytest.raises(ValueError, match="not a story sentence"):
        parse_story("Mary flew to the moon.")


def test_kv_keys_are_unique_even_when_the_alphabet_is_tight() -> None:
    cfg = KVTaskConfig(key_len=2, value_len=1, alphabet="ab")
    for s in make_kv_batch(0, 20, 4, cfg):  # all 4 possible keys, each once
        assert sorted(k for k, _ in s.pairs) == ["aa", "ab", "ba", "bb"]
