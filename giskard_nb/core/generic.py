"""Type parameters for the core models, accepted for typing and ignored at run time.

``Trace[str, str]``, ``Check[str, str, Trace[str, str]]`` and friends (the giskard-checks spelling) return the
class itself: annotations and subclasses written for giskard-checks work unchanged, while the registry, the
``kind`` dispatch and ``isinstance`` keep seeing one class (no pydantic parametrized copies, no cost on the
hot path). The parameters are informative only: nothing is validated against them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Parametrizable"]


class Parametrizable:
    """Mixin: ``Cls[...]`` returns ``Cls`` (type parameters are for static typing only)."""

    __slots__ = ()

    def __class_getitem__(cls, params: Any) -> Any:
        return cls
