"""``hub.evaluations.results``: one stored result per test case of an evaluation."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

import sqlalchemy as sa
from pydantic_core import from_json

from giskard_nb.core.sanitize import valid_unicode_data
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import schema
from giskard_nb.hub.audit import diff_fields
from giskard_nb.hub.frames import gc_paused
from giskard_nb.hub.models.base import utcnow
from giskard_nb.hub.models.evaluation import EvaluationResult
from giskard_nb.hub.models.project import FailureCategory
from giskard_nb.hub.resources.base import Resource

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ResultList", "ResultsResource"]

Level = Literal["results", "checks"]

_EXISTING = sa.select(schema.results).where(
    schema.results.c.evaluation_id == sa.bindparam("e"),
    schema.results.c.test_case_id == sa.bindparam("tc"),
)


class ResultList(list):
    """A list of ``EvaluationResult`` with ``to_dataframe()``."""

    def to_dataframe(self, level: Level = "results") -> pd.DataFrame:
        from giskard_nb.hub.frames import results_frame

        return results_frame([r.model_dump(mode="json") for r in self], level=level)

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
    table = schema.results
    columns = ("evaluation_id", "test_case_id", "status")
    json_columns = ("scenario_result",)
    audit_fields = ("test_case_id", "status", "failure_category", "error")

    def __init__(self, hub: Any):
        super().__init__(hub)
        self._projects: dict[str, str | None] = {}  # evaluation id -> project id (for the audit)

    def list(
        self,
        evaluation_id: str,
        *,
        status: str | None = None,
        failure_category: str | None = None,
        test_case_id: str | None = None,
    ) -> ResultList:
        """The results of an evaluation (in the order they were written), optionally filtered."""
        t = self.table
        where = [t.c.evaluation_id == evaluation_id]
        for column, value in (
            (t.c.status, status),
            (t.c.failure_category, failure_category),
            (t.c.test_case_id, test_case_id),
        ):
            if value is not None:
                where.append(column == value)
        return ResultList(self._list(*where))

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
                    "failure_category_reason": "relabelled by " + self._hub.actor
                    if category
                    else None,
                },
                conn=conn,
            )
            self._hub.evaluations._refresh_counts(conn, result.evaluation_id)
        return updated

    def relabel(
        self, result_id: str, failure_category: str | FailureCategory | dict[str, Any] | None
    ) -> EvaluationResult:
        """``update(result_id, failure_category=...)``: give a result another failure category."""
        return self.update(result_id, failure_category=failure_category)

    def to_dataframe(self, evaluation_id: str, level: Level = "results") -> pd.DataFrame:
        """One row per result (``"results"``) or per check result (``"checks"``); see
        ``giskard_nb.hub.frames`` for the columns. Reads the stored rows without building models."""
        from giskard_nb.hub.frames import results_frame

        return results_frame(list(self.iter_raw(evaluation_id)), level=level)

    def iter_raw(self, evaluation_id: str) -> Iterator[dict[str, Any]]:
        """Each stored result as plain JSON data (no ``scenario_result``, no ``updated_at``): fast, for
        frames and summaries."""
        t = self.table
        cols = [t.c.id, t.c.evaluation_id, t.c.test_case_id, t.c.status, t.c.created_at]
        query = (
            sa.select(t.c.data, *cols)
            .where(t.c.evaluation_id == evaluation_id)
            .order_by(t.c.created_at, t.c.id)
        )
        names = [c.name for c in cols]
        with gc_paused(), self._db.read() as conn:  # 10^5 rows and parsed dicts: see gc_paused
            rows = conn.execute(query).all()
            parsed = [
                {**from_json(row[0]), **dict(zip(names, row[1:], strict=True))} for row in rows
            ]
        yield from parsed

    # -- written by evaluation runs --------------------------------------------------------------------

    def _save(
        self, conn: sa.Connection, result: EvaluationResult, *, replace: bool = True
    ) -> EvaluationResult:
        """Insert the result, or (``replace``) replace the one stored for the same test case (a re-run).
        Without ``replace``, a second result for the same test case violates the unique constraint."""
        t = self.table
        existing = (
            conn.execute(_EXISTING, {"e": result.evaluation_id, "tc": result.test_case_id})
            .mappings()
            .first()
            if replace
            else None
        )
        if existing is None:
            conn.execute(t.insert(), self._row(result))
            self._audit(
                conn, "create", result, self._audit_view(result), triggered_by=result.evaluation_id
            )
            return result._bind(self._hub)
        before = self._from_row(existing)
        replaced = result.model_copy(
            update={"id": before.id, "created_at": before.created_at, "updated_at": utcnow()}
        )
        conn.execute(sa.update(t).where(t.c.id == before.id).values(**self._row(replaced)))
        diff = diff_fields(self._audit_view(before), self._audit_view(replaced))
        self._audit(conn, "update", replaced, diff, triggered_by=result.evaluation_id)
        return replaced._bind(self._hub)

    def _row(self, record: EvaluationResult) -> dict[str, Any]:
        row = super()._row(record)
        category = record.failure_category
        row["failure_category"] = category.identifier if category else None
        for key in ("data", "scenario_result"):
            # a lone surrogate escaped in the JSON (from a check's message, say) would make the
            # result unreadable (pydantic's reader refuses it): stored as U+FFFD instead
            if "\\ud" in row[key]:
                fixed = valid_unicode_data(json.loads(row[key]))
                row[key] = json.dumps(fixed, separators=(",", ":"), default=str)
        return row

    def _dump(self, record: EvaluationResult) -> dict[str, Any]:
        # Trace.last repeats the last interaction: leave it out of storage.
        return record.model_dump(
            mode="json", exclude={"scenario_result": {"final_trace": {"last"}}}
        )

    def _project_id(self, record: EvaluationResult) -> str | None:
        project_id = self._projects.get(record.evaluation_id)
        if project_id is None:
            t = schema.evaluations
            with self._db.read() as conn:
                project_id = conn.execute(
                    sa.select(t.c.project_id).where(t.c.id == record.evaluation_id)
                ).scalar()
            self._projects[record.evaluation_id] = project_id
        return project_id

    def _category(
        self, result: EvaluationResult, value: str | FailureCategory | dict[str, Any] | None
    ) -> FailureCategory | None:
        if value is None or isinstance(value, FailureCategory):
            return value
        if isinstance(value, dict):
            return FailureCategory.model_validate(value)
        evaluation = self._hub.evaluations.retrieve(result.evaluation_id)
        project = self._hub.projects.retrieve(evaluation.project_id)
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
