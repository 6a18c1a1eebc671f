"""Calibrate a check against human labels: how far its verdicts agree with the people who own the
product, and whether to trust it.

``calibrate(results, labels, check="groundedness")`` pairs each judged verdict (PASS or FAIL) of that
check with the human verdict on the same conversation (the majority of its labelers; ties are left
out) and reports the number of labels, raw agreement, Cohen's kappa, the check's precision, recall
and F1 (a *failure* is the positive class) with seeded bootstrap 95 % intervals, the agreement between
labelers when there are several, the disagreements as rows, and a plain verdict:

- ``"needs more labels"`` under ``min_labels`` (30) labelled verdicts, or when the labels hold one
  verdict only (kappa is undefined);
- ``"unreliable"`` when kappa < 0.6 or the F1 interval is wider than 0.3 (too few labels of the
  rarer verdict to say);
- ``"reliable"`` otherwise.

For a check that records a score in ``details["similarity"]`` (``SemanticSimilarity``) the report also
suggests the threshold that maximises agreement with the labels. Works for LLM judges, scored checks and
rule checks alike (any check with PASS/FAIL verdicts).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NamedTuple

from giskard_nb.core.calibration_report import CalibrationReport
from giskard_nb.core.labels import Label, LabelStore, result_key, scenario_results
from giskard_nb.errors import GiskardValidationError
from giskard_nb.stats.agreement import (
    AgreementScores,
    agreement_scores,
    fleiss_kappa,
    mean_pairwise_kappa,
)

if TYPE_CHECKING:
    from giskard_nb.core.result import CheckResult

__all__ = [
    "MIN_LABELS",
    "CalibrationItem",
    "CalibrationReport",
    "HumanLabel",
    "calibrate",
    "calibration_report",
    "suggest_threshold",
]

MIN_LABELS = 30
MIN_KAPPA = 0.6
MAX_F1_WIDTH = 0.3
_TEXT = 500


def _score(result: CheckResult) -> float | None:
    value = result.details.get("similarity")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None  # a stored detail is untrusted: only a finite number is a score
    return float(value)


def suggest_threshold(
    scores: list[float], human: list[bool], current: float | None = None
) -> tuple[float, float] | None:
    """The threshold ``t`` (PASS when score >= t) that maximises agreement with ``human``, and that
    agreement: candidates are the midpoints between consecutive scores and the two ends; among equally
    good thresholds the one closest to ``current``. None without scores."""
    if not scores:
        return None
    ordered = sorted(set(scores))
    middles = [(a + b) / 2 for a, b in pairwise(ordered)]
    candidates = [ordered[0], *middles, math.nextafter(ordered[-1], math.inf)]
    best: tuple[float, float, float] | None = None
    for t in candidates:
        agreement = sum((s >= t) == h for s, h in zip(scores, human, strict=True)) / len(scores)
        distance = abs(t - current) if current is not None else 0.0
        if best is None or (agreement, -distance) > (best[1], -best[2]):
            best = (t, agreement, distance)
    assert best is not None
    return best[0], best[1]


class HumanLabel(NamedTuple):
    """One person's verdict on one item (a ``Label`` has these fields too)."""

    labeler: str
    passed: bool
    note: str | None = None


@dataclass(frozen=True)
class CalibrationItem:
    """One verdict of the check to compare: the check's verdict (``judge_passed``), the human labels
    on the same conversation (``key``: the same key for the same conversation, so repeats share
    their labels), and what the disagreement rows show. The Hub builds these from its stored rows."""

    key: str
    judge_passed: bool
    labels: Sequence[HumanLabel]
    scenario: str | None = None
    input: str | None = None
    output: str | None = None
    judge_reason: str | None = None
    score: float | None = None
    threshold: float | None = None


def _latest_per_labeler(labels: Iterable[Any]) -> list[HumanLabel]:
    latest: dict[str, HumanLabel] = {}
    for x in labels:
        latest[x.labeler] = HumanLabel(x.labeler, x.passed, x.note)
    return list(latest.values())


def _interlabeler(items: Sequence[CalibrationItem]) -> tuple[int, float | None, str | None]:
    by_key = {item.key: _latest_per_labeler(item.labels) for item in items}
    labelers = {x.labeler for group in by_key.values() for x in group}
    shared = {k: g for k, g in by_key.items() if len(g) >= 2}
    if len(labelers) < 2 or not shared:
        return len(labelers), None, None
    if len({len(g) for g in shared.values()}) == 1:
        kappa = fleiss_kappa([[x.passed for x in g] for g in shared.values()])
        return len(labelers), kappa, "Fleiss"
    by_labeler: dict[str, dict[str, bool]] = {}
    for key, g in shared.items():
        for x in g:
            by_labeler.setdefault(x.labeler, {})[key] = x.passed
    return len(labelers), mean_pairwise_kappa(by_labeler), "mean pairwise Cohen"


