"""The storage seam of evaluation runs: what a run (and the results resource) may do to the database.

An ``EvaluationStore`` holds the database, the actor's name and the audit writer, and names the few
operations a run's ledger (``giskard_nb.hub.evaluation.EvaluationRows``: claim, heartbeat and batching
are ``giskard_nb.hub.ledger``'s) needs: update the evaluation, append a batch of results (one
transaction, one ``executemany``; each result's JSON encoded once), recount the evaluation's tallies,
and finish it with one audit entry for what the run stored (not one per result). It is handed the
evaluations resource's own record update, never the ``Hub``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from giskard_nb.core.collector import paused
from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.core.testcase import TestCaseError, TestCaseResult
from giskard_nb.errors import HubStorageError
from giskard_nb.hub import schema
from giskard_nb.hub.audit import write_entry
from giskard_nb.hub.models.base import utcnow
from giskard_nb.hub.models.evaluation import Evaluation, EvaluationResult
from giskard_nb.hub.result_rows import result_row

if TYPE_CHECKING:
    from giskard_nb.hub.db import Database

__all__ = ["EvaluationStore", "RunTally", "bulk_insert", "unstorable"]

UpdateEvaluation = Callable[[sa.Connection, str, dict[str, Any]], Evaluation]

_RESULTS = schema.results
_UPDATE = sa.update(_RESULTS).where(_RESULTS.c.id == sa.bindparam("old_id"))  # SET: the row's keys


def bulk_insert(conn: sa.Connection, table: sa.Table, rows: Sequence[dict[str, Any]]) -> None:
    """``conn.execute(table.insert(), rows)`` without its per-row bookkeeping (two thirds of the cost
    of inserting 10^5 results): the statement is compiled by SQLAlchemy for the connection's dialect
    (so it stays portable), each value goes through its column's own bind processor (the UTC
    timestamps, floats...; a value two columns of one type share, such as a new record's
    ``created_at`` and ``updated_at``, is processed once), and the driver runs one ``executemany``.
    Every row has every column."""
    sql, names, processors, positional = _insert_plan(table, conn.dialect)
    get = operator.itemgetter(*names)  # the row's values in the statement's order, read in C
    params: list[Any] = []
    for row in rows:
        values = list(get(row))
        done: dict[tuple[type, int], Any] = {}
        for i, kind, process in processors:
            key = (kind, id(values[i]))
            if key not in done:
                done[key] = process(values[i])
            values[i] = done[key]
        params.append(tuple(values) if positional else dict(zip(names, values, strict=True)))
    conn.exec_driver_sql(sql, params)


_Plan = tuple[str, list[str], list[tuple[int, type, Any]], bool]
_PLANS: dict[tuple[str, str], _Plan] = {}


def _insert_plan(table: sa.Table, dialect: sa.Dialect) -> _Plan:
    key = (table.name, dialect.name + ":" + str(dialect.paramstyle))
    plan = _PLANS.get(key)
    if plan is None:
        compiled = table.insert().compile(dialect=dialect)
        names = (
            list(compiled.positiontup) if compiled.positional else [c.key for c in table.columns]
        )
        types = {c.key: c.type for c in table.columns}
        processors = [
            (i, type(types[name]), process)
            for i, name in enumerate(names)
            if (process := types[name].dialect_impl(dialect).bind_processor(dialect)) is not None
        ]
        plan = _PLANS[key] = (str(compiled), names, processors, bool(compiled.positional))
    return plan


class RunTally:
    """What one run stored: how many results (``written``), how many replaced an earlier result of
    the same test case and repeat (``replaced``), and their statuses (``by_status``)."""

    __slots__ = ("by_status", "replaced", "written")

    def __init__(self) -> None:
        self.written = 0
        self.replaced = 0
        self.by_status: dict[str, int] = {}

    def add(self, results: Sequence[EvaluationResult], replaced: int) -> None:
        """Count a stored batch (``replaced`` of them replaced an earlier result)."""
        self.written += len(results)
        self.replaced += replaced
        for result in results:
            self.by_status[result.status] = self.by_status.get(result.status, 0) + 1

    def as_changes(self) -> dict[str, Any]:
        """The audit entry's ``changes``."""
        return {
            "written": self.written,
            "replaced": self.replaced,
            "by_status": dict(sorted(self.by_status.items())),
        }


