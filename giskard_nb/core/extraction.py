"""JSONPath over traces: validated when a check is built, compiled once, evaluated without dumping the trace.

Simple paths (``trace.last.outputs.answer``, ``trace.interactions[-1].metadata['model']``) are compiled into a
tuple of steps walked directly over the live objects. Anything richer (wildcards, slices, filters, ``..``) is
parsed by jsonpath-ng once and evaluated on a dump of the trace.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict

from giskard_nb.errors import GiskardValidationError

__all__ = [
    "MAX_PATH_LENGTH",
    "MAX_PATH_STEPS",
    "CompiledPath",
    "JSONPathStr",
    "NoMatch",
    "compile_path",
    "resolve",
    "resolve_value",
]


class NoMatch(BaseModel):
    """What ``resolve`` returns when the path matches nothing."""

    model_config = ConfigDict(defer_build=True, frozen=True)
    key: str

    def __str__(self) -> str:
        return f"No match for key: {self.key}"

    def __bool__(self) -> bool:
        return False


_TOKEN = re.compile(
    r"""\.(?P<name>[A-Za-z_][A-Za-z0-9_\-]*)      # .name
      | \[\s*(?P<index>-?\d+)\s*\]                # [0] or [-1]
      | \[\s*'(?P<sq>[^'\\]*)'\s*\]               # ['key']
      | \[\s*"(?P<dq>[^"\\]*)"\s*\]               # ["key"]
    """,
    re.VERBOSE,
)
_ROOT = re.compile(r"\s*(?P<root>\$|[A-Za-z_][A-Za-z0-9_]*)")
#: Bounds on a JSONPath (one from a dataset could otherwise exhaust the parser's recursion).
MAX_PATH_LENGTH = 1000
MAX_PATH_STEPS = 64


class CompiledPath:
    """A parsed path: ``root`` then either a tuple of simple ``steps`` or a jsonpath-ng expression."""

    __slots__ = ("expr", "is_list", "root", "source", "steps")

    def __init__(
        self, source: str, root: str, steps: tuple | None, expr: Any = None, is_list=False
    ):
        self.source, self.root, self.steps, self.expr, self.is_list = (
            source,
            root,
            steps,
            expr,
            is_list,
        )

    def find(self, data: Any) -> Any:
        """Evaluate on ``data`` (the object the root names). Returns a value, a list, or NoMatch.

        As in giskard-checks, a list-type path that matches nothing gives ``[]`` (not NoMatch).
        """
        if self.steps is not None:
            value = data
            for step in self.steps:
                value = _step(value, step)
                if value is _NOTHING:
                    return NoMatch(key=self.source)
            return _plain(value)
        root_data = _plain(data)
        matches = [
            m.value
            for m in self.expr.find({self.root: root_data} if self.root != "$" else root_data)
        ]
        if (
            not matches
        ):  # a list-type path (``[*]``, ``..``, slices, filters) over nothing is ``[]``
            return [] if self.is_list else NoMatch(key=self.source)
        if len(matches) == 1 and not self.is_list:
            return matches[0]
        return matches

    def __repr__(self) -> str:
        return f"CompiledPath({self.source!r})"


_NOTHING = object()


def _step(value: Any, step: str | int) -> Any:
    kind = type(value)
    if step.__class__ is int:
        if (
            kind is list
            or kind is tuple
            or (isinstance(value, Sequence) and not isinstance(value, str | bytes))
        ):
            try:
                return value[step]
            except IndexError:
                return _NOTHING
        return _NOTHING
    if kind is dict:
        return value.get(step, _NOTHING)
    if isinstance(value, BaseModel):
        fields = value.__dict__
        if step in fields:
            return fields[step]
        if step in kind.__pydantic_computed_fields__:
            return getattr(value, step)
        extra = value.__pydantic_extra__
        return extra.get(step, _NOTHING) if extra else _NOTHING
    if isinstance(value, Mapping):
        return value.get(step, _NOTHING)
    if value is None or isinstance(value, str | int | float | bool | list | tuple):
        return _NOTHING
    return getattr(value, step, _NOTHING)


def _plain(value: Any) -> Any:
    """Pydantic models become plain data, as if the path had been evaluated on a dump."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, list | tuple) and any(isinstance(v, BaseModel) for v in value):
        return [v.model_dump() if isinstance(v, BaseModel) else v for v in value]
    return value