def _verdict(scores: AgreementScores, min_labels: int) -> tuple[str, str]:
    if scores.n < min_labels:
        return "needs more labels", f"{scores.n} labelled verdicts, fewer than {min_labels}"
    if scores.kappa is None:
        return "needs more labels", "the labels hold one verdict only: label both kinds of answers"
    if scores.kappa < MIN_KAPPA:
        return "unreliable", f"kappa {scores.kappa:.2f} is below {MIN_KAPPA}"
    width = scores.f1_interval.width if scores.f1_interval else None
    if width is None or width > MAX_F1_WIDTH:
        shown = "undefined" if width is None else f"{width:.2f} wide"
        return "unreliable", (
            f"the F1 interval is {shown} (more than {MAX_F1_WIDTH}): label more failures"
        )
    return "reliable", f"kappa {scores.kappa:.2f}, F1 interval {width:.2f} wide"


def calibration_report(
    check: str,
    items: Sequence[CalibrationItem],
    *,
    unlabelled: int = 0,
    not_judged: int = 0,
    min_labels: int = MIN_LABELS,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> CalibrationReport:
    """The report of ``items`` (labelled PASS/FAIL verdicts of check ``check``); ``unlabelled`` and
    ``not_judged`` (verdicts that errored or were skipped) are counted, not compared. The human verdict
    of an item is the majority of its labelers (the latest label of each); ties are left out."""
    judged: list[bool] = []
    human: list[bool] = []
    rows: list[dict[str, Any]] = []
    scores_seen: list[float | None] = []
    thresholds = [i.threshold for i in items if i.threshold is not None]
    ties = 0
    for item in items:
        group = _latest_per_labeler(item.labels)
        votes = Counter(x.passed for x in group)
        if votes[True] == votes[False]:
            ties += 1
            continue
        human_passed = votes[True] > votes[False]
        judged.append(item.judge_passed)
        human.append(human_passed)
        scores_seen.append(item.score)
        notes = "; ".join(f"{x.labeler}: {x.note}" for x in group if x.note)
        rows.append(
            {
                "scenario": item.scenario,
                "input": item.input,
                "output": item.output,
                "judge_passed": item.judge_passed,
                "human_passed": human_passed,
                "agree": item.judge_passed == human_passed,
                "judge_reason": item.judge_reason,
                "human_note": notes or None,
                "labelers": len(group),
                "score": item.score,
            }
        )
    scores = agreement_scores(judged, human, confidence=confidence, seed=seed)
    labelers, inter, method = _interlabeler(items)
    verdict_word, reason = _verdict(scores, min_labels)
    current = thresholds[0] if thresholds else None
    suggestion = None
    if scores_seen and all(s is not None for s in scores_seen):
        suggestion = suggest_threshold(
            [float(s) for s in scores_seen if s is not None], human, current
        )
    return CalibrationReport(
        check=check,
        scores=scores,
        rows=rows,
        labelers=labelers,
        interlabeler_kappa=inter,
        interlabeler_method=method,
        unlabelled=unlabelled,
        not_judged=not_judged,
        ties=ties,
        verdict=verdict_word,
        reason=reason,
        current_threshold=current,
        suggested_threshold=suggestion[0] if suggestion else None,
        threshold_agreement=suggestion[1] if suggestion else None,
    )


def calibrate(
    results: Any,
    labels: Iterable[Label] | LabelStore | None = None,
    *,
    check: str,
    min_labels: int = MIN_LABELS,
    confidence: float = 0.95,
    seed: int | None = 0,
    path: Any = None,
) -> CalibrationReport:
    """Compare check ``check``'s verdicts in ``results`` (a SuiteResult, ScenarioResults) with the
    human ``labels`` (a list, a ``LabelStore``, or None for the labels file at ``path``)."""
    if not isinstance(check, str) or not check:
        raise GiskardValidationError("calibrate() needs check=<the name of a check>")
    store = labels if isinstance(labels, LabelStore) else None
    if labels is None or store is not None:
        labels = (store or LabelStore(path)).list(check=check)
    by_key: dict[str, list[Label]] = {}
    for x in labels:
        if x.check == check:
            by_key.setdefault(x.key, []).append(x)
    items: list[CalibrationItem] = []
    unlabelled = not_judged = 0
    for r in scenario_results(results):
        found = [c for c in r.check_results if c.check_name == check]
        if not found:
            continue
        key = result_key(r)
        if key not in by_key:
            unlabelled += 1
            continue
        verdict = next((c for c in found if c.status.value in ("pass", "fail")), None)
        if verdict is None:
            not_judged += 1
            continue
        threshold = verdict.details.get("threshold")
        last = r.final_trace.last
        items.append(
            CalibrationItem(
                key=key,
                judge_passed=verdict.passed,
                labels=by_key[key],
                scenario=r.scenario_name,
                input=_text(last.inputs) if last else None,
                output=_text(last.outputs) if last else None,
                judge_reason=_text(verdict.message),
                score=_score(verdict),
                threshold=float(threshold) if _is_number(threshold) else None,
            )
        )
    return calibration_report(
        check,
        items,
        unlabelled=unlabelled,
        not_judged=not_judged,
        min_labels=min_labels,
        confidence=confidence,
        seed=seed,
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    from giskard_nb.core.render import short

    return short(value, _TEXT)
