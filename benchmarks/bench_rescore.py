"""Re-score benchmark: 10,000 stored results of a Hub evaluation re-scored with a rule check through
``hub.evaluations.rescore`` (the dataset's current check, then a check given), the agent never called.
SQLite file database (the default backend) in a temporary folder. Prints numbers only (the best of 2
re-scores, since the machine's load matters)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from giskard_nb.checks import StringMatching
from giskard_nb.hub import Hub

N_RESULTS = 10_000


def agent(messages: list[dict[str, str]]) -> str:
    return f"Answer to {messages[-1]['content']}: we are open Monday to Friday."


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        hub = Hub(str(Path(folder) / "hub.db"))
        try:
            project = hub.projects.create("bench-rescore")
            items = [
                {
                    "messages": [{"role": "user", "content": f"question {i}"}],
                    "checks": [{"identifier": "string_match", "params": {"keyword": "Monday"}}],
                }
                for i in range(N_RESULTS)
            ]
            dataset = hub.datasets.upload(project.id, items, name="bench")
            t0 = time.perf_counter()
            evaluation = hub.evaluations.create_local(
                agent, dataset.id, max_concurrency=32, progress=False
            )
            run = time.perf_counter() - t0
            assert evaluation.counts["pass"] == N_RESULTS, evaluation.counts
            times = []
            for _ in range(2):
                t0 = time.perf_counter()
                rescored = hub.evaluations.rescore(evaluation.id, progress=False)
                times.append(time.perf_counter() - t0)
                assert rescored.counts["pass"] == N_RESULTS, rescored.counts
            given = StringMatching(keyword="Friday")
            t0 = time.perf_counter()
            other = hub.evaluations.rescore(evaluation.id, checks=[given], progress=False)
            given_time = time.perf_counter() - t0
            assert other.counts["pass"] == N_RESULTS, other.counts
        finally:
            hub.close()
    best = min(times)
    print(f"evaluation of {N_RESULTS} cases x 1 rule check (0 ms agent): {run:.2f} s")
    print(
        f"re-score of {N_RESULTS} stored results with the dataset's rule check: {best:.2f} s "
        f"(best of 2; {N_RESULTS / best:.0f} results/s)"
    )
    print(f"re-score of {N_RESULTS} stored results with a rule check given: {given_time:.2f} s")


if __name__ == "__main__":
    main()
