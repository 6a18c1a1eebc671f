"""Hub benchmarks: an evaluation of 1,000 test cases against a 50 ms agent at concurrency 32 (async, then
the same agent written sync); 10,000 cases with a 0 ms agent as a core Suite and as a Hub evaluation
(target: the Hub within 1.5x, in CPU time of this process, the median of 5 alternated rounds);
storing 100,000 results (target: <= 5 s) and building their DataFrame (target: <= 1 s, peak memory
<= 2x the frame's own size), the checks' DataFrame and the summary; an evaluation of 20 cases of which
2 hang (sync agent, timeout 1 s); a remote agent trickling 1 byte/s (timeout 2 s, to keep the run
short; 30-byte reply). SQLite file database (the default backend) in a temporary folder. Prints
numbers only (the best of 2 runs where the machine's load matters, unless said otherwise)."""

from __future__ import annotations

import asyncio
import gc
import tempfile
import threading
import time
import tracemalloc
from datetime import timedelta
from pathlib import Path
from statistics import median

try:
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]

from giskard_nb.hub import Hub
from giskard_nb.hub.ledger import BATCH_ROWS
from giskard_nb.hub.models.base import new_id

N_CASES = 1_000
CONCURRENCY = 32
AGENT_SECONDS = 0.05
N_RESULTS = 100_000
N_FAST = 10_000
ROUNDS = 5


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


def _fast_items(n: int) -> list[dict]:
    return [
        {
            "messages": [{"role": "user", "content": f"question {i}"}],
            "checks": [
                {"identifier": "string_match", "params": {"keyword": "Monday"}},
                {"identifier": "regex_matching", "params": {"pattern": r"question \d+"}},
            ],
        }
        for i in range(n)
    ]


async def instant_agent(messages: list[dict[str, str]]) -> str:
    return f"Answer to {messages[-1]['content']}: we are open Monday to Friday."


