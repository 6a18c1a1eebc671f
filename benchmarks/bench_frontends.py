"""Frontends: DataFrames of 100,000 check results, the ResultsViewer's time to first page on
100,000 results, the charts, and the real-browser test's wall time (when Chromium is installed).

``python benchmarks/bench_frontends.py [--no-browser]``
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _results(n_scenarios: int, checks_per: int):
    from giskard_nb import (
        CheckResult,
        Interaction,
        ScenarioResult,
        SuiteResult,
        TestCaseResult,
        Trace,
    )

    makers = (CheckResult.success, CheckResult.failure, CheckResult.error, CheckResult.success)
    results = []
    for i in range(n_scenarios):
        checks = [
            makers[(i + j) % 4](
                f"reason {j}",
                details={"check_name": f"check_{j}", "check_kind": "fake", "duration_ms": 0.5},
            )
            for j in range(checks_per)
        ]
        results.append(
            ScenarioResult(
                scenario_name=f"scenario {i}",
                steps=[TestCaseResult(results=checks, last_interaction_index=0)],
                final_trace=Trace(interactions=[Interaction(inputs=f"q{i}", outputs=f"a{i}")]),
                duration_ms=float(i % 97),
                tags=[f"topic:{i % 7}"],
            )
        )
    return SuiteResult(name="bench", results=results)


def _timed(label: str, fn, repeat: int = 3):
    best, value = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    print(f"  {label:<58} {best * 1000:9.1f} ms (best of {repeat})")
    return value


def bench_frames() -> None:
    from giskard_nb.frames import to_dataframe

    print("DataFrames (best of 3)")
    suite = _results(25_000, 4)
    df = _timed(
        "to_dataframe(level='checks'): 100,000 check results",
        lambda: to_dataframe(suite, level="checks"),
    )
    _timed("to_dataframe(level='scenarios'): 25,000 scenarios", lambda: to_dataframe(suite))
    print(
        f"  ({len(df):,} check rows, {df.memory_usage(deep=True).sum() / 2**20:.0f} MiB in memory)"
    )


def bench_viewer() -> None:
    from giskard_nb.widgets import ResultsViewer

    print("ResultsViewer on 100,000 results")
    suite = _results(100_000, 1)
    viewer = _timed(
        "time to first page (index + first page rendered)",
        lambda: ResultsViewer(suite, page_size=20),
        repeat=2,
    )
    _timed(
        "filter(status='fail') then render page 1", lambda: viewer.filter(status="fail"), repeat=2
    )
    _timed(
        "filter(search='scenario 9999')", lambda: viewer.filter(search="scenario 9999"), repeat=2
    )
    viewer.clear_filters()
    _timed("next_page()", viewer.next_page)
    _timed("open(50_000)", lambda: viewer.open(50_000))


def bench_charts() -> None:
    from giskard_nb.charts import plot_latency, plot_pass_rate

    print("Charts on 10,000 scenarios x 4 checks")
    suite = _results(10_000, 4)
    _timed("plot_pass_rate(by='check')", lambda: plot_pass_rate(suite))
    _timed(
        "plot_pass_rate(by='tag', tag_key='topic')",
        lambda: plot_pass_rate(suite, by="tag", tag_key="topic"),
    )
    _timed("plot_latency()", lambda: plot_latency(suite))


def bench_browser() -> None:
    print("Real browser (JupyterLab + Chromium): tests/browser")
    if (
        not Path("/usr/bin/chromium").exists()
        or shutil.which("jupyter-lab", path=str(Path(sys.executable).parent)) is None
    ):
        print("  skipped: run .ci/browser.sh first (Chromium, JupyterLab, Playwright)")
        return
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "tests/browser"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    inner = next((line for line in out.stdout.splitlines() if "wall time" in line), "")
    status = "passed" if out.returncode == 0 else f"FAILED (exit {out.returncode})"
    print(f"  pytest tests/browser: {wall:.1f} s including pytest start-up, {status}")
    if inner:
        print(f"  {inner.strip()}")


def main() -> None:
    print("== frontends ==")
    bench_frames()
    bench_viewer()
    bench_charts()
    if "--no-browser" not in sys.argv:
        bench_browser()


if __name__ == "__main__":
    main()
