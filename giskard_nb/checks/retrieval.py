"""Retrieval metrics over the ids a RAG agent retrieved: Recall@K, Precision@K, HitRate@K, MRR, NDCG@K and
average precision, each compared with a threshold.

Retrieved ids are read at ``retrieved_key`` (default ``trace.last.metadata.retrieved``: a ranked list of ids,
or of dicts with an ``id`` key); the relevant ids are a check parameter.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from pydantic import Field, field_validator

from giskard_nb.checks.base import no_value
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import JSONPathStr, NoMatch, resolve
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult, Metric
from giskard_nb.errors import GiskardValidationError

__all__ = ["AveragePrecision", "HitRateAtK", "MRR", "NDCG", "PrecisionAtK", "RecallAtK"]


def _ids(value: Any) -> list[str] | None:
    if not isinstance(value, list | tuple):
        return None
    out = []
    for item in value:
        if isinstance(item, dict):
            item = item.get("id")
        if item is None or isinstance(item, list | dict | tuple):
            return None
        out.append(str(item))
    return out


class _RetrievalCheck(Check):
    metric_name: ClassVar[str] = ""
    relevant: list[str] = Field(description="the ids that should be retrieved")
    retrieved_key: JSONPathStr = "trace.last.metadata.retrieved"
    k: int | None = Field(
        default=None, ge=1, description="only the top k retrieved count (default: all)"
    )
    threshold: float = Field(default=1.0, ge=0.0, le=1.0, description="the score must be >= this")

    @field_validator("relevant", mode="before")
    @classmethod
    def _as_strings(cls, v: Any) -> Any:
        if isinstance(v, list | tuple | set):
            v = [str(x) for x in v]
            if not v:
                raise GiskardValidationError("relevant must list at least one id")
        return v

    def score(self, ranked: list[str], relevant: set[str]) -> float:  # pragma: no cover - abstract
        raise TypeError("a retrieval check defines score()")

    def run(self, trace: Trace) -> CheckResult:
        value = resolve(trace, self.retrieved_key)
        if isinstance(value, NoMatch):
            return no_value("the retrieved ids", self.retrieved_key)
        ranked = _ids(value)
        if ranked is None:
            return CheckResult.error(
                f"the value at {self.retrieved_key!r} must be a list of ids (or of dicts with an 'id'), "
                f"got {type(value).__name__}: {value!r:.200}",
                details={"retrieved_key": self.retrieved_key},
            )
        top = ranked[: self.k] if self.k else ranked
        value = round(self.score(top, set(self.relevant)), 6)
        name = f"{self.metric_name}@{self.k}" if self.k else self.metric_name
        details = {"score": value, "retrieved": top, "relevant": self.relevant, "k": self.k}
        metrics = [Metric(name=name, value=value)]
        if value >= self.threshold:
            return CheckResult.success(
                f"{name} = {value} >= {self.threshold}", details=details, metrics=metrics
            )
        return CheckResult.failure(
            f"{name} = {value} < {self.threshold}", details=details, metrics=metrics
        )


@Check.register("recall_at_k")
class RecallAtK(_RetrievalCheck):
    """Share of the relevant ids found in the top k."""

    metric_name: ClassVar[str] = "recall"

    def score(self, ranked: list[str], relevant: set[str]) -> float:
        return len(relevant & set(ranked)) / len(relevant)


@Check.register("precision_at_k")
class PrecisionAtK(_RetrievalCheck):
    """Share of the top k that is relevant (divides by k, or by the list length without k)."""

    metric_name: ClassVar[str] = "precision"

    def score(self, ranked: list[str], relevant: set[str]) -> float:
        denominator = self.k or len(ranked)
        return sum(1 for r in ranked if r in relevant) / denominator if denominator else 0.0


@Check.register("hit_rate_at_k")
class HitRateAtK(_RetrievalCheck):
    """1 when any relevant id is in the top k, else 0."""

    metric_name: ClassVar[str] = "hit_rate"

    def score(self, ranked: list[str], relevant: set[str]) -> float:
        return 1.0 if relevant & set(ranked) else 0.0


def _hit_ranks(ranked: list[str], relevant: set[str]) -> list[int]:
    """The 1-based ranks at which a relevant id appears for the first time (duplicates count once)."""
    seen: set[str] = set()
    ranks = []
    for i, r in enumerate(ranked, 1):
        if r in relevant and r not in seen:
            ranks.append(i)
        seen.add(r)
    return ranks


@Check.register("mrr")
class MRR(_RetrievalCheck):
    """Reciprocal rank of the first relevant id (0 when none is retrieved)."""

    metric_name: ClassVar[str] = "mrr"

    def score(self, ranked: list[str], relevant: set[str]) -> float:
        return next((1.0 / i for i, r in enumerate(ranked, 1) if r in relevant), 0.0)


@Check.register("ndcg")
class NDCG(_RetrievalCheck):
    """Binary-relevance NDCG: DCG of the ranking over the DCG of an ideal ranking (duplicates count once)."""

    metric_name: ClassVar[str] = "ndcg"

    def score(self, ranked: list[str], relevant: set[str]) -> float:
        dcg = sum(1.0 / math.log2(i + 1) for i in _hit_ranks(ranked, relevant))
        ideal_n = min(len(relevant), self.k or len(relevant))
        ideal = sum(1.0 / math.log2(i + 1) for i in range(1, ideal_n + 1))
        return dcg / ideal


@Check.register("average_precision")
class AveragePrecision(_RetrievalCheck):
    """Mean of precision@i at each rank i holding a (new) relevant id, over the number of relevant ids."""

    metric_name: ClassVar[str] = "average_precision"

    def score(self, ranked: list[str], relevant: set[str]) -> float:
        ranks = _hit_ranks(ranked, relevant)
        return sum(hits / i for hits, i in enumerate(ranks, 1)) / len(relevant)