@functools.lru_cache(maxsize=4096)
def compile_path(path: str) -> CompiledPath:
    """Parse ``path`` once (cached). Raises GiskardValidationError with the reason when it is invalid."""
    if not isinstance(path, str) or not path.strip():
        raise GiskardValidationError(f"a JSONPath must be a non-empty string, got {path!r:.200}")
    _check_size(path)
    m = _ROOT.match(path)
    if not m:
        raise GiskardValidationError(
            f"invalid JSONPath {path!r}: it must start with a name such as 'trace'"
        )
    root, pos, steps = m.group("root"), m.end(), []
    while pos < len(path):
        t = _TOKEN.match(path, pos)
        if t is None:
            break
        if t.group("name") is not None:
            steps.append(t.group("name"))
        elif t.group("index") is not None:
            steps.append(int(t.group("index")))
        else:
            steps.append(t.group("sq") if t.group("sq") is not None else t.group("dq"))
        pos = t.end()
    if pos == len(path.rstrip()):
        return CompiledPath(path, root, tuple(steps))
    return _compile_complex(path, root)


def _check_size(path: str) -> None:
    """Refuse a path too long to parse safely (the parser recurses once per step)."""
    steps = path.count(".") + path.count("[")
    if len(path) > MAX_PATH_LENGTH or steps > MAX_PATH_STEPS:
        raise GiskardValidationError(
            f"JSONPath {path[:60]!r}... is too long ({len(path)} characters, {steps} steps): a path "
            f"may have at most {MAX_PATH_LENGTH} characters and {MAX_PATH_STEPS} steps "
            "(such as 'trace.last.outputs.answer')"
        )


def _compile_complex(path: str, root: str) -> CompiledPath:
    from jsonpath_ng.ext import parse

    try:
        expr = parse(path)
        is_list = "*" in str(expr) or "?" in path or _contains(expr, _LIST_NODES)
    except RecursionError:
        raise GiskardValidationError(
            f"invalid JSONPath {path[:60]!r}...: too deeply nested to parse"
        ) from None
    except Exception as exc:
        raise GiskardValidationError(
            f"invalid JSONPath {path!r}: {exc}. Examples of valid paths: 'trace.last.outputs', "
            "'trace.interactions[0].metadata.model', 'trace.interactions[*].outputs'"
        ) from None
    return CompiledPath(path, root, None, expr, is_list)


_LIST_NODES = frozenset(
    {"Slice", "Descendants", "Union", "Intersect", "Where", "WhereNot", "Filter"}
)


def _contains(expr: Any, names: frozenset[str]) -> bool:
    """Whether the parsed expression has a list-producing node (matched by class name: some are deprecated)."""
    if type(expr).__name__ in names:
        return True
    return any(_contains(getattr(expr, a), names) for a in ("left", "right") if hasattr(expr, a))


def _validate_trace_path(path: str) -> str:
    compile_path(path)
    if path.strip() != "trace" and not path.lstrip().startswith(("trace.", "trace[", "$.trace")):
        raise GiskardValidationError(
            f"invalid JSONPath {path!r}: keys resolve against the trace and must start with 'trace.' "
            "(for example 'trace.last.outputs')"
        )
    return path


#: A string field validated (and compiled) as a JSONPath into the trace when the model is built.
JSONPathStr = Annotated[str, AfterValidator(_validate_trace_path)]


def resolve(trace: Any, path: str) -> Any:
    """Extract a value from ``trace`` with a JSONPath such as ``trace.last.outputs.answer``.

    Returns the single matched value, a list for list-valued expressions (wildcards, slices, ...), or a
    ``NoMatch`` when nothing matched.
    """
    compiled = compile_path(path)
    if compiled.root not in ("trace", "$"):
        raise GiskardValidationError(f"invalid JSONPath {path!r}: it must start with 'trace.'")
    if compiled.root == "$":
        return compiled.find({"trace": trace})
    return compiled.find(trace)


def resolve_value(root: Any, path: str) -> Any:
    """Evaluate ``path`` on any object (``$`` or any root name designates ``root`` itself)."""
    return compile_path(path).find(root)
