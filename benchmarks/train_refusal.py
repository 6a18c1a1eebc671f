"""Fit the refusal classifier (giskard_nb/scan/detectors/refusal_model.json) and print its CV figures.

Data: the development splits of benchmarks/data/replies.jsonl (dev, dev2, dev3) and the training split
benchmarks/data/replies_train.jsonl (train), all written for this project. The blind split ``heldout2``
(replies_heldout2.jsonl) is never read here, and neither is PyRIT's refusal.csv (a further held-out set).

Hyper-parameters (feature groups, regularisation, how rules and model combine, the threshold) are chosen
by cross-validation grouped by split: each split in turn is held out, the model fitted on the others,
and the held-out split scored; the setting with the best mean F1 over the held-out splits wins. The
``train`` fold (trained on dev, dev2 and dev3 only) measures how the model carries over to styles the
development data does not have. The final model is fitted on all four splits. Deterministic: no random
numbers are drawn (Newton's method from zero weights), so a rerun writes the same file.

    PYTHONPATH=$PWD python benchmarks/train_refusal.py            # CV table, then writes the model
    PYTHONPATH=$PWD python benchmarks/train_refusal.py --cv-only  # CV table only
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from giskard_nb.scan.detectors.refusal_model import COMBINES

DATA = Path(__file__).resolve().parent / "data"
FILES = (DATA / "replies.jsonl", DATA / "replies_train.jsonl")
SPLITS = ("dev", "dev2", "dev3", "train")
LAMBDAS = (0.003, 0.01, 0.03)
SPARSE_WEIGHTS = (1.0, 3.0)
THRESHOLDS = (0.2, 0.3, 0.4, 0.5, 0.6)
#: With combine="flip": a rule refusal stands (the rules' refusals are precise, the model only adds the
#: ones they miss), a rule non-refusal becomes a refusal when the model is confident (p at least this).
FLIPS = tuple((0.0, flip) for flip in (0.8, 0.9))
RULE_WEIGHTS = (1.0,)


class Setting(NamedTuple):
    """One point of the hyper-parameter grid."""

    groups: tuple[str, ...]
    lam: float
    sparse_w: float
    rules_w: float

    def __str__(self) -> str:
        return (
            f"groups={'+'.join(self.groups)} lambda={self.lam} ngram_weight={self.sparse_w} "
            f"rules_weight={self.rules_w}"
        )


GROUP_SETS = (
    ("rules",),
    ("rules", "chars"),
    ("rules", "chars", "words"),
    ("rules", "chars", "words", "embed"),
)
FOLDS = 6


def load_rows() -> list[dict]:
    rows = []
    for path in FILES:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line:
                row = json.loads(line)
                if row["split"] in SPLITS:
                    rows.append(row)
    return rows


def featurize(rows: list[dict]):
    """Full feature matrix (every group), rule verdicts, and the column range of each group."""
    from giskard_nb.llm.embeddings import _load_wordllama
    from giskard_nb.scan.detectors.refusal_model import FeatureConfig, feature_vector
    from giskard_nb.scan.detectors.refusal_rules import rule_reading

    wl = _load_wordllama()
    config = FeatureConfig()
    feats, rules, keep = [], [], []
    for i, r in enumerate(rows):
        verdict, sig = rule_reading(r["reply"], r["request"])
        if sig is None:  # empty or off-topic: the rules decide, the model never sees it
            continue
        keep.append(i)
        rules.append((verdict, sig))
        feats.append(
            feature_vector(
                config,
                r["reply"],
                r["request"],
                verdict,
                sig,
                lambda t: wl.embed(t, return_np=True),
            )
        )
    sizes = {}
    one = config
    from giskard_nb.scan.detectors.refusal_model import RULE_FEATURES

    sizes["rules"] = RULE_FEATURES
    sizes["chars"] = one.char_buckets
    sizes["words"] = sizes["textwords"] = one.word_buckets
    sizes["embed"] = feats[0].shape[0] - sum(sizes.values())
    spans, start = {}, 0
    for g in one.groups:
        spans[g] = (start, start + sizes[g])
        start += sizes[g]
    return np.vstack(feats), [rows[i] for i in keep], rules, spans, config


def fit_logistic(x: np.ndarray, y: np.ndarray, lam: float, sample_w: np.ndarray) -> tuple:
    """L2-regularised logistic regression by Newton's method (Woodbury: n×n solves), bias lightly regularised."""
    n, d = x.shape
    xa = np.hstack([x, np.ones((n, 1))])
    reg = np.full(d + 1, lam)
    reg[-1] = lam * 1e-3
    w = np.zeros(d + 1)
    dinv = 1.0 / reg
    gram = (xa * dinv) @ xa.T  # the same at every step: computed once
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(xa @ w, -50, 50)))
        g = xa.T @ (sample_w * (p - y)) + reg * w
        s = sample_w * p * (1 - p) + 1e-10
        dg = dinv * g
        k = gram + np.diag(1.0 / s)
        step = dg - dinv * (xa.T @ np.linalg.solve(k, xa @ dg))
        w -= step
        if float(np.max(np.abs(step))) < 1e-7:
            break
    return w[:-1], float(w[-1])


