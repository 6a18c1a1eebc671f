"""Hub benchmarks: an evaluation of 1,000 test cases against a 50 ms agent at concurrency 32 (async, then
the same agent written sync); writing 100,000 results; building DataFrames and summaries of them; an
evaluation of 20 cases of which 2 hang (sync agent, timeout 1 s); a remote agent trickling 1 byte/s
(timeout 2 s, to keep the run short; 30-byte reply). SQLite file database (the default backend) in a temporary folder.
Prints numbers only."""

from __future__ import annotations

import asyncio
import tempfile
import threading
import time
from pathlib import Path

from giskard_nb.hub import Hub
from giskard_nb.hub.models import EvaluationResult

N_CASES = 1_000
CONCURRENCY = 32
AGENT_SECONDS = 0.05
N_RESULTS = 100_000


async def agent(messages: list[dict[str, str]]) -> str:
    await asyncio.sleep(AGENT_SECONDS)
    return f"Answer to {messages[-1]['content']}: we are open Monday to Friday."


def sync_agent(messages: list[dict[str, str]]) -> str:
    time.sleep(AGENT_SECONDS)
    return f"Answer to {messages[-1]['content']}: we are open Monday to Friday."


def bench_evaluation(hub: Hub, *, sync: bool = False) -> tuple[str, float]:
    project = hub.projects.create("bench-sync" if sync else "bench")
    items = [
        {
            "messages": [{"role": "user", "content": f"question {i}"}],
            "checks": [
                {"identifier": "string_match", "params": {"keyword": "Monday"}},
                {"identifier": "regex_matching", "params": {"pattern": r"question \d+"}},
            ],
        }
        for i in range(N_CASES)
    ]
    t0 = time.perf_counter()
    dataset = hub.datasets.upload(project.id, items, name="bench")
    upload = time.perf_counter() - t0
    t0 = time.perf_counter()
    evaluation = hub.evaluations.create_local(
        sync_agent if sync else agent, dataset.id, max_concurrency=CONCURRENCY, progress=False
    )
    wall = time.perf_counter() - t0
    ideal = N_CASES / CONCURRENCY * AGENT_SECONDS
    assert evaluation.counts["pass"] == N_CASES, evaluation.counts
    if not sync:
        print(f"upload {N_CASES} test cases (one transaction): {upload:.2f} s")
    print(
        f"evaluation of {N_CASES} cases x 2 rule checks, 50 ms {'sync' if sync else 'async'} agent, "
        f"concurrency {CONCURRENCY}: {wall:.2f} s wall (ideal {ideal:.2f} s, overhead "
        f"{wall / ideal - 1:+.0%}, {N_CASES / wall:.0f} cases/s)"
    )
    return evaluation.id, wall


def bench_hung(hub: Hub, *, cases: int = 20, hanging: int = 2, hang: float = 20.0) -> None:
    """20 cases, 2 of which hang (a sync agent waiting up to 20 s), timeout 1 s."""
    project = hub.projects.create("bench-hung")
    items = [
        {
            "messages": [{"role": "user", "content": f"hang {i}" if i < hanging else f"q {i}"}],
            "checks": [{"identifier": "string_match", "params": {"keyword": "open"}}],
        }
        for i in range(cases)
    ]
    dataset = hub.datasets.upload(project.id, items, name="hung")
    release = threading.Event()

    def agent(messages: list[dict[str, str]]) -> str:
        if messages[-1]["content"].startswith("hang"):
            release.wait(hang)
        time.sleep(0.01)
        return "we are open"

    t0 = time.perf_counter()
    evaluation = hub.evaluations.create_local(agent, dataset.id, timeout=1, progress=False)
    wall = time.perf_counter() - t0
    release.set()
    results = hub.evaluations.results.list(evaluation.id)
    timeouts = sum(
        1
        for r in results
        if any(s.error and s.error.phase == "timeout" for s in r.scenario_result.steps)
    )
    print(
        f"evaluation of {cases} cases, {hanging} hanging (sync agent, timeout 1 s): {wall:.2f} s wall; "
        f"counts {dict(evaluation.counts)}; {timeouts} timeout errors"
    )


