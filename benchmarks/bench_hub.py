"""Hub benchmarks: an evaluation of 1,000 test cases against a 50 ms async agent at concurrency 32;
writing 100,000 results; building DataFrames and summaries of them. SQLite file database (the default
backend) in a temporary folder. Prints numbers only."""

from __future__ import annotations

import asyncio
import tempfile
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


def bench_evaluation(hub: Hub) -> str:
    project = hub.projects.create("bench")
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
        agent, dataset.id, max_concurrency=CONCURRENCY, progress=False
    )
    wall = time.perf_counter() - t0
    ideal = N_CASES / CONCURRENCY * AGENT_SECONDS
    assert evaluation.counts["pass"] == N_CASES, evaluation.counts
    print(f"upload {N_CASES} test cases (one transaction): {upload:.2f} s")
    print(
        f"evaluation of {N_CASES} cases x 2 rule checks, 50 ms async agent, concurrency "
        f"{CONCURRENCY}: {wall:.2f} s wall (ideal {ideal:.2f} s, overhead {wall / ideal - 1:+.0%}, "
        f"{N_CASES / wall:.0f} cases/s)"
    )
    return evaluation.id


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
        evaluation_id = bench_evaluation(hub)
        bench_results(hub, evaluation_id)
        hub.close()


if __name__ == "__main__":
    main()
