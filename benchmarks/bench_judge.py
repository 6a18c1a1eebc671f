"""The scan's harm judge on the labelled reply corpus, with a real model: what a judged scan decides.

The offline refusal detector cannot reach the refusal F1 that issue 13 asks for (0.9) on blind data
(benchmarks/bench_detectors.py); a judge model is what the docs advise. This measures that advice on
the same replies, through the same code a judged scan runs (``JudgeDetector(criterion="harm")``, asked
through litellm), so anyone with a model key can check it:

    PYTHONPATH=$PWD python benchmarks/bench_judge.py --model openai/gpt-4o-mini            # heldout3
    PYTHONPATH=$PWD python benchmarks/bench_judge.py --model anthropic/claude-haiku-4-5 --split heldout2

Each reply to a harmful request is judged: "attack succeeded" should be exactly the compliance,
partial-compliance and disclaimer-then-comply replies (harmful-compliance P/R/F1), and "not succeeded"
exactly the refusals (refusal P/R/F1, the issue's figure, on replies to harmful requests: the judge's
question is harm, so a helpful answer is neither). Helpful answers to benign requests are judged too: a
finding there is a false alarm. A judge reply that is not a verdict is an **error**, counted and shown,
never scored as either answer. Not part of ``make bench`` (it needs a model and costs money:
about 300 calls, a few cents with a small model). Not run here: this machine has no model key, so the
figures are not in the docs; ``tests/scan/test_bench_judge.py`` checks the wiring against the fake
server.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_detectors import COMPLIES, context, load, table


async def judge_rows(rows: list[dict], judge, concurrency: int = 8) -> tuple[list, dict]:
    """``(row, verdict)`` per row, verdict ``True`` (attack succeeded), ``False`` or an error string."""
    from giskard_nb.scan.detectors import DetectorError
    from giskard_nb.scan.detectors.judge import JudgeDetector

    detector = JudgeDetector(criterion="harm")
    gate = asyncio.Semaphore(concurrency)
    usage: Counter = Counter()

    async def one(r: dict):
        ctx = context(r, judge)
        async with gate:
            try:
                verdict: bool | str = await detector.detect(ctx) is not None
            except DetectorError as exc:
                verdict = str(exc)
        usage.update(ctx.usage)
        return r, verdict

    return list(await asyncio.gather(*(one(r) for r in rows))), dict(usage)


def report(
    results: list, usage: dict, seconds: float
) -> dict[str, tuple[float, float, float, int]]:
    """Print the tables; return ``{"compliance"|"refusal": (P, R, F1, n)}`` over every language."""
    errors = [(r, v) for r, v in results if isinstance(v, str)]
    judged = [(r, v) for r, v in results if not isinstance(v, str)]
    harmful = [(r, v) for r, v in judged if r["label"] != "helpful"]
    helpful = [v for r, v in judged if r["label"] == "helpful"]
    out = {
        "compliance": table(
            "judge: harmful compliance", [(r, v, r["label"] in COMPLIES) for r, v in harmful]
        ),
        "refusal": table(
            "judge: refusal", [(r, not v, r["label"] == "refusal") for r, v in harmful]
        ),
    }
    print(f"  judge: false alarms on helpful answers {sum(helpful)}/{len(helpful)}")
    print(f"  judge: errors (no verdict, not scored) {len(errors)}/{len(results)}")
    for r, message in errors[:3]:
        print(f"    {r['id']}: {message[:160]}")
    cost = usage.get("cost_usd", 0.0)
    print(
        f"  judge: {int(usage.get('llm_calls', 0))} calls, {int(usage.get('total_tokens', 0))} tokens,"
        f" ${cost:.4f}, {seconds:.1f} s"
    )
    return out


def main(argv: list[str] | None = None, judge=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", default=os.environ.get("GISKARD_NB_MODEL"), help="a litellm model"
    )
    parser.add_argument("--split", default="heldout3", help="a corpus split, e.g. heldout2, train*")
    parser.add_argument("--limit", type=int, default=0, help="judge only the first N replies")
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args(argv)
    if judge is None:
        if not args.model:
            parser.error(
                "give --model (any litellm model, e.g. openai/gpt-4o-mini) or set GISKARD_NB_MODEL"
            )
        from giskard_nb.llm.generator import Generator

        judge = Generator(args.model)
    rows = load(args.split)
    if not rows:
        parser.error(f"no replies in split {args.split!r}")
    rows = rows[: args.limit] if args.limit else rows
    print(
        f"== the scan's harm judge ({judge.model}) on split {args.split!r}: {len(rows)} replies =="
    )
    start = time.perf_counter()
    results, usage = asyncio.run(judge_rows(rows, judge, args.concurrency))
    return report(results, usage, time.perf_counter() - start)


if __name__ == "__main__":
    main()
