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
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

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

__all__ = ["MIN_LABELS", "CalibrationReport", "calibrate", "suggest_threshold"]

MIN_LABELS = 30
MIN_KAPPA = 0.6
MAX_F1_WIDTH = 0.3
_TEXT = 500


@dataclass(frozen=True)
class CalibrationReport:
    """A check's verdicts against human labels (see the module docstring)."""

    check: str
    scores: AgreementScores
    rows: list[dict[str, Any]]
    labelers: int
    interlabeler_kappa: float | None
    interlabeler_method: str | None
    unlabelled: int
    not_judged: int
    ties: int
    verdict: str
    reason: str
    current_threshold: float | None = None
    suggested_threshold: float | None = None
    threshold_agreement: float | None = None

    @property
    def n_labels(self) -> int:
        """Labelled verdicts compared (judged by the check and by people)."""
        return self.scores.n

    @property
    def disagreements(self) -> list[dict[str, Any]]:
        """The rows where the check and the people disagree."""
        return [r for r in self.rows if not r["agree"]]

    def summary(self) -> dict[str, Any]:
        """The figures as plain data."""
        s = self.scores

        def pair(interval: Any) -> list[float] | None:
            return None if interval is None else [interval.low, interval.high]

        return {
            "check": self.check,
            "n_labels": s.n,
            "agreement": s.agreement,
            "agreement_interval": pair(s.agreement_interval),
            "kappa": s.kappa,
            "kappa_interval": pair(s.kappa_interval),
            "precision": s.precision,
            "precision_interval": pair(s.precision_interval),
            "recall": s.recall,
            "recall_interval": pair(s.recall_interval),
            "f1": s.f1,
            "f1_interval": pair(s.f1_interval),
            "confusion": dict(s.confusion),
            "labelers": self.labelers,
            "interlabeler_kappa": self.interlabeler_kappa,
            "interlabeler_method": self.interlabeler_method,
            "unlabelled": self.unlabelled,
            "not_judged": self.not_judged,
            "ties": self.ties,
            "verdict": self.verdict,
            "reason": self.reason,
            "current_threshold": self.current_threshold,
            "suggested_threshold": self.suggested_threshold,
            "threshold_agreement": self.threshold_agreement,
        }

    def to_dataframe(self, *, disagreements_only: bool = False) -> Any:
        """One row per labelled verdict: ``scenario``, ``input``, ``output``, ``judge_passed``,
        ``human_passed``, ``agree``, ``judge_reason``, ``human_note``, ``labelers``, ``score``."""
        from giskard_nb.frames import calibration_frame

        return calibration_frame(self.disagreements if disagreements_only else self.rows)

    def plot_confusion(self) -> Any:
        """A Plotly heatmap: the check's verdicts against the human ones."""
        from giskard_nb.charts import plot_confusion

        return plot_confusion(self)

    def text(self) -> str:
        s = self.scores
        lines = [
            f"Calibration of {self.check!r}: {self.verdict.upper()} — {self.reason}",
            f"  {s.n} labelled verdicts ({self.labelers} labeler(s)); "
            f"{len(self.disagreements)} disagreements",
            f"  agreement {_num(s.agreement, s.agreement_interval)}",
            f"  kappa     {_num(s.kappa, s.kappa_interval, pct=False)}",
            f"  precision {_num(s.precision, s.precision_interval)} (positive: a failure)",
            f"  recall    {_num(s.recall, s.recall_interval)}",
            f"  F1        {_num(s.f1, s.f1_interval)}",
        ]
        if self.interlabeler_kappa is not None:
            lines.append(
                f"  between labelers: kappa {self.interlabeler_kappa:.2f} ({self.interlabeler_method})"
            )
        if self.suggested_threshold is not None:
            lines.append(
                f"  threshold {_opt(self.current_threshold)} → suggested "
                f"{self.suggested_threshold:.3f} (agreement {self.threshold_agreement:.0%})"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<CalibrationReport {self.check!r}: {self.verdict}, {self.scores.n} labels>"

    def __str__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        from giskard_nb.core.render import e, safe_html

        def render(report: CalibrationReport) -> str:
            rows = "".join(
                f"<tr><td>{e(r['scenario'] or '')}</td><td>{e(r['output'] or '')}</td>"
                f"<td>{'PASS' if r['judge_passed'] else 'FAIL'}</td>"
                f"<td>{'PASS' if r['human_passed'] else 'FAIL'}</td>"
                f"<td>{e(r['judge_reason'] or '')}</td><td>{e(r['human_note'] or '')}</td></tr>"
                for r in report.disagreements[:100]
            )
            return (
                f"<div><pre>{e(report.text())}</pre><table><tr><th>scenario</th><th>output</th>"
                f"<th>check</th><th>human</th><th>check's reason</th><th>note</th></tr>{rows}"
                "</table></div>"
            )

        return safe_html(render, self)


def _opt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:g}"