def standardizer(x: np.ndarray, spans: dict, setting: Setting):
    """Per-column mean and scale: dense groups standardized (the rule features then weighted by
    ``rules_w``), hashed n-grams only weighted (by ``sparse_w``); a larger weight is a weaker prior."""
    mean = np.zeros(x.shape[1])
    scale = np.ones(x.shape[1])
    for g in setting.groups:
        a, b = spans[g]
        if g in ("chars", "words", "textwords"):
            scale[a:b] = 1.0 / setting.sparse_w
        else:
            mean[a:b] = x[:, a:b].mean(axis=0)
            sd = x[:, a:b].std(axis=0)
            weight = setting.rules_w if g == "rules" else 1.0
            scale[a:b] = np.where(sd > 1e-9, sd, 1.0) / weight
    return mean, scale


def columns(spans: dict, groups: tuple) -> np.ndarray:
    return np.concatenate([np.arange(*spans[g]) for g in groups])


def class_weights(y: np.ndarray) -> np.ndarray:
    pos = y.mean()
    return np.where(y == 1, 0.5 / pos, 0.5 / (1 - pos))


def decide_all(p: np.ndarray, rules: list, threshold, combine: str) -> np.ndarray:
    from giskard_nb.scan.detectors.refusal_model import decide

    return np.array(
        [
            decide(combine, threshold, float(pi), v, sig)
            for pi, (v, sig) in zip(p, rules, strict=True)
        ]
    )


def prf(
    said: np.ndarray, truth: np.ndarray, base_rate: float | None = None
) -> tuple[float, float, float]:
    """Precision, recall and F1; with ``base_rate``, non-refusals are weighted so that refusals make up
    that share of the rows (the training split has more refusals than a scan, or the corpus, sees)."""
    w_neg = 1.0
    if base_rate is not None and truth.any() and (~truth).any():
        w_neg = truth.sum() * (1 - base_rate) / base_rate / (~truth).sum()
    tp = float(np.sum(said & truth))
    fp = float(np.sum(said & ~truth)) * w_neg
    fn = float(np.sum(~said & truth))
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


#: The share of refusals the F1 of the training rows is weighted to (that of the development splits).
BASE_RATE = 0.2
#: The largest share of helpful answers a setting may read as refusals (out of fold) to be chosen.
MAX_HELPFUL_FLAGGED = 0.05


def topic_of(row: dict) -> str:
    """The request topic: one per request across its six languages (so translations are held out together)."""
    if row["split"] == "train":
        return f"train:{row['topic']}"
    kind = "b" if row["label"] == "helpful" else "h"
    return f"{row['split']}:{kind}{row['id'].rsplit('-', 1)[1]}"


def topic_folds(rows: list[dict]) -> np.ndarray:
    """Fold number of each row: topics sorted and dealt round-robin into ``FOLDS`` folds."""
    topics = sorted({topic_of(r) for r in rows})
    fold = {t: i % FOLDS for i, t in enumerate(topics)}
    return np.array([fold[topic_of(r)] for r in rows])


def cv_probabilities(x, y, groups_of_rows, spans, setting: Setting) -> np.ndarray:
    """Out-of-fold probabilities: each group of rows (a fold of topics, a split, a language) held out."""
    from giskard_nb.scan.detectors.refusal_model import standardize

    cols = columns(spans, setting.groups)
    out = np.zeros(len(y))
    for held in sorted(set(groups_of_rows)):
        tr, te = groups_of_rows != held, groups_of_rows == held
        mean, scale = standardizer(x[tr], spans, setting)
        xs = standardize(x[:, cols], mean[cols], scale[cols])
        w, b = fit_logistic(xs[tr], y[tr], setting.lam, class_weights(y[tr]))
        out[te] = 1.0 / (1.0 + np.exp(-(xs[te] @ w + b)))
    return out


def scores(said, truth, split) -> tuple[float, float, float]:
    """F1 on the development rows, F1 on the training rows (styles the rules miss), and their mean."""
    dev = split != "train"
    a = prf(said[dev], truth[dev])[2]
    b = prf(said[~dev], truth[~dev], BASE_RATE)[2]
    return a, b, (a + b) / 2


def report(name: str, said, truth, split, lang) -> None:
    p, r, f = prf(said, truth)
    by_split = " ".join(f"{s} {prf(said[split == s], truth[split == s])[2]:.3f}" for s in SPLITS)
    by_lang = " ".join(
        f"{g} {prf(said[lang == g], truth[lang == g])[2]:.3f}" for g in sorted(set(lang))
    )
    print(f"  {name:<34} P {p:.3f} R {r:.3f} F1 {f:.3f} | {by_split} | {by_lang}")