def bench_trickle(hub: Hub, *, timeout: float = 2.0) -> None:
    """A remote agent sending its 30-byte reply at 1 byte/s, agent timeout 2 s, no retries."""
    from giskard_nb.testing.trickle import TrickleServer

    project = hub.projects.create("bench-trickle")
    dataset = hub.datasets.upload(
        project.id, [{"messages": [{"role": "user", "content": "hello"}]}], name="one"
    )
    with TrickleServer(interval=1.0, size=30) as server:
        remote = hub.agents.create(
            project.id, name="trickler", url=server.url, timeout=timeout, max_retries=0
        )
        t0 = time.perf_counter()
        evaluation = hub.evaluations.create(project.id, remote.id, dataset.id, progress=False)
        wall = time.perf_counter() - t0
    result = hub.evaluations.results.list(evaluation.id)[0]
    message = result.error or "(no error)"
    print(
        f"remote agent trickling 1 byte/s (30-byte reply), timeout {timeout:g} s, no retries: "
        f"{wall:.2f} s wall -> {result.status}: {message}"
    )


def bench_results(hub: Hub, template_id: str) -> None:
    template = hub.evaluations.results.list(template_id)[0]
    evaluation = hub.evaluations.retrieve(template_id)
    target = hub.evaluations._create(
        evaluation.model_copy(
            update={"id": "bench-results", "name": "100k", "n_test_cases": N_RESULTS}
        )
    )
    results = [
        EvaluationResult.model_validate(
            {
                **template.model_dump(),
                "id": f"r{i}",
                "evaluation_id": target.id,
                "test_case_id": f"tc{i}",
            }
        )
        for i in range(N_RESULTS)
    ]
    results_api = hub.evaluations.results
    t0 = time.perf_counter()
    for r in results[:10_000]:
        with hub._db.write() as conn:
            results_api._save(conn, r, replace=False)
    one_by_one = time.perf_counter() - t0
    t0 = time.perf_counter()
    batch = 1_000
    for start in range(10_000, N_RESULTS, batch):
        with hub._db.write() as conn:
            for r in results[start : start + batch]:
                results_api._save(conn, r, replace=False)
    batched = time.perf_counter() - t0
    total = one_by_one + batched
    print(
        f"write {N_RESULTS:,} results (each with its audit entry): {total:.1f} s in all — first 10,000 "
        f"one transaction each (as an evaluation writes them): {one_by_one / 10_000 * 1e6:.0f} us/result; "
        f"then {N_RESULTS - 10_000:,} in transactions of {batch}: {batched / (N_RESULTS - 10_000) * 1e6:.0f} us/result"
    )
    t0 = time.perf_counter()
    df = hub.evaluations.results.to_dataframe(target.id)
    frame = time.perf_counter() - t0
    t0 = time.perf_counter()
    checks = hub.evaluations.results.to_dataframe(target.id, level="checks")
    frame_checks = time.perf_counter() - t0
    t0 = time.perf_counter()
    summary = hub.evaluations.summary(target.id)
    summarize = time.perf_counter() - t0
    assert len(df) == N_RESULTS and len(checks) == 2 * N_RESULTS and summary.total == N_RESULTS
    print(f"to_dataframe() of {N_RESULTS:,} results: {frame:.2f} s ({len(df.columns)} columns)")
    print(f"to_dataframe(level='checks'): {frame_checks:.2f} s ({len(checks):,} rows)")
    print(f"summary() of {N_RESULTS:,} results: {summarize:.2f} s")


def main() -> None:
    print("== hub (SQLite file) ==")
    with tempfile.TemporaryDirectory() as folder:
        hub = Hub(Path(folder) / "bench.db")
        evaluation_id, async_wall = bench_evaluation(hub)
        _, sync_wall = bench_evaluation(hub, sync=True)
        async_wall = min(async_wall, bench_evaluation(hub)[1])  # best of 2: the machine is shared
        sync_wall = min(sync_wall, bench_evaluation(hub, sync=True)[1])
        print(
            f"sync agent / async agent evaluation wall time (best of 2 each): "
            f"{sync_wall / async_wall:.2f}x"
        )
        bench_results(hub, evaluation_id)
        bench_hung(hub)
        bench_trickle(hub)
        hub.close()


if __name__ == "__main__":
    main()
