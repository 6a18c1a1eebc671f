"""Charts of Hub evaluations: failure categories (treemap with drill-down by check, or bars), pass rates
per check, tag or failure category with their 95 % intervals as error bars, and two evaluations
compared case by case (regressions pass→fail, fixes fail→pass).

Each function takes the Hub objects (an ``Evaluation``, an ``EvaluationComparison``) or the frames
their ``to_dataframe`` give, and returns a Plotly figure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from giskard_nb.charts._style import empty_figure, label, layout
from giskard_nb.errors import GiskardValidationError
from giskard_nb.palette import STATUS_COLORS

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

__all__ = [
    "failure_category_counts",
    "plot_comparison",
    "plot_failure_categories",
    "plot_pass_rates",
]

UNCATEGORIZED = "(uncategorized)"
_CHANGE_COLORS = {
    "pass→fail": STATUS_COLORS["fail"],
    "fail→pass": STATUS_COLORS["pass"],
    "unchanged": "#9e9e9e",
    "new": "#1565c0",
    "missing": "#6d4c41",
}


def failure_category_counts(results: pd.DataFrame, checks: pd.DataFrame) -> pd.DataFrame:
    """One row per (failure category, failing check) with the number of failed results:
    columns ``category``, ``check``, ``results``. A result counts once per check that failed."""
    import pandas as pd

    failed = results.loc[results["status"].astype(str) == "fail"].copy()
    title = failed.get("failure_category_title")
    ident = failed["failure_category"]
    failed["category"] = (title if title is not None else ident).fillna(ident)
    failed["category"] = failed["category"].astype("object").fillna(UNCATEGORIZED)
    bad = checks.loc[
        checks["status"].astype(str).isin(["fail", "error"]), ["result_id", "check_name"]
    ]
    joined = failed[["result_id", "category"]].merge(bad, on="result_id", how="left")
    joined["check"] = joined["check_name"].astype("object").fillna("(no failing check)")
    if joined.empty:
        return pd.DataFrame(columns=["category", "check", "results"])
    counts = joined.groupby(["category", "check"]).size().rename("results").reset_index()
    return counts.sort_values(["results", "category"], ascending=[False, True], ignore_index=True)


def _frames(evaluation: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    import pandas as pd

    if isinstance(evaluation, tuple) and len(evaluation) == 2:
        results, checks = evaluation
    elif hasattr(evaluation, "to_dataframe") and hasattr(evaluation, "failure_categories"):
        results, checks = evaluation.to_dataframe(), evaluation.to_dataframe(level="checks")
    else:
        raise GiskardValidationError(
            "plot_failure_categories takes a Hub Evaluation, or the pair (evaluation.to_dataframe(), "
            f"evaluation.to_dataframe(level='checks')); got {type(evaluation).__name__}"
        )
    if not (isinstance(results, pd.DataFrame) and isinstance(checks, pd.DataFrame)):
        raise GiskardValidationError("give the two DataFrames: results level, then checks level")
    for df, need in ((results, ("result_id", "status", "failure_category")), (checks, ("result_id", "check_name", "status"))):  # fmt: skip
        missing = [c for c in need if c not in df.columns]
        if missing:
            raise GiskardValidationError(f"this frame lacks the columns {', '.join(missing)}")
    return results, checks


def plot_failure_categories(evaluation: Any, *, kind: str = "treemap") -> go.Figure:
    """Why results failed: failed results per failure category, split by the check that failed.

    ``kind="treemap"``: click a category to drill down into its checks; ``kind="bar"``: horizontal
    bars per category, stacked by check."""
    import plotly.graph_objects as go

    if kind not in ("treemap", "bar"):
        raise GiskardValidationError(f"kind must be 'treemap' or 'bar', got {kind!r}")
    results, checks = _frames(evaluation)
    counts = failure_category_counts(results, checks)
    n_failed = int((results["status"].astype(str) == "fail").sum())
    title = f"Failure categories — {n_failed} failed of {len(results)} results"
    if counts.empty:
        return empty_figure("Failure categories", "No failed results: nothing to categorize.")
    if kind == "bar":
        fig = go.Figure()
        for check, part in counts.groupby("check", sort=True):
            fig.add_trace(
                go.Bar(
                    y=[label(c) for c in part["category"]],
                    x=part["results"].tolist(),
                    name=label(check),
                    orientation="h",
                    hovertemplate="%{y}<br>" + label(check) + ": %{x}<extra></extra>",
                )
            )
        totals = counts.groupby("category")["results"].sum().sort_values()
        fig.update_layout(barmode="stack")
        fig.update_yaxes(categoryorder="array", categoryarray=[label(c) for c in totals.index])
        fig.update_xaxes(title_text="failed results (per failing check)")
        return layout(fig, title, height=max(280, 100 + 30 * len(totals)))
    ids, labels, parents, values = [], [], [], []
    for category, part in counts.groupby("category", sort=False):
        cid = f"c:{category}"
        ids.append(cid)
        labels.append(label(category))
        parents.append("")
        values.append(0)  # branchvalues="remainder": a category's size is the sum of its checks
        for check, n in zip(part["check"], part["results"], strict=True):
            ids.append(f"{cid}/{check}")
            labels.append(label(check))
            parents.append(cid)
            values.append(int(n))
    fig = go.Figure(
        go.Treemap(
            ids=ids,
            labels=labels,
            parents=parents,
            values=values,
            branchvalues="remainder",
            textinfo="label+value",
            hovertemplate="%{label}: %{value} failed results<extra></extra>",
            marker={"colorscale": [[0, "#ffcdd2"], [1, STATUS_COLORS["fail"]]]},
        )
    )
    return layout(fig, title, height=420)


_METHODS = {"wilson": "Wilson", "bootstrap": "bootstrap over cases"}


def plot_pass_rates(evaluation: Any, *, by: str = "check") -> go.Figure:
    """Each pass rate of an evaluation as a bar with its 95 % interval as error bars: per check
    (``by="check"``), per tag (``"tag"``), or each failure category's share of the failed results
    (``"category"``). The hover says the counts and how the interval was computed (Wilson for one
    run of each test case, the bootstrap over cases with repeats). Give a Hub ``Evaluation`` or its
    ``EvaluationSummary``."""
    import plotly.graph_objects as go

    if by not in ("check", "tag", "category"):
        raise GiskardValidationError(f"by must be 'check', 'tag' or 'category', got {by!r}")
    summary = evaluation.summary() if hasattr(evaluation, "failure_categories") else evaluation
    if not hasattr(summary, "by_check") or not hasattr(summary, "to_dataframe"):
        raise GiskardValidationError(
            "plot_pass_rates takes a Hub Evaluation or its summary (evaluation.summary()); got "
            f"{type(evaluation).__name__}"
        )
    df = summary.to_dataframe(by=by)
    if by == "category":
        names, values = df["title"], df["share"]
        low, high = df["share_low"], df["share_high"]
        methods = [
            _METHODS[c.share_interval.method] if c.share_interval else ""
            for c in summary.by_category
        ]
        counts = [f"{n} of {summary.failed} failed results" for n in df["count"]]
        color, axis = STATUS_COLORS["fail"], "share of the failed results"
    else:
        df = df.loc[df["pass_rate"].notna()]
        names, values = df["name" if by == "check" else "tag"], df["pass_rate"]
        low, high = df["pass_rate_low"], df["pass_rate_high"]
        methods = [_METHODS.get(str(m), "") for m in df["interval_method"]]
        if by == "check":
            passed, counted = df["passed"], df["total"]
        else:
            passed, counted = df["pass"], df["pass"] + df["fail"] + df["error"]
        counts = [f"{int(p)} of {int(n)} passed" for p, n in zip(passed, counted, strict=True)]
        color, axis = STATUS_COLORS["pass"], "pass rate"
    title = f"{summary.name}: {axis} per {by}, with 95% intervals"
    if df.empty:
        return empty_figure(title, f"Nothing to plot: no {by} has a rate.")
    values = values.astype(float).tolist()
    plus = [max(h - v, 0.0) for v, h in zip(values, high.fillna(0).astype(float), strict=True)]
    minus = [max(v - lo, 0.0) for v, lo in zip(values, low.fillna(0).astype(float), strict=True)]
    hover = [
        f"{c}<br>95% interval {lo:.0%}–{h:.0%} ({m})"
        for c, lo, h, m in zip(counts, low.fillna(0), high.fillna(0), methods, strict=True)
    ]
    fig = go.Figure(
        go.Bar(
            y=[label(n) for n in names],
            x=values,
            orientation="h",
            marker_color=color,
            error_x={"type": "data", "array": plus, "arrayminus": minus, "visible": True},
            customdata=hover,
            hovertemplate="%{y}: %{x:.0%}<br>%{customdata}<extra></extra>",
        )
    )
    fig.update_xaxes(title_text=axis, range=[0, 1.05], tickformat=".0%")
    fig.update_yaxes(autorange="reversed")
    return layout(fig, title, height=max(280, 100 + 30 * len(values)))


def plot_comparison(comparison: Any, after: Any = None) -> go.Figure:
    """Two evaluations of the same dataset, case by case: how many went pass→fail (regressions),
    fail→pass (fixes), stayed the same, or changed otherwise. Give an ``EvaluationComparison``
    (``hub.evaluations.compare(before_id, after_id)``), or two Hub Evaluations."""
    import plotly.graph_objects as go

    if after is not None:
        hub = comparison.hub
        comparison = hub.evaluations.compare(comparison.id, after.id)
    if not hasattr(comparison, "cases") or not hasattr(comparison, "rates"):
        raise GiskardValidationError(
            "plot_comparison takes an EvaluationComparison (hub.evaluations.compare(before_id, "
            f"after_id)) or two Hub Evaluations; got {type(comparison).__name__}"
        )
    title_rates = " → ".join(f"{r.percent()} ({r.errored} errored)" for r in comparison.rates())
    title = (
        f"{comparison.before_name} → {comparison.after_name}: pass rate {title_rates}, "
        f"{len(comparison.regressions)} regressions, {len(comparison.fixes)} fixes"
    )
    if not comparison.cases:
        return empty_figure(title, "No test case in either evaluation.")
    groups: dict[str, list[str]] = {}
    for case in comparison.cases:
        groups.setdefault(case.change, []).append(case.question or case.test_case_id)
    order = sorted(groups, key=lambda c: (c not in ("pass→fail", "fail→pass"), c != "pass→fail", c))
    hover = []
    for change in order:
        names = [label(q, 80) for q in groups[change][:10]]
        more = len(groups[change]) - len(names)
        hover.append("<br>".join(names) + (f"<br>… and {more} more" if more > 0 else ""))
    fig = go.Figure(
        go.Bar(
            x=[label(c) for c in order],
            y=[len(groups[c]) for c in order],
            marker_color=[_CHANGE_COLORS.get(c, STATUS_COLORS["error"]) for c in order],
            text=[len(groups[c]) for c in order],
            textposition="outside",
            customdata=hover,
            hovertemplate="%{x}: %{y} test cases<br>%{customdata}<extra></extra>",
            cliponaxis=False,
        )
    )
    fig.update_yaxes(title_text="test cases")
    return layout(fig, title, height=360, margin_t=80)
