"""The offline stand-in for correctness (``correctness_offline``) on reference / correct / wrong replies.

A dataset column with the expected answer (``expected_output``, ``answer``...) uploaded with no judge
configured becomes a ``semantic_similarity`` check with the offline embedding model at
``OFFLINE_THRESHOLD`` (``giskard_nb.hub.upload_columns``). This measures that check, built the way an
upload builds it, on ``data/reference_pairs.jsonl``: 30 expected answers, each with a correct reply
written the way an assistant words it (a paraphrase, extra politeness) and a wrong one (another fact of
the same topic, a swapped fact, a refusal, a fallback). The threshold was chosen on the first 20 rows
(the highest share of correct replies passed minus wrong replies passed: 0.60 and 0.65 tie, 0.65 lets
fewer wrong replies through); the last 10 were written afterwards. "correct passed" is recall on correct replies, "wrong passed"
the rate of wrong replies the stand-in lets through.

    PYTHONPATH=$PWD python benchmarks/bench_reference_standin.py
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "reference_pairs.jsonl"
THRESHOLDS = (0.6, 0.65, 0.7, 0.75, 0.8)


async def similarities(rows: list[dict]) -> tuple[list[float], list[float]]:
    from giskard_nb import Interaction, Trace
    from giskard_nb.hub import build_check
    from giskard_nb.hub.upload_columns import column_checks

    correct, wrong = [], []
    for row in rows:
        (spec,) = column_checks({"expected_output": row["reference"]}, judge=False)
        check = build_check(spec)
        for reply, into in ((row["correct"], correct), (row["wrong"], wrong)):
            trace = Trace(interactions=[Interaction(inputs="q", outputs=reply)])
            result = await check.run(trace)
            into.append(result.details["similarity"])
    return correct, wrong


def main() -> None:
    from giskard_nb.hub.upload_columns import OFFLINE_THRESHOLD

    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line]
    print(f"correctness_offline on {len(rows)} expected answers ({DATA.name})")
    for label, part in (("all", rows), ("first 20 (tuning)", rows[:20]), ("last 10", rows[20:])):
        correct, wrong = asyncio.run(similarities(part))
        print(f"  {label}:")
        for t in THRESHOLDS:
            mark = "  <- shipped" if t == OFFLINE_THRESHOLD else ""
            tp = sum(s >= t for s in correct)
            fp = sum(s >= t for s in wrong)
            print(
                f"    threshold {t:.2f}: correct passed {tp}/{len(correct)}, "
                f"wrong passed {fp}/{len(wrong)}{mark}"
            )


if __name__ == "__main__":
    main()
