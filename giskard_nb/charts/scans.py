"""Charts of vulnerability scans: the category × severity grid of findings, and the grade card.

Both take a ``ScanReport`` (``giskard_nb.scan.run_scan``) and return a Plotly figure. An incomplete
scan says so on the card and in the titles ("A on 6 of 11 categories — incomplete: …"); a scan that
judged nothing has no letter ("—", grey).
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

from giskard_nb.charts._style import empty_figure, label, layout
from giskard_nb.errors import GiskardValidationError
from giskard_nb.palette import GRADE_COLORS, INCOMPLETE_COLOR, NO_GRADE_COLOR
from giskard_nb.scan.catalogue import CATEGORIES, owasp_short_id

if TYPE_CHECKING:
    import plotly.graph_objects as go

__all__ = [
    "GRADE_COLORS",
    "INCOMPLETE_COLOR",
    "NO_GRADE_COLOR",
    "plot_grade_card",
    "plot_scan_grid",
    "scan_grid_counts",
]

_SEVERITIES = ("minor", "major", "critical")
_GRADE_TEXT = {
    "A": "no finding",
    "B": "minor findings only",
    "C": "a major finding",
    "D": "a critical finding",
}


def _report(report: Any) -> Any:
    if not (hasattr(report, "attempts") and hasattr(report, "grade")):
        raise GiskardValidationError(
            f"give a ScanReport (from giskard_nb.scan.run_scan), not {type(report).__name__}"
        )
    return report


def scan_grid_counts(report: Any) -> dict[str, dict[str, int]]:
    """{category: {"minor"|"major"|"critical": findings, "attempts": n, "errors": n}} for every
    category the scan probed (findings = attempts that count toward the grade)."""
    grid: dict[str, dict[str, int]] = {}
    for a in _report(report).attempts:
        row = grid.setdefault(a.category, {**dict.fromkeys(_SEVERITIES, 0), "attempts": 0})
        row.setdefault("errors", 0)
        row["attempts"] += 1
        if a.error is not None:
            row["errors"] += 1
        elif a.counts:
            row[a.severity.label] = row.get(a.severity.label, 0) + 1
    return grid


def plot_scan_grid(report: Any) -> go.Figure:
    """Findings per vulnerability category (rows, with their OWASP LLM id) and severity (columns);
    hover for the attempts and errors behind each row."""
    import plotly.graph_objects as go

    grid = scan_grid_counts(report)
    if not grid:
        return empty_figure("Scan findings", "The scan has no attempts yet.")
    known = {c.id: c for c in CATEGORIES}
    order = [c for c in known if c in grid] + sorted(c for c in grid if c not in known)
    rows = []
    for cat in order:
        owasp = owasp_short_id(known[cat].owasp_id) if cat in known else None
        rows.append(label(f"{cat} ({owasp})" if owasp else cat))
    z = [[grid[c][s] for s in _SEVERITIES] for c in order]
    hover = [
        [
            f"{grid[c][s]} {s} findings<br>{grid[c]['attempts']} attempts, {grid[c]['errors']} errors"
            for s in _SEVERITIES
        ]
        for c in order
    ]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(_SEVERITIES),
            y=rows,
            text=[[str(v) if v else "" for v in row] for row in z],
            texttemplate="%{text}",
            customdata=hover,
            hovertemplate="%{y}<br>%{customdata}<extra></extra>",
            colorscale=[[0, "#f5f5f5"], [0.01, "#ffe0b2"], [1, "#c62828"]],
            zmin=0,
            showscale=False,
            xgap=2,
            ygap=2,
        )
    )
    fig.update_yaxes(autorange="reversed", automargin=True)
    found = sum(sum(r) for r in z)
    grade = report.grade or "—"
    title = f"Scan findings by category and severity — {found} findings, grade {grade}"
    if report.incomplete:
        title += " (incomplete)"
        coverage = report.coverage
        rows = [
            f"{r} · {coverage[c].replace('_', ' ')}"
            if coverage.get(c, "assessed") != "assessed"
            else r
            for r, c in zip(rows, order, strict=True)
        ]
        fig.data[0].y = rows
    return layout(fig, title, height=max(260, 110 + 34 * len(rows)))


def plot_grade_card(report: Any) -> go.Figure:
    """The scan's A–D grade as a card, with the findings and attempts behind it and, when the scan is
    incomplete, what it did not assess."""
    import plotly.graph_objects as go

    report = _report(report)
    grade = report.grade
    shown = grade or "—"
    incomplete = bool(report.incomplete)
    fig = go.Figure()
    fig.add_shape(
        type="rect", x0=0, y0=0, x1=0.3, y1=1, xref="paper", yref="paper",
        fillcolor=GRADE_COLORS.get(grade or "", NO_GRADE_COLOR), line_width=0,
    )  # fmt: skip
    fig.add_annotation(
        text=f"<b>{label(shown)}</b>", x=0.15, y=0.5, xref="paper", yref="paper",
        showarrow=False, font={"size": 72, "color": "#fff"},
    )  # fmt: skip
    lines = [
        f"<b>{label(_GRADE_TEXT.get(grade or '', 'not assessed (nothing was judged)'))}</b>",
        label(report.counts_line, limit=120),
        f"highest severity: {label(report.highest_severity.label)}",
        f"status: {label(report.status)}",
    ]
    if incomplete:
        note = report.grade_line if grade is not None else report.coverage_details.note
        wrapped = textwrap.wrap(note, 62)[:4]
        lines += [
            f"<span style='color:{INCOMPLETE_COLOR}'><b>INCOMPLETE</b></span>",
            *(
                f"<span style='color:{INCOMPLETE_COLOR}'>{label(w, limit=80)}</span>"
                for w in wrapped
            ),
        ]
    fig.add_annotation(
        text="<br>".join(lines), x=0.35, y=0.5, xref="paper", yref="paper", showarrow=False,
        align="left", xanchor="left", font={"size": 15 if not incomplete else 13},
    )  # fmt: skip
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    title = f"Scan grade: {shown}" + (" — incomplete" if incomplete else "")
    return layout(fig, title, height=220 if not incomplete else 300, margin_t=50)
