"""What every chart shares: a layout, escaped labels, frames from objects, empty figures.

The status order, colours and labels come from ``giskard_nb.palette`` (re-exported here)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from giskard_nb.errors import GiskardValidationError
from giskard_nb.palette import STATUS_COLORS, STATUS_LABELS, STATUSES

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

__all__ = [
    "STATUSES",
    "STATUS_COLORS",
    "STATUS_LABELS",
    "as_frame",
    "empty_figure",
    "label",
    "layout",
    "pass_rate",
]


def label(value: Any, limit: int = 60) -> str:
    """A chart label from untrusted text: bounded and HTML-escaped (Plotly renders a few tags)."""
    text = "(none)" if value is None or value != value else str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text, quote=False)


def layout(fig: go.Figure, title: str, **kwargs: Any) -> go.Figure:
    """The house layout: white template, a title, a legend on top, compact margins."""
    fig.update_layout(
        title={"text": html.escape(title, quote=False), "x": 0.01, "xanchor": "left"},
        template="plotly_white",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
        margin={"l": 10, "r": 10, "t": 70, "b": 40},
    )
    if kwargs:
        fig.update_layout(**kwargs)
    return fig


def empty_figure(title: str, message: str) -> go.Figure:
    """A figure that says why there is nothing to plot (instead of raising or drawing blank axes)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.add_annotation(
        text=html.escape(message, quote=False),
        showarrow=False,
        x=0.5,
        y=0.5,
        xref="paper",
        yref="paper",
        font={"size": 14, "color": "#555"},
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return layout(fig, title, height=220)


def as_frame(obj: Any, level: str, required: tuple[str, ...]) -> pd.DataFrame:
    """``obj`` as a DataFrame at ``level``: result objects go through ``to_dataframe``; a DataFrame is
    used as it is once it has the ``required`` columns."""
    import pandas as pd

    if isinstance(obj, pd.DataFrame):
        df = obj
    else:
        from giskard_nb.frames import to_dataframe

        df = to_dataframe(obj, level=level)
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise GiskardValidationError(
            f"this chart needs the columns {', '.join(missing)}: pass a result object, or the frame "
            f"of to_dataframe(level={level!r})"
        )
    return df


def pass_rate(counts: dict[str, int]) -> float | None:
    """The pass rate of status counts (``giskard_nb.core.pass_rate``: passed / (passed + failed +
    errored), None when nothing was judged)."""
    from giskard_nb.core.pass_rate import PassRate

    return PassRate.from_counts(counts).value
