"""The preflight of a Hub evaluation (``hub.evaluations.estimate``): calls, tokens, cost and time.

Nothing runs and nothing is stored. The test cases an evaluation would play (the dataset's active
ones having every tag asked) are read, and each enabled check spec is built as a run builds it
(``check_specs.build_check`` with the project's checks). A check calls a judge model when it carries
one (``WithGeneratorMixin``: every ``BaseLLMCheck`` and any custom check with a ``generator``); checks
inside a group (``AllOf``, ``AnyOf``, ``Not``) count too, each as often as its ``samples``. Rule and
embedding checks make no judge call. A spec that cannot be built makes no call and is named in
``warnings`` (the run records that test case as an error without calling the agent).

Tokens are approximated as the scan's preflight does (``giskard_nb.scan.budget``: four characters a
token, a reply counted as ``REPLY_TOKENS``, a judge prompt as ``JUDGE_OVERHEAD`` plus the conversation,
the reply and the check's params, a judge reply as ``JUDGE_COMPLETION``). The cost is that of the
judge calls, from litellm's price table (``None`` when a judge model's price is unknown or no judge
model is configured); the agent's own cost and the LLM failure categorization of failed cases are
not counted. Everything counted is multiplied by ``repeats``.

The time comes from the per-case durations (median ``duration_ms``) of the most recent finished
evaluation of the same dataset by the same agent: ceil(test cases × repeats / max_concurrency) ×
median duration. Without such an evaluation it is unknown, and ``time_basis`` says why.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from giskard_nb.core.check import Check
from giskard_nb.errors import ConfigError, GiskardNBError, GiskardValidationError
from giskard_nb.hub.check_specs import build_check
from giskard_nb.hub.models.check import HubCheck
from giskard_nb.hub.models.dataset import HubTestCase
from giskard_nb.hub.models.evaluation import Evaluation
from giskard_nb.llm.mixins import WithGeneratorMixin
from giskard_nb.scan.budget import (
    JUDGE_COMPLETION,
    JUDGE_OVERHEAD,
    REPLY_TOKENS,
    model_prices,
    tokens,
)

__all__ = ["EvaluationEstimate", "check_positive", "estimate_evaluation", "latest_comparable"]

#: Shown in place of a judge model when none is configured.
NO_JUDGE = "(no judge model configured)"


class EvaluationEstimate(BaseModel):
    """What an evaluation is expected to cost before it runs (see the module docstring)."""

    model_config = ConfigDict(frozen=True)

    dataset_id: str
    test_cases: int = 0
    repeats: int = 1
    max_concurrency: int = 8
    agent_calls: int = 0
    #: The prompt side of the agent calls: the conversations' tokens × repeats.
    agent_tokens: int = 0
    judge_calls: int = 0
    judge_prompt_tokens: int = 0
    judge_completion_tokens: int = 0
    #: USD of the judge calls; None when a judge model's price is unknown (``cost_note`` says which).
    cost_usd: float | None = 0.0
    #: Judge model -> judge calls ("(no judge model configured)" for checks that would error).
    judge_models: dict[str, int] = Field(default_factory=dict)
    #: The judge models whose price litellm's table does not know (the cost is then None).
    unpriced_models: list[str] = Field(default_factory=list)
    #: Check identifier -> judge calls (only the checks that call a judge).
    checks: dict[str, int] = Field(default_factory=dict)
    #: Expected wall-clock seconds, None when unknown (``time_basis`` says why).
    seconds: float | None = None
    time_basis: str = ""
    warnings: list[str] = Field(default_factory=list)

    @property
    def judge_tokens(self) -> int:
        return self.judge_prompt_tokens + self.judge_completion_tokens

    @property
    def cost_note(self) -> str:
        """The cost in words: ``$0.0123`` or why it is unknown."""
        if self.cost_usd is not None:
            return f"${self.cost_usd:.4f}"
        if NO_JUDGE in self.unpriced_models:
            return "unknown (no judge model configured)"
        return f"unknown (no price for {', '.join(self.unpriced_models)} in litellm's table)"

    def _time(self) -> str:
        if self.seconds is None:
            return f"time unknown ({self.time_basis})"
        return f"~{_duration(self.seconds)} ({self.time_basis})"

    def __str__(self) -> str:
        times = f" × {self.repeats} repeats" if self.repeats != 1 else ""
        judges = (
            f"{self.judge_calls} judge calls (~{self.judge_tokens:,} tokens), judge cost "
            f"{self.cost_note}"
            if self.judge_calls
            else "no judge call"
        )
        lines = [
            f"{self.test_cases} test cases{times}: {self.agent_calls} agent calls "
            f"(~{self.agent_tokens:,} prompt tokens), {judges}",
            f"at {self.max_concurrency} concurrent cases: {self._time()}",
        ]
        return "\n".join([*lines, *(f"warning: {w}" for w in self.warnings)])

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{escape(k)}</td><td>{n}</td></tr>" for k, n in sorted(self.checks.items())
        )
        table = f"<table><tr><th>check</th><th>judge calls</th></tr>{rows}</table>" if rows else ""
        warnings = "".join(f"<br><i>warning: {escape(w)}</i>" for w in self.warnings)
        head, time = escape(str(self).split("\n")[0]), escape(self._time())
        return f"<div><b>Evaluation estimate</b><br>{head}<br>{time}{table}{warnings}</div>"


def check_positive(name: str, value: Any) -> int:
    """``value`` as a whole number >= 1, else a ``GiskardValidationError`` saying so."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise GiskardValidationError(
            f"{name} must be a whole number >= 1, got {value!r}: e.g. {name}=1"
        )
    return value


