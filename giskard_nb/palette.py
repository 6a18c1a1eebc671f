"""The colours and labels every view draws from: the status order, colours and labels, and the grade
colours.

Why a module of its own: text reports (``core.render``), DataFrames (``frames``), charts (``charts``),
scan views (``scan.render``) and widgets all show the same statuses and grades, and must agree on their
order and colours. They sit in different layers, so the values live here, at the bottom of the house:
this module imports nothing (not even the rest of giskard_nb), and every layer may read it. The scan
categories (ids, titles, descriptions, OWASP ids, display order) are the scan engine's:
``giskard_nb.scan.catalogue.CATEGORIES``.
"""

from __future__ import annotations

__all__ = [
    "GRADE_COLORS",
    "INCOMPLETE_COLOR",
    "NO_GRADE_COLOR",
    "STATUSES",
    "STATUS_COLORS",
    "STATUS_LABELS",
]

#: Every status of a check, scenario or result, in display order (the categories of ``status`` columns).
STATUSES = ("pass", "fail", "error", "skip")

#: One colour per status, shared by reports, HTML views, widgets and charts.
STATUS_COLORS = {"pass": "#2e7d32", "fail": "#c62828", "error": "#ef6c00", "skip": "#757575"}

#: A status as a past participle, for legends ("3 passed").
STATUS_LABELS = {"pass": "passed", "fail": "failed", "error": "errored", "skip": "skipped"}

#: A scan grade's colour: A (nothing found) to D (a critical finding).
GRADE_COLORS = {"A": "#2e7d32", "B": "#9e9d24", "C": "#ef6c00", "D": "#c62828"}

#: The colour of a scan with no grade (nothing was judged), and of the "incomplete" badge.
NO_GRADE_COLOR = "#616161"
INCOMPLETE_COLOR = "#6a1b9a"
