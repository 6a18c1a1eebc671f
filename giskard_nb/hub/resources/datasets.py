"""``hub.datasets``: named collections of test cases; upload from data or files, export to JSONL."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from giskard_nb.core.files import atomic_write
from giskard_nb.core.sync import sync_twin
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import schema
from giskard_nb.hub.check_specs import build_check
from giskard_nb.hub.models.base import build, format_validation_error
from giskard_nb.hub.models.dataset import Dataset, HubTestCase
from giskard_nb.hub.resources.base import Resource, insert_records
from giskard_nb.hub.resources.test_cases import TestCasesResource, next_position
from giskard_nb.hub.store import Store
from giskard_nb.hub.upload import MAX_REPORTED_ERRORS, ItemError, raise_item_errors, to_hub_item
from giskard_nb.hub.upload_columns import (
    CaseTally,
    UploadSummary,
    judge_configured,
    summarize_cases,
)
from giskard_nb.hub.upload_files import FileError, dump_jsonl, iter_items

__all__ = ["DatasetsResource"]


class DatasetsResource(Resource[Dataset]):
    """Create, read, update, delete and list datasets; ``upload`` test cases; ``export`` them."""

    entity_type = "dataset"
    model = Dataset
    table = schema.datasets
    columns = ("project_id", "name")

    def create(self, project_id: str, *, name: str, description: str = "") -> Dataset:
        self._store.resources.projects.retrieve(project_id)
        dataset = build(
            Dataset, {"project_id": project_id, "name": name, "description": description}, "dataset"
        )
        return self._create(dataset)

    def update(
        self, dataset_id: str, *, name: str | None = None, description: str | None = None
    ) -> Dataset:
        changes = {"name": name, "description": description}
        return self._update(dataset_id, {k: v for k, v in changes.items() if v is not None})

    def to_dataframe(self, *, project_id: str | None = None) -> Any:
        """One row per dataset (of a project, or all), with its number of test cases."""
        from giskard_nb.frames import records_frame

        datasets = self.list(project_id=project_id)
        df = records_frame(datasets)
        if datasets:
            counts: dict[str, int] = {}
            for case in self._store.resources.test_cases.list():
                counts[case.dataset_id] = counts.get(case.dataset_id, 0) + 1
            df["n_test_cases"] = [counts.get(d.id, 0) for d in datasets]
        return df

    def list(self, *, project_id: str | None = None, name: str | None = None) -> list[Dataset]:
        """All datasets, or those of a project (and/or with that name)."""
        where = []
        if project_id is not None:
            where.append(self.table.c.project_id == project_id)
        if name is not None:
            where.append(self.table.c.name == name)
        return self._list(*where)

    def upload(
        self,
        project_id: str | None = None,
        data: Any = None,
        *,
        dataset_id: str | None = None,
        name: str | None = None,
        description: str = "",
        format: str = "items",
    ) -> Dataset:
        """Import test cases from a list of dicts, a ``.jsonl``/``.json``/``.csv`` path or an open file.

        ``format="otlp"`` reads an OpenTelemetry export instead (an OTLP JSON file or its dict: GenAI
        or OpenInference spans, ``giskard_nb.otel.test_cases_from_otlp``): one test case per
        conversation, with its tool calls and tool results as OpenAI messages.

        Into ``dataset_id`` (appended), or a new dataset ``name`` of ``project_id``. Formats are in
        ``giskard_nb.hub.upload`` (UTF-8, a byte-order mark is fine). The import is one transaction:
        one bad item rejects it all, with every error's line or item and field, and nothing is
        stored. A JSONL file is streamed (read, checked and stored in batches), so memory does not
        grow with its size; the audit log gets one ``upload`` entry with the count.

        The dataset returned carries ``upload_summary`` (also in its repr): how many test cases were
        imported, how many have no check (an evaluation skips them) and how many compare the expected
        answer offline (the stand-in for correctness when no judge is configured).
        """
        if data is None:
            raise GiskardValidationError("upload() needs data=: a list of dicts or a file path")
        if format not in ("items", "otlp"):
            raise GiskardValidationError(
                f"unknown upload format {format!r}: 'items' (the Hub's items, JSONL/JSON/CSV) or "
                "'otlp' (an OpenTelemetry JSON export)"
            )
        if format == "otlp":
            from giskard_nb.otel import test_cases_from_otlp

            data = test_cases_from_otlp(data)
        if dataset_id is not None:
            dataset = self.retrieve(dataset_id)
            project_id = dataset.project_id
        elif project_id is None or not name:
            raise GiskardValidationError(
                "upload() needs dataset_id= (to add to a dataset) or project_id and name= (to "
                "create one)"
            )
        else:
            self._store.resources.projects.retrieve(project_id)
            dataset = build(
                Dataset,
                {"project_id": project_id, "name": name, "description": description},
                "dataset",
            )
        items, source = iter_items(data)
        custom = self._store.resources.checks.by_identifier(project_id)
        tally = CaseTally()
        with self._db.write() as conn:  # rolled back if anything is rejected
            if dataset_id is None:
                self._create(dataset, conn=conn)
            start = next_position(conn, dataset.id)
            count = _store_items(conn, self._store, items, (source, dataset, custom, start), tally)
            self._audit(
                conn,
                "upload",
                dataset,
                {"source": source, "test_cases": count, "positions": [start, start + count - 1]},
            )
        return self._store.bind(dataset).attach_upload_summary(tally.summary())

    def export(self, dataset_id: str, path: str | os.PathLike[str] | None = None) -> str:
        """The dataset's test cases as JSONL in the Hub's item format (``upload`` reads it back).

        With ``path``, the file is written and its path returned; else the JSONL text is returned.
        """
        self.retrieve(dataset_id)
        items = (_item(case) for case in self._store.resources.test_cases.list(dataset_id))
        if path is None:
            buffer = io.StringIO()
            dump_jsonl(items, buffer)
            return buffer.getvalue()
        target = Path(path).expanduser()
        with atomic_write(target) as handle:
            dump_jsonl(items, handle)
        return str(target)

    async def agenerate_scenario_based(
        self, project_id: str, agent_id: str, scenario_id: str, n_examples: int = 10, **options: Any
    ) -> Dataset:
        """Test cases written by the generator model for a project scenario (persona), each with a
        conformity check; see ``giskard_nb.hub.generate``. Options: ``dataset_id`` (append to it),
        ``dataset_name``, ``generator``."""
        from giskard_nb.hub.generate import generate_scenario_based

        generated = await generate_scenario_based(
            self._store, project_id, agent_id, scenario_id, n_examples, **options
        )
        return self._store_generated(*generated)

    generate_scenario_based = sync_twin(agenerate_scenario_based)

    async def agenerate_document_based(
        self,
        project_id: str,
        agent_id: str,
        knowledge_base_id: str,
        n_examples: int = 10,
        **options: Any,
    ) -> Dataset:
        """Questions a knowledge base answers, with a reference answer (correctness check) and the
        document (groundedness check); see ``giskard_nb.hub.generate``. Options: ``topic_ids``,
        ``dataset_id``, ``dataset_name``, ``description``, ``generator``, ``seed``."""
        from giskard_nb.hub.generate import generate_document_based

        generated = await generate_document_based(
            self._store, project_id, agent_id, knowledge_base_id, n_examples, **options
        )
        return self._store_generated(*generated)

    generate_document_based = sync_twin(agenerate_document_based)

    def _store_generated(self, dataset: Dataset, new: bool, records: list[HubTestCase]) -> Dataset:
        with self._db.write() as conn:  # the dataset and its test cases, or nothing
            if new:
                self._insert(conn, [dataset], audit=True)
            start = next_position(conn, dataset.id)
            placed = [r.model_copy(update={"position": start + i}) for i, r in enumerate(records)]
            insert_records(TestCasesResource, self._store, conn, placed)
        return self._store.bind(dataset)

    def summary(self, dataset_id: str) -> UploadSummary:
        """How many active test cases the dataset has, how many of them have no check (an evaluation
        skips them) and how many compare the expected answer offline (``correctness_offline``)."""
        self.retrieve(dataset_id)
        return summarize_cases(self._store.resources.test_cases.list(dataset_id, status="active"))

    def test_cases(self, dataset_id: str, **filters: Any) -> list[HubTestCase]:
        """``hub.test_cases.list(dataset_id, ...)``."""
        return self._store.resources.test_cases.list(dataset_id, **filters)


_BATCH = 500


def _store_items(
    conn: Any,
    store: Store,
    items: Any,
    into: tuple[str, Dataset, dict[str, Any], int],
    tally: CaseTally,
) -> int:
    """Check every item and store the good ones in batches; raise (after reading everything, so
    that every error is reported) if any was bad. ``into``: the source's description, the dataset,
    the project's checks and the first position. The count stored; ``tally`` counts them."""
    source, dataset, custom, start = into
    judge = judge_configured()
    errors: list[ItemError] = []
    n_errors = count = 0
    batch: list[HubTestCase] = []
    for location, raw in items:
        try:
            if isinstance(raw, FileError):
                raise ItemError(raw.location, None, raw.message)
            case = _test_case(raw, location, dataset, custom, judge)
        except ItemError as exc:
            n_errors += 1
            if len(errors) < MAX_REPORTED_ERRORS:
                errors.append(exc)
            batch.clear()
            continue
        if n_errors:
            continue  # only checking from now on: nothing will be stored
        batch.append(case.model_copy(update={"position": start + count}))
        tally.add(case)
        count += 1
        if len(batch) >= _BATCH:
            insert_records(TestCasesResource, store, conn, batch, audit=False)
            batch.clear()
    raise_item_errors(errors, source, n_errors)
    if not count:
        raise GiskardValidationError(f"{source} holds no test case: nothing was imported")
    insert_records(TestCasesResource, store, conn, batch, audit=False)
    return count


