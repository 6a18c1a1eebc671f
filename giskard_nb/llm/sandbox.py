"""The one hardened Jinja sandbox every template of the package is rendered in, with resource limits.

User-supplied templates (judge prompts, also from uploaded Hub datasets, personas, generation prompts)
are code: a template must not be able to exhaust the machine. ``sandbox(...)`` builds a
``jinja2.sandbox.ImmutableSandboxedEnvironment`` that also enforces, per render:

- **time**: ``GISKARD_NB_TEMPLATE_TIMEOUT`` seconds (default 2.0), checked in every loop iteration,
  call, attribute access, operator and output chunk;
- **output size**: ``GISKARD_NB_TEMPLATE_MAX_OUTPUT`` characters (default 1,000,000), counting every
  ``{{ value }}`` written and the literal text of each loop iteration (also inside message blocks and
  macros, whose output is buffered);
- **range size**: ``range()`` yields at most ``GISKARD_NB_TEMPLATE_MAX_RANGE`` items (default 10,000);
- **big values are refused before they are built**: ``'a' * 10**9``, ``[0] * 10**9``, ``10 ** 10**9``,
  ``s + s`` past the output limit, and huge widths (``'a'|center(10**9)``, ``'%*s' % (10**9, 'a')``,
  ``'{:>999999999}'.format(1)``);
- **recursion**: a macro calling itself forever is stopped at Python's recursion limit.

Exceeding a limit raises ``TemplateLimitError`` naming the limit and the variable that changes it. Render
with ``render_limited(template, context)`` (``template.render`` would not apply the budget).
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from giskard_nb.errors import GiskardValidationError

__all__ = [
    "TemplateError",
    "TemplateLimitError",
    "TemplateLimits",
    "render_limited",
    "sandbox",
]


class TemplateError(GiskardValidationError):
    """A prompt template could not be found, compiled or rendered."""


class TemplateLimitError(TemplateError):
    """A template went past a resource limit (render time, output size, range size, value size)."""


@dataclass(frozen=True)
class TemplateLimits:
    """Per-render limits; ``TemplateLimits.from_env()`` reads the ``GISKARD_NB_TEMPLATE_*`` variables."""

    timeout: float = 2.0
    max_output: int = 1_000_000
    max_range: int = 10_000

    @classmethod
    def from_env(cls) -> TemplateLimits:
        return cls(
            timeout=_env_number("GISKARD_NB_TEMPLATE_TIMEOUT", cls.timeout, float),
            max_output=_env_number("GISKARD_NB_TEMPLATE_MAX_OUTPUT", cls.max_output, int),
            max_range=_env_number("GISKARD_NB_TEMPLATE_MAX_RANGE", cls.max_range, int),
        )


def _env_number(name: str, default: Any, kind: type) -> Any:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = None
    if value is None or value <= 0 or (isinstance(value, float) and not math.isfinite(value)):
        raise TemplateError(f"{name} must be a positive number, got {raw!r}")
    return value


@dataclass
class _Budget:
    limits: TemplateLimits
    label: str
    deadline: float = 0.0
    written: int = 0

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise TemplateLimitError(
                f"{self.label} exceeded the render time limit of {float(self.limits.timeout)} s "
                "(limit: GISKARD_NB_TEMPLATE_TIMEOUT)"
            )

    def write(self, size: int) -> None:
        self.written += size
        if self.written > self.limits.max_output:
            raise TemplateLimitError(
                f"{self.label} writes more than {self.limits.max_output:,} characters "
                "(limit: GISKARD_NB_TEMPLATE_MAX_OUTPUT)"
            )

    def refuse_size(self, what: str, size: float) -> None:
        if size > self.limits.max_output:
            raise TemplateLimitError(
                f"{self.label} would build {what} of about {size:,.0f} items, over the "
                f"{self.limits.max_output:,} limit (limit: GISKARD_NB_TEMPLATE_MAX_OUTPUT)"
            )


_budget: ContextVar[_Budget | None] = ContextVar("giskard_nb_template_budget", default=None)
_environments: dict[tuple[tuple[str, Any], ...], Any] = {}
_FORMAT_WIDTH = re.compile(r"\{[^{}]*:[^{}]*?(\d{7,})[^{}]*\}")
_PERCENT_WIDTH = re.compile(r"%[-+ #0]*(?:\d{7,}|\*)|%[-+ #0]*\d*\.(?:\d{7,}|\*)")
_WIDTH_FILTERS = ("center", "indent", "wordwrap", "format")


def _current() -> _Budget:
    budget = _budget.get()
    if budget is None:  # compile-time folding, or a plain render(): size limits only
        return _Budget(TemplateLimits.from_env(), "a template", deadline=math.inf)
    return budget


def render_limited(template: Any, context: dict[str, Any], *, label: str = "the template") -> str:
    """Render a template of ``sandbox()`` under the limits (streamed: checked chunk by chunk)."""
    limits = TemplateLimits.from_env()
    budget = _Budget(limits, label, deadline=time.monotonic() + limits.timeout)
    token = _budget.set(budget)
    try:
        chunks = []
        for chunk in template.generate(context):
            budget.check_time()
            budget.write(len(chunk))
            chunks.append(chunk)
        return "".join(chunks)
    except RecursionError:
        raise TemplateLimitError(
            f"{label} recursed too deeply (a macro or recursive loop that never ends?)"
        ) from None
    except MemoryError:
        raise TemplateLimitError(f"{label} ran out of memory while rendering") from None
    finally:
        _budget.reset(token)


def sandbox(**options: Any) -> Any:
    """The hardened sandbox with these ``jinja2.Environment`` options (one per distinct options)."""
    key = tuple(sorted(options.items(), key=lambda kv: kv[0]))
    try:
        env = _environments.get(key)
    except TypeError:  # unhashable option (a loader instance...): build a fresh one
        return _build(options)
    if env is None:
        env = _environments.setdefault(key, _build(options))
    return env


def _build(options: dict[str, Any]) -> Any:
    from jinja2 import nodes
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def limit_loops(tree: Any) -> Any:
        """Wrap every ``for`` loop's iterable so each iteration checks the budget."""
        for node in tree.find_all(nodes.For):
            if node.recursive:
                continue  # its recursive calls go through call(), which checks the budget
            literal = sum(len(d.data) for b in node.body for d in b.find_all(nodes.TemplateData))
            node.iter = nodes.Filter(
                node.iter, "_gnb_loop", [nodes.Const(literal)], [], None, None, lineno=node.lineno
            )
        return tree

    class LimitedSandbox(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**", "+", "%"})

        def _parse(self, source: str, name: str | None, filename: str | None) -> Any:
            return limit_loops(super()._parse(source, name, filename))

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            budget = _current()
            budget.check_time()
            _refuse_big_binop(budget, operator, left, right)
            return super().call_binop(context, operator, left, right)

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
            budget = _current()
            budget.check_time()
            _refuse_big_call(budget, __obj, args, kwargs)
            return super().call(__context, __obj, *args, **kwargs)

        def getattr(self, obj: Any, attribute: str) -> Any:
            _current().check_time()
            return super().getattr(obj, attribute)

        def getitem(self, obj: Any, argument: Any) -> Any:
            _current().check_time()
            return super().getitem(obj, argument)

    finalize = options.pop("finalize", None)

    def counted(value: Any) -> Any:
        value = finalize(value) if finalize is not None else value
        budget = _current()
        budget.check_time()
        budget.write(len(value) if isinstance(value, str) else len(str(value)))
        return value

    env = LimitedSandbox(finalize=counted, **options)
    env.globals["range"] = _limited_range
    env.filters["_gnb_loop"] = _limited_loop
    for name in _WIDTH_FILTERS:
        env.filters[name] = _width_checked(env.filters[name], name)
    return env


def _limited_range(*args: int) -> range:
    budget = _current()
    rng = range(*args)
    if len(rng) > budget.limits.max_range:
        raise TemplateLimitError(
            f"{budget.label} asks for range() of {len(rng):,} items, over the "
            f"{budget.limits.max_range:,} limit (limit: GISKARD_NB_TEMPLATE_MAX_RANGE)"
        )
    return rng


class _LimitedIterable:
    """A loop's iterable, checking the budget at each iteration (keeps ``len`` for ``loop.length``)."""

    def __init__(self, iterable: Iterable[Any], literal: int):
        self._iterable = iterable
        self._literal = literal

    def __len__(self) -> int:
        return len(self._iterable)  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[Any]:
        budget = _current()
        for item in self._iterable:
            budget.check_time()
            if self._literal:
                budget.write(self._literal)
            yield item


def _limited_loop(iterable: Any, literal: int) -> Any:
    if not hasattr(iterable, "__iter__") and not hasattr(iterable, "__getitem__"):
        return iterable  # let Jinja raise its own error
    if hasattr(iterable, "__len__"):
        return _LimitedIterable(iterable, literal)
    return iter(_LimitedIterable(iterable, literal))


def _refuse_big_binop(budget: _Budget, operator: str, left: Any, right: Any) -> None:
    if operator == "*":
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, str | bytes | list | tuple) and isinstance(count, int):
                budget.refuse_size("a repeated value", len(seq) * max(count, 0))
    elif operator == "**":
        if isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1:
            digits = right * math.log10(abs(left))
            if digits > 10_000:
                raise TemplateLimitError(
                    f"{budget.label} computes a power with about {digits:,.0f} digits "
                    "(over 10,000; the result would take the machine's memory)"
                )
    elif operator == "+":
        if isinstance(left, str | list | tuple) and isinstance(right, str | list | tuple):
            budget.refuse_size("a concatenated value", len(left) + len(right))
    elif operator == "%" and isinstance(left, str):
        _refuse_wide_format(budget, left, right, _PERCENT_WIDTH)


