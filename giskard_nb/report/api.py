"""``render_html`` and ``write_report``: one self-contained HTML page of an evaluation, a scan or a
comparison of two evaluations, from Hub records, Hub ids or in-memory results."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from giskard_nb.errors import GiskardNBError, GiskardValidationError, NotFoundError
from giskard_nb.report.pages import comparison_page, evaluation_page, scan_page
from giskard_nb.report.scan_views import comparison_view, scan_view, stored_scan_view
from giskard_nb.report.views import evaluation_view, suite_view

__all__ = ["find_record", "render_html", "write_report"]

_WHAT = (
    "an evaluation or a scan (a Hub record, or its id with hub=...), an EvaluationComparison, a "
    "SuiteResult or a ScanReport"
)


def find_record(hub: Any, ref: str) -> tuple[str, Any]:
    """``("evaluation" | "scan", record)`` whose id is ``ref`` or starts with it (a unique prefix)."""
    ref = (ref or "").strip()
    if not ref:
        raise GiskardValidationError("give an evaluation or a scan id (or the start of one)")
    for kind, resource in (("evaluation", hub.evaluations), ("scan", hub.scans)):
        try:
            return kind, resource.retrieve(ref)
        except NotFoundError:
            pass
    found = [("evaluation", e) for e in hub.evaluations.list() if e.id.startswith(ref)]
    found += [("scan", s) for s in hub.scans.list() if s.id.startswith(ref)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise NotFoundError(
            f"no evaluation or scan has an id starting with {ref!r} in {hub!r} (list them with: "
            "giskard-nb hub list evaluations, giskard-nb hub list scans)"
        )
    names = ", ".join(f"{kind} {r.id} ({r.name})" for kind, r in found[:10])
    raise GiskardValidationError(f"{ref!r} starts several ids: {names}; give more characters")


def _hub_of(record: Any, hub: Any) -> Any:
    return hub if hub is not None else record._require_hub()


def render_html(record_or_result: Any, after: Any = None, *, hub: Any = None) -> str:
    """A self-contained HTML page (inline style and charts, nothing fetched from the network; every
    text from an agent or a dataset escaped) of:

    - an ``Evaluation`` (a Hub record, or its id with ``hub=``): summary, failure categories, charts,
      each test case's conversation, reply and checks with their reasons;
    - two evaluations of the same dataset (``render_html(before, after)``, records or ids): the
      regressions (pass→fail) and fixes (fail→pass), case by case; or an ``EvaluationComparison``;
    - a ``Scan`` (record or id) or an engine ``ScanReport``: the grade card (grade and coverage per
      category) and the findings with their evidence (confirmed / suspected);
    - an in-memory ``SuiteResult``."""
    from giskard_nb.core.suite_result import SuiteResult
    from giskard_nb.hub.comparison import EvaluationComparison
    from giskard_nb.hub.models import Evaluation
    from giskard_nb.hub.models.scan import Scan
    from giskard_nb.scan.result import ScanReport

    obj = record_or_result
    if isinstance(obj, str):
        if hub is None:
            raise GiskardValidationError(f"render_html({obj!r}): pass hub=Hub(...) to read an id")
        obj = find_record(hub, obj)[1]
    if after is not None:
        if not isinstance(obj, Evaluation):
            raise GiskardValidationError("render_html(before, after): both must be evaluations")
        hub = _hub_of(obj, hub)
        after_id = after if isinstance(after, str) else getattr(after, "id", None)
        if not isinstance(after_id, str):
            raise GiskardValidationError(f"render_html(before, after): {after!r} is no evaluation")
        after_id = find_record(hub, after_id)[1].id
        obj = hub.evaluations.compare(obj.id, after_id)
    if isinstance(obj, EvaluationComparison):
        return comparison_page(comparison_view(obj))[0]
    if isinstance(obj, Evaluation):
        return evaluation_page(evaluation_view(_hub_of(obj, hub), obj))[0]
    if isinstance(obj, Scan):
        return scan_page(stored_scan_view(_hub_of(obj, hub), obj))[0]
    if isinstance(obj, ScanReport):
        return scan_page(scan_view(obj))[0]
    if isinstance(obj, SuiteResult):
        return evaluation_page(suite_view(obj))[0]
    raise GiskardValidationError(f"render_html: got {type(obj).__name__}; give {_WHAT}")


def write_report(
    record_or_result: Any, path: str | os.PathLike[str], after: Any = None, *, hub: Any = None
) -> Path:
    """``render_html(...)`` written to ``path`` (atomically: a reader never sees half a page)."""
    from giskard_nb.core.files import atomic_write

    html = render_html(record_or_result, after, hub=hub)
    target = Path(path).expanduser()
    try:
        with atomic_write(target) as handle:
            handle.write(html)
    except OSError as exc:
        raise GiskardNBError(
            f"cannot write the report to {str(target)!r} ({exc.strerror or exc}): choose a file "
            "in a folder you may write to"
        ) from None
    return target
