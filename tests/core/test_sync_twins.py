"""Sync twins (``core.sync.sync_twin``): the async original's signature, a derived docstring, and calls
that work in a plain script and inside a running event loop (a notebook cell)."""

from __future__ import annotations

import asyncio
import inspect
import re
import threading
from pathlib import Path
from types import ModuleType

import pytest

from giskard_nb import Equals, Hub, Scenario, Suite, SuiteResult, TestCase, Trace
from giskard_nb.core.sync import sync_twin
from giskard_nb.hub.resources.agents import AgentsResource
from giskard_nb.hub.resources.checks import ChecksResource
from giskard_nb.hub.resources.datasets import DatasetsResource
from giskard_nb.hub.resources.evaluations import EvaluationsResource
from giskard_nb.hub.resources.knowledge_bases import KnowledgeBasesResource
from giskard_nb.hub.resources.playground_chats import PlaygroundChatsResource
from giskard_nb.hub.resources.scans import ScansResource
from giskard_nb.hub.resources.scenarios import ScenariosResource
from giskard_nb.hub.resources.scheduled_evaluations import ScheduledEvaluationsResource
from giskard_nb.kb.index import DocumentIndex
from giskard_nb.llm.embeddings import BaseEmbeddingModel
from giskard_nb.llm.generator import Generator
from giskard_nb.mcp.client import McpTools
from giskard_nb.scan import runner as scan_runner
from giskard_nb.testing import FakeModel

PACKAGE = Path(__file__).resolve().parents[2] / "giskard_nb"

#: (owner, sync name, async name) of every twin made with sync_twin.
TWINS = [
    (Scenario, "run_sync", "run"),
    (Suite, "run_sync", "run"),
    (SuiteResult, "rescore_sync", "rescore"),
    (TestCase, "run_sync", "run"),
    (Generator, "complete_sync", "complete"),
    (BaseEmbeddingModel, "embed_sync", "embed"),
    (DocumentIndex, "build", "abuild"),
    (DocumentIndex, "search", "asearch"),
    (AgentsResource, "call", "acall"),
    (AgentsResource, "test_connection", "atest_connection"),
    (DatasetsResource, "generate_scenario_based", "agenerate_scenario_based"),
    (DatasetsResource, "generate_document_based", "agenerate_document_based"),
    (KnowledgeBasesResource, "create", "acreate"),
    (KnowledgeBasesResource, "search_documents", "asearch_documents"),
    (PlaygroundChatsResource, "send", "asend"),
    (ScenariosResource, "preview", "apreview"),
    (ScheduledEvaluationsResource, "run_due", "arun_due"),
    (ScheduledEvaluationsResource, "run_now", "arun_now"),
    (ScansResource, "create", "acreate"),
    (EvaluationsResource, "create", "acreate"),
    (EvaluationsResource, "create_local", "acreate_local"),
    (EvaluationsResource, "resume", "aresume"),
    (EvaluationsResource, "rerun_errored", "arerun_errored"),
    (EvaluationsResource, "rescore", "arescore"),
    (ChecksResource, "compare_judges", "acompare_judges"),
    (ScansResource, "resume", "aresume"),
    (scan_runner, "run_scan_sync", "run_scan"),
    (McpTools, "call", "acall"),
]

#: Hand-written twins still waiting for sync_twin: files other branches are rewriting (issue 14).
PENDING: set[str] = set()


def _sources() -> dict[str, str]:
    return {
        str(path.relative_to(PACKAGE)): path.read_text(encoding="utf-8")
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "sync.py" or path.parent.name != "core"
    }


@pytest.mark.parametrize(
    ("owner", "sync", "coro"), TWINS, ids=[f"{o.__name__}.{s}" for o, s, _ in TWINS]
)
def test_a_twin_has_the_signature_and_doc_of_its_async_original(owner, sync, coro):
    twin, original = getattr(owner, sync), getattr(owner, coro)
    assert not inspect.iscoroutinefunction(twin)
    assert inspect.signature(twin).parameters == inspect.signature(original).parameters
    qualname = sync if isinstance(owner, ModuleType) else f"{owner.__name__}.{sync}"
    assert twin.__name__ == sync and twin.__qualname__ == qualname
    assert twin.__doc__.startswith(f"Blocking twin of ``{coro}``")
    if original.__doc__:
        assert inspect.cleandoc(original.__doc__) in twin.__doc__


