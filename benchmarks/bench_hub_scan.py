"""Hub scan benchmark: a Hub scan (every attempt stored, grade kept current) of N bulk single-turn
attacks against a 50 ms async agent at concurrency 32, versus the library engine ``run_scan`` alone on
the same probe; both times and their ratio per N (target: the Hub within 1.2x of the engine).

``python benchmarks/bench_hub_scan.py [N ...]`` runs the given sizes (default 500 1000 2000 5000);
``--runs K`` repeats each measurement and keeps the fastest (default 1; ``make bench``: 2). The Hub is
a SQLite file in a temporary folder.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scan import _bulk_probe

SIZES = (500, 1000, 2000, 5000)
CONCURRENCY = 32
LATENCY = 0.05


async def _agent(messages: list[dict[str, str]]) -> str:
    await asyncio.sleep(LATENCY)
    return "I'm sorry, but I can't help with that."


def _options(n: int) -> dict:
    return {
        "probes": [_bulk_probe(n)],
        "include_library": False,
        "max_attempts_per_probe": n,
        "max_concurrency": CONCURRENCY,
    }


def engine_time(n: int) -> float:
    from giskard_nb.scan import run_scan_sync

    start = time.perf_counter()
    report = run_scan_sync(_agent, judge=None, generator=None, **_options(n))
    elapsed = time.perf_counter() - start
    assert len(report.attempts) == n, len(report.attempts)
    return elapsed


def hub_time(n: int) -> float:
    from giskard_nb.hub import Hub

    with tempfile.TemporaryDirectory() as tmp, Hub(Path(tmp) / "hub.db") as hub:
        project = hub.projects.create(name="bench")
        start = time.perf_counter()
        scan = hub.scans.create(
            project.id, agent=_agent, judge=None, generator=None, progress=False, **_options(n)
        )
        elapsed = time.perf_counter() - start
        assert scan.counts["attempts"] == n, scan.counts
    return elapsed


def compare(sizes=SIZES, runs: int = 1) -> None:
    ideal = lambda n: -(-n // CONCURRENCY) * LATENCY  # noqa: E731 - batches of 32 x 50 ms
    for n in sizes:
        engine = min(engine_time(n) for _ in range(runs))
        hub = min(hub_time(n) for _ in range(runs))
        print(
            f"hub scan of {n} single-turn attacks (50 ms async agent, concurrency {CONCURRENCY}): "
            f"hub {hub:.2f} s, engine {engine:.2f} s (ideal {ideal(n):.2f} s), "
            f"ratio {hub / engine:.2f}x (target <= 1.2x)"
        )


def main() -> None:
    print("== hub scan (fastest of 2 runs) ==")
    compare(runs=2)


if __name__ == "__main__":
    args = sys.argv[1:]
    runs = 1
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i : i + 2]
    print("== hub scan ==")
    compare([int(a) for a in args] or SIZES, runs=runs)