def _num(value: float | None, interval: Any, *, pct: bool = True) -> str:
    if value is None:
        return "n/a"
    if pct:
        shown = f"{value:.0%}"
        return shown + (f" [95% CI {interval.low:.0%}–{interval.high:.0%}]" if interval else "")
    shown = f"{_plain(value):.2f}"
    return shown + (
        f" [95% CI {_plain(interval.low):.2f}–{_plain(interval.high):.2f}]" if interval else ""
    )


def _plain(value: float) -> float:
    """``value`` rounded to 2 places, without a negative zero ("-0.00")."""
    return round(value, 2) + 0.0


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


def _human_verdicts(items: Iterable[Label]) -> dict[str, list[Label]]:
    """Labels per result key, one per labeler (the latest)."""
    latest: dict[tuple[str, str], Label] = {}
    for x in items:
        latest[(x.key, x.labeler)] = x
    out: dict[str, list[Label]] = {}
    for (key, _), x in latest.items():
        out.setdefault(key, []).append(x)
    return out


def _interlabeler(by_key: dict[str, list[Label]]) -> tuple[int, float | None, str | None]:
    labelers = {x.labeler for group in by_key.values() for x in group}
    shared = [g for g in by_key.values() if len(g) >= 2]
    if len(labelers) < 2 or not shared:
        return len(labelers), None, None
    if len({len(g) for g in shared}) == 1:
        return len(labelers), fleiss_kappa([[x.passed for x in g] for g in shared]), "Fleiss"
    by_labeler: dict[str, dict[str, bool]] = {}
    for g in shared:
        for x in g:
            by_labeler.setdefault(x.labeler, {})[x.key] = x.passed
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
    by_key = _human_verdicts(x for x in labels if x.check == check)
    judged: list[bool] = []
    human: list[bool] = []
    rows: list[dict[str, Any]] = []
    scores_seen: list[float | None] = []
    thresholds: list[float] = []
    unlabelled = not_judged = ties = 0
    for r in scenario_results(results):
        found = [c for c in r.check_results if c.check_name == check]
        if not found:
            continue
        group = by_key.get(result_key(r))
        if not group:
            unlabelled += 1
            continue
        verdict = next((c for c in found if c.status.value in ("pass", "fail")), None)
        if verdict is None:
            not_judged += 1
            continue
        votes = Counter(x.passed for x in group)
        if votes[True] == votes[False]:
            ties += 1
            continue
        human_passed = votes[True] > votes[False]
        judged.append(verdict.passed)
        human.append(human_passed)
        score = _score(verdict)
        scores_seen.append(score)
        threshold = verdict.details.get("threshold")
        if isinstance(threshold, int | float) and not isinstance(threshold, bool):
            thresholds.append(float(threshold))
        last = r.final_trace.last
        notes = "; ".join(f"{x.labeler}: {x.note}" for x in group if x.note)
        rows.append(
            {
                "scenario": r.scenario_name,
                "input": _text(last.inputs) if last else None,
                "output": _text(last.outputs) if last else None,
                "judge_passed": verdict.passed,
                "human_passed": human_passed,
                "agree": verdict.passed == human_passed,
                "judge_reason": _text(verdict.message),
                "human_note": notes or None,
                "labelers": len(group),
                "score": score,
            }
        )
    scores = agreement_scores(judged, human, confidence=confidence, seed=seed)
    labelers, inter, method = _interlabeler(by_key)
    verdict_word, reason = _verdict(scores, min_labels)
    current = thresholds[0] if thresholds else None
    suggestion = None
    if scores_seen and all(s is not None for s in scores_seen):
        suggestion = suggest_threshold([float(s) for s in scores_seen], human, current)  # type: ignore[arg-type]
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


def _text(value: Any) -> str | None:
    if value is None:
        return None
    from giskard_nb.core.render import short

    return short(value, _TEXT)
