"""The engine interface (text + control vector + voice -> audio) and the engine registry.

An engine is any object with this shape (:class:`Engine`)::

    class MyEngine:
        name = "mytts"
        default_voice = "alice"
        def voices(self) -> list[str]: ...
        def render(self, text: str, control: ControlVector | None = None,
                   voice: str | None = None) -> Audio: ...
        def neutral(self, text: str, voice: str | None = None) -> Audio: ...

Plug one in with ``register_engine("mytts", MyEngine)`` (a zero-argument factory; the instance is
made on first use and kept), then ``render(text, control, voice, engine="mytts")`` or
``get_engine("mytts")``. Engines must raise :class:`~paperworks.core.errors.UserError` with one line
for empty text, unknown voices and out-of-bounds controls, import heavy libraries inside their
methods, and make ``render(text, ControlVector(), voice)`` equal ``neutral(text, voice)`` (the
reference every relative measurement uses). An engine that cannot honour a dimension should say so
in its docstring rather than ignore it silently. A model-served engine (e.g. a litellm speech model)
belongs in ``paperworks/models`` (only that layer imports litellm) and registers itself here.

Built in: ``espeak`` (:class:`~paperworks.tools.speech.offline.EspeakPsolaEngine`, offline).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from paperworks.core.errors import UserError
from paperworks.tools.speech.audio import Audio
from paperworks.tools.speech.control import ControlVector

DEFAULT_ENGINE = "espeak"
"""The engine used when none is named."""


@runtime_checkable
class Engine(Protocol):
    """Text + control vector + voice -> :class:`Audio`."""

    name: str
    default_voice: str

    def voices(self) -> list[str]:
        """Voices to use as distinct speakers."""
        ...

    def render(self, text: str, control: ControlVector | None = None, voice: str | None = None) -> Audio:
        """``text`` read by ``voice`` with ``control`` applied (neutral when None)."""
        ...

    def neutral(self, text: str, voice: str | None = None) -> Audio:
        """The neutral reading of ``text`` by ``voice`` (equal to ``render`` with a neutral control)."""
        ...


_FACTORIES: dict[str, Callable[[], Engine]] = {}
_INSTANCES: dict[str, Engine] = {}
_LOCK = threading.Lock()


def register_engine(name: str, factory: Callable[[], Engine], replace: bool = False) -> None:
    """Register an engine factory under ``name`` (a second registration needs ``replace=True``)."""
    with _LOCK:
        if name in _FACTORIES and not replace:
            raise UserError(f"speech engine '{name}' is already registered")
        _FACTORIES[name] = factory
        _INSTANCES.pop(name, None)


def engine_names() -> list[str]:
    """Registered engine names, sorted."""
    _builtins()
    return sorted(_FACTORIES)


def get_engine(name: str | None = None) -> Engine:
    """The engine called ``name`` (default :data:`DEFAULT_ENGINE`), made once and kept."""
    _builtins()
    name = name or DEFAULT_ENGINE
    with _LOCK:
        if name not in _FACTORIES:
            raise UserError(f"unknown speech engine '{name}'; registered engines: {', '.join(sorted(_FACTORIES))}")
        if name not in _INSTANCES:
            _INSTANCES[name] = _FACTORIES[name]()
        return _INSTANCES[name]


def render(text: str, control: ControlVector | None = None, voice: str | None = None,
           engine: str | None = None) -> Audio:
    """Render ``text`` with ``control`` (neutral when None) and ``voice`` on ``engine``."""
    return get_engine(engine).render(text, control, voice)


def neutral(text: str, voice: str | None = None, engine: str | None = None) -> Audio:
    """The neutral reading of ``text`` by ``voice`` on ``engine``."""
    return get_engine(engine).neutral(text, voice)


def _builtins() -> None:
    if DEFAULT_ENGINE not in _FACTORIES:
        from paperworks.tools.speech.offline import EspeakPsolaEngine

        with _LOCK:
            _FACTORIES.setdefault(DEFAULT_ENGINE, EspeakPsolaEngine)
