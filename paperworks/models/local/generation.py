"""Text generation with the embedded model: blocking and streaming, thread-safe, honest token counts.

torch and transformers are imported inside functions only.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

END_OF_TURN = "<|im_end|>"


class ContextWindowError(ValueError):
    """The conversation does not fit in the model's context window."""


@dataclass
class GenerationResult:
    """One finished generation."""

    text: str
    """The reply: ``prefix`` (when used) then the generated text, special tokens removed, cut before the
    first stop string."""
    prompt_tokens: int
    """Tokens fed to the model: the templated conversation plus any assistant prefix used."""
    completion_tokens: int
    """Tokens the model generated (the end-of-turn token included when it was produced)."""
    finish_reason: str
    """``"stop"`` (end of turn or a stop string) or ``"length"`` (``max_tokens`` reached)."""
    prefix: str = ""
    """The assistant prefix the generation continued from ("" when none was used)."""
    prompt_ids: list[int] = field(default_factory=list)
    """The exact token ids fed before the first generated token: the templated conversation, then the
    prefix's tokens when it was used (filled by the llama.cpp engine; empty from the torch engine)."""
    completion_ids: list[int] = field(default_factory=list)
    """The token ids sampled, in order (a stop string's tokens and the end-of-turn token included)."""
    logprobs: list[float] = field(default_factory=list)
    """For each of ``completion_ids``, its log-probability under the distribution it was sampled from
    (after temperature, top-k, top-p and repetition penalty; greedy: the plain log-softmax)."""
    proxies: list[float] = field(default_factory=list)
    """For each of ``completion_ids``, OTB's logit-gradient proxy ``(1 − π_y)² + Σ_{v≠y} π_v²`` under the same
    distribution (the per-token weight of the optimal token baseline)."""


class TextStream:
    """Iterator over text pieces of a generation running in a background thread.

    After the iterator is exhausted, ``result`` holds the :class:`GenerationResult` (whose ``text`` is
    the concatenation of the pieces). Closing it early stops the generation.
    """

    def __init__(self, pieces: Iterator[str]) -> None:
        self._pieces = pieces
        self.result: GenerationResult | None = None

    def __iter__(self) -> TextStream:
        return self

    def __next__(self) -> str:
        return next(self._pieces)

    def close(self) -> None:
        """Stop the generation and release the model."""
        close = getattr(self._pieces, "close", None)
        if close is not None:
            close()


class RecentRepetitionPenalty:
    """A repetition penalty over the last ``window`` *generated* tokens only.

    transformers' own ``repetition_penalty`` also penalises every prompt token, which for a small
    model with tool schemas in its prompt suppresses exactly the JSON it must write; this one only
    breaks the loops a greedy 135M model falls into (llama.cpp's ``repeat_last_n`` idea).
    """

    def __init__(self, start: int, penalty: float, window: int = 64) -> None:
        self.start, self.penalty, self.window = start, penalty, window

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        recent = input_ids[:, max(self.start, input_ids.shape[1] - self.window):]
        if recent.shape[1] == 0:
            return scores
        picked = torch.gather(scores, 1, recent)
        picked = torch.where(picked < 0, picked * self.penalty, picked / self.penalty)
        return scores.scatter(1, recent, picked)


def _cut(text: str, stop: list[str], start: int = 0) -> tuple[str, bool]:
    """``text`` cut before its first stop string at or after ``start``, and whether one was found."""
    hits = [i for i in (text.find(s, start) for s in stop) if i >= 0]
    return (text[: min(hits)], True) if hits else (text, False)


