"""Which tools were called: ``ToolCalled``, ``ToolNotCalled`` and ``ToolSequence``.

::

    ToolCalled("get_weather", arguments={"city": "Paris"})   # at least once, with these arguments
    ToolCalled(pattern=r"^search_", max_count=2, turn=-1)     # once or twice, in the last turn
    ToolNotCalled("delete_account")
    ToolSequence(expected=["search_flights", "book_flight"], mode="in_order")

A tool is named (``tool``, also the first positional argument; ``name`` is the check's own label, as
for every check) or matched by a regular expression (``pattern``, searched in the name);
``arguments`` are the expected subset of the call's arguments (compared as data: strings normalised,
``1.0`` equals ``1``). ``turn`` limits the check to one interaction (``-1``: the last).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from giskard_nb.checks.tools.common import (
    ToolCheck,
    args_diff,
    as_calls,
    calls_match,
    compile_pattern,
    normalise_args,
    short,
)
from giskard_nb.core.check import Check
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult, Metric
from giskard_nb.core.tools import ToolCall
from giskard_nb.errors import GiskardValidationError

__all__ = ["ToolCalled", "ToolNotCalled", "ToolSequence", "sequence_score"]


class _NamedTool(ToolCheck):
    tool: str | None = Field(default=None, description="the tool's exact name")
    pattern: str | None = Field(default=None, description="a regular expression searched in names")
    arguments: dict[str, Any] | None = Field(
        default=None, description="arguments the call must have (a subset of its arguments)"
    )

    def __init__(self, tool: str | None = None, /, **data: Any):
        if tool is not None:
            data["tool"] = tool
        super().__init__(**data)

    @model_validator(mode="before")
    @classmethod
    def _tool_alias(cls, data: Any) -> Any:
        # ``name`` is the check's own label (every check has one): the tool is ``tool``; a dict with
        # ``tool_name`` (DeepEval's word) is read as ``tool`` too
        if isinstance(data, dict) and "tool_name" in data and "tool" not in data:
            data = {**data, "tool": data["tool_name"]}
            data.pop("tool_name")
        return data

    @model_validator(mode="after")
    def _one_way(self) -> _NamedTool:
        if (self.tool is None) == (self.pattern is None):
            raise GiskardValidationError(
                f"{type(self).__name__} needs exactly one of tool='get_weather' or "
                "pattern=r'^search_'"
            )
        if self.tool is not None and not self.tool.strip():
            raise GiskardValidationError(f"{type(self).__name__}: tool must be a non-empty name")
        if self.pattern is not None:
            compile_pattern(self.pattern)
        return self

    def describe(self) -> str:
        what = repr(self.tool) if self.tool is not None else f"matching /{self.pattern}/"
        if self.arguments:
            what += f" with arguments {self.arguments!r:.200}"
        return f"tool {what}"

    def named(self, call: ToolCall) -> bool:
        if self.tool is not None:
            return call.name == self.tool.strip()
        return compile_pattern(self.pattern or "").search(call.name) is not None

    def matching(self, calls: list[ToolCall]) -> tuple[list[ToolCall], list[dict[str, Any]]]:
        """The calls that match, and the near misses (right tool, other arguments) with their diff."""
        hits, near = [], []
        want = normalise_args(self.arguments or {})
        for call in calls:
            if not self.named(call):
                continue
            diff = args_diff(want, normalise_args(call.arguments)) if self.arguments else []
            if diff:
                near.append({"call": short([call])[0], "diff": diff})
            else:
                hits.append(call)
        return hits, near


@Check.register("tool_called")
class ToolCalled(_NamedTool):
    """PASS when the tool was called between ``min_count`` (default 1) and ``max_count`` times (no
    limit by default) with the expected arguments."""

    failure_category: ClassVar[str | None] = "incorrect_answer"

    min_count: int = Field(default=1, ge=0)
    max_count: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _counts(self) -> ToolCalled:
        if self.max_count is not None and self.max_count < self.min_count:
            raise GiskardValidationError(
                f"ToolCalled: max_count ({self.max_count}) is below min_count ({self.min_count})"
            )
        return self

    def run(self, trace: Trace) -> CheckResult:
        calls = self.scope(trace)
        if isinstance(calls, CheckResult):
            return calls
        hits, near = self.matching(calls)
        count = len(hits)
        details = {
            "matched": short(hits),
            "count": count,
            "near_misses": near[:50],
            "turn": self.turn,
        }
        metrics = [Metric(name="count", value=float(count))]
        low = count < self.min_count
        high = self.max_count is not None and count > self.max_count
        if not (low or high):
            return CheckResult.success(
                f"{self.describe()} called {count} time(s) {self.where()}.",
                details=details,
                metrics=metrics,
            )
        bound = f"at least {self.min_count}" if low else f"at most {self.max_count}"
        message = f"{self.describe()} called {count} time(s) {self.where()}, expected {bound}"
        if low and near:
            message += f"; {len(near)} call(s) of the tool had other arguments"
        elif low and not calls:
            message += "; no tool was called"
        return CheckResult.failure(message + ".", details=details, metrics=metrics)


@Check.register("tool_not_called")
class ToolNotCalled(_NamedTool):
    """PASS when the tool (with ``arguments``, if given) was never called."""

    failure_category: ClassVar[str | None] = "policy_violation"

    def run(self, trace: Trace) -> CheckResult:
        calls = self.scope(trace)
        if isinstance(calls, CheckResult):
            return calls
        hits, _ = self.matching(calls)
        details = {"matched": short(hits), "count": len(hits), "turn": self.turn}
        if hits:
            return CheckResult.failure(
                f"{self.describe()} was called {len(hits)} time(s) {self.where()}: "
                + "; ".join(short(hits[:3])),
                details=details,
            )
        return CheckResult.success(
            f"{self.describe()} was not called {self.where()}.", details=details
        )


SequenceMode = Literal["exact", "in_order", "any_order", "subset", "superset"]


def _greedy(expected: list[ToolCall], actual: list[ToolCall], mode: str) -> list[tuple[int, int]]:
    """Pairs (expected index, actual index), each call used once; the expected calls with the most
    arguments pick first, so a bare name does not take the call a specific one needed."""
    used: set[int] = set()
    pairs = []
    order = sorted(range(len(expected)), key=lambda i: -len(str(expected[i].arguments)))
    for i in order:
        for j, call in enumerate(actual):
            if j not in used and calls_match(expected[i], call, mode=mode):
                used.add(j)
                pairs.append((i, j))
                break
    return sorted(pairs)


def _in_order(expected: list[ToolCall], actual: list[ToolCall], mode: str) -> list[tuple[int, int]]:
    """The longest common subsequence of the two lists (a call matching an expected one)."""
    n, m = len(expected), len(actual)
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            if calls_match(expected[i], actual[j], mode=mode):
                best[i][j] = best[i + 1][j + 1] + 1
            else:
                best[i][j] = max(best[i + 1][j], best[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if calls_match(expected[i], actual[j], mode=mode) and best[i][j] == best[i + 1][j + 1] + 1:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def sequence_score(
    expected: list[ToolCall], actual: list[ToolCall], mode: str, arguments: str = "subset"
) -> tuple[float, list[tuple[int, int]]]:
    """The partial credit (0 to 1) of ``actual`` against ``expected`` in ``mode``, and the matched
    pairs (expected index, actual index)."""
    if mode == "exact":
        pairs = [
            (i, i)
            for i in range(min(len(expected), len(actual)))
            if calls_match(expected[i], actual[i], mode=arguments)
        ]
        total = max(len(expected), len(actual))
    elif mode == "in_order":
        pairs, total = _in_order(expected, actual, arguments), len(expected)
    else:
        pairs = _greedy(expected, actual, arguments)
        total = {
            "any_order": max(len(expected), len(actual)),
            "subset": len(actual),
            "superset": len(expected),
        }[mode]
    return (len(pairs) / total if total else 1.0), pairs


@Check.register("tool_sequence")
class ToolSequence(ToolCheck):
    """The calls compared with ``expected`` (tool names, ``ToolCall`` objects or dicts) in ``mode``:

    - ``exact``: the same calls in the same order, nothing else;
    - ``in_order``: the expected calls in this order, other calls allowed between them;
    - ``any_order``: the same calls in any order, nothing else;
    - ``subset``: every call made is an expected one (some may be missing);
    - ``superset``: every expected call was made (others allowed).

    Arguments of an expected call are matched as a subset (``arguments="exact"`` for equality,
    ``"name"`` to ignore them). The metric ``score`` is the partial credit (matched calls over the
    expected, the actual or the larger count, by mode); PASS when ``score >= threshold`` (default 1).
    """

    failure_category: ClassVar[str | None] = "incorrect_answer"

    expected: list[ToolCall]
    mode: SequenceMode = "in_order"
    arguments: Literal["subset", "exact", "name"] = "subset"
    threshold: float = Field(default=1.0, ge=0.0, le=1.0)

    @field_validator("expected", mode="before")
    @classmethod
    def _calls(cls, value: Any) -> Any:
        return as_calls(value)

    def run(self, trace: Trace) -> CheckResult:
        calls = self.scope(trace)
        if isinstance(calls, CheckResult):
            return calls
        score, pairs = sequence_score(self.expected, calls, self.mode, self.arguments)
        got_e = {i for i, _ in pairs}
        got_a = {j for _, j in pairs}
        missing = [c for i, c in enumerate(self.expected) if i not in got_e]
        extra = [c for j, c in enumerate(calls) if j not in got_a]
        details = {
            "mode": self.mode,
            "score": score,
            "matched": short([calls[j] for _, j in pairs]),
            "missing": short(missing),
            "extra": short(extra),
            "turn": self.turn,
        }
        metrics = [Metric(name="score", value=score)]
        summary = f"{len(pairs)} of {len(self.expected)} expected call(s) matched ({self.mode})"
        if score >= self.threshold:
            return CheckResult.success(
                f"Tool sequence {self.where()}: {summary}, score {score:.2f}.",
                details=details,
                metrics=metrics,
            )
        parts = [summary, f"score {score:.2f} < {self.threshold:.2f}"]
        if missing:
            parts.append("missing " + ", ".join(str(c) for c in missing[:5]))
        if extra and self.mode in ("exact", "any_order", "subset"):
            parts.append("extra " + ", ".join(str(c) for c in extra[:5]))
        return CheckResult.failure(
            f"Tool sequence {self.where()} does not match: " + "; ".join(parts) + ".",
            details=details,
            metrics=metrics,
        )
