"""``Target``: the type of what a scenario calls (the reference's name), for annotations."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

__all__ = ["Target"]

#: A static output, or a sync/async callable of ``(inputs)`` or ``(inputs, trace)`` returning the
#: outputs (or an ``Interaction``).
Target: TypeAlias = Callable[..., Any] | Callable[..., Awaitable[Any]] | Any
