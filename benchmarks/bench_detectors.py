"""Detector quality on the project's own labelled reply corpus (benchmarks/data/replies*.jsonl).

The corpus: 3,158 agent replies written for this project (English, French, Spanish, German, Italian and
Portuguese), labelled ``refusal``, ``compliance``, ``partial`` (partial compliance), ``disclaimer``
(disclaimer then comply) and ``helpful`` (an on-topic answer to a benign request). Each split has its
own writer:

- ``dev``, ``dev2``, ``dev3`` (370 replies in ``replies.jsonl``): what the phrase lists were written
  and tuned against (dev2 and dev3 were held out once, then used for tuning);
- ``train`` (538 replies) and ``train_a`` … ``train_f`` (six more writers, 240 replies each, on
  telecom/energy, banking/insurance, general assistants and jailbreak personas, health/legal/public
  services/HR, shops/travel/games, IT/dev tools/schools), and ``train_g`` (330 replies, an eighth
  writer, written blind), 2,308 in all in ``replies_train.jsonl``, printed pooled as ``train*``: the
  training data of the classifier that is ``ComplianceDetector``'s second reading
  (``refusal_model.json``, fitted by ``benchmarks/train_refusal.py`` before ``train_g`` came) and of the
  embedding reading (``refusal_embed.json``, ``benchmarks/train_refusal_embed.py``); both scripts print
  their leave-one-writer-out figures: the figures printed here on ``train*`` are training figures. The
  phrase lists' set phrases were checked against misses on ``train`` … ``train_f``;
- ``heldout2`` (180 replies, ``replies_heldout2.jsonl``) and ``heldout3`` (300 replies,
  ``replies_heldout3.jsonl``, two writers): written blind, by writers who read no project code or data,
  to be measured and never tuned on nor read for errors. ``heldout2`` has been measured three times
  (before and during the first classifier attempt); ``heldout3`` was committed unread, measured once
  with the rules alone and once with the classifier as shipped.

- ``heldout4`` (``replies_heldout4.jsonl``), when that file exists: a further blind split, measured
  by the integrator. Held-out splits are named "(held out)" in the output.

With the ``refusal`` extra installed, ``detect_refusal`` combines the phrase lists with the embedding
reading (``refusal_embed.py``, fitted on ``dev*`` and ``train*`` by ``benchmarks/train_refusal_embed.py``):
each split prints the rules alone, the combined verdict, the verdict where the two readings agree, and
how many replies are ``unsure``. Without it the output says the reading is rules-only.

Two questions are measured: does ``detect_refusal`` say "refused" exactly for the refusals (every other
label is not a refusal), and does ``ComplianceDetector`` flag the replies to harmful requests that comply
in any way (compliance, partial, disclaimer) while leaving refusals and helpful answers alone.
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "data" / "replies.jsonl"
CORPUS_TRAIN = CORPUS.with_name("replies_train.jsonl")
CORPUS_HELDOUT2 = CORPUS.with_name("replies_heldout2.jsonl")
CORPUS_HELDOUT3 = CORPUS.with_name("replies_heldout3.jsonl")
#: A further held-out split the integrator adds (measured when the file exists).
CORPUS_HELDOUT4 = CORPUS.with_name("replies_heldout4.jsonl")
CORPORA = tuple(
    p
    for p in (CORPUS, CORPUS_TRAIN, CORPUS_HELDOUT2, CORPUS_HELDOUT3, CORPUS_HELDOUT4)
    if p.exists()
)
#: ``train*`` pools the training splits (``train``, ``train_a`` … ``train_f``).
SPLITS = ("dev", "dev2", "dev3", "train*", "heldout2", "heldout3") + (
    ("heldout4",) if CORPUS_HELDOUT4.exists() else ()
)
COMPLIES = {"compliance", "partial", "disclaimer"}


def load(split: str | None = None) -> list[dict]:
    rows = [
        json.loads(line)
        for path in CORPORA
        for line in path.read_text(encoding="utf-8").splitlines()
        if line
    ]
    if split is not None and split.endswith("*"):
        return [r for r in rows if r["split"].startswith(split[:-1])]
    return [r for r in rows if split is None or r["split"] == split]


def _prf(pairs: list[tuple[bool, bool]]) -> tuple[float, float, float, int]:
    tp = sum(p and t for p, t in pairs)
    fp = sum(p and not t for p, t in pairs)
    fn = sum(t and not p for p, t in pairs)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1, len(pairs)


def verdicts(rows: list[dict]) -> list[tuple[dict, object]]:
    """``detect_refusal`` on every row (the embedding reading, when installed, primed in one batch)."""
    from giskard_nb.scan.detectors import detect_refusal
    from giskard_nb.scan.detectors.refusal_embed import available, embed, parts

    if available():
        embed([t for r in rows for t in (*parts(r["reply"]), r["request"].strip()[:2000])])
    return [(r, detect_refusal(r["reply"], r["request"])) for r in rows]


def readings(read: list[tuple[dict, object]]) -> None:
    """The refusal readings side by side: rules alone, where they agree, how many are unsure."""
    from giskard_nb.scan.detectors.refusal_rules import rule_verdict

    truth = [(r, r["label"] == "refusal") for r, _ in read]
    rules = [(r, rule_verdict(r["reply"], r["request"]).refused, t) for r, t in truth]
    table("refusal, rules alone", rules)
    if all(v.reading == "rules" for _, v in read):
        print("  refusal reading: rules only (the embedding reading needs the 'refusal' extra)")
        return
    unsure = [v.unsure for _, v in read]
    table(
        "refusal, readings agree",
        [(r, v.refused, t) for (r, v), (_, t) in zip(read, truth, strict=True) if not v.unsure],
    )
    print(f"  {'refusal, unsure':<26} {sum(unsure)}/{len(unsure)} replies (the readings disagree)")
    # the three-way reading: an abstention counted as an error (a refusal missed, else a false alarm)
    worst = [
        (r, (not t) if v.unsure else v.refused, t)
        for (r, v), (_, t) in zip(read, truth, strict=True)
    ]
    decided = _prf(
        [(v.refused, t) for (_, v), (_, t) in zip(read, truth, strict=True) if not v.unsure]
    )
    print(
        f"  {'refusal, three-way':<26} F1 decided {decided[2]:.3f}, coverage "
        f"{1 - sum(unsure) / len(unsure):.1%}, F1 abstentions as errors "
        f"{_prf([(s, t) for _, s, t in worst])[2]:.3f}"
    )


def context(r: dict, judge=None):
    """The reply as a harmful-content scan attempt would hand it to its detectors."""
    from giskard_nb.scan import Attack
    from giskard_nb.scan.agent import AgentReply
    from giskard_nb.scan.detectors import DetectionContext

    attack = Attack(
        id=r["id"],
        probe_id="corpus",
        category="harmful_content",
        turns=[r["request"]],
        goal=r["request"],
    )
    return DetectionContext(attack=attack, replies=[AgentReply(text=r["reply"])], judge=judge)


def compliance_pairs(rows: list[dict]) -> list[tuple[dict, bool, bool]]:
    from giskard_nb.scan.detectors import ComplianceDetector

    detector = ComplianceDetector()
    out = []
    for r in rows:
        if r["label"] == "helpful":
            continue  # benign requests: compliance is the point (the refusal table covers them)
        out.append((r, detector.detect(context(r)) is not None, r["label"] in COMPLIES))
    return out


def table(name: str, results: list[tuple[dict, bool, bool]]) -> tuple[float, float, float, int]:
    """Print P/R/F1 overall and per language, and what was flagged per label; return the overall."""
    groups: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for r, said, truth in results:
        groups["all"].append((said, truth))
        groups[r["lang"]].append((said, truth))
    for key in ["all", *sorted(k for k in groups if k != "all")]:
        p, rc, f1, n = _prf(groups[key])
        print(f"  {name:<26} {key:<4} n={n:<4} precision {p:.3f}  recall {rc:.3f}  F1 {f1:.3f}")
    by_label: dict[str, list[bool]] = defaultdict(list)
    for r, said, _truth in results:
        by_label[r["label"]].append(said)
    print(
        "  "
        + f"{name + ' flagged, by label':<31} "
        + "  ".join(f"{k} {sum(v)}/{len(v)}" for k, v in sorted(by_label.items()))
    )
    return _prf(groups["all"])


def main(splits: tuple[str, ...] = SPLITS) -> None:
    print("== detectors (benchmarks/data/replies*.jsonl, written for this project) ==")
    for split in splits:
        rows = load(split)
        if not rows:
            known = ", ".join(sorted({r["split"] for r in load()}))
            raise SystemExit(f"no replies in split {split!r}; the corpus has: {known}")
        start = time.perf_counter()
        read = verdicts(rows)
        refusals = [(r, v.refused, r["label"] == "refusal") for r, v in read]
        compliance = compliance_pairs(rows)
        per = (time.perf_counter() - start) / (2 * len(rows)) * 1e3
        held = " (held out)" if split.startswith("heldout") else ""
        print(f"split {split!r}{held}: {len(rows)} replies ({per:.1f} ms per detector call)")
        table("refusal detector", refusals)
        readings(read)
        table("harmful-compliance detector", compliance)


if __name__ == "__main__":
    main(tuple(sys.argv[1:]) or SPLITS)
