"""Charts of scenario and suite results: pass rate per check / tag / scenario, latency, cost.

Each function takes a result object (ScenarioResult, SuiteResult, a list of them) or the matching
DataFrame from ``to_dataframe``, and returns a Plotly figure; nothing is shown as a side effect.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from giskard_nb.charts._style import as_frame, empty_figure, label, layout, pass_rate
from giskard_nb.core.pass_rate import PassRate
from giskard_nb.errors import GiskardValidationError
from giskard_nb.palette import STATUS_COLORS, STATUS_LABELS, STATUSES

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

__all__ = ["plot_cost", "plot_latency", "plot_pass_rate", "status_bars"]

_BY = ("check", "tag", "scenario", "check_kind")


def status_bars(
    counts: pd.DataFrame,
    title: str,
    *,
    axis_title: str,
    intervals: dict[str, Any] | None = None,
) -> go.Figure:
    """Horizontal stacked bars: one bar per row of ``counts`` (index = group, columns = statuses),
    the pass rate written at the end of each bar (with its 95 % interval when ``intervals`` maps the
    group to one), groups sorted from worst to best pass rate."""
    import plotly.graph_objects as go

    counts = counts.reindex(columns=list(STATUSES), fill_value=0).fillna(0).astype(int)
    rates = {g: pass_rate(row.to_dict()) for g, row in counts.iterrows()}
    order = sorted(counts.index, key=lambda g: (-1 if rates[g] is None else rates[g], str(g)))
    counts = counts.loc[order[::-1]]  # plotly draws the first row at the bottom
    labels = [label(g) for g in counts.index]
    fig = go.Figure()
    for status in STATUSES:
        values = counts[status].tolist()
        fig.add_trace(
            go.Bar(
                y=labels,
                x=values,
                name=STATUS_LABELS[status],
                orientation="h",
                marker_color=STATUS_COLORS[status],
                hovertemplate=f"%{{y}}<br>{STATUS_LABELS[status]}: %{{x}}<extra></extra>",
                legendgroup=status,
            )
        )
    totals = counts.sum(axis=1)
    texts = [_rate_text(rates[g], (intervals or {}).get(g)) for g in counts.index]
    fig.add_trace(
        go.Scatter(
            y=labels,
            x=totals.tolist(),
            mode="text",
            text=texts,
            textposition="middle right",
            showlegend=False,
            hoverinfo="skip",
            cliponaxis=False,
        )
    )
    fig.update_layout(barmode="stack")
    fig.update_xaxes(title_text="count")
    fig.update_yaxes(title_text=axis_title, automargin=True)
    return layout(fig, title, height=max(260, 90 + 28 * len(labels)), margin_r=50)


def _rate_text(rate: float | None, interval: Any) -> str:
    if rate is None:
        return "—"
    if interval is None:
        return f"{rate:.0%}"
    return f"{rate:.0%} [{interval.low:.0%}–{interval.high:.0%}]"


def _intervals(result: Any, by: str, tag_key: str | None) -> dict[str, Any] | None:
    """Group label → 95 % interval, for a SuiteResult (Wilson, or the bootstrap with repeats)."""
    if by not in ("check", "tag") or not hasattr(result, "pass_rates"):
        return None
    missing = "(unnamed)" if by == "check" else "(untagged)"
    return {
        missing if g.name is None else str(g.name): g.interval
        for g in result.pass_rates(by=by, tag_key=tag_key)
    }


def _tags_long(df: pd.DataFrame, tag_key: str | None) -> pd.DataFrame:
    tags = df["tags"].map(lambda s: json.loads(s) if isinstance(s, str) else [])
    long = df.assign(tag=tags).explode("tag")
    long["tag"] = long["tag"].fillna("(untagged)")
    if tag_key is not None:
        key = tag_key.strip()
        name = long["tag"].str.partition(":")[0].str.strip()
        value = long["tag"].str.partition(":")[2].str.strip()
        long = long.assign(tag=value.where(value != "", "true")).loc[name == key]
    return long


def plot_pass_rate(result: Any, *, by: str = "check", tag_key: str | None = None) -> go.Figure:
    """Pass/fail/error/skip counts and the pass rate per check (``by="check"``), check kind, tag
    (``by="tag"``, or only the values of ``tag_key`` for tags like ``"topic:billing"``) or scenario."""
    if by not in _BY:
        raise GiskardValidationError(f"by must be one of {', '.join(map(repr, _BY))}, got {by!r}")
    if by in ("check", "check_kind"):
        df = as_frame(result, "checks", (by, "status"))
        unit, group = "check results", df[by].fillna("(unnamed)")
    else:
        df = as_frame(result, "scenarios", ("scenario", "status", "tags"))
        unit, group = "scenarios", df["scenario"]
        if by == "tag":
            df = _tags_long(df, tag_key)
            group = df["tag"]
    if df.empty:
        what = f"tag {tag_key!r}" if tag_key else "results"
        return empty_figure(f"Pass rate per {by}", f"No {what} to plot.")
    counts = (
        df.assign(_group=group.astype(str), _status=df["status"].astype(str))
        .groupby(["_group", "_status"])
        .size()
        .unstack(fill_value=0)
    )
    overall = PassRate.from_counts(df["status"].astype(str).value_counts().to_dict())
    suffix = (
        f" — {overall.percent()} of {unit} passed ({overall.note()})"
        if overall.value is not None
        else f" — {overall.text()}"
    )
    name = f"tag {tag_key!r}" if by == "tag" and tag_key else by.replace("_", " ")
    return status_bars(
        counts,
        f"Pass rate per {name}{suffix}",
        axis_title=name,
        intervals=_intervals(result, by, tag_key),
    )


def plot_latency(result: Any, *, level: str = "scenarios") -> go.Figure:
    """How long things took: a histogram of scenario durations stacked by status
    (``level="scenarios"``), or one box of durations per check (``level="checks"``)."""
    import plotly.graph_objects as go

    if level not in ("scenarios", "checks"):
        raise GiskardValidationError(f"level must be 'scenarios' or 'checks', got {level!r}")
    if level == "checks":
        df = as_frame(result, "checks", ("check", "duration_ms"))
        df = df.dropna(subset=["duration_ms"])
        if df.empty:
            return empty_figure("Check latency", "No check durations were recorded.")
        fig = go.Figure()
        for name, part in df.groupby(df["check"].fillna("(unnamed)").astype(str), sort=True):
            fig.add_trace(go.Box(x=part["duration_ms"].tolist(), name=label(name), boxpoints=False))
        fig.update_xaxes(title_text="duration (ms)")
        fig.update_layout(showlegend=False)
        return layout(fig, "Check latency", height=max(260, 90 + 32 * len(fig.data)))
    df = as_frame(result, "scenarios", ("status", "duration_ms"))
    if df.empty:
        return empty_figure("Scenario latency", "No scenarios to plot.")
    fig = go.Figure()
    for status in STATUSES:
        part = df.loc[df["status"] == status, "duration_ms"]
        if len(part):
            fig.add_trace(
                go.Histogram(
                    x=part.tolist(),
                    name=STATUS_LABELS[status],
                    marker_color=STATUS_COLORS[status],
                    nbinsx=30,
                )
            )
    fig.update_layout(barmode="stack")
    fig.update_xaxes(title_text="duration (ms)")
    fig.update_yaxes(title_text="scenarios")
    median = df["duration_ms"].median()
    return layout(fig, f"Scenario latency — median {median:.1f} ms", height=340)


def plot_cost(result: Any) -> go.Figure:
    """LLM cost per scenario (USD, from the usage metrics of LLM-backed checks), stacked by status,
    with tokens and calls in the hover."""
    import plotly.graph_objects as go

    df = as_frame(result, "scenarios", ("scenario", "status", "cost_usd", "total_tokens"))
    if df.empty or (df["cost_usd"].sum() == 0 and df["total_tokens"].sum() == 0):
        return empty_figure(
            "LLM cost per scenario",
            "No LLM usage recorded: cost and tokens come from LLM-backed checks (judges).",
        )
    use_cost = df["cost_usd"].sum() > 0
    column, unit = ("cost_usd", "USD") if use_cost else ("total_tokens", "tokens")
    fig = go.Figure()
    for status in STATUSES:
        part = df.loc[df["status"] == status]
        if len(part):
            fig.add_trace(
                go.Histogram(
                    x=part[column].tolist(),
                    name=STATUS_LABELS[status],
                    marker_color=STATUS_COLORS[status],
                    nbinsx=30,
                )
            )
    fig.update_layout(barmode="stack")
    fig.update_xaxes(title_text=f"per scenario ({unit})")
    fig.update_yaxes(title_text="scenarios")
    total = df[column].sum()
    calls = int(df["llm_calls"].sum()) if "llm_calls" in df else 0
    summary = f"${total:.4f}" if use_cost else f"{int(total)} tokens"
    return layout(fig, f"LLM cost per scenario — total {summary}, {calls} calls", height=340)