def _cpu() -> float:
    """CPU seconds this process has used so far, every thread included (the event loop's and the
    worker threads': the database writes, sync agents), user plus system: unlike wall-clock time, it
    does not count the time other processes of a shared machine take from this one."""
    if resource is None:  # Windows: process_time counts every thread of the process too
        return time.process_time()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class _Clock:
    """``with _Clock() as clock:`` the CPU seconds (``_cpu``) and wall seconds of the block, and the
    CPU seconds Python's cyclic garbage collector took inside it (``gc``)."""

    def __enter__(self) -> _Clock:
        self.gc, self._collecting = 0.0, 0.0
        gc.callbacks.append(self._collection)
        self._cpu, self._wall = _cpu(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cpu, self.wall = _cpu() - self._cpu, time.perf_counter() - self._wall
        gc.callbacks.remove(self._collection)

    def _collection(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._collecting = time.thread_time()
        else:
            self.gc += time.thread_time() - self._collecting


def _suite_time(n: int) -> _Clock:
    """The same cases as a core Suite (built, then run; the same checks and reply)."""
    from giskard_nb.checks.text import RegexMatching, StringMatching
    from giskard_nb.core.scenario import Scenario
    from giskard_nb.core.suite import Suite

    async def target(inputs: list[dict[str, str]]) -> str:
        return await instant_agent(inputs)

    with _Clock() as clock:
        suite = Suite("bench")
        for item in _fast_items(n):
            scenario = Scenario(item["messages"][0]["content"]).interact(inputs=item["messages"])
            suite.append(
                scenario.checks(
                    StringMatching(keyword="Monday"), RegexMatching(pattern=r"question \d+")
                )
            )
        result = suite.run_sync(target, max_concurrency=8)
    assert all(r.passed for r in result.results) and len(result.results) == n
    return clock


def _hub_time(hub: Hub, dataset_id: str, n: int) -> _Clock:
    """A Hub evaluation of the dataset (reading its test cases, running, storing every result)."""
    with _Clock() as clock:
        evaluation = hub.evaluations.create_local(
            instant_agent, dataset_id, max_concurrency=8, progress=False
        )
    assert evaluation.counts["pass"] == n, evaluation.counts
    return clock


def _spread(values: list[float], unit: str = "") -> str:
    """``median (min-max)`` of ``values``."""
    return f"{median(values):.2f}{unit} ({min(values):.2f}-{max(values):.2f}{unit})"


def bench_suite_vs_hub(hub: Hub, *, rounds: int = ROUNDS) -> float:
    """10,000 cases x 2 rule checks, 0 ms agent, concurrency 8: a core Suite (building its scenarios
    included) and a Hub evaluation (reading the test cases, running, storing every result), run
    alternately ``rounds`` times, each after a full collection. Measured in CPU seconds of this
    process (every thread): on a shared machine the wall clock counts the other processes too.
    Returns the median ratio Hub / Suite."""
    project = hub.projects.create("bench-fast")
    dataset = hub.datasets.upload(project.id, _fast_items(N_FAST), name="fast")
    warm = hub.datasets.upload(project.id, _fast_items(100), name="warm-up")
    _suite_time(100), _hub_time(hub, warm.id, 100)  # imports done before the clock runs
    suites, evaluations = [], []
    for _ in range(rounds):
        gc.collect()
        suites.append(_suite_time(N_FAST))
        gc.collect()
        evaluations.append(_hub_time(hub, dataset.id, N_FAST))
    pairs = list(zip(suites, evaluations, strict=True))
    cpu = [h.cpu / s.cpu for s, h in pairs]
    print(
        f"{N_FAST:,} cases x 2 rule checks, 0 ms agent, concurrency 8, alternated, median "
        f"(min-max) of {rounds}: CPU time core Suite {_spread([s.cpu for s in suites], ' s')}, "
        f"Hub evaluation {_spread([h.cpu for h in evaluations], ' s')} -> Hub / Suite "
        f"{_spread(cpu, 'x')} (target <= 1.5x; per round ratios "
        f"{', '.join(f'{r:.2f}' for r in cpu)}); of which the cyclic garbage collector: Suite "
        f"{median(s.gc for s in suites):.2f} s, Hub {median(h.gc for h in evaluations):.2f} s; "
        f"wall clock {_spread([h.wall / s.wall for s, h in pairs], 'x')}"
    )
    return median(cpu)


def bench_results(hub: Hub, template_id: str) -> None:
    template = hub.evaluations.results.list(template_id)[0]
    target = _empty_evaluation(hub, "bench-100k")
    results = [_copy(template, target.id, i) for i in range(N_RESULTS)]
    store = hub.evaluations.store
    t0 = time.perf_counter()
    for start in range(0, N_RESULTS, BATCH_ROWS):
        store.append(results[start : start + BATCH_ROWS])
    batched = time.perf_counter() - t0
    print(
        f"store {N_RESULTS:,} results in transactions of {BATCH_ROWS} (as an evaluation run "
        f"stores them; one audit entry per run): {batched:.2f} s, "
        f"{batched / N_RESULTS * 1e6:.0f} us/result (target <= 5 s)"
    )
    del results
    one = _empty_evaluation(hub, "bench-one-by-one")
    singles = [_copy(template, one.id, i) for i in range(1000)]
    t0 = time.perf_counter()
    for r in singles:
        store.append([r])
    alone = time.perf_counter() - t0
    print(f"store 1,000 results one transaction each: {alone / 1000 * 1e6:.0f} us/result")
    frame, df = min((_timed_frame(hub, target.id) for _ in range(2)), key=lambda t: t[0])
    gc.collect()
    tracemalloc.start()
    again = hub.evaluations.results.to_dataframe(target.id)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    size = int(again.memory_usage(deep=True).sum())
    del again
    print(
        f"to_dataframe() of {N_RESULTS:,} results: {frame:.2f} s ({len(df.columns)} columns; "
        f"target <= 1 s); peak memory {peak / 1e6:.0f} MB (tracemalloc) for a frame of "
        f"{size / 1e6:.0f} MB (memory_usage(deep=True)) -> {peak / size:.2f}x (target <= 2x)"
    )
    t0 = time.perf_counter()
    checks = hub.evaluations.results.to_dataframe(target.id, level="checks")
    frame_checks = time.perf_counter() - t0
    t0 = time.perf_counter()
    summary = hub.evaluations.summary(target.id)
    summarize = time.perf_counter() - t0
    assert len(df) == N_RESULTS and len(checks) == 2 * N_RESULTS and summary.total == N_RESULTS
    print(f"to_dataframe(level='checks'): {frame_checks:.2f} s ({len(checks):,} rows)")
    print(f"summary() of {N_RESULTS:,} results: {summarize:.2f} s")


def _copy(template, evaluation_id: str, i: int):
    """A result like ``template`` for another test case, started ``i`` microseconds later: its own
    ids (as the Hub makes them) and timestamps, as in a run."""
    started = template.created_at + timedelta(microseconds=i)
    return template.model_copy(
        update={
            "id": new_id(),
            "evaluation_id": evaluation_id,
            "test_case_id": new_id(),
            "created_at": started,
            "updated_at": started,
        }
    )


def _empty_evaluation(hub: Hub, name: str):
    """A stored evaluation (of a one-case dataset, its own result deleted) to store results into."""
    project = hub.projects.create(name)
    dataset = hub.datasets.upload(project.id, _fast_items(1), name=name)
    evaluation = hub.evaluations.create_local(instant_agent, dataset.id, progress=False)
    for result in evaluation.results():
        hub.evaluations.results.delete(result.id)
    return evaluation


def _timed_frame(hub: Hub, evaluation_id: str) -> tuple[float, object]:
    gc.collect()
    t0 = time.perf_counter()
    df = hub.evaluations.results.to_dataframe(evaluation_id)
    return time.perf_counter() - t0, df


def main() -> None:
    print("== hub (SQLite file) ==")
    with tempfile.TemporaryDirectory() as folder:
        hub = Hub(Path(folder) / "bench.db")
        bench_suite_vs_hub(hub)  # first: a heap of the same size for both
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
