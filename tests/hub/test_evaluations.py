"""Evaluations: local and remote agents, multi-turn cases, errors as data, bounded concurrency,
interruption and resume, re-running errors, relabelling, summaries, comparisons and DataFrames."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime
from typing import Any

import pandas as pd
import pytest

from giskard_nb.core.scenario_result import ScenarioResult
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Hub

from .conftest import AgentServer, interrupt_when_stored, reply_for, rule_case


def support_agent(messages: list[dict[str, str]]) -> str:
    return reply_for(messages[-1]["content"], len(messages))


def test_local_evaluation_end_to_end(hub: Hub, setup) -> None:
    project, dataset = setup(hub)
    evaluation = hub.evaluations.create_local(support_agent, dataset.id, name="v1", progress=False)
    assert (
        evaluation.status == "finished"
        and evaluation.local
        and evaluation.agent_name == "support_agent"
    )
    assert evaluation.counts == {"pass": 2, "fail": 1, "error": 0, "skip": 0}
    assert evaluation.failure_categories == {"refusal": 1}
    assert evaluation.pass_rate == pytest.approx(2 / 3)

    results = hub.evaluations.results.list(evaluation.id)
    assert len(results) == 3
    failed = hub.evaluations.results.list(evaluation.id, status="fail")[0]
    assert failed.agent_output.content.startswith("I'm sorry, but I can't")
    assert (
        failed.failure_category.identifier == "refusal" and failed.failure_category_source == "rule"
    )
    assert failed.checks[0].name == "string_match" and failed.checks[0].status == "fail"
    assert "does not contain the keyword 'worldwide'" in failed.checks[0].message
    assert isinstance(failed.scenario_result, ScenarioResult)  # a test case runs as a core Scenario
    trace = failed.scenario_result.final_trace
    assert trace.last.outputs == failed.agent_output.content
    assert trace.last.inputs == [{"role": "user", "content": "Do you ship abroad?"}]
    # a reply without metadata: the interaction the core builds, timed like one with metadata
    assert trace.last.metadata == {} and trace.last.latency_s is not None
    assert failed.duration_ms > 0 and failed.created_at.tzinfo is not None
    assert hub.evaluations.list(project_id=project.id) == [evaluation]


async def test_async_agent_multi_turn_and_metadata_checks(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    seen: list[list[dict[str, str]]] = []

    async def agent(messages):
        seen.append(messages)
        await asyncio.sleep(0)
        return {
            "response": {
                "role": "assistant",
                "content": reply_for(messages[-1]["content"], len(messages)),
            },
            "metadata": {
                "tool": "faq_search",
                "turns": len(messages),
                "at": datetime(2025, 1, 1, tzinfo=UTC),
            },
        }

    conversation = [
        {"role": "user", "content": "What are your hours?"},
        {"role": "assistant", "content": "Monday to Friday."},
        {"role": "user", "content": "Say that again"},
    ]
    dataset = mem_hub.datasets.upload(
        project.id,
        [
            {
                "messages": conversation,
                "checks": [
                    {"identifier": "string_match", "params": {"keyword": "turn 3"}},
                    {
                        "identifier": "metadata",
                        "params": {
                            "json_path_rules": [
                                {"json_path": "$.tool", "expected_value": "faq_search"}
                            ]
                        },
                    },
                ],
            }
        ],
        name="multi-turn",
    )
    evaluation = await mem_hub.evaluations.acreate_local(agent, dataset.id, progress=False)
    assert seen == [conversation]
    (result,) = evaluation.results()
    assert result.status == "pass", result.checks
    assert [c.status for c in result.checks] == ["pass", "pass"]
    assert result.messages[-1].content == "Say that again"
    assert result.agent_output.metadata["at"].startswith("2025-01-01")  # stored as text
    last = result.scenario_result.final_trace.last
    assert last.inputs == conversation and last.latency_s is not None


def test_remote_evaluation(hub: Hub, setup, agent_server: AgentServer) -> None:
    project, dataset = setup(hub)
    agent = hub.agents.create(
        project.id,
        name="remote bot",
        url=agent_server.url("/auth"),
        headers={"Authorization": "Bearer s3cret-token"},
    )
    evaluation = hub.evaluations.create(project.id, agent.id, dataset.id, progress=False)
    assert evaluation.name == "remote bot on faq" and not evaluation.local
    assert evaluation.counts["pass"] == 2 and evaluation.counts["fail"] == 1
    assert len(agent_server.requests) == 3
    for kept in (hub.evaluations.results.to_dataframe(evaluation.id), hub.audit.to_dataframe()):
        assert not kept.astype(str).apply(lambda col: col.str.contains("s3cret")).any().any()


def test_a_failing_agent_gives_error_results_not_a_crash(
    hub: Hub, setup, agent_server: AgentServer
) -> None:
    project, dataset = setup(hub)
    agent = hub.agents.create(
        project.id, name="broken", url=agent_server.url("/error500"), max_retries=0
    )
    evaluation = hub.evaluations.create(project.id, agent.id, dataset.id, progress=False)
    assert evaluation.status == "finished" and evaluation.counts["error"] == 3
    result = evaluation.results()[0]
    assert result.status == "error" and result.agent_output is None
    assert "AgentError during target" in result.error and "HTTP 500" in result.error
    assert result.failure_category is None
    assert [c.status for c in result.checks] == ["skip"]


def test_local_agent_exceptions_and_timeouts_are_errors(mem_hub: Hub, setup) -> None:
    _, dataset = setup()

    async def agent(messages):
        text = messages[-1]["content"]
        if "refund" in text:
            raise RuntimeError("refund service unavailable")
        if "ship" in text:
            await asyncio.sleep(5)
        return support_agent(messages)

    evaluation = mem_hub.evaluations.create_local(agent, dataset.id, timeout=0.2, progress=False)
    by_status = {r.status: r for r in evaluation.results()}
    assert evaluation.counts == {"pass": 1, "fail": 0, "error": 2, "skip": 0}
    errors = mem_hub.evaluations.results.list(evaluation.id, status="error")
    messages = sorted(r.error for r in errors)
    assert "RuntimeError during target: refund service unavailable" in messages[0]
    assert "timeout" in messages[1] and "did not finish within 0.2 s" in messages[1]
    assert by_status["pass"].agent_output is not None


async def test_concurrency_is_bounded(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(
        project.id, [rule_case(f"question {i}", "ok") for i in range(12)], name="d"
    )
    active = peak = 0

    async def agent(messages):
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.02)
        active -= 1
        return "ok"

    evaluation = await mem_hub.evaluations.acreate_local(
        agent, dataset.id, max_concurrency=3, progress=False
    )
    assert evaluation.counts["pass"] == 12
    assert peak == 3


async def test_interrupted_then_resumed_loses_and_duplicates_nothing(hub: Hub, setup) -> None:
    project = hub.projects.create("p")
    dataset = hub.datasets.upload(
        project.id, [rule_case(f"question {i}", "answer") for i in range(10)], name="d"
    )
    never = asyncio.Event()

    async def stalls_after_five(messages):
        index = int(messages[-1]["content"].split()[-1])
        if index >= 5:
            await never.wait()  # the kernel interrupt arrives while these are in flight
        return f"answer {index}"

    task = asyncio.create_task(
        hub.evaluations.acreate_local(
            stalls_after_five, dataset.id, max_concurrency=2, progress=False
        )
    )
    evaluation_id = await interrupt_when_stored(hub, task, 5)
    interrupted = hub.evaluations.retrieve(evaluation_id)
    assert interrupted.status == "interrupted"
    assert interrupted.counts["pass"] == 5
    assert hub.evaluations.summary(evaluation_id).missing == 5

    with pytest.raises(GiskardValidationError, match="pass it again with agent="):
        await hub.evaluations.aresume(evaluation_id, progress=False)
    resumed = await hub.evaluations.aresume(
        evaluation_id, agent=lambda m: "answer " + m[-1]["content"].split()[-1], progress=False
    )
    assert resumed.status == "finished" and resumed.counts["pass"] == 10
    results = hub.evaluations.results.list(evaluation_id)
    assert sorted(r.test_case_id for r in results) == sorted(
        c.id for c in hub.test_cases.list(dataset.id)
    )
    hub.test_cases.create(dataset.id, messages=[{"role": "user", "content": "added later"}])
    again = await hub.evaluations.aresume(evaluation_id, agent=lambda m: "x", progress=False)
    assert len(again.results()) == 10  # nothing left to run, nothing duplicated, no newcomer


def test_rerun_errored_replaces_only_the_errors(mem_hub: Hub, setup) -> None:
    _, dataset = setup()
    state = {"down": True}

    def flaky(messages):
        if state["down"] and "refund" in messages[-1]["content"]:
            raise ConnectionError("backend down")
        return support_agent(messages)

    evaluation = mem_hub.evaluations.create_local(flaky, dataset.id, progress=False)
    errored = mem_hub.evaluations.results.list(evaluation.id, status="error")
    assert len(errored) == 1
    kept = {r.id: r for r in evaluation.results() if r.status != "error"}
    state["down"] = False
    rerun = mem_hub.evaluations.rerun_errored(evaluation.id, agent=flaky, progress=False)
    assert rerun.counts == {"pass": 2, "fail": 1, "error": 0, "skip": 0}
    results = {r.id: r for r in rerun.results()}
    assert len(results) == 3 and errored[0].id in results  # replaced in place, same id
    assert results[errored[0].id].status == "pass"
    assert all(results[i] == r for i, r in kept.items())
    # one audit entry per run for the results it stored (on the evaluation), not one per result
    runs = [e.changes for e in mem_hub.audit.history(evaluation.id) if e.action == "results"]
    assert runs == [
        {"written": 3, "replaced": 0, "by_status": {"error": 1, "fail": 1, "pass": 1}},
        {"written": 1, "replaced": 1, "by_status": {"pass": 1}},
    ]
    assert mem_hub.audit.history(errored[0].id) == []


def test_tags_and_drafts_select_the_test_cases(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(
        project.id,
        [
            rule_case("hours?", "Monday", tags=["hours", "smoke"]),
            rule_case("refund?", "30 days", tags=["refund"]),
            rule_case("hours again?", "Monday", tags=["hours"], status="draft"),
        ],
        name="d",
    )
    evaluation = mem_hub.evaluations.create_local(
        support_agent, dataset.id, tags=["hours"], progress=False
    )
    assert evaluation.n_test_cases == 1 and len(evaluation.results()) == 1
    with pytest.raises(GiskardValidationError, match="no active test case"):
        mem_hub.evaluations.create_local(support_agent, dataset.id, tags=["nope"], progress=False)


def test_a_check_that_cannot_be_built_at_run_time_is_an_error(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    check = mem_hub.checks.create(
        project.id, "window", "Window", params={"type": "string_match", "keyword": "30"}
    )
    dataset = mem_hub.datasets.upload(
        project.id,
        [
            {
                "messages": [{"role": "user", "content": "refund?"}],
                "checks": [{"identifier": "window"}],
            }
        ],
        name="d",
    )
    mem_hub.checks.delete(check.id)
    evaluation = mem_hub.evaluations.create_local(support_agent, dataset.id, progress=False)
    (result,) = evaluation.results()
    assert result.status == "error" and "unknown check identifier 'window'" in result.error


def test_relabel_summary_and_comparison(mem_hub: Hub, setup) -> None:
    project, dataset = setup()
    first = mem_hub.evaluations.create_local(support_agent, dataset.id, name="v1", progress=False)

    def v2(messages):
        text = messages[-1]["content"]
        return "We ship worldwide." if "ship" in text else "Closed."

    second = mem_hub.evaluations.create_local(v2, dataset.id, name="v2", progress=False)
    comparison = mem_hub.evaluations.compare(first.id, second.id)
    assert comparison.counts() == {"fail→pass": 1, "pass→fail": 2}
    assert [c.question for c in comparison.fixes] == ["Do you ship abroad?"]
    assert len(comparison.regressions) == 2
    frame = comparison.to_dataframe()
    assert list(frame["change"]) == [c.change for c in comparison.cases]
    assert list(frame["before"].cat.categories) == ["pass", "fail", "error", "skip"]
    assert "2 regressions" in str(comparison) and "<script>" not in comparison._repr_html_()

    failed = mem_hub.evaluations.results.list(second.id, status="fail")[0]
    relabelled = mem_hub.evaluations.results.relabel(failed.id, failure_category="hallucination")
    assert relabelled.failure_category.identifier == "hallucination"
    assert relabelled.failure_category_source == "user"
    assert mem_hub.evaluations.retrieve(second.id).failure_categories["hallucination"] == 1
    with pytest.raises(GiskardValidationError, match="no failure category 'nope'"):
        mem_hub.evaluations.results.update(failed.id, failure_category="nope")
    passing = mem_hub.evaluations.results.list(second.id, status="pass")[0]
    with pytest.raises(GiskardValidationError, match="passed: only a failed or errored result"):
        mem_hub.evaluations.results.relabel(passing.id, "hallucination")
    assert mem_hub.evaluations.results.retrieve(passing.id).failure_category is None
    assert mem_hub.evaluations.results.relabel(passing.id, None).failure_category is None

    summary = second.summary()
    assert (summary.total, summary.passed, summary.failed) == (3, 1, 2)
    assert summary.pass_rate == pytest.approx(1 / 3)
    assert {c.identifier: c.count for c in summary.by_category} == {
        "hallucination": 1,
        "incorrect_answer": 1,
    }
    (check,) = summary.by_check
    assert (check.name, check.passed, check.failed, check.pass_rate) == (
        "string_match",
        1,
        2,
        pytest.approx(1 / 3),
    )
    assert "pass rate 33% [95% CI 6%–79%] (3 of 3 judged; 0 errored)" in str(summary)
    assert "Failure categories" in str(summary)
    assert list(summary.to_dataframe("category")["identifier"]) == [
        "hallucination",
        "incorrect_answer",
    ]

    other = mem_hub.datasets.upload(project.id, [rule_case("x", "y")], name="other")
    elsewhere = mem_hub.evaluations.create_local(support_agent, other.id, progress=False)
    with pytest.raises(GiskardValidationError, match="different datasets"):
        mem_hub.evaluations.compare(first.id, elsewhere.id)


def test_dataframes_are_tidy(hub: Hub, setup) -> None:
    _, dataset = setup(hub)
    evaluation = hub.evaluations.create_local(support_agent, dataset.id, progress=False)
    df = evaluation.to_dataframe()
    assert len(df) == 3 and df["result_id"].is_unique
    assert isinstance(df["status"].dtype, pd.CategoricalDtype)
    assert list(df["status"].cat.categories) == ["pass", "fail", "error", "skip"]
    assert str(df["created_at"].dt.tz) == "UTC"
    assert df["duration_ms"].dtype == float and df["cost_usd"].dtype == float
    assert set(df["question"]) == {
        "What are your opening hours?",
        "Can I get a refund?",
        "Do you ship abroad?",
    }
    assert df["messages"].map(type).eq(str).all() and df["agent_metadata"].map(type).eq(str).all()
    from_models = evaluation.results().to_dataframe()
    pd.testing.assert_frame_equal(
        df.sort_values("result_id").reset_index(drop=True),
        from_models.sort_values("result_id").reset_index(drop=True),
    )
    checks = evaluation.to_dataframe("checks")
    assert len(checks) == 3 and set(checks["check_name"]) == {"string_match"}
    assert isinstance(checks["status"].dtype, pd.CategoricalDtype)
    assert checks["score"].isna().all()


def test_progress_bar_and_html(mem_hub: Hub, setup, capsys) -> None:
    _, dataset = setup(items=[rule_case("hours?", "<b>"), rule_case("ship?", "x")])
    evaluation = mem_hub.evaluations.create_local(
        lambda m: "<script>alert(1)</script>", dataset.id, name="shown", progress=True
    )
    err = capsys.readouterr().err
    assert "shown" in err and "2/2" in err
    for obj in (evaluation, evaluation.results()[0], evaluation.summary()):
        html = obj._repr_html_()
        assert "<script>" not in html
    assert "&lt;script&gt;" in evaluation.results()[0]._repr_html_()
    assert "&lt;b&gt;" in evaluation.results()[0]._repr_html_()


def test_remote_evaluation_checks_the_project(
    mem_hub: Hub, setup, agent_server: AgentServer
) -> None:
    project, dataset = setup()
    other = mem_hub.projects.create("other")
    agent = mem_hub.agents.create(other.id, name="bot", url=agent_server.url("/hub"))
    with pytest.raises(GiskardValidationError, match="same project"):
        mem_hub.evaluations.create(project.id, agent.id, dataset.id, progress=False)
    with pytest.raises(GiskardValidationError, match="max_concurrency"):
        mem_hub.evaluations.create_local(
            support_agent, dataset.id, max_concurrency=0, progress=False
        )


def test_delete_and_rename(mem_hub: Hub, setup) -> None:
    _, dataset = setup()
    evaluation = mem_hub.evaluations.create_local(support_agent, dataset.id, progress=False)
    assert mem_hub.evaluations.update(evaluation.id, name="renamed").name == "renamed"
    one: Any = evaluation.results()[0]
    mem_hub.evaluations.results.delete(one.id)
    assert mem_hub.evaluations.summary(evaluation.id).missing == 1
    mem_hub.evaluations.delete(evaluation.id)
    assert mem_hub.evaluations.results.list(evaluation.id) == []


async def test_sync_twins_work_inside_a_running_loop(hub: Hub, setup) -> None:
    # A notebook cell has a running event loop: the sync twins run the work in a worker thread.
    _, dataset = setup(hub)
    evaluation = hub.evaluations.create_local(support_agent, dataset.id, progress=False)
    assert evaluation.counts["pass"] == 2
    again = hub.evaluations.rerun_errored(evaluation.id, agent=support_agent, progress=False)
    assert again.counts == evaluation.counts


def test_a_test_case_without_checks_is_skip_and_the_summary_lists_it(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(
        project.id,
        [
            {"messages": [{"role": "user", "content": "What are your opening hours?"}]},
            rule_case("Can I get a refund?", "30 days"),
            {
                "messages": [{"role": "user", "content": "Do you ship abroad?"}],
                "checks": [
                    {"identifier": "string_match", "params": {"keyword": "x"}, "enabled": False}
                ],
            },
        ],
        name="chat logs",
    )
    evaluation = mem_hub.evaluations.create_local(support_agent, dataset.id, progress=False)
    assert evaluation.counts == {"pass": 1, "fail": 0, "error": 0, "skip": 2}
    assert evaluation.pass_rate == 1.0  # skips are left out, not counted as passes
    skipped = mem_hub.evaluations.results.list(evaluation.id, status="skip")
    assert len(skipped) == 2 and all(r.agent_output is not None for r in skipped)
    assert all(r.scenario_result.skip_reason == "no checks" for r in skipped)
    assert "no checks" in skipped[0]._repr_html_()
    summary = evaluation.summary()
    assert summary.skipped == 2 and [c.reason for c in summary.skipped_cases] == ["no checks"] * 2
    assert {c.label for c in summary.no_checks} == {
        "What are your opening hours?",
        "Do you ship abroad?",
    }
    text = str(summary)
    assert "1 passed, 0 failed, 0 errored, 2 skipped" in text
    assert "pass rate 100% [95% CI 21%–100%] (1 of 1 judged; 0 errored; 2 skipped)" in text
    assert "2 with no checks: add checks" in text and "- Do you ship abroad? (no checks)" in text
    html = summary._repr_html_()
    assert "skipped test case" in html and "no checks" in html


def test_an_evaluation_where_everything_errored_has_no_pass_rate(
    hub: Hub, setup, agent_server: AgentServer
) -> None:
    project, dataset = setup(hub)
    agent = hub.agents.create(project.id, name="down", url=agent_server.url("/error500"))
    evaluation = hub.evaluations.create(project.id, agent.id, dataset.id, progress=False)
    assert evaluation.counts["error"] == 3 and evaluation.pass_rate is None
    summary = evaluation.summary()
    assert summary.pass_rate is None and "0%" not in str(summary)
    assert "pass rate n/a (all results errored: 3 errored)" in str(summary)
    assert "all results errored" in evaluation._repr_html_()
    assert summary.to_dataframe()["pass_rate"].isna().all()
    # one errored result of three counts as not passed: 2 of 3, not 2 of 2
    flaky = hub.evaluations.create_local(
        lambda m: 1 / 0 if "refund" in m[-1]["content"] else support_agent(m),
        dataset.id,
        progress=False,
    )
    assert flaky.counts == {"pass": 1, "fail": 1, "error": 1, "skip": 0}
    assert flaky.pass_rate == pytest.approx(1 / 3)
    assert "pass rate 33% [95% CI 6%–79%] (2 of 3 judged; 1 errored)" in str(flaky.summary())
    comparison = hub.evaluations.compare(evaluation.id, flaky.id)
    assert comparison.pass_rates() == (None, pytest.approx(1 / 3))
    assert "n/a (all results errored: 3 errored) → 33% (2 of 3 judged; 1 errored)" in str(
        comparison
    )


# -- sync agents: concurrent on the core worker pool; a timeout is a deadline -----------------------------


@pytest.fixture
def release():
    """Hung sync agents wait on this event; set at teardown so their abandoned threads end."""
    event = threading.Event()
    yield event
    event.set()


def test_a_sync_agent_runs_at_the_full_concurrency(mem_hub: Hub) -> None:
    parties = 16  # the default thread pool has min(32, cores + 4) threads: 6 on 2 cores
    barrier = threading.Barrier(parties, timeout=10)

    def agent(messages):
        barrier.wait()  # returns only once every case is inside the agent at the same time
        return "We are open Monday to Friday."

    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(
        project.id, [rule_case(f"q{i}", "Monday") for i in range(parties)], name="d"
    )
    evaluation = mem_hub.evaluations.create_local(
        agent, dataset.id, max_concurrency=parties, progress=False
    )
    assert evaluation.counts["pass"] == parties, evaluation.counts


def test_hung_sync_agents_time_out_without_starving_the_others(mem_hub: Hub, release) -> None:
    hung_returned = threading.Event()

    def agent(messages):
        if messages[-1]["content"].startswith("hang"):
            release.wait(20)
            hung_returned.set()
        return "We are open Monday to Friday."

    project = mem_hub.projects.create("p")
    items = [rule_case("hang 1", "Monday"), rule_case("hang 2", "Monday")]
    items += [rule_case(f"q{i}", "Monday") for i in range(18)]
    dataset = mem_hub.datasets.upload(project.id, items, name="d")
    evaluation = mem_hub.evaluations.create_local(agent, dataset.id, timeout=0.5, progress=False)
    assert not hung_returned.is_set()  # the run returned while both hung calls still wait
    assert evaluation.status == "finished"
    assert evaluation.counts == {"pass": 18, "fail": 0, "error": 2, "skip": 0}
    for result in mem_hub.evaluations.results.list(evaluation.id, status="error"):
        assert result.scenario_result.steps[0].error.phase == "timeout"
        assert "did not finish within 0.5 s" in result.error


def test_a_remote_agent_trickling_its_reply_fails_at_the_deadline(mem_hub: Hub) -> None:
    from giskard_nb.testing.trickle import TrickleServer

    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(project.id, [rule_case("hello", "trickled")], name="d")
    with TrickleServer(interval=0.1, size=100) as server:  # 10 s to send the whole reply
        agent = mem_hub.agents.create(
            project.id, name="slow", url=server.url, timeout=0.5, max_retries=0
        )
        evaluation = mem_hub.evaluations.create(project.id, agent.id, dataset.id, progress=False)
        assert server.bytes_sent < server.size  # gave up long before the reply was complete
    result = evaluation.results()[0]
    assert result.status == "error"
    assert "did not answer within 0.5 s" in result.error and "whole request" in result.error


async def test_interrupting_a_run_abandons_hung_sync_agents(mem_hub: Hub, release) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(
        project.id, [rule_case(f"question {i}", "answer") for i in range(6)], name="d"
    )
    hung = threading.Semaphore(0)

    def stalls_after_three(messages):
        index = int(messages[-1]["content"].split()[-1])
        if index >= 3:
            hung.release()
            release.wait(20)  # the kernel interrupt arrives while these hang
        return f"answer {index}"

    task = asyncio.create_task(
        mem_hub.evaluations.acreate_local(
            stalls_after_three, dataset.id, max_concurrency=3, progress=False
        )
    )
    for _ in range(3):
        assert await asyncio.to_thread(hung.acquire, True, 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not release.is_set()  # cancelled while the sync agents still hang
    evaluation = mem_hub.evaluations.list()[0]
    assert evaluation.status == "interrupted" and evaluation.counts["pass"] == 3
    assert mem_hub.evaluations.summary(evaluation.id).missing == 3