def _refuse_wide_format(budget: _Budget, text: str, args: Any, pattern: re.Pattern[str]) -> None:
    values = args if isinstance(args, tuple) else (args,)
    for match in pattern.finditer(text):
        if "*" in match.group(0):
            for value in values:
                if isinstance(value, int):
                    budget.refuse_size("a padded string", value)
        else:
            budget.refuse_size("a padded string", int(re.findall(r"\d{7,}", match.group(0))[0]))


def _refuse_big_call(budget: _Budget, obj: Any, args: tuple[Any, ...], kwargs: dict) -> None:
    obj = getattr(obj, "__wrapped__", obj)  # the sandbox wraps str.format
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, str | bytes):
        for value in (*args, *kwargs.values()):
            if isinstance(value, int) and not isinstance(value, bool):
                budget.refuse_size(f"a string ({getattr(obj, '__name__', 'method')})", value)
        if getattr(obj, "__name__", "") in ("format", "format_map") and isinstance(owner, str):
            _refuse_wide_format(budget, owner, (), _FORMAT_WIDTH)


def _width_checked(fn: Any, name: str) -> Any:
    import functools

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        budget = _current()
        budget.check_time()
        values = [a for a in args[1:] if isinstance(a, int) and not isinstance(a, bool)]
        values += [v for v in kwargs.values() if isinstance(v, int) and not isinstance(v, bool)]
        for value in values:
            budget.refuse_size(f"a string ({name} filter)", value)
        if name == "format" and args and isinstance(args[0], str):
            _refuse_wide_format(budget, args[0], tuple(args[1:]), _PERCENT_WIDTH)
        return fn(*args, **kwargs)

    return checked