def test_every_twin_in_the_code_is_checked_above():
    made = {
        pair
        for text in _sources().values()
        for pair in re.findall(r"^\s+(\w+) = sync_twin\((\w+)\)", text, re.MULTILINE)
    }
    assert made == {(sync, coro) for _, sync, coro in TWINS}


def test_no_hand_written_twin_is_left():
    """``return run_sync(self.acreate(project_id, **kwargs))`` hides the options from help() and IDEs:
    write ``create = sync_twin(acreate)`` instead."""
    offenders = {path for path, text in _sources().items() if "return run_sync(" in text}
    assert offenders - PENDING == set(), "use sync_twin for these twins"
    assert offenders >= PENDING, f"converted: remove {sorted(PENDING - offenders)} from PENDING"


class _Counter:
    async def aadd(self, x: int, *, step: int = 1) -> tuple[int, str]:
        """Add ``step`` to ``x``."""
        await asyncio.sleep(0)
        return x + step, threading.current_thread().name

    add = sync_twin(aadd)

    @classmethod
    async def amake(cls, n: int = 0) -> str:
        return f"{cls.__name__}:{n}"

    make = sync_twin(amake)


class _Doubler(_Counter):
    async def aadd(self, x: int, *, step: int = 1) -> tuple[int, str]:
        return 2 * x + step, "override"


def test_a_twin_runs_in_a_plain_script():
    assert _Counter().add(1, step=2) == (3, "MainThread")
    assert _Counter.make(3) == "_Counter:3"
    assert _Counter.add(_Counter(), 1) == (2, "MainThread")


async def test_a_twin_runs_inside_a_running_loop_on_a_worker_thread():
    value, thread = _Counter().add(1)
    assert value == 2 and thread == "giskard-nb-run-sync"
    assert _Counter.make() == "_Counter:0"


def test_a_twin_runs_the_subclass_override():
    assert _Doubler().add(3) == (7, "override")
    assert _Doubler.make(1) == "_Doubler:1"


def test_help_shows_the_options():
    text = inspect.signature(_Counter().add)
    assert str(text) == "(x: 'int', *, step: 'int' = 1) -> 'tuple[int, str]'"
    assert "Add ``step`` to ``x``." in _Counter.add.__doc__


def test_a_twin_needs_a_coroutine_function():
    with pytest.raises(TypeError, match="coroutine function"):
        sync_twin(lambda: None)


def _scenario() -> Scenario:
    return (
        Scenario("echo")
        .interact("hi", lambda inputs: inputs)
        .check(Equals(expected_value="hi", key="trace.last.outputs"))
    )


def test_core_twins_work_in_a_script():
    assert _scenario().run_sync().passed
    assert Suite("twins", scenarios=[_scenario()]).run_sync(max_concurrency=2).passed
    assert TestCase(trace=Trace(), checks=[]).run_sync(return_exception=True).status == "skip"


async def test_core_twins_work_inside_a_running_loop():
    assert _scenario().run_sync(timeout=5).passed
    assert Suite("twins", scenarios=[_scenario()]).run_sync().passed


async def test_llm_twins_reach_the_subclass_inside_a_running_loop():
    model = FakeModel(replies=["pong"])
    assert model.complete_sync([{"role": "user", "content": "ping"}]).text == "pong"
    assert len(model.calls) == 1


def test_hub_twins_work_in_a_script_and_in_a_loop():
    hub = Hub(":memory:")
    project = hub.projects.create(name="p")
    kb = hub.knowledge_bases.create(
        project.id, ["Refunds take 30 days.", "Shipping is free over 50 euros."], name="kb"
    )
    hits = hub.knowledge_bases.search_documents(kb.id, "refund", 1)  # limit stays positional
    assert len(hits) == 1 and "Refunds" in hits[0].content
    assert hub.scheduled_evaluations.run_due() == []

    async def in_a_cell():
        assert hub.scheduled_evaluations.run_due() == []
        return hub.knowledge_bases.search_documents(kb.id, "shipping", limit=1)

    assert "Shipping" in asyncio.run(in_a_cell())[0].content
