"""The topics of a knowledge base: documents per topic as horizontal bars, keywords on hover.

``plot_topics`` takes the knowledge base's name and its topics (objects with ``name``, ``position``,
``document_count``, ``keywords`` and ``named_by``, as the Hub's ``list_topics`` gives) and returns a
Plotly figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from giskard_nb.charts._style import empty_figure, label, layout

if TYPE_CHECKING:
    import plotly.graph_objects as go

__all__ = ["plot_topics"]


def plot_topics(kb_name: str, topics: Sequence[Any]) -> go.Figure:
    """Horizontal bars: documents per topic (largest on top), keywords on hover. Every label is
    escaped (topic names come from documents or a model)."""
    import plotly.graph_objects as go

    title = f"Topics of {kb_name}"
    if not topics:
        return empty_figure(title, "This knowledge base has no topic.")
    ordered = sorted(topics, key=lambda t: (t.document_count, t.name))
    names = [label(t.name) for t in ordered]
    if len(set(names)) < len(names):  # two names cut to the same label: keep the bars apart
        names = [f"{n} ({t.position})" for n, t in zip(names, ordered, strict=True)]
    figure = go.Figure(
        go.Bar(
            x=[t.document_count for t in ordered],
            y=names,
            orientation="h",
            customdata=[
                [label(", ".join(t.keywords[:6]) or "-", 120), t.named_by] for t in ordered
            ],
            hovertemplate=(
                "<b>%{y}</b><br>%{x} document(s)<br>keywords: %{customdata[0]}"
                "<br>named by: %{customdata[1]}<extra></extra>"
            ),
            marker_color="#4c78a8",
        )
    )
    return layout(
        figure,
        title,
        xaxis_title="documents (chunks)",
        height=max(260, 40 * len(ordered) + 120),
        showlegend=False,
    )
