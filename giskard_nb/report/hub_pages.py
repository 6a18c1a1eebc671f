"""The viewer's pages of a Hub: projects → datasets, evaluations, scans → results → checks, findings,
comparisons, search. Each takes the Hub and the request's parts and returns the page and its nonce;
an unknown id raises ``NotFoundError`` (the viewer answers 404). Nothing here writes to the Hub."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from giskard_nb.core.reply import last_user_content
from giskard_nb.errors import GiskardValidationError, NotFoundError
from giskard_nb.report.page import render_page
from giskard_nb.report.pages import comparison_page, evaluation_page, scan_page
from giskard_nb.report.scan_views import comparison_view, stored_scan_view
from giskard_nb.report.views import evaluation_view, record_name, result_case

__all__ = ["PAGES", "error_page"]

Page = tuple[str, str]
#: Rows a listing shows before "… of N".
MAX_ROWS = 500


def _link(kind: str, record_id: str, text: str) -> dict[str, str]:
    return {"href": f"/{kind}/{quote(record_id, safe='')}", "text": text}


def _when(record: Any) -> str:
    return record.created_at.strftime("%Y-%m-%d %H:%M")


def _section(
    title: str, columns: list[str], rows: list[list[Any]], empty: str, **extra: Any
) -> dict[str, Any]:
    section_id = title.lower().replace(" ", "-")
    more = max(len(rows) - MAX_ROWS, 0)
    return {
        "id": section_id,
        "title": title,
        "columns": columns,
        "rows": rows[:MAX_ROWS],
        "more": more,
        "empty": empty,
        "form": None,
        **extra,
    }


def _listing(heading: str, sections: list[dict[str, Any]], **context: Any) -> Page:
    context.setdefault("crumbs", [])
    context.setdefault("intro", "")
    context.setdefault("search", None)
    return render_page(
        "listing.html.j2",
        title=f"{heading} — giskard-nb",
        live=True,
        heading=heading,
        sections=sections,
        **context,
    )


def _evaluation_rows(evaluations: list[Any]) -> list[list[Any]]:
    return [
        [_link("evaluations", e.id, e.name), e.status, e.rate.text(), e.agent_name, _when(e)]
        for e in reversed(evaluations)
    ]


def _scan_rows(scans: list[Any]) -> list[list[Any]]:
    return [
        [_link("scans", s.id, s.name), s.status, s.grade_line, s.counts_line, _when(s)]
        for s in reversed(scans)
    ]


EVAL_COLUMNS = ["evaluation", "status", "pass rate", "agent", "created"]
SCAN_COLUMNS = ["scan", "status", "grade", "findings", "created"]


def index(hub: Any, query: Mapping[str, str]) -> Page:
    rows = []
    for p in hub.projects.list():
        rows.append(
            [
                _link("projects", p.id, p.name),
                len(hub.datasets.list(project_id=p.id)),
                len(hub.evaluations.list(project_id=p.id)),
                len(hub.scans.list(project_id=p.id)),
                _when(p),
            ]
        )
    return _listing(
        "Projects",
        [
            _section(
                "Projects",
                ["project", "datasets", "evaluations", "scans", "created"],
                rows,
                "This Hub has no project yet.",
            )
        ],
        intro="A read-only view of the Hub: nothing here changes it.",
    )


def project(hub: Any, project_id: str, query: Mapping[str, str]) -> Page:
    p = hub.projects.retrieve(project_id)
    datasets = [
        [_link("datasets", d.id, d.name), len(hub.test_cases.list(d.id)), _when(d)]
        for d in hub.datasets.list(project_id=p.id)
    ]
    return _listing(
        f"Project {p.name}",
        [
            _section("Datasets", ["dataset", "test cases", "created"], datasets, "No dataset."),
            _section(
                "Evaluations",
                EVAL_COLUMNS,
                _evaluation_rows(hub.evaluations.list(project_id=p.id)),
                "No evaluation.",
            ),
            _section(
                "Scans", SCAN_COLUMNS, _scan_rows(hub.scans.list(project_id=p.id)), "No scan."
            ),
        ],
        crumbs=[("/", "Projects")],
    )


def _project_crumbs(hub: Any, project_id: str) -> list[tuple[str, str]]:
    try:
        name = hub.projects.retrieve(project_id).name
    except NotFoundError:
        return [("/", "Projects")]
    return [("/", "Projects"), (f"/projects/{quote(project_id, safe='')}", name)]


def dataset(hub: Any, dataset_id: str, query: Mapping[str, str]) -> Page:
    d = hub.datasets.retrieve(dataset_id)
    cases = []
    for case in hub.test_cases.list(d.id):
        question = last_user_content(case.messages) or ""
        checks = ", ".join(c.identifier for c in case.checks)
        cases.append([question, checks, ", ".join(case.tags)])
    return _listing(
        f"Dataset {d.name}",
        [
            _section(
                "Evaluations",
                EVAL_COLUMNS,
                _evaluation_rows(hub.evaluations.list(dataset_id=d.id)),
                "No evaluation.",
            ),
            _section("Test cases", ["question", "checks", "tags"], cases, "No test case."),
        ],
        crumbs=_project_crumbs(hub, d.project_id),
    )


def _page_number(query: Mapping[str, str]) -> int:
    try:
        return max(1, min(int(query.get("page") or 1), 10_000))
    except ValueError:
        return 1


#: The last evaluation views built (filtering a 1,000-case evaluation again reads nothing twice),
#: keyed by what changes when a result is written or relabelled.
_VIEWS: dict[tuple[Any, ...], Any] = {}
_MAX_VIEWS = 4


def _evaluation_view(hub: Any, e: Any) -> Any:
    key = (
        id(hub),
        e.id,
        e.updated_at,
        e.status,
        sorted(e.counts.items()),
        sorted(e.failure_categories.items()),
    )
    key = tuple(str(k) for k in key)
    if key not in _VIEWS:
        while len(_VIEWS) >= _MAX_VIEWS:
            _VIEWS.pop(next(iter(_VIEWS)))
        _VIEWS[key] = evaluation_view(hub, e)
    return _VIEWS[key]


def evaluation(hub: Any, evaluation_id: str, query: Mapping[str, str]) -> Page:
    e = hub.evaluations.retrieve(evaluation_id)
    others = [
        (o.id, f"{o.name} ({_when(o)})")
        for o in reversed(hub.evaluations.list(dataset_id=e.dataset_id))
        if o.id != e.id
    ]
    crumbs = [
        *_project_crumbs(hub, e.project_id),
        (f"/datasets/{quote(e.dataset_id)}", record_name(hub.datasets, e.dataset_id)),
    ]
    return evaluation_page(
        _evaluation_view(hub, e),
        live=True,
        filters=query,
        page=_page_number(query),
        crumbs=crumbs,
        compare_with=others,
    )


def result(hub: Any, evaluation_id: str, result_id: str, query: Mapping[str, str]) -> Page:
    e = hub.evaluations.retrieve(evaluation_id)
    r = hub.evaluations.results.retrieve(result_id)
    if r.evaluation_id != e.id:
        raise NotFoundError(f"evaluation {evaluation_id} has no result {result_id}")
    crumbs = [*_project_crumbs(hub, e.project_id), (f"/evaluations/{quote(e.id)}", e.name)]
    return render_page(
        "result.html.j2",
        title=f"Result — {e.name} — giskard-nb",
        live=True,
        crumbs=crumbs,
        cases=[("", result_case(r))],
    )


def scan(hub: Any, scan_id: str, query: Mapping[str, str]) -> Page:
    s = hub.scans.retrieve(scan_id)
    return scan_page(
        stored_scan_view(hub, s),
        live=True,
        filters=query,
        page=_page_number(query),
        crumbs=_project_crumbs(hub, s.project_id),
    )


def compare(hub: Any, query: Mapping[str, str]) -> Page:
    before, after = query.get("before"), query.get("after")
    if before and after:
        try:
            return comparison_page(
                comparison_view(hub.evaluations.compare(before, after)), live=True
            )
        except GiskardValidationError as exc:
            return _listing("Cannot compare", [], intro=str(exc))
    sections = []
    for d in hub.datasets.list():
        evaluations = list(reversed(hub.evaluations.list(dataset_id=d.id)))
        if len(evaluations) < 2:
            continue
        rows = [
            [
                {"radio": "before", "value": e.id},
                {"radio": "after", "value": e.id},
                _link("evaluations", e.id, e.name),
                e.rate.text(),
                _when(e),
            ]
            for e in evaluations
        ]
        sections.append(
            _section(
                f"Dataset {d.name}",
                ["before", "after", "evaluation", "pass rate", "created"],
                rows,
                "",
                form="/compare",
                button="Compare",
            )
        )
    return _listing(
        "Compare two evaluations",
        sections,
        intro="Pick two evaluations of the same dataset: before, then after.",
    )


def compare_case(hub: Any, query: Mapping[str, str]) -> Page:
    test_case = query.get("test_case") or ""
    cases = []
    for side in ("before", "after"):
        e = hub.evaluations.retrieve(query.get(side) or "")
        found = hub.evaluations.results.list(e.id, test_case_id=test_case)
        if found:
            cases.append((f"{side} ({e.name}): ", result_case(found[0])))
    if not cases:
        raise NotFoundError(f"neither evaluation has a result for test case {test_case!r}")
    return render_page(
        "result.html.j2",
        title="Compared test case — giskard-nb",
        live=True,
        cases=cases,
        crumbs=[
            (
                "/compare?"
                + "&".join(f"{k}={quote(query.get(k) or '')}" for k in ("before", "after")),
                "comparison",
            )
        ],
    )


def search(hub: Any, query: Mapping[str, str]) -> Page:
    q = (query.get("q") or "").strip()[:200]
    sections = []
    if q:
        needle = q.lower()

        def hit(*texts: str) -> bool:
            return any(needle in (t or "").lower() for t in texts)

        projects = [
            [_link("projects", p.id, p.name), _when(p)]
            for p in hub.projects.list()
            if hit(p.name, p.id)
        ]
        datasets = [
            [_link("datasets", d.id, d.name), _when(d)]
            for d in hub.datasets.list()
            if hit(d.name, d.id)
        ]
        evaluations = [e for e in hub.evaluations.list() if hit(e.name, e.id, e.agent_name)]
        scans = [s for s in hub.scans.list() if hit(s.name, s.id, s.agent_name)]
        sections = [
            _section("Projects", ["project", "created"], projects, "No project matches."),
            _section("Datasets", ["dataset", "created"], datasets, "No dataset matches."),
            _section(
                "Evaluations", EVAL_COLUMNS, _evaluation_rows(evaluations), "No evaluation matches."
            ),
            _section("Scans", SCAN_COLUMNS, _scan_rows(scans), "No scan matches."),
        ]
    return _listing(
        "Search",
        sections,
        search=q,
        intro="Names and ids of projects, datasets, evaluations and scans; an evaluation's page "
        "searches its results, a scan's its findings.",
    )


def error_page(status: int, heading: str, message: str) -> Page:
    return render_page(
        "error.html.j2",
        title=f"{status} {heading} — giskard-nb",
        live=True,
        status=status,
        heading=heading,
        message=message,
    )


#: Exact paths, and the record pages ``/<kind>/<id>`` (and ``/evaluations/<id>/results/<id>``).
PAGES = {"/": index, "/compare": compare, "/compare/case": compare_case, "/search": search}
RECORD_PAGES = {"projects": project, "datasets": dataset, "evaluations": evaluation, "scans": scan}
