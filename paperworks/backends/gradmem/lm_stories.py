"""GradMem on a frozen pretrained LM (SmolLM2-135M by default): answer story questions from memory alone.

Protocol. Stories come from :mod:`.stories`. The ceiling asks the model with the story in the prompt
(``<chat opening> <story> <question> <assistant: "Mary is in the">``); only stories it then answers correctly
are kept (so the ceiling on the kept set is 100% by construction, and the fraction kept is reported). The
floor asks the same question with no story. GradMem writes each story into ``m`` memory vectors placed where
the story was: ``K`` optimiser steps on the story's reconstruction loss given ``[chat opening; M; story]``,
the model frozen, no meta-training (``M0`` is the embeddings of a neutral text); the read is
``[chat opening; M; question ...]``. One write trajectory per story is read at every step count asked for.
An answer is right when the first word generated after the assistant prefix ``<subject> is in the`` is the room.
Control: each question is also read from the memory of another kept story (the next one); if the memory
carries the story's facts rather than a bias toward room words, that exact match is lower.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from paperworks.backends.gradmem.memory import GradMem, GradMemConfig
from paperworks.backends.gradmem.stories import ROOMS, Story, make_stories

INIT_TEXT = " Here is a short story about people moving between the rooms of a house."
"""Its first ``m`` token embeddings are the initial memory ``M0``."""


@dataclass
class StoryExpConfig:
    """Sizes of the frozen-LM experiment."""

    candidates: int = 16
    """Stories generated and tried with the context in the prompt."""
    keep: int = 6
    """At most this many of those answered correctly are written to memory."""
    n_sentences: int = 4
    """Sentences per story."""
    n_actors: int = 2
    """Actors per story."""
    steps: tuple[int, ...] = (0, 1, 2, 4, 8, 16, 32)
    """Write steps at which the memory is read (0 = the initial memory)."""
    n_mem: int = 8
    """Memory vectors."""
    optimiser: str = "adam"
    """Write optimiser (see :class:`GradMemConfig`)."""
    inner_lr: float = 0.03
    """Write learning rate."""
    chat: bool = True
    """Ask through the chat template, the memory standing where the story was in the user turn; False: a
    plain completion prompt ``<story>\nQuestion: ...\nAnswer: <subject> is in the``."""
    seed: int = 0
    """Seed of the stories."""


def question_messages(story: Story | None, question: str) -> list[dict[str, str]]:
    """The chat messages asking ``question`` (after the story when given)."""
    body = f"{story.text}\n" if story is not None else ""
    return [{"role": "user", "content": f"{body}Question: {question} Answer with the room."}]


def answer_prefix(story: Story) -> str:
    """The assistant's forced start: ``Mary is in the`` / ``The apple is in the``."""
    return f"{story.subject[0].upper()}{story.subject[1:]} is in the"


def first_word(text: str) -> str:
    """The first word of ``text``, lower-cased (``""`` when none)."""
    m = re.search(r"[A-Za-z]+", text)
    return m.group(0).lower() if m else ""


@contextlib.contextmanager
def frozen(model: nn.Module) -> Iterator[None]:
    """Temporarily stop the model's parameters from requiring gradients (restored afterwards)."""
    flags = [p.requires_grad for p in model.parameters()]
    for p in model.parameters():
        p.requires_grad_(False)
    try:
        yield
    finally:
        for p, f in zip(model.parameters(), flags, strict=True):
            p.requires_grad_(f)


@dataclass(frozen=True)
class StoryPrompt:
    """A story's prompt in three pieces: ``prefix + story + rest`` is the ceiling's prompt, ``prefix + rest``
    the floor's, and ``prefix + M + rest`` the memory read; the write reconstructs ``story`` after
    ``prefix + M``."""

    prefix: Tensor
    """``(P,)`` tokens before the story (the chat template's opening through the user turn's start)."""
    story: Tensor
    """``(1, S)`` the story's tokens (the context that is written)."""
    rest: Tensor
    """``(1, R)`` the question and the assistant's forced start."""


def story_prompt(local: Any, story: Story, chat: bool = True) -> StoryPrompt:
    """Split the prompt of ``story`` into :class:`StoryPrompt` pieces (tokenised piece by piece, so the
    three prompts share their tokens exactly)."""
    tok = local.tokenizer
    mark = "\u2063"  # an invisible separator that the template leaves alone
    if chat:
        text = tok.apply_chat_template(question_messages(story, story.question), add_generation_prompt=True,
                                       tokenize=False).replace(f"{story.text}\n", mark)
        head, tail = text.split(mark)
        tail += answer_prefix(story)
    else:
        head, tail = "", f"Question: {story.question}\nAnswer: {answer_prefix(story)}"

    def ids(t: str) -> list[int]:
        return list(tok(t, add_special_tokens=False)["input_ids"]) if t else []

    return StoryPrompt(prefix=torch.tensor(ids(head), dtype=torch.long),
                       story=torch.tensor([ids(f"{story.text}\n")]), rest=torch.tensor([ids(tail)]))


