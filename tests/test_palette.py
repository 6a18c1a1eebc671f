"""``giskard_nb.palette``: the one home of the status and grade colours (the scan categories are the scan
engine's, ``giskard_nb.scan.catalogue``)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from giskard_nb import palette
from giskard_nb.core import render
from giskard_nb.frames import _common
from giskard_nb.palette import STATUS_COLORS, STATUSES
from giskard_nb.scan.catalogue import CATEGORIES, owasp_short_id

PALETTE = Path(palette.__file__)


def test_the_palette_imports_only_the_standard_library():
    tree = ast.parse(PALETTE.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported - {"__future__"} <= set(sys.stdlib_module_names)


def test_every_view_takes_the_status_values_from_the_palette():
    from giskard_nb.charts import _style, results, scans
    from giskard_nb.scan import render as scan_render
    from giskard_nb.widgets import _common as widget_common

    assert render.STATUS_COLORS is STATUS_COLORS and widget_common.STATUS_COLORS is STATUS_COLORS
    assert _common.STATUSES is STATUSES and _style.STATUSES is STATUSES
    assert results.STATUS_COLORS is STATUS_COLORS
    assert scans.GRADE_COLORS is palette.GRADE_COLORS is scan_render.GRADE_COLORS
    assert set(STATUS_COLORS) == set(STATUSES) == set(palette.STATUS_LABELS)


def test_the_palette_holds_colours_only_and_the_scan_catalogue_the_categories():
    from giskard_nb import scan
    from giskard_nb.charts import scans

    assert not [n for n in vars(palette) if "CATEGOR" in n.upper() or "owasp" in n]
    assert scans.CATEGORIES is CATEGORIES is scan.CATEGORIES
    assert [c.id for c in scan.list_categories()] == [c.id for c in CATEGORIES]
    assert len({c.id for c in CATEGORIES}) == len(CATEGORIES)
    assert [owasp_short_id(c.owasp_id) for c in CATEGORIES[:2]] == ["LLM01", "LLM02"]


def test_owasp_short_id():
    assert owasp_short_id("LLM01:2025") == "LLM01"
    assert owasp_short_id(None) is None
