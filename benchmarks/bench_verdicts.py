"""Verdict-reader benchmark (issue 10): how many junk judge replies become a PASS. Prints numbers.

The hostile-reply corpus (``tests/llm/hostile_replies.py``) is served by one ``FakeLLMServer`` — as the
first reply and again as the answer to the repair request — to every built-in LLM check (and a custom
``BaseLLMCheck``) and to the scan judge, through the real litellm path. A check's PASS, or the scan judge's
"attack not succeeded", on a junk reply is a verdict that was not earned. Run it on another checkout with
``PYTHONPATH=/path/to/checkout python benchmarks/bench_verdicts.py`` to compare readers.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

CORPUS_FILE = Path(__file__).resolve().parents[1] / "tests" / "llm" / "hostile_replies.py"


def _corpus():
    spec = importlib.util.spec_from_file_location("hostile_replies", CORPUS_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    home = tempfile.mkdtemp(prefix="giskard-nb-bench-")
    previous = os.environ.get("GISKARD_NB_HOME")
    os.environ["GISKARD_NB_HOME"] = home
    os.environ.setdefault(
        "LITELLM_LOCAL_MODEL_COST_MAP", "True"
    )  # loopback only: no price-map fetch
    try:
        asyncio.run(_run())
    finally:
        if previous is None:
            os.environ.pop("GISKARD_NB_HOME", None)
        else:
            os.environ["GISKARD_NB_HOME"] = previous


async def _run() -> None:
    import giskard_nb
    from giskard_nb.testing import FakeLLMServer

    hostile = _corpus()
    print(f"Verdict reader (issue 10) — giskard_nb from {Path(giskard_nb.__file__).parent}")
    check_replies = hostile.expand(hostile.CHECK_VALUES)
    judge_replies = hostile.expand(hostile.JUDGE_VALUES)
    t0 = time.perf_counter()
    rows, passed, requests = [], [], 0
    for values, names in _checks_by_values(hostile):  # each check gets the corpus of its verdict
        replies = hostile.expand(values)
        with FakeLLMServer(reply=hostile.serve_by_case([text for _, text in replies])) as server:
            gen = server.generator(cache=False, max_retries=0, max_concurrency=16)
            part = await hostile.run_checks_matrix(gen, len(replies), only=names)
            requests += len(server.chat_requests)
        rows += part
        passed += [(name, replies[i][0]) for name, i, r in part if r.status.value == "pass"]
    statuses = Counter(r.status.value for _, _, r in rows)
    print(
        f"  LLM checks: junk replies that became PASS: {len(passed)} of {len(rows)} "
        f"({len(check_replies)} kinds x {len(rows) // len(check_replies)} checks; statuses {dict(statuses)}; "
        f"{requests} judge requests, {time.perf_counter() - t0:.1f} s)"
    )
    for kind, count in Counter(kind for _, kind in passed).most_common():
        print(f"    {kind}: {count}")
    t0 = time.perf_counter()
    with FakeLLMServer(reply=hostile.serve_by_case([text for _, text in judge_replies])) as server:
        gen = server.generator(cache=False, max_retries=0, max_concurrency=16)
        outcomes = await hostile.run_judge_matrix(gen, len(judge_replies))
    unearned = [judge_replies[i][0] for i, outcome, _ in outcomes if outcome == "no_finding"]
    print(
        f"  scan judge: junk replies that became 'attack not succeeded': {len(unearned)} of "
        f"{len(outcomes)} ({Counter(o for _, o, _ in outcomes)}; {time.perf_counter() - t0:.1f} s)"
    )
    for kind in unearned:
        print(f"    {kind}")
    total = len(passed) + len(unearned)
    print(f"  total: junk replies that became PASS: {total} of {len(rows) + len(outcomes)}")


def _checks_by_values(hostile) -> list[tuple[dict[str, str], list[str]]]:
    """The LLM checks grouped by the placeholder values their corpus is written with."""
    groups: dict[int, tuple[dict[str, str], list[str]]] = {}
    for name in hostile.llm_checks(None):
        values = hostile.VALUES_BY_CHECK.get(name, hostile.CHECK_VALUES)
        groups.setdefault(id(values), (values, []))[1].append(name)
    return list(groups.values())


if __name__ == "__main__":
    main()
