"""Agreement between a judge and people, and between people: raw agreement, Cohen's kappa, precision,
recall and F1 (with seeded bootstrap intervals), Fleiss' kappa and the mean pairwise Cohen's kappa.

Verdicts are booleans (True: passed). For precision and recall the positive class is a *failure*
(``positive=False``) unless told otherwise: a judge's job is to catch bad answers, so its precision is
the share of the answers it failed that people failed too."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from giskard_nb.errors import GiskardValidationError
from giskard_nb.stats.intervals import DEFAULT_RESAMPLES, Interval, bootstrap_interval

__all__ = [
    "AgreementScores",
    "agreement_scores",
    "cohen_kappa",
    "fleiss_kappa",
    "mean_pairwise_kappa",
    "precision_recall_f1",
    "raw_agreement",
]

Pair = tuple[bool, bool]


def _pairs(judge: Sequence[bool], human: Sequence[bool]) -> list[Pair]:
    if len(judge) != len(human):
        raise GiskardValidationError(
            f"judge and human verdicts must pair up: got {len(judge)} and {len(human)}"
        )
    pairs = list(zip(judge, human, strict=True))
    for a, b in pairs:
        if not isinstance(a, bool) or not isinstance(b, bool):
            raise GiskardValidationError(
                f"verdicts must be booleans (True: passed), got {a!r} and {b!r}"
            )
    return pairs


def raw_agreement(judge: Sequence[bool], human: Sequence[bool]) -> float | None:
    """The share of items where both say the same; None for no items."""
    pairs = _pairs(judge, human)
    return _agreement(pairs)


def _agreement(pairs: Sequence[Pair]) -> float | None:
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else None


def cohen_kappa(judge: Sequence[bool], human: Sequence[bool]) -> float | None:
    """Cohen's kappa ``(po - pe) / (1 - pe)``: agreement beyond chance (1 perfect, 0 chance level).
    None when undefined: no items, or both always give the one same verdict (``pe = 1``)."""
    return _kappa(_pairs(judge, human))


def _kappa(pairs: Sequence[Pair]) -> float | None:
    n = len(pairs)
    if not n:
        return None
    po = sum(a == b for a, b in pairs) / n
    judge_yes = sum(a for a, _ in pairs) / n
    human_yes = sum(b for _, b in pairs) / n
    pe = judge_yes * human_yes + (1 - judge_yes) * (1 - human_yes)
    if pe >= 1:
        return None
    return (po - pe) / (1 - pe)


def precision_recall_f1(
    judge: Sequence[bool], human: Sequence[bool], *, positive: bool = False
) -> tuple[float | None, float | None, float | None]:
    """The judge's precision, recall and F1 against the human verdicts, ``positive`` being the class
    looked for (False: a failure). Each is None when undefined (no positive predicted, none to find)."""
    return _prf(_pairs(judge, human), positive)


def _prf(pairs: Sequence[Pair], positive: bool) -> tuple[float | None, float | None, float | None]:
    tp = sum(a == positive and b == positive for a, b in pairs)
    predicted = sum(a == positive for a, _ in pairs)
    actual = sum(b == positive for _, b in pairs)
    precision = tp / predicted if predicted else None
    recall = tp / actual if actual else None
    if precision is None or recall is None:
        f1 = None
    elif precision + recall == 0:
        f1 = 0.0
    else:
        f1 = 2 * precision * recall / (precision + recall)
    return precision, recall, f1


@dataclass(frozen=True)
class AgreementScores:
    """A judge against human verdicts: the scores, and a bootstrap interval for each."""

    n: int
    agreement: float | None
    kappa: float | None
    precision: float | None
    recall: float | None
    f1: float | None
    agreement_interval: Interval | None
    kappa_interval: Interval | None
    precision_interval: Interval | None
    recall_interval: Interval | None
    f1_interval: Interval | None
    confusion: dict[str, int]


def agreement_scores(
    judge: Sequence[bool],
    human: Sequence[bool],
    *,
    positive: bool = False,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = 0,
) -> AgreementScores:
    """Every score of a judge against human verdicts, with seeded bootstrap intervals over items.
    ``confusion`` counts ``judge_pass_human_pass``, ``judge_pass_human_fail``, ``judge_fail_human_pass``
    and ``judge_fail_human_fail``."""
    pairs = _pairs(judge, human)
    precision, recall, f1 = _prf(pairs, positive)

    def interval(statistic) -> Interval | None:
        return bootstrap_interval(
            pairs, statistic, confidence=confidence, resamples=resamples, seed=seed
        )

    counts = Counter(pairs)
    word = {True: "pass", False: "fail"}
    return AgreementScores(
        n=len(pairs),
        agreement=_agreement(pairs),
        kappa=_kappa(pairs),
        precision=precision,
        recall=recall,
        f1=f1,
        agreement_interval=interval(_agreement),
        kappa_interval=interval(_kappa),
        precision_interval=interval(lambda s: _prf(s, positive)[0]),
        recall_interval=interval(lambda s: _prf(s, positive)[1]),
        f1_interval=interval(lambda s: _prf(s, positive)[2]),
        confusion={
            f"judge_{word[a]}_human_{word[b]}": counts.get((a, b), 0)
            for a in (True, False)
            for b in (True, False)
        },
    )


def fleiss_kappa(items: Sequence[Sequence[bool]]) -> float | None:
    """Fleiss' kappa of several labelers: each item holds the verdicts it received, every item the
    same number (at least 2). None when undefined (no items, or one verdict everywhere)."""
    items = [list(v) for v in items]
    if not items:
        return None
    m = len(items[0])
    if m < 2 or any(len(v) != m for v in items):
        raise GiskardValidationError(
            "Fleiss' kappa needs the same number of verdicts (at least 2) on every item; "
            "use mean_pairwise_kappa when labelers labelled different items"
        )
    n = len(items)
    yes = [sum(bool(x) for x in v) for v in items]
    p_items = [(y * (y - 1) + (m - y) * (m - y - 1)) / (m * (m - 1)) for y in yes]
    p_bar = sum(p_items) / n
    share_yes = sum(yes) / (n * m)
    pe = share_yes**2 + (1 - share_yes) ** 2
    if pe >= 1:
        return None
    return (p_bar - pe) / (1 - pe)


def mean_pairwise_kappa(by_labeler: dict[str, dict[str, bool]]) -> float | None:
    """The mean Cohen's kappa over every pair of labelers, each on the items both labelled
    (``by_labeler``: labeler → item → verdict). Pairs sharing no item, or with an undefined kappa,
    are left out; None when no pair is left."""
    values = []
    for a, b in combinations(sorted(by_labeler), 2):
        shared = sorted(set(by_labeler[a]) & set(by_labeler[b]))
        kappa = _kappa([(by_labeler[a][k], by_labeler[b][k]) for k in shared])
        if kappa is not None:
            values.append(kappa)
    return sum(values) / len(values) if values else None
