"""Plotly figures of results, evaluations, scans and knowledge-base topics. Every function returns a
Plotly ``Figure`` (shown by Jupyter when it is a cell's value). Charts read plain data only: result
objects, records or their frames, the status and grade colours of ``palette``, and the scan-category
catalogue of ``scan.catalogue``. May import: errors, palette, core, scan and frames."""

from giskard_nb.charts.calibration import plot_confusion
from giskard_nb.charts.evaluations import (
    plot_comparison,
    plot_failure_categories,
    plot_pass_rates,
)
from giskard_nb.charts.results import plot_cost, plot_latency, plot_pass_rate
from giskard_nb.charts.scans import plot_grade_card, plot_scan_grid
from giskard_nb.charts.tools import plot_tool_timeline
from giskard_nb.charts.topics import plot_topics

__all__ = [
    "plot_comparison",
    "plot_confusion",
    "plot_cost",
    "plot_failure_categories",
    "plot_grade_card",
    "plot_latency",
    "plot_pass_rate",
    "plot_pass_rates",
    "plot_scan_grid",
    "plot_tool_timeline",
    "plot_topics",
]
