"""What can be known about a model string without a request: litellm can route it, the embedded
model or script exists, the provider's credentials are set; and provider errors as one clean line.

Imports litellm: only import this module from inside ``paperworks.models``.
"""

from __future__ import annotations

import re

from paperworks.core.paths import set_offline_env

set_offline_env()

import litellm  # noqa: E402

from paperworks.core.errors import UserError  # noqa: E402


def register_provider(name: str) -> None:
    """Make our in-process providers known to litellm, on first use of their prefix."""
    prefix = name.split("/", 1)[0]
    if any(e.get("provider") == prefix for e in litellm.custom_provider_map):
        return
    if prefix == "scripted":
        from paperworks.models.scripted import ScriptedProvider

        litellm.custom_provider_map.append({"provider": "scripted", "custom_handler": ScriptedProvider()})
    elif prefix == "local":
        from paperworks.models.local.provider import register

        register()


def supports_vision(name: str) -> bool:
    """Whether litellm knows ``name`` to accept images. The embedded local models do not; a scripted
    model does when its script says so (``register_script(..., vision=True)``)."""
    if name.startswith("scripted/"):
        from paperworks.models.scripted import sees_images

        return sees_images(name.split("/", 1)[1])
    if name.startswith("local/"):
        return False
    try:
        return bool(litellm.supports_vision(model=name))
    except Exception:
        return False


def validate_model_name(name: str) -> None:
    """Raise a one-line ``UserError`` if litellm cannot route ``name`` to a provider (an empty name, an empty
    model after the provider's ``/``, surrounding spaces or a control character in it included)."""
    if not isinstance(name, str) or not name.strip() or name != name.strip() or name.endswith("/") or \
            any(not c.isprintable() for c in name):  # a tab or newline is not printable; a space is
        raise UserError(f"malformed model string {name!r}: give provider/model, e.g. 'local/smollm2-135m', "
                        "'openai/gpt-4o-mini' or 'ollama_chat/qwen2.5'")
    register_provider(name)
    try:
        litellm.get_llm_provider(name)
    except Exception as exc:
        raise UserError(
            f"unknown model '{name}': give a litellm model string such as 'local/smollm2-135m', "
            "'openai/gpt-4o-mini' or 'ollama_chat/qwen2.5'"
        ) from exc


_NO_CREDENTIALS = ("local", "scripted", "ollama", "ollama_chat", "hosted_vllm", "lm_studio", "llamafile",
                   "openai_like", "custom_openai")
"""Providers that run without an API key (a local server's address has a default)."""


def check_model(name: str) -> None:
    """Everything about ``name`` that can be known without a request, as one-line ``UserError``s:
    litellm can route it, an embedded model or script by that name exists, and the provider's
    credentials are in the environment (naming the missing variable in full)."""
    validate_model_name(name)
    prefix, _, rest = name.partition("/")
    if prefix == "scripted":
        from paperworks.models.scripted import check_script

        check_script(rest)
    elif prefix == "local":
        from paperworks.models.local import known_local_models

        known = known_local_models()
        if rest.partition("@")[0] not in known:
            raise UserError(f"unknown local model '{name}'; embedded models: "
                            f"{', '.join('local/' + k for k in known)}")
        if "@" in rest:  # local/<model>@<DIR>: the PEFT LoRA adapter saved in DIR
            from paperworks.models.local.smollm import LocalModelError, check_adapter_dir, split_adapter

            try:
                adapter = split_adapter(rest)[1]
                if adapter is not None:
                    check_adapter_dir(adapter)
            except LocalModelError as exc:
                raise UserError(f"model '{name}': {exc}") from None
    else:
        check_credentials(name)


def check_credentials(name: str) -> None:
    """A one-line ``UserError`` naming the environment variable(s) a provider needs and lacks."""
    try:
        provider = litellm.get_llm_provider(name)[1]
    except Exception:
        provider = name.split("/", 1)[0]
    if provider in _NO_CREDENTIALS:
        return
    try:
        env = litellm.validate_environment(model=name)
    except Exception:  # litellm does not know what this provider needs: the first call will tell
        return
    missing = [k for k in env.get("missing_keys") or [] if not k.endswith("_API_BASE")]
    if env.get("keys_in_environment") is False and missing:
        which = missing[0] if len(missing) == 1 else " or ".join(missing)
        raise UserError(f"model '{name}' needs the environment variable {which}, which is not set")


_LITELLM_PREFIX = re.compile(r"^(?:litellm\.)?\w+(?:Error|Exception):\s*")
_NOISE = re.compile(r"\s*(?:Received Model Group=.*|Available Model Group Fallbacks=.*|LiteLLM Retried: .*"
                    r"|Give Feedback / Get Help.*|Provider List: .*|Traceback \(most recent call last\):.*)$",
                    re.DOTALL)
"""Trailers cut from a provider error: litellm's help and retry notes, and the traceback litellm appends to
the message of an exception raised inside a custom provider (the error stays one line)."""


def provider_message(exc: BaseException, limit: int = 250) -> str:
    """A provider error as ``Kind: message``, once: litellm's repeated ``litellm.KindError:`` prefixes
    and its help and retry trailers removed."""
    text = " ".join(str(getattr(exc, "message", None) or exc).split())
    while True:
        stripped = _LITELLM_PREFIX.sub("", text, count=1)
        if stripped == text:
            break
        text = stripped
    text = _NOISE.sub("", text).strip() or type(exc).__name__
    text = f"{type(exc).__name__}: {text}"
    return text if len(text) <= limit else text[: limit - 1] + "…"
