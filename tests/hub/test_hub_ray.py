"""Hub evaluations and scans on RayExecutor actors: dispatched, stored as they arrive through the run
ledger, an actor's death retried, an interrupted run resumed (the tests' one local Ray instance,
``ray_local`` in tests/conftest.py; skipped without Ray).

The agents are built on the actors by factories defined here (this module is pickled by value); file
markers carry what happened on an actor back to the test.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sys
import uuid
from pathlib import Path

import pytest

from giskard_nb.errors import ConfigError, GiskardValidationError
from giskard_nb.executors import RayExecutor
from giskard_nb.hub import Hub

from ..executors.agents import obey

#: Pickled by value with this module (``ray_local``, tests/conftest.py).
RAY_BY_VALUE = (obey.__module__,)


def reply(marks: str | None, messages):
    """Upper-cases the last message; ``boom`` raises; ``sys`` answers as the system; ``die:<name>``
    kills its process the first time (on an actor: ``marks`` given); ``gate:<name>`` waits (at most
    20 s) for the marker ``<name>``. Given an instruction to say a code (a scan), it says it."""
    if said := obey(messages):
        return said
    text = messages[-1]["content"]
    if text == "boom":
        raise RuntimeError("the agent broke on purpose")
    if text == "sys":
        return {"role": "system", "content": "SYS"}
    kind, _, name = text.partition(":")
    if kind == "die" and marks and not Path(marks, name).exists():
        Path(marks, name).touch()
        os._exit(1)
    if kind == "gate":
        for _ in range(400):
            if Path(marks, name).exists():
                return "OPEN"
            import time

            time.sleep(0.05)
        return "NEVER OPENED"
    return text.upper()


def build_agent(marks: str):
    """The factory: one marker file per call, so the test counts the agents built."""
    Path(marks, f"factory-{uuid.uuid4().hex}").touch()
    return functools.partial(reply, marks)


def built(marks: Path) -> int:
    return len(list(marks.glob("factory-*")))


def case(text: str, keyword: str) -> dict:
    return {
        "messages": [{"role": "user", "content": text}],
        "checks": [{"identifier": "string_match", "params": {"keyword": keyword}}],
        "name": text,
    }


@pytest.fixture(scope="module")
def marks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("marks")


@pytest.fixture(scope="module")
def shared(ray_local, marks):
    """Two actors kept for the module (one factory: the agents are built once per actor)."""
    factory = functools.partial(build_agent, str(marks))
    with RayExecutor(num_actors=2, num_cpus_per_actor=0.5) as executor:
        yield executor, factory


def dataset_of(hub: Hub, *cases: dict):
    project = hub.projects.create(f"ray {uuid.uuid4().hex[:6]}")
    return hub.datasets.upload(project.id, list(cases), name="cases")


def rows(evaluation) -> dict[str, tuple]:
    return {
        r.test_case_id: (r.status, r.agent_output, r.reply_role, r.error)
        for r in evaluation.results()
    }


async def test_an_evaluation_on_actors_is_stored_as_a_local_one(shared, marks, mem_hub):
    dataset = dataset_of(
        mem_hub,
        case("hello", "HELLO"),
        case("boom", "x"),
        case("nope", "something else"),
        case("sys", "SYS"),
        case("die:d1", "DIE:D1"),
    )
    executor, factory = shared
    local = await mem_hub.evaluations.acreate_local(
        functools.partial(reply, None), dataset.id, progress=False
    )
    before = built(marks)
    seen: list[str] = []
    remote = await mem_hub.evaluations.acreate_local(
        factory, dataset.id, executor=executor, progress=True, on_result=lambda r: seen.append(r.id)
    )
    assert remote.status == "finished" and remote.n_test_cases == 5
    assert rows(remote) == rows(local)  # statuses, replies, roles and errors as locally
    by_name = {r.test_case_id: r for r in remote.results()}
    statuses = sorted(r.status for r in by_name.values())
    assert statuses == ["error", "fail", "pass", "pass", "pass"]
    assert sorted(seen) == sorted(r.id for r in remote.results())  # each once: none lost or twice
    assert remote.counts == local.counts
    assert built(marks) == before + 3  # one agent per actor, and one for the actor that died
    frame = remote.to_dataframe()
    assert len(frame) == 5 and set(frame["status"]) == {"pass", "fail", "error"}


async def test_a_repeated_evaluation_on_actors_stores_every_run_with_its_role(
    shared, marks, mem_hub
):
    dataset = dataset_of(mem_hub, case("hello", "HELLO"), case("sys", "SYS"), case("nope", "x"))
    executor, factory = shared
    remote = await mem_hub.evaluations.acreate_local(
        factory, dataset.id, executor=executor, repeats=3, progress=False
    )
    results = remote.results()
    assert remote.repeats == 3 and len(results) == 9
    assert sorted((r.messages[-1].content, r.repeat) for r in results) == sorted(
        (text, r) for text in ("hello", "sys", "nope") for r in range(3)
    )
    roles = {(r.messages[-1].content, r.repeat): r.reply_role for r in results}
    assert {k for k, role in roles.items() if role == "system"} == {("sys", r) for r in range(3)}
    assert remote.counts == {"pass": 6, "fail": 3, "error": 0, "skip": 0}


async def test_results_are_stored_before_the_run_ends(shared, marks, mem_hub):
    """The gated case waits for a marker that only ``on_result`` writes, after it read the other
    result back from the Hub: results streamed into storage, not at the end."""
    dataset = dataset_of(mem_hub, case("gate:stored", "OPEN"), case("first", "FIRST"))
    stored_then: list[tuple[int, str]] = []

    def on_result(result):
        if not stored_then:
            evaluation = mem_hub.evaluations.retrieve(result.evaluation_id)
            count = len(mem_hub.evaluations.results.list(result.evaluation_id))
            stored_then.append((count, evaluation.status))
            Path(marks, "stored").touch()

    executor, factory = shared
    evaluation = await mem_hub.evaluations.acreate_local(
        factory, dataset.id, executor=executor, progress=False, on_result=on_result
    )
    assert stored_then == [(1, "running")]
    assert evaluation.status == "finished" and evaluation.counts["pass"] == 2


async def test_an_interrupted_evaluation_resumes_with_nothing_lost_or_twice(shared, marks, mem_hub):
    texts = ["a", "b", "gate:r1", "gate:r2", "c", "d", "e"]
    dataset = dataset_of(mem_hub, *[case(t, "OPEN" if "gate" in t else t.upper()) for t in texts])
    executor, factory = shared
    seen: list[str] = []
    task = asyncio.create_task(
        mem_hub.evaluations.acreate_local(
            factory, dataset.id, executor=executor, progress=False, on_result=seen.append
        )
    )
    while len(seen) < 2:
        await asyncio.sleep(0.05)
        assert not task.done(), task.result()
    task.cancel()  # as a kernel interrupt, or a driver going away
    with pytest.raises(asyncio.CancelledError):
        await task
    (evaluation,) = mem_hub.evaluations.list(dataset_id=dataset.id)
    first = evaluation.results()
    assert evaluation.status == "interrupted" and 2 <= len(first) < len(texts)
    assert sorted(r.id for r in seen) == sorted(r.id for r in first)  # reported once stored
    for name in ("r1", "r2"):
        Path(marks, name).touch()
    resumed = await mem_hub.evaluations.aresume(
        evaluation.id, agent=factory, executor=executor, progress=False
    )
    results = resumed.results()
    assert resumed.status == "finished" and resumed.counts["pass"] == len(texts)
    assert len(results) == len({r.test_case_id for r in results}) == len(texts)
    kept = {r.id for r in first}
    assert kept <= {r.id for r in results}  # the first run's results kept as they were


async def test_checks_run_on_the_actors_when_the_executor_says_so(ray_local, marks, mem_hub):
    dataset = dataset_of(mem_hub, case("hello", "HELLO"), case("sys", "nope"))
    factory = functools.partial(build_agent, str(marks))
    with RayExecutor(num_actors=1, num_cpus_per_actor=0.5, checks_on="actors") as executor:
        evaluation = await mem_hub.evaluations.acreate_local(
            factory, dataset.id, executor=executor, progress=False
        )
    results = {r.agent_output.content: r for r in evaluation.results()}
    assert results["HELLO"].status == "pass" and results["SYS"].status == "fail"
    assert results["SYS"].reply_role == "system"
    assert "keyword" in results["SYS"].reason


async def test_a_scan_on_actors_is_stored_as_a_local_scan(shared, mem_hub):
    project = mem_hub.projects.create("ray scan")
    options = {
        "probe_ids": ["injection.direct_override", "injection.multi_turn_escalation"],
        "max_attempts_per_probe": 2,
        "judge": None,
        "generator": None,
        "progress": False,
    }
    local = await mem_hub.scans.acreate(project.id, agent=functools.partial(reply, None), **options)
    executor, factory = shared
    seen = []
    remote = await mem_hub.scans.acreate(
        project.id, executor=executor, agent_factory=factory, on_attempt=seen.append, **options
    )

    def verdicts(scan):
        attempts = mem_hub.scans.attempts.list(scan_id=scan.id)
        return sorted((a.attack_id, a.successful, a.attempt.output) for a in attempts)

    assert remote.status == "finished" and remote.grade == local.grade
    assert verdicts(remote) == verdicts(local) and any(v[1] for v in verdicts(remote))
    assert len(seen) == len(verdicts(remote))  # each attempt reported once it was stored


async def test_an_interrupted_scan_resumes_on_actors(shared, mem_hub):
    project = mem_hub.projects.create("ray scan resume")
    options = {"probe_ids": ["injection.direct_override"], "max_attempts_per_probe": 3}
    calls = 0

    async def first_then_hang(messages):
        nonlocal calls
        calls += 1
        if calls > 1:
            await asyncio.Event().wait()  # never set: the scan is interrupted meanwhile
        return reply(None, messages)

    seen = []
    task = asyncio.create_task(
        mem_hub.scans.acreate(
            project.id, agent=first_then_hang, judge=None, generator=None, progress=False,
            max_concurrency=1, on_attempt=seen.append, **options,
        )
    )  # fmt: skip
    while not seen:
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (scan,) = mem_hub.scans.list(project_id=project.id)
    assert scan.status == "interrupted"
    executor, factory = shared
    resumed = await mem_hub.scans.aresume(
        scan.id, executor=executor, agent_factory=factory, judge=None, generator=None,
        progress=False,
    )  # fmt: skip
    attempts = mem_hub.scans.attempts.list(scan_id=scan.id)
    assert resumed.status == "finished" and len(attempts) == 3
    assert len({a.attack_id for a in attempts}) == 3  # none twice
    assert seen[0].id in {a.id for a in attempts}  # the first run's attempt kept


async def test_bad_arguments_are_clear_errors(mem_hub, monkeypatch):
    dataset = dataset_of(mem_hub, case("a", "A"))
    executor = RayExecutor(num_actors=1)
    with pytest.raises(GiskardValidationError, match="agent factory"):
        await mem_hub.evaluations.aresume("whatever", executor=executor)
    with pytest.raises(GiskardValidationError, match="agent_factory"):
        await mem_hub.scans.acreate(dataset.project_id, executor=executor)
    with pytest.raises(GiskardValidationError, match="pass executor= too"):
        await mem_hub.scans.acreate(dataset.project_id, agent_factory=lambda: str.upper)
    monkeypatch.setitem(sys.modules, "ray", None)  # as without the extra
    with pytest.raises(ConfigError, match=r"giskard-nb\[ray\]"):
        await mem_hub.evaluations.acreate_local(
            lambda: str.upper, dataset.id, executor=executor, progress=False
        )
