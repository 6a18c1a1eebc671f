"""``MISSING`` ("not given", distinct from ``None``) and the ``Value`` field type.

``MISSING`` is pydantic's own sentinel: fields holding it are omitted from every dump.
``Value`` is ``Any`` that refuses to dump a Python callable to JSON, with a message saying what to do.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, WrapSerializer

try:  # pydantic >= 2.14
    from pydantic import MISSING
except ImportError:  # pragma: no cover - pydantic 2.12/2.13
    from pydantic.experimental.missing_sentinel import MISSING

from giskard_nb.errors import SerializationError

__all__ = ["MISSING", "Value", "callable_name"]


def callable_name(value: Any) -> str:
    return getattr(value, "__qualname__", None) or type(value).__name__


def _serialize_value(value: Any, handler: Any, info: Any) -> Any:
    if (
        info.mode == "json"
        and callable(value)
        and not isinstance(
            value, type | BaseModel
        )  # a registered model with __call__ dumps as data
    ):
        raise SerializationError(
            f"cannot serialize the callable {callable_name(value)!r} to JSON: Python functions are "
            "not data. Use static values, bind the function at run time (Scenario.with_target, "
            "Suite(target=...), run(target=...)), or leave the field out "
            "(model_dump(mode='json', exclude=...))."
        )
    return handler(value)


#: ``Any`` that may hold a callable; dumping a callable to JSON raises a clear SerializationError.
Value = Annotated[Any, WrapSerializer(_serialize_value)]
