"""CalibrationReport: a check's verdicts against human labels — the figures, the rows, the verdict,
their text, HTML, DataFrame and confusion chart. Built by ``giskard_nb.core.calibration``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from giskard_nb.stats.agreement import AgreementScores

__all__ = ["CalibrationReport"]


@dataclass(frozen=True)
class CalibrationReport:
    """A check's verdicts against human labels (see ``giskard_nb.core.calibration``)."""

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
