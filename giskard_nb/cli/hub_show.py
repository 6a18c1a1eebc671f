"""``giskard-nb hub show ID``: one record of any kind, as text a terminal prints safely.

An evaluation: its summary, then its failed and errored test cases with their reasons; a result: the
test case, the conversation and every check with its status and message; a scan: its report and its
findings with their ids; an attempt: its verdict and conversation; a dataset: its test cases.
"""

from __future__ import annotations

from typing import Any

from giskard_nb.cli.output import cell, say, short_id, table
from giskard_nb.core.reply import last_user_content

__all__ = ["SHOWN_CASES", "question", "show", "verdict"]

#: How many failed and errored test cases ``show`` lists under an evaluation.
SHOWN_CASES = 20
_MESSAGE = 4000  # characters shown of one message of a conversation


def question(result: Any) -> str:
    """The last user message of a result's conversation."""
    return last_user_content(result.messages) or ""


def verdict(attempt: Any) -> str:
    """``vulnerable critical``, ``suspected major``, ``safe``, ``error``..."""
    if attempt.status in ("vulnerable", "suspected", "ignored"):
        return f"{attempt.status} {attempt.severity.name.lower()}"
    return attempt.status


def show(hub: Any, found: tuple[str, Any]) -> int:
    kind, record = found
    {
        "project": _project,
        "dataset": _dataset,
        "test case": _test_case,
        "evaluation": _evaluation,
        "result": _result,
        "scan": _scan,
        "attempt": _attempt,
    }.get(kind, _record)(hub, record)
    return 0


def _record(hub: Any, record: Any) -> None:
    say(repr(record))
    say(record.model_dump_json(indent=2))  # secrets masked


def _project(hub: Any, project: Any) -> None:
    say(repr(project))
    for what, listed in (
        ("agents", hub.agents.list(project_id=project.id)),
        ("datasets", hub.datasets.list(project_id=project.id)),
        ("evaluations", hub.evaluations.list(project_id=project.id)),
        ("scans", hub.scans.list(project_id=project.id)),
    ):
        say(f"  {what}: {len(listed)}")


def _dataset(hub: Any, dataset: Any) -> None:
    say(repr(dataset))
    cases = hub.test_cases.list(dataset.id)
    if cases:
        table(
            ("ID", "TEST CASE", "CHECKS"),
            [
                (short_id(c.id), cell(last_user_content(c.messages) or "", 80), _checks(c))
                for c in cases
            ],
        )


def _checks(case: Any) -> str:
    return ", ".join(spec.identifier for spec in case.checks) or "(none)"


def _test_case(hub: Any, case: Any) -> None:
    say(repr(case))
    say(f"dataset {short_id(case.dataset_id)}, tags: {', '.join(case.tags) or '(none)'}")
    _conversation([(m.role, m.content) for m in case.messages])
    if case.demo_output is not None:
        say(f"  (demo reply) {_clip(case.demo_output.content)}")
    say("Checks:")
    for spec in case.checks:
        off = "" if spec.enabled else " (disabled)"
        say(
            f"  {spec.identifier}{off} {spec.params}"
            if spec.params
            else f"  {spec.identifier}{off}"
        )
    if not case.checks:
        say("  (none: an evaluation skips this test case)")


def _evaluation(hub: Any, evaluation: Any) -> None:
    say(repr(evaluation))
    say(evaluation.summary())
    results = hub.evaluations.results
    bad = [
        r
        for status in ("fail", "error")
        for r in results.list(evaluation.id, status=status, limit=SHOWN_CASES)
    ][:SHOWN_CASES]
    total = evaluation.counts.get("fail", 0) + evaluation.counts.get("error", 0)
    if not bad:
        say("\nNo failed or errored test case.")
        return
    say(f"\nFailed and errored test cases ({total}; giskard-nb hub show ID shows one):")
    for r in bad:
        category = f" [{r.failure_category.title}]" if r.failure_category else ""
        say(f"  {short_id(r.id)}  {r.status.upper()}{category} {cell(question(r), 100)!r}")
        if r.agent_output is not None:
            say(f"      agent: {cell(r.agent_output.content, 200)!r}")
        say(f"      why:   {cell(r.reason or r.status, 300)}")
    if total > len(bad):
        say(
            f"  … {total - len(bad)} more: giskard-nb hub list results --evaluation "
            f"{short_id(evaluation.id)} --status fail (or error) --limit 0"
        )


