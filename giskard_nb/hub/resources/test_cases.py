"""``hub.test_cases`` (conversations plus checks) and ``hub.test_cases.comments``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import sqlalchemy as sa

from giskard_nb.core.missing import MISSING
from giskard_nb.core.reply import last_user_content
from giskard_nb.hub import schema
from giskard_nb.hub.check_specs import build_check
from giskard_nb.hub.models.base import build
from giskard_nb.hub.models.dataset import CheckSpec, Comment, HubTestCase
from giskard_nb.hub.resources.base import Resource
from giskard_nb.hub.store import Store

__all__ = ["CommentsResource", "TestCasesResource", "next_position"]


def next_position(conn: sa.Connection, dataset_id: str) -> int:
    """The position of a test case added at the end of the dataset, inside the write transaction
    that adds it. The dataset row is locked first, so concurrent writers (PostgreSQL) take turns."""
    datasets, cases = schema.datasets, schema.test_cases
    conn.execute(sa.select(datasets.c.id).where(datasets.c.id == dataset_id).with_for_update())
    top = conn.execute(
        sa.select(sa.func.max(cases.c.position)).where(cases.c.dataset_id == dataset_id)
    ).scalar()
    return 0 if top is None else top + 1


class TestCasesResource(Resource[HubTestCase]):
    """Create, read, update, delete and list the test cases of a dataset (in dataset order).

    ``checks`` are ``{"identifier": ..., "params": {...}}`` (see ``giskard_nb.hub.check_specs``); they
    are validated against the project's checks when the test case is created or updated.
    """

    __test__ = False
    entity_type = "test_case"
    model = HubTestCase
    table = schema.test_cases
    columns = ("dataset_id", "project_id", "position", "status")

    def __init__(self, store: Store):
        super().__init__(store)
        self.comments = CommentsResource(store)

    def create(
        self,
        dataset_id: str,
        *,
        messages: str | Sequence[Any],
        checks: Sequence[CheckSpec | dict[str, Any]] = (),
        demo_output: Any = None,
        tags: Sequence[str] = (),
        metadata: dict[str, Any] | None = None,
        status: Literal["active", "draft"] = "active",
        name: str | None = None,
        expected_tool_calls: Sequence[Any] = (),
    ) -> HubTestCase:
        """Add a test case at the end of the dataset (``messages``: a list of ``{role, content}``
        messages, or one string — the user's message; ``expected_tool_calls``: the calls the agent
        should make, ``{"name", "arguments"}`` dicts)."""
        dataset = self._store.resources.datasets.retrieve(dataset_id)
        data = {
            "dataset_id": dataset.id,
            "project_id": dataset.project_id,
            "messages": messages if isinstance(messages, str) else list(messages),
            "checks": list(checks),
            "demo_output": demo_output,
            "tags": list(tags),
            "metadata": dict(metadata or {}),
            "status": status,
            "name": name,
            "expected_tool_calls": list(expected_tool_calls),
        }
        test_case = build(HubTestCase, data, "test case")
        self.validate_checks(dataset.project_id, test_case.checks)
        with self._db.write() as conn:
            position = next_position(conn, dataset.id)
            return self._create(test_case.model_copy(update={"position": position}), conn=conn)

    def update(
        self,
        test_case_id: str,
        *,
        messages: str | Sequence[Any] = MISSING,
        checks: Sequence[CheckSpec | dict[str, Any]] = MISSING,
        demo_output: Any = MISSING,
        tags: Sequence[str] = MISSING,
        metadata: dict[str, Any] = MISSING,
        status: Literal["active", "draft"] = MISSING,
        name: str | None = MISSING,
        expected_tool_calls: Sequence[Any] = MISSING,
    ) -> HubTestCase:
        """Change the given fields (``demo_output=None`` clears it)."""
        given = {
            "messages": messages,
            "checks": checks,
            "demo_output": demo_output,
            "tags": tags,
            "metadata": metadata,
            "status": status,
            "name": name,
            "expected_tool_calls": expected_tool_calls,
        }
        changes = {
            k: (list(v) if isinstance(v, tuple) else v)
            for k, v in given.items()
            if v is not MISSING
        }
        if "checks" in changes:
            current = self.retrieve(test_case_id)
            specs = build(HubTestCase, {**current.model_dump(), "checks": list(changes["checks"])})
            self.validate_checks(current.project_id, specs.checks)
        return self._update(test_case_id, changes)

    def list(
        self,
        dataset_id: str | None = None,
        *,
        tags: Sequence[str] | None = None,
        status: Literal["active", "draft"] | None = None,
    ) -> list[HubTestCase]:
        """The test cases of a dataset (or all), in order; ``tags``: only those having every tag."""
        where = []
        if dataset_id is not None:
            where.append(self.table.c.dataset_id == dataset_id)
        if status is not None:
            where.append(self.table.c.status == status)
        order = (self.table.c.dataset_id, self.table.c.position, self.table.c.id)
        cases = self._list(*where, order_by=order)
        if tags:
            wanted = set(tags)
            cases = [c for c in cases if wanted <= set(c.tags)]
        return cases

    def to_dataframe(self, dataset_id: str | None = None, **filters: Any) -> Any:
        """One row per test case (filters as ``list``): its fields (messages, checks, tags and metadata
        as JSON text, timestamps UTC) plus ``question`` (the last user message), ``n_messages`` and
        ``n_checks``."""
        from giskard_nb.frames import records_frame

        cases = self.list(dataset_id, **filters)
        df = records_frame(cases)
        if cases:
            df["question"] = [last_user_content(c.messages) for c in cases]
            df["n_messages"] = [len(c.messages) for c in cases]
            df["n_checks"] = [len(c.checks) for c in cases]
        return df

    def validate_checks(self, project_id: str, specs: Sequence[CheckSpec]) -> None:
        """Build every check (errors name the identifier and list the known ones)."""
        custom = self._store.resources.checks.by_identifier(project_id)
        for spec in specs:
            build_check(spec, custom)


class CommentsResource(Resource[Comment]):
    """Comments on test cases: ``add``, ``edit``, ``delete``, ``list`` (and ``create``/``update``)."""

    entity_type = "comment"
    model = Comment
    table = schema.comments
    columns = ("test_case_id",)

    def add(self, test_case_id: str, content: str) -> Comment:
        """Comment on a test case (the author is the Hub's actor)."""
        test_case = self._store.resources.test_cases.retrieve(test_case_id)
        comment = build(
            Comment,
            {
                "test_case_id": test_case.id,
                "project_id": test_case.project_id,
                "content": content,
                "author": self._store.actor,
            },
            "comment",
        )
        return self._create(comment)

    create = add

    def edit(self, comment_id: str, content: str) -> Comment:
        return self._update(comment_id, {"content": content})

    update = edit

    def list(self, test_case_id: str) -> list[Comment]:
        """The comments of a test case, oldest first."""
        return self._list(self.table.c.test_case_id == test_case_id)

    def __repr__(self) -> str:
        return "<CommentsResource (hub.test_cases.comments)>"
