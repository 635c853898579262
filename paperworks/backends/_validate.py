"""Input checks shared by the compute backends: bad input raises :class:`BackendInputError`, one line naming
the argument, instead of broadcasting silently or returning NaN.

``BackendInputError`` is both a :class:`~paperworks.core.errors.UserError` (the CLI prints it as one line) and a
:class:`ValueError` (what callers of a numeric function expect). Imports torch only inside the functions.
"""

from __future__ import annotations

from typing import Any

from paperworks.core.errors import UserError


class BackendInputError(UserError, ValueError):
    """A backend function got an argument of the wrong shape, dtype or value."""


def check_shape(name: str, t: Any, shape: tuple[int, ...]) -> None:
    """``t`` must be a tensor of exactly ``shape``."""
    if tuple(t.shape) != tuple(shape):
        raise BackendInputError(f"{name} has shape {tuple(t.shape)}; expected {tuple(shape)}")


def check_ndim(name: str, t: Any, ndim: int) -> None:
    """``t`` must have ``ndim`` dimensions."""
    if t.dim() != ndim:
        raise BackendInputError(f"{name} must be {ndim}-D; got shape {tuple(t.shape)}")


def check_finite(name: str, t: Any) -> None:
    """``t`` holds no NaN or infinity (meta tensors, which hold no values, pass)."""
    import torch

    if t.device.type == "meta" or not (t.is_floating_point() or t.is_complex()):
        return
    if t.numel() and not bool(torch.isfinite(t).all()):
        raise BackendInputError(f"{name} contains NaN or infinity")


def check_integer(name: str, t: Any) -> None:
    """``t`` has an integer (or bool) dtype."""
    if t.is_floating_point() or t.is_complex():
        raise BackendInputError(f"{name} must be an integer tensor; got {t.dtype}")


def check_mask(name: str, t: Any) -> None:
    """``t`` holds only 0 and 1 (any dtype)."""
    import torch

    if t.device.type == "meta" or t.dtype == torch.bool:
        return
    if t.numel() and bool(((t != 0) & (t != 1)).any()):
        raise BackendInputError(f"{name} must hold only 0 and 1")
