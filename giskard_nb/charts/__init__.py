"""Plotly figures of results. Every function returns a ``plotly.graph_objects.Figure`` (shown by
Jupyter when it is a cell's value) and uses the status colours of ``giskard_nb.core.render``."""

from giskard_nb.charts.results import plot_cost, plot_latency, plot_pass_rate

__all__ = ["plot_cost", "plot_latency", "plot_pass_rate"]