def estimate_evaluation(
    dataset_id: str,
    cases: Sequence[HubTestCase],
    custom_checks: Mapping[str, HubCheck],
    *,
    repeats: int,
    max_concurrency: int,
    previous: Evaluation | None,
    durations: Iterable[float],
    no_previous: str,
) -> EvaluationEstimate:
    """The estimate for ``cases`` (see the module docstring). ``previous`` is the evaluation the time
    comes from, with the ``durations`` (ms) of its results; ``no_previous`` says why there is none."""
    built: dict[tuple[str, str], Check | None] = {}
    judged: dict[str, int] = {}
    per_model: dict[str, _Judge] = {}
    warnings: list[str] = []
    agent_tokens = 0
    for case in cases:
        conversation = sum(tokens(str(m.get("content") or "")) for m in case.conversation)
        agent_tokens += conversation
        for spec in (s for s in case.checks if s.enabled):
            params = json.dumps(spec.params, sort_keys=True, default=str)
            key = (spec.identifier, params)
            if key not in built:
                built[key] = _build(spec, custom_checks, warnings)
            check = built[key]
            for generator, calls in _judge_calls(check) if check is not None else ():
                judged[spec.identifier] = judged.get(spec.identifier, 0) + calls
                model = NO_JUDGE if generator is None else generator.model
                judge = per_model.setdefault(model, _Judge(generator))
                judge.calls += calls
                judge.prompt_tokens += calls * (
                    JUDGE_OVERHEAD + conversation + REPLY_TOKENS + tokens(params)
                )
    unpriced = sorted(m for m, j in per_model.items() if j.prices is None)
    cost = None if unpriced else repeats * sum(j.cost() for j in per_model.values())
    if NO_JUDGE in per_model:
        warnings.append(
            f"{per_model[NO_JUDGE].calls} judge calls per run have no judge model: those checks "
            "will error. Configure one: set_default_generator('openai/gpt-4o-mini') or "
            "GISKARD_NB_MODEL"
        )
    if not cases:
        warnings.append(
            "the dataset has no active test case with these tags: an evaluation would refuse to run"
        )
    calls = sum(j.calls for j in per_model.values())
    seconds, basis = _time(len(cases) * repeats, max_concurrency, previous, durations, no_previous)
    return EvaluationEstimate(
        dataset_id=dataset_id,
        test_cases=len(cases),
        repeats=repeats,
        max_concurrency=max_concurrency,
        agent_calls=len(cases) * repeats,
        agent_tokens=agent_tokens * repeats,
        judge_calls=calls * repeats,
        judge_prompt_tokens=sum(j.prompt_tokens for j in per_model.values()) * repeats,
        judge_completion_tokens=calls * JUDGE_COMPLETION * repeats,
        cost_usd=cost,
        judge_models={m: j.calls * repeats for m, j in per_model.items()},
        unpriced_models=unpriced,
        checks={k: n * repeats for k, n in judged.items()},
        seconds=seconds,
        time_basis=basis,
        warnings=warnings,
    )


