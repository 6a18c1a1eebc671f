"""Repeated-runs benchmark: a Hub evaluation of 2,000 test cases x 5 repeats (10,000 results) with a
0 ms agent whose answer is right about 80 % of the time and a rule check, then its summary (per-case
pass^k, pass@k, flaky, and every pass rate's interval bootstrapped over cases) and the comparison
with a second repeated run. SQLite file database in a temporary folder. Prints numbers only."""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from giskard_nb.hub import Hub

N_CASES = 2_000
REPEATS = 5


def main() -> None:
    rng = random.Random(5)

    def agent(messages: list[dict[str, str]]) -> str:
        right = rng.random() < 0.8
        return "We are open Monday to Friday." if right else "Please ask again later."

    with tempfile.TemporaryDirectory() as folder:
        hub = Hub(str(Path(folder) / "hub.db"))
        try:
            project = hub.projects.create("bench-repeats")
            items = [
                {
                    "messages": [{"role": "user", "content": f"When are you open? ({i})"}],
                    "checks": [{"identifier": "string_match", "params": {"keyword": "Monday"}}],
                    "tags": [f"topic:{i % 7}"],
                }
                for i in range(N_CASES)
            ]
            dataset = hub.datasets.upload(project.id, items, name="bench")
            runs = []
            for name in ("v1", "v2"):
                t0 = time.perf_counter()
                evaluation = hub.evaluations.create_local(
                    agent, dataset.id, name=name, repeats=REPEATS, progress=False
                )
                runs.append((evaluation, time.perf_counter() - t0))
            (first, run_time), (second, _) = runs
            assert sum(first.counts.values()) == N_CASES * REPEATS, first.counts
            t0 = time.perf_counter()
            summary = hub.evaluations.summary(first.id)
            summary_time = time.perf_counter() - t0
            t0 = time.perf_counter()
            comparison = hub.evaluations.compare(first.id, second.id)
            sentence = comparison.significance().sentence()
            compare_time = time.perf_counter() - t0
        finally:
            hub.close()
    print(f"evaluation of {N_CASES} cases x {REPEATS} repeats (0 ms agent): {run_time:.2f} s")
    print(
        f"summary() of {N_CASES * REPEATS} results: {summary_time:.2f} s "
        f"({summary.rate.text(interval=summary.interval)}; {summary.n_flaky} flaky cases)"
    )
    print(f"compare() + significance of two such runs: {compare_time:.2f} s ({sentence})")


if __name__ == "__main__":
    main()