def _result(hub: Any, result: Any) -> None:
    evaluation = hub.evaluations.retrieve(result.evaluation_id)
    say(
        f"Result {short_id(result.id)} of evaluation {short_id(evaluation.id)} {evaluation.name!r}: "
        f"{result.status.upper()} in {result.duration_ms:.0f} ms"
    )
    say(
        f"test case {short_id(result.test_case_id)}{_case_name(hub, result.test_case_id)}, tags: "
        f"{', '.join(result.tags) or '(none)'}"
    )
    if result.failure_category is not None:
        why = f": {result.failure_category_reason}" if result.failure_category_reason else ""
        say(f"failure category: {result.failure_category.title}{why}")
    turns = [(m.role, m.content) for m in result.messages]
    if result.agent_output is not None:
        turns.append((f"{result.agent_output.response.role} (agent)", result.agent_output.content))
    _conversation(turns)
    interactions = result.scenario_result.final_trace.interactions
    if len(interactions) > 1:
        say(f"Interactions ({len(interactions)}):")
        for number, step in enumerate(interactions, 1):
            say(f"  {number}. in:  {_clip(step.inputs)}")
            say(f"     out: {_clip(step.outputs)}")
    if result.error:
        say(f"Error: {_clip(result.error)}")
    say("Checks:")
    for check in result.checks:
        measured = []
        if check.score is not None:
            measured.append(f"score {check.score:.3g}")
        if check.threshold is not None:
            measured.append(f"threshold {check.threshold:.3g}")
        extra = f" ({', '.join(measured)})" if measured else ""
        message = f": {_clip(check.message)}" if check.message else ""
        say(f"  {check.status.upper():5} {check.name}{message}{extra}")
    if not result.checks:
        say(f"  (none: {result.scenario_result.skip_reason or 'no check ran'})")


def _case_name(hub: Any, test_case_id: str) -> str:
    from giskard_nb.errors import NotFoundError

    try:
        name = hub.test_cases.retrieve(test_case_id).name
    except NotFoundError:
        return " (deleted since)"
    return f" {name!r}" if name else ""


def _scan(hub: Any, scan: Any) -> None:
    say(repr(scan))
    say(scan.report().report())
    findings = [
        a
        for a in hub.scans.attempts.list(scan_id=scan.id, successful=True)
        if a.attempt.status in ("vulnerable", "suspected")
    ]
    if findings:
        say("\nAttempts with a finding (giskard-nb hub show ID shows the conversation):")
        table(
            ("ID", "VERDICT", "CATEGORY", "PROBE", "REASON"),
            [
                (
                    short_id(a.id),
                    verdict(a.attempt),
                    a.attempt.category,
                    a.attempt.probe_name,
                    cell(a.attempt.reason, 100),
                )
                for a in findings
            ],
        )


def _attempt(hub: Any, record: Any) -> None:
    attempt = record.attempt
    scan = hub.scans.retrieve(record.scan_id)
    evidence = f" ({attempt.evidence})" if attempt.evidence and attempt.successful else ""
    say(
        f"Attempt {short_id(record.id)} of scan {short_id(scan.id)} {scan.name!r}: "
        f"{verdict(attempt)}{evidence}"
    )
    say(f"probe: {attempt.probe_id} ({attempt.probe_name}), category {attempt.category}")
    if attempt.reason:
        say(f"reason: {_clip(attempt.reason)}")
    if attempt.excerpt:
        say(f"excerpt: {_clip(attempt.excerpt)}")
    if attempt.error:
        say(f"error: {_clip(attempt.error)}")
    turns = [(str(m.get("role", "?")), m.get("content", "")) for m in attempt.messages]
    if attempt.output and not (turns and turns[-1][0] == "assistant"):
        turns.append(("assistant", attempt.output))
    _conversation(turns)
    say(f"review: {attempt.review_status.value}")


def _conversation(turns: list[tuple[str, Any]]) -> None:
    say("Conversation:")
    for role, content in turns:
        text = _clip(content, _MESSAGE).replace("\n", "\n      ")
        say(f"  {role}: {text}")
    if not turns:
        say("  (empty)")


def _clip(value: Any, limit: int = 1000) -> str:
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return text
    return text[:limit] + f"… ({len(text) - limit} more characters)"
