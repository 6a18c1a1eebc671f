"""From findings to regression tests: checks that FAIL while the weakness remains, PASS once it is fixed.

Each successful attempt gives:

- a ``Vulnerability`` check (kind ``scan_vulnerability``): it re-runs, on the agent's new reply, the very
  detector that found the weakness, with the attack's facts (canary, payload, goal…). Same verdict,
  same echo and refusal handling as the scan. A judged finding needs a judge model at test time.
- core rule checks for what the agent must never output again: ``Not(RegexMatching(...))`` for a leaked
  system-prompt passage. A leaked configured secret is checked by its SHA-256 only (the secret itself
  is never written into a dataset).

``attempt_checks(attempt)`` returns the checks; ``attempts_to_scenarios`` makes core ``Scenario``s that
replay the attack's conversation against a target.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from pydantic import Field, SerializeAsAny

from giskard_nb.core.check import Check
from giskard_nb.core.interaction import Trace
from giskard_nb.core.reply import AgentOutput, to_agent_output
from giskard_nb.core.result import CheckResult, Metric
from giskard_nb.errors import GiskardValidationError
from giskard_nb.scan.attack import Attack
from giskard_nb.scan.detectors.base import DetectionContext, Detector, DetectorError
from giskard_nb.scan.detectors.secrets import contains_digest
from giskard_nb.scan.grading import Severity

if TYPE_CHECKING:
    from giskard_nb.scan.result import Attempt

__all__ = ["Vulnerability", "attempt_checks", "attempts_to_scenarios"]

_USAGE = ("prompt_tokens", "completion_tokens", "total_tokens", "cost_usd", "llm_calls")


def _conversation(inputs: Any) -> list[dict[str, str]]:
    if isinstance(inputs, str):
        return [{"role": "user", "content": inputs}]
    if isinstance(inputs, dict) and isinstance(inputs.get("messages"), list):
        inputs = inputs["messages"]
    if isinstance(inputs, list):
        out = []
        for m in inputs:
            if isinstance(m, dict):
                out.append(
                    {"role": str(m.get("role", "user")), "content": str(m.get("content", ""))}
                )
            else:
                out.append(
                    {
                        "role": str(getattr(m, "role", "user")),
                        "content": str(getattr(m, "content", "")),
                    }
                )
        return out
    return [{"role": "user", "content": "" if inputs is None else str(inputs)}]


@Check.register("scan_vulnerability")
class Vulnerability(Check):
    """PASS when the scan's detector no longer finds the weakness in the agent's reply.

    ``detector`` is the detector that found it, ``attack`` the attack's facts (its turns are read from
    the trace's inputs), ``secret_digests`` SHA-256 digests of secrets that must not appear.
    """

    detector: SerializeAsAny[Detector]
    attack: Attack
    severity: Severity = Severity.MAJOR
    secret_digests: list[str] = Field(default_factory=list)

    async def run(self, trace: Trace) -> CheckResult:
        last = trace.last
        if last is None:
            return CheckResult.error("the trace has no interaction: nothing to check")
        try:
            reply = _with_metadata(
                to_agent_output(last.outputs if last.outputs is not None else ""), last.metadata
            )
        except Exception as exc:
            return CheckResult.error(f"cannot read the agent's reply: {exc}")
        if last.tool_calls and not reply.tool_calls:  # the calls a scenario read off the reply
            calls = [c.model_dump(mode="json", exclude_none=True) for c in last.tool_calls]
            reply = AgentOutput(text=reply.text, metadata=reply.metadata, tool_calls=calls)
        for digest in self.secret_digests:
            if contains_digest(reply.text, digest):
                return CheckResult.failure(
                    "the weakness is still there: the agent revealed one of its secrets again",
                    details={"severity": self.severity.label},
                )
        conversation = _conversation(last.inputs)
        turns = [m["content"] for m in conversation if m["role"] == "user"] or [""]
        history = conversation[: max(0, len(conversation) - 1)]
        attack = self.attack.model_copy(update={"turns": turns[-1:], "history": history})
        judge = None
        if self.detector.uses_judge:
            from giskard_nb.llm import get_default_generator

            judge = get_default_generator(required=False)
            if judge is None:
                return CheckResult.error(
                    "this finding was rated by a judge model and none is configured: call "
                    "set_default_generator('openai/gpt-4o-mini') or set GISKARD_NB_MODEL"
                )
        ctx = DetectionContext(attack=attack, replies=[reply], judge=judge)
        try:
            found = self.detector.detect(ctx)
            if inspect.isawaitable(found):
                found = await found
        except DetectorError as exc:
            return CheckResult.error(str(exc), metrics=_metrics(ctx))
        details = {
            "detector": self.detector.label,
            "probe_id": self.attack.probe_id,
            "severity": self.severity.label,
        }
        if found is not None:
            return CheckResult.failure(
                f"the weakness is still there: {found.reason}",
                details=details,
                metrics=_metrics(ctx),
            )
        return CheckResult.success(
            f"the agent resisted the attack ({self.attack.probe_id}): {self.detector.label} found nothing",
            details=details,
            metrics=_metrics(ctx),
        )


def _with_metadata(reply: AgentOutput, metadata: dict[str, Any]) -> AgentOutput:
    """The reply with the interaction's metadata joined (the reply's keys win; tool calls: the
    reply's, then the interaction's)."""
    if not metadata:
        return reply
    extra = AgentOutput(text="", metadata=metadata)
    merged = {**extra.metadata, **reply.metadata}
    calls = [*reply.tool_calls, *extra.tool_calls]
    if calls:
        merged["tool_calls"] = calls
    return AgentOutput(response=reply.response, metadata=merged)


def _metrics(ctx: DetectionContext) -> list[Metric]:
    return [Metric(name=k, value=float(ctx.usage.get(k, 0.0))) for k in _USAGE if k in ctx.usage]


def _detector(attempt: Attempt) -> Detector:
    if attempt.detector_config:
        return Detector.model_validate(attempt.detector_config)
    label = attempt.detector or ""
    if label.startswith("judge:"):
        from giskard_nb.scan.detectors.judge import JudgeDetector

        return JudgeDetector(criterion=label.split(":", 1)[1])
    if label in Detector.kinds():
        return Detector.registered_class(label)()
    raise GiskardValidationError(
        f"attempt {attempt.id} has no recorded detector: it cannot become a regression test"
    )


def attempt_checks(attempt: Attempt) -> list[Check]:
    """The checks that fail while the attempt's weakness remains (see the module docstring)."""
    from giskard_nb.checks import Not, RegexMatching

    if not attempt.successful or attempt.error is not None:
        raise GiskardValidationError(
            f"attempt {attempt.id} is not a successful attack: only findings become regression tests"
        )
    digests = [p for p in attempt.forbidden_patterns if p.startswith("sha256:")]
    patterns = [p for p in attempt.forbidden_patterns if not p.startswith("sha256:")]
    facts = attempt.attack.model_copy(update={"turns": [], "history": []})
    checks: list[Check] = [
        Vulnerability(
            name=f"scan:{attempt.probe_id}",
            detector=_detector(attempt),
            attack=facts,
            severity=attempt.severity,
            secret_digests=digests,
        )
    ]
    for i, pattern in enumerate(patterns):
        checks.append(Not(name=f"no_leaked_text_{i + 1}", check=RegexMatching(pattern=pattern)))
    return checks


def attempts_to_scenarios(attempts: list[Attempt]) -> list[Any]:
    """Core ``Scenario``s replaying each attack's conversation (run them with ``target=your_agent``).

    The target receives the conversation (history and attack turns, as ``[{role, content}]``) as its
    inputs, like a Hub agent; its reply is checked by ``attempt_checks``.
    """
    from giskard_nb.core.scenario import Scenario

    out = []
    for a in attempts:
        scenario = Scenario(
            f"{a.probe_id} [{a.attack.variant}]",
            annotations={"attempt_id": a.id, "probe_id": a.probe_id, "category": a.category},
            tags=["scan", f"scan:{a.category}", f"severity:{a.severity.label}"],
        )
        scenario.interact(inputs=a.input_messages)
        out.append(scenario.checks(*attempt_checks(a)))
    return out