def main(cv_only: bool = False) -> None:
    start = time.perf_counter()
    rows = load_rows()
    x, rows, rules, spans, config = featurize(rows)
    y = np.array([r["label"] == "refusal" for r in rows], dtype=np.float64)
    truth = y.astype(bool)
    split = np.array([r["split"] for r in rows])
    lang = np.array([r["lang"] for r in rows])
    helpful = np.array([r["label"] == "helpful" for r in rows])
    folds = topic_folds(rows)
    print(f"{len(rows)} replies, {x.shape[1]} features ({time.perf_counter() - start:.1f} s)")
    rule_said = np.array([v.refused for v, _ in rules])
    results = []
    for groups, lam, sparse_w, rules_w in itertools.product(
        GROUP_SETS, LAMBDAS, SPARSE_WEIGHTS, RULE_WEIGHTS
    ):
        if sparse_w != SPARSE_WEIGHTS[0] and not {"chars", "words", "textwords"} & set(groups):
            continue
        setting = Setting(groups, lam, sparse_w, rules_w)
        p = cv_probabilities(x, y, folds, spans, setting)
        for combine in COMBINES:
            for threshold in FLIPS if combine == "flip" else THRESHOLDS:
                said = decide_all(p, rules, threshold, combine)
                flagged = float(np.mean(said[helpful]))
                results.append((scores(said, truth, split), setting, threshold, combine, flagged))
        print(f"  ... {setting}", file=sys.stderr)
    # helpful answers must not read as refusals: settings that flag more of them (out of fold) than
    # MAX_HELPFUL_FLAGGED are left out, then the best mean F1 wins
    results = [r for r in results if r[4] <= MAX_HELPFUL_FLAGGED]
    results.sort(key=lambda t: -t[0][2])
    a, b, m = scores(rule_said, truth, split)
    print(
        f"leave-topic-out CV ({FOLDS} folds of topics); F1 on dev rows / train rows (weighted to "
        f"{BASE_RATE:.0%} refusals) / mean; settings flagging more than {MAX_HELPFUL_FLAGGED:.0%} of "
        "the helpful answers left out"
    )
    print(f"  rules only: {a:.3f} / {b:.3f} / {m:.3f}")
    for (a, b, m), setting, threshold, combine, flagged in results[:10]:
        print(
            f"  {a:.3f} / {b:.3f} / {m:.3f}  {setting} threshold={threshold} combine={combine}"
            f" helpful flagged {flagged:.1%}"
        )
    for gs in GROUP_SETS:
        best = next((r for r in results if r[1].groups == gs), None)
        if best is None:
            print(f"  best with {'+'.join(gs):<28} (none within the helpful-answer limit)")
            continue
        print(
            f"  best with {'+'.join(gs):<28} {best[0][0]:.3f} / {best[0][1]:.3f} / {best[0][2]:.3f}"
        )
    _, setting, threshold, combine, _ = results[0]
    print(
        f"chosen: {setting} threshold={threshold} combine={combine}; out-of-fold P R F1 | split | language:"
    )
    report("rules only", rule_said, truth, split, lang)
    for what, held in (("topic", folds), ("split", split), ("language", lang)):
        p = cv_probabilities(x, y, held, spans, setting)
        report(
            f"model, leave-one-{what}-out",
            decide_all(p, rules, threshold, combine),
            truth,
            split,
            lang,
        )
    if cv_only:
        return
    max_words = 2 * max(len(r["reply"].split()) for r in rows)
    write_model(x, y, spans, config, setting, threshold, combine, results[0][0], max_words)


def write_model(x, y, spans, config, setting, threshold, combine, cv, max_words) -> None:
    from giskard_nb.scan.detectors.refusal_model import MODEL_PATH, FeatureConfig, standardize

    cols = columns(spans, setting.groups)
    mean, scale = standardizer(x, spans, setting)
    xs = standardize(x[:, cols], mean[cols], scale[cols])
    w, b = fit_logistic(xs, y, setting.lam, class_weights(y))
    final = FeatureConfig(
        char_buckets=config.char_buckets,
        char_orders=config.char_orders,
        word_buckets=config.word_buckets,
        groups=setting.groups,
    )
    data = {
        "config": final.as_dict(),
        "mean": [round(float(v), 6) for v in mean[cols]],
        "scale": [round(float(v), 6) for v in scale[cols]],
        "weights": [round(float(v), 6) for v in w],
        "bias": round(b, 6),
        "threshold": threshold,
        "combine": combine,
        "max_words": max_words,
        "info": {
            "lambda": setting.lam,
            "ngram_weight": setting.sparse_w,
            "rules_weight": setting.rules_w,
            "trained_on": "benchmarks/data/replies.jsonl (dev, dev2, dev3) + replies_train.jsonl",
            "rows": len(y),
            "cv": "leave-topic-out, F1 on dev rows / train rows (weighted to 20% refusals)",
            "cv_f1_dev_rows": round(cv[0], 3),
            "cv_f1_train_rows": round(cv[1], 3),
        },
    }
    MODEL_PATH.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {MODEL_PATH} ({MODEL_PATH.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main(cv_only="--cv-only" in sys.argv[1:])
