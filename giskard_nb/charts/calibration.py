"""The confusion chart of a calibration: a check's verdicts against the human ones (a 2×2 heatmap)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from giskard_nb.charts._style import label, layout

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from giskard_nb.core.calibration import CalibrationReport

__all__ = ["plot_confusion"]


def plot_confusion(report: CalibrationReport) -> go.Figure:
    """A heatmap: rows the check's verdict, columns the human verdict, each cell the count (with
    its share of the labelled verdicts); the title gives kappa and the verdict."""
    import plotly.graph_objects as go

    confusion = report.scores.confusion
    words = ("pass", "fail")
    z = [[confusion[f"judge_{j}_human_{h}"] for h in words] for j in words]
    total = max(1, report.scores.n)
    text = [[f"{v} ({v / total:.0%})" for v in row] for row in z]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=["human: PASS", "human: FAIL"],
            y=["check: PASS", "check: FAIL"],
            text=text,
            texttemplate="%{text}",
            colorscale="Blues",
            showscale=False,
            hovertemplate="%{y}, %{x}: %{z}<extra></extra>",
        )
    )
    kappa = report.scores.kappa
    shown = "n/a" if kappa is None else f"{kappa:.2f}"
    title = (
        f"{label(report.check)} vs human labels: {report.verdict} "
        f"(kappa {shown}, {report.scores.n} labels)"
    )
    fig.update_yaxes(autorange="reversed")
    return layout(fig, title)
