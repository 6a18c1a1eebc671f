"""Self-contained HTML reports of evaluations, scans and comparisons, and the read-only local viewer
of a whole Hub (``giskard-nb report``, ``giskard-nb view``): pages built from one set of jinja2
templates with autoescape on, inline style and SVG charts, nothing fetched from the network. May
import: errors, palette, core, llm, scan, hub.

``render_html(record_or_result)`` returns the page; ``write_report(record_or_result, path)`` writes it.
"""

from giskard_nb.report.api import find_record, render_html, write_report
from giskard_nb.report.viewer import Viewer

__all__ = ["Viewer", "find_record", "render_html", "write_report"]
