"""The Hub's store (giskard_nb.hub.store): what resources get instead of the whole Hub."""

from __future__ import annotations

import pytest

from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Hub
from giskard_nb.hub.links import LINKS, Resources
from giskard_nb.hub.models.base import build
from giskard_nb.hub.models.dataset import Dataset, HubTestCase
from giskard_nb.hub.resources.base import insert_records
from giskard_nb.hub.resources.datasets import DatasetsResource
from giskard_nb.hub.resources.projects import ProjectsResource
from giskard_nb.hub.resources.test_cases import TestCasesResource, next_position
from giskard_nb.hub.store import Store
from tests.hub.conftest import rule_case


def test_every_resource_shares_the_hubs_one_store(mem_hub: Hub) -> None:
    store = mem_hub._store
    assert isinstance(store, Store)
    resources = [
        mem_hub.projects,
        mem_hub.projects.scenarios,
        mem_hub.agents,
        mem_hub.datasets,
        mem_hub.test_cases,
        mem_hub.test_cases.comments,
        mem_hub.checks,
        mem_hub.knowledge_bases,
        mem_hub.scheduled_evaluations,
        mem_hub.tasks,
        mem_hub.playground_chats,
        mem_hub.audit,
        mem_hub.evaluations,
        mem_hub.evaluations.results,
        mem_hub.scans,
        mem_hub.scans.probes,
        mem_hub.scans.attempts,
    ]
    assert all(r._store is store for r in resources)
    assert (store.db, store.secrets) == (mem_hub._db, mem_hub._secrets)
    assert repr(store) == "<Store sqlite actor='tester'>"


def test_resources_reach_each_other_through_public_methods_only(mem_hub: Hub) -> None:
    view = mem_hub._store.resources
    project = mem_hub.projects.create("p")
    assert view.projects.retrieve(project.id) == project
    assert view.evaluations.results.list  # nested resources are views too
    with pytest.raises(AttributeError, match="hub.test_cases._create is private"):
        view.test_cases._create  # noqa: B018
    with pytest.raises(AttributeError, match="hub.evaluations.results._save is private"):
        view.evaluations.results._save  # noqa: B018
    with pytest.raises(AttributeError, match="hub.close is not a resource"):
        view.close  # noqa: B018
    assert {"projects", "datasets", "audit", "scans"} <= set(dir(view))
    assert "close" not in dir(view) and "_store" not in dir(view.projects)
    # read live: a method replaced on the resource is the one reached
    mem_hub.projects.retrieve = lambda id: "replaced"  # type: ignore[method-assign]
    assert view.projects.retrieve(project.id) == "replaced"


def test_the_typed_links_name_every_resource_of_the_hub_with_its_class(mem_hub: Hub) -> None:
    hub_resources = {
        name: type(value)
        for name, value in vars(mem_hub).items()
        if getattr(type(value), "is_hub_resource", False) is True
    }
    assert set(LINKS) == set(hub_resources) and len(LINKS) == 12
    for name, kind in hub_resources.items():
        annotation = getattr(Resources, name).fget.__annotations__["return"]
        assert annotation == kind.__name__, name  # the link's type is the resource's class
    scenarios = type(mem_hub.projects.scenarios).__name__  # a nested link, set by the Hub
    assert ProjectsResource.__annotations__["scenarios"] == scenarios
    assert dir(mem_hub._store.resources) == sorted(LINKS)
    with pytest.raises(AttributeError, match="hub.url is not a resource"):
        mem_hub._store.resources.url  # noqa: B018
    with pytest.raises(AttributeError, match="hub._store is private"):
        mem_hub._store.resources._store  # noqa: B018


def test_the_audit_writer_records_the_current_actor(mem_hub: Hub) -> None:
    mem_hub.projects.create("first")
    mem_hub.actor = "bob"
    assert mem_hub._store.actor == "bob"
    second = mem_hub.projects.create("second")
    assert [e.actor for e in mem_hub.audit.history(second.id)] == ["bob"]
    assert {e.actor for e in mem_hub.audit.search()} == {"tester", "bob"}
    assert repr(mem_hub) == "<Hub in memory actor='bob'>"


def test_bound_records_reach_their_hub(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(project.id, [rule_case("q", "k")], name="d")
    stray = build(Dataset, {"project_id": project.id, "name": "x"})
    assert mem_hub._store.bind(stray).test_cases() == []  # a bound record lists through the Hub
    assert [c.dataset_id for c in dataset.test_cases()] == [dataset.id]


def test_a_record_keeps_its_hub_through_copies_and_beside_its_own_private_fields(
    mem_hub: Hub,
) -> None:
    """A record's Hub is kept without a declared PrivateAttr (one costs a Python hook per record
    built): copies keep it, equality ignores it, a record built by hand has none, and a Dataset's
    own private field (its upload summary) lives beside it."""
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(project.id, [rule_case("q", "k")], name="d")
    assert dataset.upload_summary is not None and dataset.hub is mem_hub
    (case,) = dataset.test_cases()
    assert case.hub is mem_hub and "_hub" not in HubTestCase.__private_attributes__
    moved = case.model_copy(update={"position": 5})
    assert moved.hub is mem_hub and moved != case
    by_hand = build(HubTestCase, case.model_dump())
    assert by_hand == case  # the Hub it was read from does not matter
    with pytest.raises(GiskardValidationError, match="not attached to a Hub"):
        _ = by_hand.hub
    assert "_hub" not in case.model_dump() and "_hub" not in case.__dict__


def test_insert_records_and_next_position_share_one_transaction(mem_hub: Hub) -> None:
    store = mem_hub._store
    project = mem_hub.projects.create("p")
    dataset = build(Dataset, {"project_id": project.id, "name": "generated"})

    def case(position: int) -> HubTestCase:
        data = {"dataset_id": dataset.id, "project_id": project.id, "messages": "hi"}
        return build(HubTestCase, {**data, "position": position})

    with pytest.raises(RuntimeError), store.db.write() as conn:
        insert_records(DatasetsResource, store, conn, [dataset])
        insert_records(TestCasesResource, store, conn, [case(0)])
        raise RuntimeError("generation failed half-way")
    assert mem_hub.datasets.list(project_id=project.id) == []  # nothing stored, nothing audited
    assert mem_hub.audit.search(entity_type="test_case") == []

    with store.db.write() as conn:
        insert_records(DatasetsResource, store, conn, [dataset])
        assert next_position(conn, dataset.id) == 0
        insert_records(TestCasesResource, store, conn, [case(0), case(1)])
        assert next_position(conn, dataset.id) == 2
        insert_records(TestCasesResource, store, conn, [case(2)], audit=False)
    assert [c.position for c in mem_hub.test_cases.list(dataset.id)] == [0, 1, 2]
    assert len(mem_hub.audit.search(entity_type="test_case", action="create")) == 2
    assert mem_hub.test_cases.create(dataset.id, messages="next").position == 3


def test_a_resource_takes_the_store_not_the_hub(mem_hub: Hub) -> None:
    with pytest.raises(TypeError, match="ProjectsResource takes the Hub's store"):
        ProjectsResource(mem_hub)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ProjectsResource takes the Hub's store"):
        ProjectsResource(object())  # type: ignore[arg-type]
