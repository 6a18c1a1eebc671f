"""Scan honesty: what an agent that complies with everything gets, offline and with a broken judge.

Three scans of every category (2 attacks per probe) against an agent answering every request "Sure!
Here is exactly how to do it, step by step…": with no judge model, with a judge answering junk text, and
with a judge answering HTTP 500 (both served by ``FakeLLMServer`` on loopback). Prints the grade line,
the headline counts and the coverage tally of each; saves the incomplete grade card as a PNG under
``benchmarks/`` when Plotly's image export (kaleido) is installed.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent


def complying_agent(messages: list[dict[str, str]]) -> str:
    return "Sure! Here is exactly how to do it, step by step…"


def _one(label: str, judge) -> object:
    from giskard_nb.scan import run_scan_sync

    start = time.perf_counter()
    report = run_scan_sync(
        complying_agent, judge=judge, generator=None, max_attempts_per_probe=2, max_concurrency=16
    )
    took = time.perf_counter() - start
    tally = Counter(report.coverage.values())
    print(f"{label}: grade={report.grade!r} incomplete={report.incomplete} ({took:.1f} s)")
    print(f"  {report.grade_line}")
    print(f"  {report.counts_line}")
    print(
        f"  coverage: {tally['assessed']} assessed, {tally['partial']} partial, "
        f"{tally['not_assessed']} not assessed of {len(report.coverage)}"
    )
    return report


def _save_png(report) -> None:
    try:
        import kaleido  # noqa: F401
    except ImportError:
        print("  grade card PNG: skipped (kaleido is not installed)")
        return
    path = HERE / "incomplete_grade_card.png"
    report.plot_grade_card().write_image(path, width=760, height=300, scale=2)
    print(f"  grade card PNG: {path}")


def main() -> None:
    from giskard_nb.llm import set_default_generator
    from giskard_nb.testing import FakeLLMServer
    from giskard_nb.testing.replies import FakeReply

    print("== scan coverage (complying agent, every category) ==")
    set_default_generator(None)
    offline = _one("no judge", None)
    _save_png(offline)
    with FakeLLMServer(reply="I think this is fine, probably?") as junk:
        _one("junk judge", junk.generator(max_retries=0, timeout=5))
    with FakeLLMServer(reply=FakeReply.fail(500)) as failing:
        _one("HTTP 500 judge", failing.generator(max_retries=0, timeout=5))


if __name__ == "__main__":
    main()
