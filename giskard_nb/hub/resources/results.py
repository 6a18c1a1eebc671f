"""``hub.evaluations.results``: one stored result per test case of an evaluation.

Results are written by their run (``giskard_nb.hub.evaluation``, through its ``EvaluationStore``); here
they are read, relabelled and deleted. DataFrames and summaries read the index columns of the rows
(``giskard_nb.hub.result_rows``) without building pydantic models; the frames themselves are built by
``giskard_nb.frames.hub_results``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

import sqlalchemy as sa
from pydantic_core import from_json

from giskard_nb.core.collector import paused
from giskard_nb.errors import GiskardValidationError, HubError
from giskard_nb.hub import schema
from giskard_nb.hub.models.base import SCHEMA_VERSION
from giskard_nb.hub.models.evaluation import EvaluationResult
from giskard_nb.hub.models.label import HubLabel, HubLabelList
from giskard_nb.hub.models.project import FailureCategory
from giskard_nb.hub.resources.base import Resource
from giskard_nb.hub.resources.labels import LabelsResource
from giskard_nb.hub.result_rows import (
    FRAME_COLUMNS,
    check_rows,
    check_views,
    frame_row,
    raw_view,
    read_model,
    result_row,
    stored_calls,
)

if TYPE_CHECKING:
    import pandas as pd

    from giskard_nb.hub.evaluation_store import EvaluationStore
    from giskard_nb.hub.store import Store

__all__ = ["ResultList", "ResultsResource"]

Level = Literal["results", "checks", "tool_calls", "cases"]

_T = schema.results
# without the evaluation id (the same in every row); created_at as the driver gives it (text on
# SQLite): the frame parses 10^5 timestamps at once
_STORED = tuple(name for name in FRAME_COLUMNS if name != "evaluation_id")
_FRAME_SELECT = [
    _T.c[name] if name != "created_at" else sa.type_coerce(_T.c.created_at, sa.String).label(name)
    for name in _STORED
]
_CHECKS_SELECT = [_T.c[name] for name in ("evaluation_id", "id", "test_case_id", "status")]
_RAW_SELECT = [c for c in _T.columns if c.name != "updated_at"]  # what raw_view reads
_READ_BATCH = 5000  # rows fetched at a time when reading a whole evaluation


class ResultList(list):
    """A list of ``EvaluationResult`` with ``to_dataframe()``."""

    def to_dataframe(self, level: Level = "results") -> pd.DataFrame:
        """The same frame as ``hub.evaluations.results.to_dataframe`` for these results."""
        from giskard_nb.frames.hub_results import checks_frame, results_frame

        if _level(level) == "cases":
            return _cases_frame(
                {
                    "test_case_id": r.test_case_id,
                    "status": r.status,
                    "messages": _dumped(r.messages),
                }
                for r in self
            )
        if _level(level) == "tool_calls":
            from giskard_nb.frames.tool_calls import call_rows, hub_tool_calls_frame

            return hub_tool_calls_frame(
                row
                for r in self
                for row in call_rows(
                    (r.evaluation_id, r.id, r.test_case_id, r.status), r.tool_calls, r.checks
                )
            )
        if _level(level) == "checks":
            return checks_frame(
                row
                for r in self
                for row in check_rows(
                    (r.evaluation_id, r.id, r.test_case_id, r.status),
                    [c.model_dump() for c in r.checks],
                    r.created_at,
                )
            )
        return results_frame(frame_row(r) for r in self)

    def __repr__(self) -> str:
        counts: dict[str, int] = {}
        for r in self:
            counts[r.status] = counts.get(r.status, 0) + 1
        text = " ".join(f"{k}={v}" for k, v in sorted(counts.items()))
        return f"<ResultList {len(self)} results {text}>"


class ResultsResource(Resource[EvaluationResult]):
    """Read, relabel, delete and list the results of an evaluation (they are written by its run)."""

    entity_type = "evaluation_result"
    model = EvaluationResult
    table = _T
    columns = ("evaluation_id", "test_case_id", "status")
    audit_fields = ("test_case_id", "status", "failure_category", "error")

    def __init__(self, store: Store, runs: EvaluationStore):
        super().__init__(store)
        self._runs = runs
        self._projects: dict[str, str | None] = {}  # evaluation id -> project id (for the audit)
        self._labels = LabelsResource(store)

    def list(
        self,
        evaluation_id: str,
        *,
        status: str | None = None,
        failure_category: str | None = None,
        test_case_id: str | None = None,
        limit: int | None = None,
    ) -> ResultList:
        """The results of an evaluation (in the order they were written), optionally filtered;
        ``limit``: at most that many (the first written)."""
        t = self.table
        where = [t.c.evaluation_id == evaluation_id]
        for column, value in (
            (t.c.status, status),
            (t.c.failure_category, failure_category),
            (t.c.test_case_id, test_case_id),
        ):
            if value is not None:
                where.append(column == value)
        return ResultList(self._list(*where, limit=limit))

    def update(
        self, result_id: str, *, failure_category: str | FailureCategory | dict[str, Any] | None
    ) -> EvaluationResult:
        """Relabel a result: a category identifier of its project, a ``FailureCategory`` (or dict), or
        ``None`` to clear it. The source becomes ``"user"``. Only a result that did not pass (fail or
        error) takes a failure category: a passing or skipped result is refused."""
        result = self.retrieve(result_id)
        if failure_category is not None and result.status in ("pass", "skip"):
            what = "passed" if result.status == "pass" else "was skipped (nothing was judged)"
            raise GiskardValidationError(
                f"result {result_id} {what}: only a failed or errored result takes a failure "
                "category. Relabel a result listed by hub.evaluations.results.list(evaluation_id, "
                "status='fail')"
            )
        category = self._category(result, failure_category)
        with self._db.write() as conn:
            updated = self._update(
                result_id,
                {
                    "failure_category": category,
                    "failure_category_source": "user" if category else None,
                    "failure_category_reason": "relabelled by " + self._store.actor
                    if category
                    else None,
                },
                conn=conn,
            )
            self._runs.recount(conn, result.evaluation_id)
        return updated

    def relabel(
        self, result_id: str, failure_category: str | FailureCategory | dict[str, Any] | None
    ) -> EvaluationResult:
        """``update(result_id, failure_category=...)``: give a result another failure category."""
        return self.update(result_id, failure_category=failure_category)

    # -- human labels (giskard_nb.hub.resources.labels) ------------------------------------------------

    def label(
        self,
        result_id: str,
        *,
        check: str,
        passed: bool,
        note: str | None = None,
        labeler: str | None = None,
    ) -> HubLabel:
        """Record a person's verdict on check ``check`` of a result: ``passed`` is what the check
        should have said. ``labeler`` defaults to the Hub's actor; labelling again replaces that
        labeler's label. Audited; the note is stored with credentials masked."""
        result = self.retrieve(result_id)
        project_id = self._store.resources.evaluations.retrieve(result.evaluation_id).project_id
        return self._labels.add(
            result, project_id, check=check, passed=passed, note=note, labeler=labeler
        )

    def labels(
        self,
        evaluation_id: str | None = None,
        *,
        result_id: str | None = None,
        check: str | None = None,
        labeler: str | None = None,
    ) -> HubLabelList:
        """The labels of an evaluation, a result, a check and/or a labeler (``.to_dataframe()``)."""
        return self._labels.find(
            evaluation_id=evaluation_id, result_id=result_id, check=check, labeler=labeler
        )

    def delete_label(self, label_id: str) -> None:
        """Delete a label (audited)."""
        self._labels.delete(label_id)

    def to_dataframe(self, evaluation_id: str, level: Level = "results") -> pd.DataFrame:
        """One row per result (``"results"``), per check result (``"checks"``), per tool call
        (``"tool_calls"``) or per test case over its repeats (``"cases"``: runs, status counts,
        pass fraction with Wilson's interval, pass^k, pass@k, flaky; the summary's
        ``to_dataframe(by="case")``); see ``giskard_nb.frames.hub_results``,
        ``giskard_nb.frames.tool_calls`` and ``giskard_nb.frames.rates`` for the columns. The
        results' frame is read from the index columns (no model is built, the ScenarioResults are
        not read); the tool calls' from the stored trajectories."""
        from giskard_nb.frames.hub_results import checks_frame, results_frame

        if _level(level) == "cases":
            with paused():
                return _cases_frame(self.iter_raw(evaluation_id))
        if _level(level) == "tool_calls":
            return self._tool_calls_frame(evaluation_id)
        if _level(level) == "checks":
            columns = [*_CHECKS_SELECT, _T.c.created_at, _T.c.scenario_result]
            return checks_frame(
                check_row
                for *ids, created, scenario in self._rows(evaluation_id, columns, mappings=False)
                for check_row in check_rows(tuple(ids), _checks(scenario), created)
            )
        return results_frame(self._frame_rows(evaluation_id), same={"evaluation_id": evaluation_id})

    def _tool_calls_frame(self, evaluation_id: str) -> pd.DataFrame:
        from giskard_nb.frames.tool_calls import call_rows, hub_tool_calls_frame

        columns = [*_CHECKS_SELECT, _T.c.tool_calls, _T.c.scenario_result]

        def rows() -> Iterator[tuple[Any, ...]]:
            for *ids, trajectory, scenario in self._rows(evaluation_id, columns, mappings=False):
                calls = stored_calls(trajectory)
                if calls:  # the checks are read only for a case that called tools
                    yield from call_rows(tuple(ids), calls, _checks(scenario))

        return hub_tool_calls_frame(rows())

    def iter_raw(self, evaluation_id: str) -> Iterator[dict[str, Any]]:
        """Each stored result as plain JSON data, in the shape of ``model_dump(mode="json")`` without
        ``scenario_result`` and ``updated_at``: fast (no model is built), for summaries and
        comparisons."""
        for row in self._rows(evaluation_id, _RAW_SELECT):
            yield raw_view(row)

    def _rows(self, evaluation_id: str, columns: Any, *, mappings: bool = True) -> Iterator[Any]:
        query = (
            sa.select(*columns)
            .where(_T.c.evaluation_id == evaluation_id)
            .order_by(_T.c.created_at, _T.c.id)
        )
        newest = sa.select(sa.func.max(_T.c.schema_version)).where(
            _T.c.evaluation_id == evaluation_id
        )
        with self._db.read() as conn:
            _refuse_newer(evaluation_id, conn.execute(newest).scalar())
            result = conn.execute(query)
            for rows in (result.mappings() if mappings else result).partitions(_READ_BATCH):
                yield from rows

    def _frame_rows(self, evaluation_id: str) -> list[Any]:
        """The ``FRAME_COLUMNS`` but the evaluation id of every result; a row written by an older
        version without index columns (or without the reason of a result that did not pass) is read
        through its model."""
        with paused():
            rows: list[Any] = list(self._rows(evaluation_id, _FRAME_SELECT, mappings=False))
            for i, row in enumerate(rows):
                if row.n_checks is None or (row.reason is None and row.status != "pass"):
                    model = self.retrieve(row.id)
                    rows[i] = frame_row(model, _STORED, created_at=row.created_at)
        return rows

    # -- rows <-> models (see giskard_nb.hub.result_rows) --------------------------------------------

    def _row(self, record: EvaluationResult) -> dict[str, Any]:
        return result_row(record)

    def _from_row(self, row: Any) -> EvaluationResult:
        _refuse_newer(row["id"], row["schema_version"])
        return self._store.bind(read_model(row))

    def _audit(
        self,
        conn: sa.Connection,
        action: str,
        record: EvaluationResult,
        changes: dict[str, Any],
        triggered_by: str | None = None,
    ) -> None:
        if record.evaluation_id not in self._projects:  # read in the audit's own transaction
            t = schema.evaluations
            self._projects[record.evaluation_id] = conn.execute(
                sa.select(t.c.project_id).where(t.c.id == record.evaluation_id)
            ).scalar()
        super()._audit(conn, action, record, changes, triggered_by)

    def _project_id(self, record: EvaluationResult) -> str | None:
        return self._projects.get(record.evaluation_id)

    def _category(
        self, result: EvaluationResult, value: str | FailureCategory | dict[str, Any] | None
    ) -> FailureCategory | None:
        if value is None or isinstance(value, FailureCategory):
            return value
        if isinstance(value, dict):
            return FailureCategory.model_validate(value)
        evaluation = self._store.resources.evaluations.retrieve(result.evaluation_id)
        project = self._store.resources.projects.retrieve(evaluation.project_id)
        category = project.failure_category(value)
        if category is None:
            known = ", ".join(c.identifier for c in project.failure_categories)
            raise GiskardValidationError(
                f"project {project.name!r} has no failure category {value!r}. Its categories: "
                f"{known}. Add one with hub.projects.update(project_id, failure_categories=[...])."
            )
        return category

    def __repr__(self) -> str:
        return "<ResultsResource (hub.evaluations.results)>"


def _level(level: str) -> str:
    if level not in ("results", "checks", "tool_calls", "cases"):
        raise GiskardValidationError(
            f"level must be 'results', 'checks', 'tool_calls' or 'cases', got {level!r}"
        )
    return level


def _cases_frame(rows: Iterator[dict[str, Any]]) -> pd.DataFrame:
    """One row per test case of result rows (see ``giskard_nb.hub.summary_cases.case_stats``)."""
    from giskard_nb.frames.rates import hub_cases_frame
    from giskard_nb.hub.summary_cases import case_stats

    return hub_cases_frame(case_stats(rows))


def _dumped(messages: Any) -> list[dict[str, Any]]:
    return [{"role": m.role, "content": m.content} for m in messages]


def _refuse_newer(what: str, version: int | None) -> None:
    if version is not None and version > SCHEMA_VERSION:
        raise HubError(
            f"evaluation result(s) of {what} were written by a newer giskard-nb (schema version "
            f"{version}; this one reads up to {SCHEMA_VERSION}): upgrade giskard-nb"
        )


def _checks(scenario_json: str) -> list[dict[str, Any]]:
    return check_views(from_json(scenario_json))
