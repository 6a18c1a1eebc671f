"""Type parameters for the core models, accepted for typing and ignored at run time.

``Trace[str, str]``, ``Check[str, str, Trace[str, str]]``, ``ScenarioResult[MyTrace]`` and friends (the
giskard-checks spelling) return the class itself: annotations and subclasses written for giskard-checks
work unchanged, while the registry, the ``kind`` dispatch and ``isinstance`` keep seeing one class (no
pydantic parametrized copies, no cost on the hot path). The parameters are informative only: nothing is
validated against them.

For type checkers, ``Parametrizable`` is ``Generic`` over a variadic ``Params``: a class declared as
``class ScenarioResult(Parametrizable[*Params], BaseModel)`` accepts any type arguments in
annotations (``ScenarioResult[MyTrace]``) without an error, and is the same class at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVarTuple

__all__ = ["Params", "Parametrizable"]

#: The variadic type parameter of the parametrizable models (for type checkers only).
Params = TypeVarTuple("Params")

if TYPE_CHECKING:

    class Parametrizable(Generic[*Params]):
        """Static view: generic over any number of type parameters."""

else:

    class Parametrizable:
        """Mixin: ``Cls[...]`` returns ``Cls`` (type parameters are for static typing only)."""

        __slots__ = ()

        def __class_getitem__(cls, params: Any) -> Any:
            return cls