def _answer(reader: GradMem, memory: Tensor | None, prompt: StoryPrompt, tokenizer: Any,
            with_story: bool = False) -> str:
    body = torch.cat([prompt.story, prompt.rest], 1) if with_story else prompt.rest
    pre = prompt.prefix if prompt.prefix.numel() else None
    out = reader.generate(memory, body, max_new_tokens=3, prefix_ids=pre)[0]
    return first_word(tokenizer.decode(out))


def run_story_experiment(local: Any, cfg: StoryExpConfig,
                         progress: Any = None) -> dict[str, Any]:
    """Ceiling, floor and exact match against write steps on ``local`` (a :class:`LocalModel`-like object
    with ``model`` and ``tokenizer``). Returns the figures and the per-story table."""
    model, tok = local.model, local.tokenizer
    stories = make_stories(cfg.seed, cfg.candidates, cfg.n_sentences, n_actors=cfg.n_actors)
    init_ids = tok(INIT_TEXT, add_special_tokens=False)["input_ids"]
    init_ids = (init_ids * (cfg.n_mem // max(len(init_ids), 1) + 1))[: cfg.n_mem]
    with frozen(model), torch.no_grad():
        init = model.get_input_embeddings()(torch.tensor(init_ids)).detach()
    reader = GradMem(model, GradMemConfig(n_mem=cfg.n_mem, steps=max(cfg.steps), inner_lr=cfg.inner_lr,
                                          optimiser=cfg.optimiser), init=init)
    rows: list[dict[str, Any]] = []
    kept: list[tuple[Story, StoryPrompt]] = []
    memories: list[dict[int, Tensor]] = []
    wanted = set(cfg.steps)
    ceiling_hits = 0
    with frozen(model):
        for story in stories:
            prompt = story_prompt(local, story, cfg.chat)
            with_ctx = _answer(reader, None, prompt, tok, with_story=True)
            ceiling_hits += with_ctx == story.answer
            if with_ctx == story.answer and len(rows) < cfg.keep:
                kept.append((story, prompt))
                rows.append({"story": story.text, "question": story.question, "answer": story.answer,
                             "with_context": with_ctx})
        for i, ((_, prompt), row) in enumerate(zip(kept, rows, strict=True)):
            if progress is not None:
                progress(f"gradmem: writing story {i + 1}/{len(kept)} into {cfg.n_mem} vectors")
            row["no_context"] = _answer(reader, None, prompt, tok)
            mems: dict[int, Tensor] = {0: reader.mem0.detach().unsqueeze(0)}

            def on_step(k: int, mem: Tensor, mems: dict[int, Tensor] = mems) -> None:
                if k in wanted:
                    mems[k] = mem

            pre = prompt.prefix if prompt.prefix.numel() else None
            res = reader.write(prompt.story, steps=max(cfg.steps), on_step=on_step, track_final=True,
                               prefix_ids=pre)
            memories.append(mems)
            row["memory"] = {str(k): _answer(reader, mems[k], prompt, tok) for k in cfg.steps}
            row["recon_loss"] = res.losses
        if progress is not None and len(kept) > 1:
            progress("gradmem: control — each question read from another story's memory")
        for i, ((_, prompt), row) in enumerate(zip(kept, rows, strict=True)):
            other = memories[(i + 1) % len(kept)]
            row["other_memory"] = {str(k): _answer(reader, other[k], prompt, tok)
                                   for k in cfg.steps} if len(kept) > 1 else {}
    return _summarise(rows, cfg, ceiling_hits, len(stories))


def _summarise(rows: Sequence[dict[str, Any]], cfg: StoryExpConfig, ceiling_hits: int, tried: int) -> dict[str, Any]:
    n = max(len(rows), 1)
    em = {k: sum(r["memory"][str(k)] == r["answer"] for r in rows) / n for k in cfg.steps}
    recon = {k: sum(r["recon_loss"][k] if k < len(r["recon_loss"]) else r["recon_loss"][-1] for r in rows) / n
             for k in cfg.steps}
    shuffled = {k: sum(r["other_memory"].get(str(k)) == r["answer"] for r in rows) / n for k in cfg.steps}
    rooms = {k: sum(r["memory"][str(k)] in ROOMS for r in rows) / n for k in cfg.steps}
    return {"kept": len(rows), "tried": tried, "ceiling_all": ceiling_hits / max(tried, 1),
            "ceiling_kept": 1.0 if rows else None,
            "floor": sum(r["no_context"] == r["answer"] for r in rows) / n,
            "em_by_steps": em, "em_other_memory_by_steps": shuffled, "room_answer_by_steps": rooms,
            "recon_by_steps": recon, "rows": list(rows)}
