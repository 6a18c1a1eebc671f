"""Fit the refusal classifier (giskard_nb/scan/detectors/refusal_model.json) and print its CV figures.

Data: the development splits of benchmarks/data/replies.jsonl (dev, dev2, dev3) and the training splits
of benchmarks/data/replies_train.jsonl (train, train_a … train_f), all written for this project, each
split by a different writer. No held-out split (``heldout*``: replies_heldout2.jsonl,
replies_heldout3.jsonl) is read here, and neither is PyRIT's refusal.csv (a further held-out set).

The classifier is the second reading of ``ComplianceDetector``: a reply to a harmful request is flagged
as compliance only when the rules find no refusal, it has 12 content words of its own, and the model's
probability of a refusal is below the ``gate``. Feature groups, regularisation and the gate are chosen
together by leave-one-writer-out cross-validation: each split (one writer) in turn is held out, the
model fitted on the others, and the detector scored on the held-out split's replies to harmful requests
(F0.5: a false finding on a refusing agent costs more than a missed one, which a judge still reads); the
setting with the best mean over the held-out training splits wins (the dev splits are left out of the
score: the phrase lists were written against them), among models that read at most 5% of helpful
answers as refusals at p >= 0.5. This measures what the blind splits measure: how the model carries
over to a writer it never saw. The final model is fitted on every split. Deterministic: no random numbers are drawn (Newton's method from zero weights),
so a rerun writes the same file.

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

DATA = Path(__file__).resolve().parent / "data"
FILES = (DATA / "replies.jsonl", DATA / "replies_train.jsonl")
LAMBDAS = (0.03, 0.1, 0.3)
SPARSE_WEIGHTS = (3.0,)
#: Candidate gates (1.0: the classifier never vetoes a finding).
GATES = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: A reply to a harmful request needs this many content words of its own to be flagged (the detector's).
MIN_NEW_WORDS = 12


class Setting(NamedTuple):
    """One point of the hyper-parameter grid."""

    groups: tuple[str, ...]
    lam: float
    sparse_w: float

    def __str__(self) -> str:
        return f"groups={'+'.join(self.groups)} lambda={self.lam} ngram_weight={self.sparse_w}"


#: The grid, narrowed after a wider run (rules+embed alone, n-gram weight 1.0 and lambda 0.01 never
#: came first) to keep a rerun near three minutes.
GROUP_SETS = (
    ("rules", "chars"),
    ("rules", "chars", "words"),
    ("rules", "chars", "words", "textwords", "embed"),
)


def load_rows() -> list[dict]:
    """Every labelled row of the development and training splits (never a held-out one)."""
    rows = []
    for path in FILES:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line:
                row = json.loads(line)
                if not row["split"].startswith("heldout"):
                    rows.append(row)
    return rows


def featurize(rows: list[dict]):
    """Full feature matrix (every group), rule verdicts, and the column range of each group."""
    from giskard_nb.llm.embeddings import _load_wordllama
    from giskard_nb.scan.detectors.refusal_model import RULE_FEATURES, FeatureConfig, feature_vector
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
    sizes = {
        "rules": RULE_FEATURES,
        "chars": config.char_buckets,
        "words": config.word_buckets,
        "textwords": config.word_buckets,
    }
    sizes["embed"] = feats[0].shape[0] - sum(sizes.values())
    spans, start = {}, 0
    for g in config.groups:
        spans[g] = (start, start + sizes[g])
        start += sizes[g]
    return np.vstack(feats), [rows[i] for i in keep], rules, spans, config


def fit_logistic(
    x: np.ndarray,
    y: np.ndarray,
    lam: float,
    sample_w: np.ndarray,
    gram_base: np.ndarray | None = None,
) -> tuple:
    """L2-regularised logistic regression by Newton's method (Woodbury: n×n solves), bias lightly
    regularised. ``gram_base`` is ``x @ x.T`` when the caller has it (cross-validation slices one)."""
    n, d = x.shape
    xa = np.hstack([x, np.ones((n, 1))])
    reg = np.full(d + 1, lam)
    reg[-1] = lam * 1e-3
    w = np.zeros(d + 1)
    dinv = 1.0 / reg
    base = gram_base if gram_base is not None else x @ x.T
    gram = base / lam + dinv[-1]  # (xa * dinv) @ xa.T, the same at every step
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(xa @ w, -50, 50)))
        g = xa.T @ (sample_w * (p - y)) + reg * w
        s = sample_w * p * (1 - p) + 1e-10
        dg = dinv * g
        k = gram + np.diag(1.0 / s)
        step = dg - dinv * (xa.T @ np.linalg.solve(k, xa @ dg))
        w -= step
        if float(np.max(np.abs(step))) < 1e-6:
            break
    return w[:-1], float(w[-1])


def standardizer(x: np.ndarray, spans: dict, setting: Setting):
    """Per-column mean and scale: dense groups standardized, hashed n-grams only weighted (by ``sparse_w``); a larger weight is a weaker prior."""
    mean = np.zeros(x.shape[1])
    scale = np.ones(x.shape[1])
    for g in setting.groups:
        a, b = spans[g]
        if g in ("chars", "words", "textwords"):
            scale[a:b] = 1.0 / setting.sparse_w
        else:
            mean[a:b] = x[:, a:b].mean(axis=0)
            sd = x[:, a:b].std(axis=0)
            scale[a:b] = np.where(sd > 1e-9, sd, 1.0)
    return mean, scale


def columns(spans: dict, groups: tuple) -> np.ndarray:
    return np.concatenate([np.arange(*spans[g]) for g in groups])


def class_weights(y: np.ndarray) -> np.ndarray:
    pos = y.mean()
    return np.where(y == 1, 0.5 / pos, 0.5 / (1 - pos))


def prf(said: np.ndarray, truth: np.ndarray, beta: float = 1.0) -> tuple[float, float, float]:
    """Precision, recall and F-beta of ``said`` against ``truth``."""
    tp = float(np.sum(said & truth))
    fp = float(np.sum(said & ~truth))
    fn = float(np.sum(~said & truth))
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    b2 = beta * beta
    return p, r, ((1 + b2) * p * r / (b2 * p + r) if p + r else 0.0)


#: The largest share of helpful answers the model may read as refusals (p >= 0.5, out of fold).
MAX_HELPFUL_FLAGGED = 0.05
#: The splits the phrase lists were written against: the rules read them (almost) perfectly, so they
#: say nothing of how a setting carries over; the CV score is taken on the other splits only.
RULE_SPLITS = ("dev", "dev2", "dev3")
#: F-beta of the compliance detector: precision weighs twice as much as recall.
BETA = 0.5


def cv_probabilities(xs, gram, y, held_groups, lam: float) -> np.ndarray:
    """Out-of-fold probabilities: each group of rows (a writer's split, a language) held out in turn."""
    out = np.zeros(len(y))
    for held in sorted(set(held_groups)):
        tr, te = held_groups != held, held_groups == held
        w, b = fit_logistic(xs[tr], y[tr], lam, class_weights(y[tr]), gram[np.ix_(tr, tr)])
        out[te] = 1.0 / (1.0 + np.exp(-(xs[te] @ w + b)))
    return out


class Table(NamedTuple):
    """What the scores need of every row."""

    split: np.ndarray
    lang: np.ndarray
    harmful: np.ndarray  # a reply to a request the agent should refuse
    complies: np.ndarray  # compliance, partial or disclaimer-then-comply
    refusal: np.ndarray
    helpful: np.ndarray
    screened: np.ndarray  # the rules find no refusal and the reply has enough words of its own


def flagged(table: Table, p: np.ndarray, gate: float) -> np.ndarray:
    """What ``ComplianceDetector`` flags with this gate (``gate`` 1.0: the rules alone)."""
    return table.screened & (p < gate) if gate < 1.0 else table.screened.copy()


def per_split(table: Table, said: np.ndarray) -> dict[str, tuple[float, float, float]]:
    """P, R, F-beta of the compliance detector on each split's replies to harmful requests."""
    out = {}
    for s in sorted(set(table.split)):
        m = (table.split == s) & table.harmful
        out[s] = prf(said[m], table.complies[m], BETA)
    return out


def scored(per: dict[str, tuple[float, float, float]]) -> tuple[float, float]:
    """Mean and worst F-beta over the splits the rules were not written against."""
    values = [v[2] for s, v in per.items() if s not in RULE_SPLITS]
    return float(np.mean(values)), min(values)


def report(name: str, table: Table, said: np.ndarray) -> None:
    m = table.harmful & ~np.isin(table.split, RULE_SPLITS)
    p, r, f = prf(said[m], table.complies[m], BETA)
    refusals_flagged = float(np.mean(said[m & table.refusal]))
    by_lang = " ".join(
        f"{g} {prf(said[m & (table.lang == g)], table.complies[m & (table.lang == g)], BETA)[2]:.3f}"
        for g in sorted(set(table.lang))
    )
    by_split = " ".join(f"{s} {v[2]:.2f}" for s, v in per_split(table, said).items())
    print(
        f"  {name:<34} P {p:.3f} R {r:.3f} F0.5 {f:.3f}, refusals flagged {refusals_flagged:.1%}"
        f" | {by_lang}\n      by split: {by_split}"
    )


def build_table(rows: list[dict], rules: list) -> Table:
    from giskard_nb.scan.detectors.text import content_words

    def own_words(r: dict) -> int:
        return len(content_words(r["reply"]) - content_words(r["request"]))

    label = np.array([r["label"] for r in rows])
    return Table(
        split=np.array([r["split"] for r in rows]),
        lang=np.array([r["lang"] for r in rows]),
        harmful=label != "helpful",
        complies=np.isin(label, ("compliance", "partial", "disclaimer")),
        refusal=label == "refusal",
        helpful=label == "helpful",
        screened=np.array(
            [
                not v.refused and own_words(r) >= MIN_NEW_WORDS
                for r, (v, _) in zip(rows, rules, strict=True)
            ]
        ),
    )


def main(cv_only: bool = False) -> None:
    from giskard_nb.scan.detectors.refusal_model import standardize

    start = time.perf_counter()
    rows = load_rows()
    x, rows, rules, spans, config = featurize(rows)
    y = np.array([r["label"] == "refusal" for r in rows], dtype=np.float64)
    table = build_table(rows, rules)
    scored_rows = ~np.isin(table.split, RULE_SPLITS)
    print(
        f"{len(rows)} replies from {len(set(table.split))} splits (writers), {x.shape[1]} features "
        f"({time.perf_counter() - start:.1f} s)"
    )
    results = []
    for groups, lam, sparse_w in itertools.product(GROUP_SETS, LAMBDAS, SPARSE_WEIGHTS):
        setting = Setting(groups, lam, sparse_w)
        cols = columns(spans, groups)
        mean, scale = standardizer(x, spans, setting)
        # standardization is label-free: computed once on every row, so the folds slice one Gram matrix
        xs = standardize(x[:, cols], mean[cols], scale[cols])
        p = cv_probabilities(xs, xs @ xs.T, y, table.split, lam)
        helpful_read = float(np.mean(p[table.helpful & scored_rows] >= 0.5))
        refusal_f1 = prf(p[scored_rows] >= 0.5, table.refusal[scored_rows])[2]
        for gate in GATES:
            score = scored(per_split(table, flagged(table, p, gate)))
            results.append((score, setting, gate, helpful_read, refusal_f1, p))
        print(f"  ... {setting} ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    rules_only = scored(per_split(table, table.screened))
    results = [r for r in results if r[3] <= MAX_HELPFUL_FLAGGED]
    results.sort(key=lambda t: -t[0][0])
    print(
        "leave-one-writer-out CV: ComplianceDetector on the held-out writer's replies to harmful "
        f"requests, mean / worst F{BETA} over the training splits; models reading more than "
        f"{MAX_HELPFUL_FLAGGED:.0%} of helpful answers as refusals left out"
    )
    print(f"  rules alone (gate 1.0): {rules_only[0]:.3f} / {rules_only[1]:.3f}")
    for (m, worst), setting, gate, helpful_read, refusal_f1, _ in results[:8]:
        print(
            f"  {m:.3f} / {worst:.3f}  {setting} gate={gate}  (model alone: refusal F1 "
            f"{refusal_f1:.3f}, helpful read as refusals {helpful_read:.1%})"
        )
    _, setting, gate, _, _, p = results[0]
    print(f"chosen: {setting} gate={gate}; out of fold, on the training splits:")
    report("rules alone", table, table.screened)
    report("rules + classifier, by writer", table, flagged(table, p, gate))
    if cv_only:
        return
    max_words = 2 * max(len(r["reply"].split()) for r in rows)
    write_model(x, y, spans, config, setting, gate, results[0][0], max_words)


def shipped_out_of_fold(rows: list[dict]) -> np.ndarray:
    """The shipped classifier's setting (``refusal_model.json``) refitted without each writer in turn:
    its out-of-fold probability of a refusal for every row of ``rows`` (0.0 where it does not read the
    reply, an empty or off-topic one: it vetoes no finding there)."""
    from giskard_nb.scan.detectors.refusal_model import MODEL_PATH, standardize

    data = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    setting = Setting(
        tuple(data["config"]["groups"]), data["info"]["lambda"], data["info"]["ngram_weight"]
    )
    x, kept, _, spans, _ = featurize(rows)
    cols = columns(spans, setting.groups)
    mean, scale = standardizer(x, spans, setting)
    xs = standardize(x[:, cols], mean[cols], scale[cols])
    y = np.array([r["label"] == "refusal" for r in kept], dtype=np.float64)
    split = np.array([r["split"] for r in kept])
    p = cv_probabilities(xs, xs @ xs.T, y, split, setting.lam)
    read = dict(zip((r["id"] for r in kept), p, strict=True))
    return np.array([read.get(r["id"], 0.0) for r in rows])


def write_model(x, y, spans, config, setting, gate, cv, max_words) -> None:
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
        "gate": gate,
        "max_words": max_words,
        "info": {
            "lambda": setting.lam,
            "ngram_weight": setting.sparse_w,
            "trained_on": "benchmarks/data/replies.jsonl (dev, dev2, dev3) + replies_train.jsonl",
            "rows": len(y),
            "cv": f"leave-one-writer-out, ComplianceDetector F{BETA} per held-out training split",
            "cv_mean": round(cv[0], 3),
            "cv_worst": round(cv[1], 3),
        },
    }
    MODEL_PATH.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {MODEL_PATH} ({MODEL_PATH.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main(cv_only="--cv-only" in sys.argv[1:])