class _Judge:
    """The judge calls of one model per run, its prompt tokens and its prices (None: unknown)."""

    def __init__(self, generator: Any):
        self.calls = self.prompt_tokens = 0
        self.prices = None if generator is None else model_prices(generator)

    def cost(self) -> float:
        """USD of these calls (0 when the price is unknown: the caller reports that)."""
        if self.prices is None:
            return 0.0
        return self.prompt_tokens * self.prices[0] + self.calls * JUDGE_COMPLETION * self.prices[1]


def _build(spec: Any, custom_checks: Mapping[str, HubCheck], warnings: list[str]) -> Check | None:
    """The check a spec describes, or None (and a warning) when it cannot be built."""
    try:
        return build_check(spec, custom_checks)
    except GiskardNBError as exc:
        warnings.append(
            f"check {spec.identifier!r} cannot be built ({exc}): counted as no judge call; the "
            "run records its test cases as errors without calling the agent"
        )
        return None


def latest_comparable(
    evaluations: Iterable[Evaluation], *, agent_id: str | None, agent_name: str | None
) -> Evaluation | None:
    """The most recent finished run (not a re-score) of the agent among ``evaluations``."""
    found = None
    for evaluation in evaluations:
        if evaluation.status != "finished" or evaluation.rescored_from is not None:
            continue
        if agent_id is not None and evaluation.agent_id != agent_id:
            continue
        if agent_id is None and (evaluation.agent_id is not None or not evaluation.local):
            continue
        if agent_id is None and evaluation.agent_name != agent_name:
            continue
        if found is None or _when(evaluation) >= _when(found):
            found = evaluation
    return found


def _when(evaluation: Evaluation) -> Any:
    return evaluation.finished_at or evaluation.created_at


def _judge_calls(check: Check) -> list[tuple[Any, int]]:
    """(judge generator, calls) of each judge a run of ``check`` may call, inner checks included;
    the generator is None when the check has none and no default is configured."""
    if isinstance(check, WithGeneratorMixin):
        try:
            generator = check.get_generator()
        except ConfigError:
            generator = None
        samples = getattr(check, "samples", 1)
        return [(generator, samples if isinstance(samples, int) and samples > 0 else 1)]
    found = []
    for name in type(check).model_fields:
        value = getattr(check, name, None)
        for inner in value if isinstance(value, list | tuple) else (value,):
            if isinstance(inner, Check):
                found.extend(_judge_calls(inner))
    return found


def _time(
    runs: int,
    max_concurrency: int,
    previous: Evaluation | None,
    durations: Iterable[float],
    no_previous: str,
) -> tuple[float | None, str]:
    if previous is None:
        return None, no_previous
    measured = [float(d) for d in durations if d is not None and math.isfinite(float(d))]
    if not measured:
        return None, f"evaluation {previous.name!r} ({previous.id}) stored no case duration"
    median = statistics.median(measured)
    waves = math.ceil(runs / max_concurrency)
    basis = (
        f"median {median:,.0f} ms per case in evaluation {previous.name!r} ({previous.id}), "
        f"{waves} wave{'s' if waves != 1 else ''} of {max_concurrency}"
    )
    return waves * median / 1000, basis


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    return f"{minutes // 60} h {minutes % 60} min"