class LocalModel:
    """An embedded causal LM with its tokenizer; generation is serialised by ``lock``."""

    def __init__(self, name: str, model: Any, tokenizer: Any, source: str) -> None:
        self.name = name
        self.model = model
        """The torch ``nn.Module`` (eval mode)."""
        self.tokenizer = tokenizer
        self.source = source
        """Where the weights came from this time: ``"gguf"`` (converted) or ``"cache"``."""
        self.lock = threading.Lock()
        eos = tokenizer.convert_tokens_to_ids(END_OF_TURN)
        self.eos_token_id: int = eos if isinstance(eos, int) and eos >= 0 else int(tokenizer.eos_token_id)

    def prompt_ids(self, messages: list[dict[str, str]]) -> list[int]:
        """Token ids of ``messages`` rendered with the chat template, ready for the assistant's turn."""
        text = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def generate(self, messages: list[dict[str, str]], **options: Any) -> GenerationResult:
        """Generate the assistant's reply to plain role/content ``messages``.

        Options: ``max_tokens=512, temperature=0.0`` (0 is greedy), ``top_p=1.0, top_k=None, seed=None``
        (a seed makes sampling reproducible), ``stop=None`` (strings that end the reply, cut off),
        ``repetition_penalty=None``, ``prefix=""`` (text the reply is made to start with) and
        ``prefix_threshold=None`` (use ``prefix`` only when its total log-probability under the model is
        at least this). Stop strings are looked for after the prefix only.
        """
        pieces = self._run(messages, **options)
        for _ in pieces:
            pass
        assert pieces.result is not None
        return pieces.result

    def stream(self, messages: list[dict[str, str]], **options: Any) -> TextStream:
        """Like :meth:`generate`, but returns a :class:`TextStream` of text pieces as they are decoded.

        The prefix, when used, is the first piece; the pieces add up to ``result.text``.
        """
        return self._run(messages, **options)

    def _run(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int = 512,
        temperature: float | None = 0.0,
        top_p: float | None = 1.0,
        top_k: int | None = None,
        seed: int | None = None,
        stop: list[str] | str | None = None,
        repetition_penalty: float | None = None,
        prefix: str = "",
        prefix_threshold: float | None = None,
    ) -> TextStream:
        import torch
        from transformers import LogitsProcessorList, StoppingCriteria, StoppingCriteriaList, TextIteratorStreamer

        stops = [s for s in ([stop] if isinstance(stop, str) else stop or []) if s]
        prompt = self.prompt_ids(messages)
        prefix_ids = list(self.tokenizer(prefix, add_special_tokens=False)["input_ids"]) if prefix else []
        window = int(getattr(self.model.config, "max_position_embeddings", 0) or 1 << 30)
        if len(prompt) + len(prefix_ids) >= window:
            raise ContextWindowError(
                f"the prompt has {len(prompt) + len(prefix_ids)} tokens; {self.name} reads at most {window}"
            )
        max_tokens = min(int(max_tokens), window - len(prompt) - len(prefix_ids))
        cancel = threading.Event()
        tokenizer = self.tokenizer
        tail = 4 * max((len(s) for s in stops), default=0) + 4  # tokens: a character may take 4 bytes

        class _Stop(StoppingCriteria):
            """Ends generation on cancellation or once a stop string appears in the new text."""

            def __init__(self) -> None:
                self.start = 0

            def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
                done = cancel.is_set()
                if stops and not done:  # a stop string just completed lies within the last few tokens
                    begin = max(self.start, input_ids.shape[1] - tail)
                    done = _cut(tokenizer.decode(input_ids[0, begin:], skip_special_tokens=True), stops)[1]
                return torch.full((input_ids.shape[0],), done, dtype=torch.bool)

        criterion = _Stop()
        streamer = TextIteratorStreamer(self.tokenizer, skip_prompt=True, skip_special_tokens=True)
        holder: dict[str, Any] = {}

        def work() -> None:
            try:
                with self.lock, torch.inference_mode():
                    ids, cache, used = self._prefill(prompt, prefix_ids, prefix_threshold)
                    holder["used"], holder["n_in"] = used, len(ids)
                    if used:
                        streamer.on_finalized_text(prefix)
                    criterion.start = len(ids)
                    if seed is not None:
                        torch.manual_seed(int(seed))
                    sampling: dict[str, Any] = {"do_sample": False}
                    if temperature and temperature > 0:
                        sampling = {"do_sample": True, "temperature": float(temperature), "top_k": int(top_k or 0)}
                        sampling["top_p"] = float(top_p) if top_p is not None else 1.0
                    processors = []
                    if repetition_penalty and not used:  # a forced tool call is JSON: leave it alone
                        processors.append(RecentRepetitionPenalty(len(ids), float(repetition_penalty)))
                    input_ids = torch.tensor([ids])
                    if cache is not None:
                        sampling["cache"] = cache  # the KV cache of the prefill, reused
                    out = self.model.generate(
                        input_ids=input_ids,
                        attention_mask=torch.ones_like(input_ids),
                        max_new_tokens=max(1, int(max_tokens)),
                        eos_token_id=self.eos_token_id,
                        pad_token_id=self.eos_token_id,
                        stopping_criteria=StoppingCriteriaList([criterion]),
                        logits_processor=LogitsProcessorList(processors),
                        streamer=streamer,
                        **sampling,
                    )
                    holder["new"] = out[0, len(ids) :].tolist()
            except BaseException as exc:  # noqa: BLE001 - re-raised in the consumer
                holder["error"] = exc
                streamer.end()

        def pieces() -> Iterator[str]:
            thread = threading.Thread(target=work, name=f"generate-{self.name}", daemon=True)
            thread.start()
            keep = max((len(s) for s in stops), default=1) - 1
            text, sent, hit = "", 0, False
            try:
                for piece in streamer:
                    if hit:
                        continue
                    text += piece
                    cut, hit = _cut(text, stops, len(prefix) if holder.get("used") else 0)
                    upto = len(cut) if hit else max(sent, len(text) - keep)
                    if upto > sent:
                        yield cut[sent:upto]
                        sent = upto
                    if hit:
                        text = cut
                        cancel.set()
                if "error" not in holder and sent < len(text):
                    yield text[sent:]
            finally:
                cancel.set()
                thread.join()
            if "error" in holder:
                raise holder["error"]
            new = holder["new"]
            hit_eos = bool(new) and new[-1] == self.eos_token_id
            length = not hit_eos and not hit and len(new) >= max_tokens
            stream.result = GenerationResult(
                text=text.replace(END_OF_TURN, ""),
                prompt_tokens=holder["n_in"],
                completion_tokens=len(new),
                finish_reason="length" if length else "stop",
                prefix=prefix if holder["used"] else "",
            )

        stream = TextStream(pieces())
        return stream

    def _prefill(self, prompt: list[int], prefix: list[int], threshold: float | None) -> tuple[list[int], Any, bool]:
        """Decide on the prefix; returns ``(input ids, KV cache or None, prefix used)``."""
        if not prefix:
            return prompt, None, False
        if threshold is None:
            return prompt + prefix, None, True
        import torch

        full = prompt + prefix
        out = self.model(input_ids=torch.tensor([full]), use_cache=True, logits_to_keep=len(prefix) + 1)
        logprobs = torch.log_softmax(out.logits[0, :-1].float(), dim=-1)
        score = float(logprobs.gather(1, torch.tensor(prefix).unsqueeze(1)).sum())
        used = score >= threshold
        ids = full if used else prompt
        cache = out.cache
        cache.crop(len(ids) - 1 - len(full))  # negative: drop that many tokens; the last input is re-fed
        return ids, cache, used

    def prefix_logprob(self, messages: list[dict[str, str]], prefix: str) -> float:
        """Total log-probability that the assistant's reply to ``messages`` starts with ``prefix``."""
        import torch

        prompt = self.prompt_ids(messages)
        ids = list(self.tokenizer(prefix, add_special_tokens=False)["input_ids"])
        with self.lock, torch.inference_mode():
            out = self.model(input_ids=torch.tensor([prompt + ids]), logits_to_keep=len(ids) + 1)
            logprobs = torch.log_softmax(out.logits[0, :-1].float(), dim=-1)
            return float(logprobs.gather(1, torch.tensor(ids).unsqueeze(1)).sum())