def _test_case(
    raw: Any, location: str, dataset: Dataset, custom: dict[str, Any], judge: bool
) -> HubTestCase:
    item = to_hub_item(raw, location, judge=judge)
    try:
        case = HubTestCase.model_validate(
            {**item, "dataset_id": dataset.id, "project_id": dataset.project_id}
        )
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        raise ItemError(location, field, format_validation_error(exc)) from None
    except GiskardValidationError as exc:
        raise ItemError(location, None, str(exc)) from None
    for i, spec in enumerate(case.checks):
        try:
            build_check(spec, custom)
        except GiskardValidationError as exc:
            raise ItemError(location, f"checks[{i}]", str(exc)) from None
    return case


def _item(case: HubTestCase) -> dict[str, Any]:
    item: dict[str, Any] = {"messages": case.conversation}
    if case.demo_output is not None:
        item["demo_output"] = case.demo_output.model_dump(mode="json")
    item["checks"] = [spec.model_dump(mode="json") for spec in case.checks]
    for key in ("tags", "metadata"):
        if getattr(case, key):
            item[key] = getattr(case, key)
    if case.status != "active":
        item["status"] = case.status
    if case.name:
        item["name"] = case.name
    if case.expected_tool_calls:
        item["expected_tool_calls"] = [
            c.model_dump(mode="json", exclude_defaults=True) for c in case.expected_tool_calls
        ]
    return item
