"""Calling user functions whatever their signature: by parameter name, else by position.

``outputs=lambda inputs: ...``, ``outputs=lambda x: ...`` and ``outputs=lambda inputs, trace: ...`` all work:
parameters named after an available value receive it; the remaining positional parameters receive the
available values in their documented order; ``**kwargs`` receives every value by name.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from giskard_nb.errors import SignatureError

__all__ = ["Injector", "injector"]


class Injector:
    """A plan for calling ``fn`` with some of ``names`` (in that order of preference)."""

    __slots__ = ("fn", "kw_names", "pos_names")

    def __init__(self, fn: Callable, pos_names: tuple[str, ...], kw_names: tuple[str, ...]):
        self.fn, self.pos_names, self.kw_names = fn, pos_names, kw_names

    def call(self, values: dict[str, Any]) -> Any:
        args = [values[n] for n in self.pos_names]
        if self.kw_names:
            return self.fn(*args, **{n: values[n] for n in self.kw_names})
        return self.fn(*args)


@lru_cache(maxsize=2048)
def _plan(fn: Callable, names: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins without a signature: pass the first value
        return (names[:1], ())
    pos: list[str] = []
    kw: list[str] = []
    free = [n for n in names if n not in sig.parameters]
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            kw.extend(n for n in names if n not in pos and n not in kw)
            continue
        if p.kind is p.VAR_POSITIONAL:
            pos.extend(free[:1] if not pos else [])
            continue
        if p.name in names:
            (kw if p.kind is p.KEYWORD_ONLY else pos).append(p.name)
        elif p.default is not p.empty:
            continue
        elif p.kind is not p.KEYWORD_ONLY and free:
            pos.append(free.pop(0))
        else:
            raise SignatureError(
                f"cannot call {getattr(fn, '__qualname__', fn)!r}: Parameter {p.name!r} is required "
                "but not in the injection requirements (it has no default and no value is left to "
                f"fill it). It may take these values, by name or in this order: {', '.join(names)}."
            )
    return tuple(pos), tuple(kw)


def injector(fn: Callable, names: tuple[str, ...]) -> Injector:
    """Validate ``fn``'s signature against the values ``names`` it may receive; return a call plan."""
    try:
        pos, kw = _plan(fn, names)
    except TypeError:  # unhashable callable
        pos, kw = _plan.__wrapped__(fn, names)
    return Injector(fn, pos, kw)