class EvaluationStore:
    """Evaluation runs' access to the database (see the module docstring)."""

    def __init__(self, db: Database, actor: Callable[[], str], update: UpdateEvaluation):
        self.db = db
        self._actor = actor
        self._update = update

    @property
    def actor(self) -> str:
        """The name the audit log records (the Hub's ``actor``)."""
        return self._actor()

    # -- the run's record ----------------------------------------------------------------------------

    def update(
        self, conn: sa.Connection, evaluation_id: str, changes: dict[str, Any]
    ) -> Evaluation:
        """Update the evaluation's record (inside the caller's transaction)."""
        return self._update(conn, evaluation_id, changes)

    def finish(
        self,
        evaluation_id: str,
        status: str,
        *,
        error: str | None = None,
        tally: RunTally | None = None,
    ) -> Evaluation:
        """The end of a run: its ``status`` (finished, interrupted, error) and the tallies of the
        stored results; with ``tally``, also the one audit entry (action ``results``) saying what
        this run stored."""
        with self.db.write() as conn:
            changes = {"status": status, "error": error, "finished_at": utcnow()}
            changes.update(self.tallies(conn, evaluation_id))
            evaluation = self._update(conn, evaluation_id, changes)
            if tally is not None and tally.written:
                write_entry(
                    conn,
                    self,  # type: ignore[arg-type]  # the audit writer reads only ``actor``
                    action="results",
                    entity_type="evaluation",
                    entity_id=evaluation_id,
                    project_id=evaluation.project_id,
                    changes=tally.as_changes(),
                    triggered_by=evaluation_id,
                )
            return evaluation

    def recount(self, conn: sa.Connection, evaluation_id: str) -> Evaluation:
        """Store the evaluation's tallies as they are now (inside the caller's transaction)."""
        return self._update(conn, evaluation_id, self.tallies(conn, evaluation_id))

    def tallies(self, conn: sa.Connection, evaluation_id: str) -> dict[str, Any]:
        """``counts`` by status and ``failure_categories`` of the failed results, as stored."""
        t = _RESULTS
        counts = dict.fromkeys(("pass", "fail", "error", "skip"), 0)
        rows = conn.execute(
            sa.select(t.c.status, t.c.failure_category, sa.func.count())
            .where(t.c.evaluation_id == evaluation_id)
            .group_by(t.c.status, t.c.failure_category)
        ).all()
        categories: dict[str, int] = {}
        for status, category, n in rows:
            counts[status] = counts.get(status, 0) + n
            if status == "fail" and category:
                categories[category] = categories.get(category, 0) + n
        return {"counts": counts, "failure_categories": categories}

    def statuses(self, evaluation_id: str) -> dict[tuple[str, int], str]:
        """``{(test_case_id, repeat): status}`` of the stored results (index columns only)."""
        t = _RESULTS
        query = sa.select(t.c.test_case_id, t.c.repeat, t.c.status).where(
            t.c.evaluation_id == evaluation_id
        )
        with self.db.read() as conn:
            return {(tc, repeat or 0): status for tc, repeat, status in conn.execute(query).all()}

    # -- results -------------------------------------------------------------------------------------

    def encode(self, results: Sequence[EvaluationResult]) -> list[dict[str, Any]] | None:
        """The rows of ``results`` (``append(results, rows=...)``), or ``None`` if one cannot
        be encoded (``append`` then writes them one by one). A run encodes on its event loop
        and writes on a worker thread, where the database works without holding the GIL."""
        try:
            with paused():
                return [result_row(r) for r in results]
        except Exception:
            return None

    def append(
        self,
        results: Sequence[EvaluationResult],
        *,
        replace: bool = False,
        rows: list[dict[str, Any]] | None = None,
    ) -> tuple[list[EvaluationResult], int]:
        """Store a batch in one transaction; returns the stored results and how many replaced one.

        ``replace``: a result replaces the one stored for the same run (test case and repeat),
        keeping its id and creation time; otherwise a second result for a run violates the unique
        constraint.
        ``rows``: the results already encoded (``encode``). If the batch cannot be written, each
        result is written alone, and one that still cannot be is stored as an ERROR result saying
        why (a result another run stored meanwhile for the same test case is left as it is). An
        error of the database itself is raised."""
        if not results:
            return [], 0
        try:
            with paused():  # a bounded burst of small objects: see giskard_nb.core.collector
                if rows is None:
                    rows = [result_row(r) for r in results]
                with self.db.write() as conn:
                    return self._write(conn, list(results), rows, replace)
        except Exception:
            stored: list[EvaluationResult] = []
            replaced = 0
            for result in results:
                one, n = self._save_alone(result, replace)
                stored.extend(one)
                replaced += n
            return stored, replaced

    def _write(
        self,
        conn: sa.Connection,
        results: list[EvaluationResult],
        rows: list[dict[str, Any]],
        replace: bool,
    ) -> tuple[list[EvaluationResult], int]:
        updates: list[dict[str, Any]] = []
        if replace:
            existing = self._existing(conn, results)
            now = utcnow()
            for i, result in enumerate(results):
                found = existing.get((result.test_case_id, result.repeat))
                if found is None:
                    continue
                update = {"id": found[0], "created_at": found[1], "updated_at": now}
                results[i] = result.model_copy(update=update)
                rows[i] = {**rows[i], **update}
                updates.append({**rows[i], "old_id": found[0]})
            kept = {u["old_id"] for u in updates}
            rows = [row for row in rows if row["id"] not in kept]
        if rows:
            bulk_insert(conn, _RESULTS, rows)
        if updates:
            conn.execute(_UPDATE, updates)
        return results, len(updates)

    def _existing(self, conn: sa.Connection, results: Sequence[EvaluationResult]) -> dict[str, Any]:
        t = _RESULTS
        query = sa.select(t.c.test_case_id, t.c.repeat, t.c.id, t.c.created_at).where(
            t.c.evaluation_id == results[0].evaluation_id,
            t.c.test_case_id.in_({r.test_case_id for r in results}),
        )
        rows = conn.execute(query).all()
        return {(tc, repeat or 0): (id_, created) for tc, repeat, id_, created in rows}

    def _save_alone(
        self, result: EvaluationResult, replace: bool
    ) -> tuple[list[EvaluationResult], int]:
        try:
            row = result_row(result)
            with self.db.write() as conn:
                return self._write(conn, [result], [row], replace)
        except HubStorageError as exc:
            if exc.reason != "conflict":
                raise
            if not replace and self._stored(result):
                return [], 0  # stored meanwhile by another run of the same evaluation
            reason = "the result could not be stored (integrity error)"
        except Exception as exc:
            reason = f"the result could not be stored: {type(exc).__name__}: {exc}"
        error = unstorable(result, reason[:2000])
        with self.db.write() as conn:
            return self._write(conn, [error], [result_row(error)], replace)

    def _stored(self, result: EvaluationResult) -> bool:
        t = _RESULTS
        query = sa.select(t.c.id).where(
            t.c.evaluation_id == result.evaluation_id,
            t.c.test_case_id == result.test_case_id,
            t.c.repeat == result.repeat,
        )
        with self.db.read() as conn:
            return conn.execute(query).first() is not None


def unstorable(result: EvaluationResult, reason: str) -> EvaluationResult:
    """The minimal ERROR result stored in place of one that could not be written."""
    error = TestCaseError(message=reason, exception_type="StorageError", phase="storage")
    scenario = ScenarioResult(
        scenario_name=result.scenario_result.scenario_name,
        steps=[TestCaseResult(error=error)],
        duration_ms=result.scenario_result.duration_ms,
        tags=list(result.scenario_result.tags),
    )
    return EvaluationResult(
        id=result.id,
        evaluation_id=result.evaluation_id,
        test_case_id=result.test_case_id,
        repeat=result.repeat,
        messages=result.messages,
        scenario_result=scenario,
        created_at=result.created_at,
    )
