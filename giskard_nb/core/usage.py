"""Token and cost accounting, summed from the metrics that LLM-backed checks attach to their results."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from giskard_nb.core.result import CheckResult

__all__ = ["USAGE_METRICS", "Usage"]

#: Metric names an LLM-backed check reports; ``Usage`` sums them.
USAGE_METRICS = ("prompt_tokens", "completion_tokens", "total_tokens", "cost_usd", "llm_calls")


class Usage(BaseModel):
    """Tokens, cost (USD, from litellm's price tables) and number of model calls."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float = 0.0
    llm_calls: int = 0

    @classmethod
    def from_results(cls, results: Iterable[CheckResult]) -> Usage:
        totals = dict.fromkeys(USAGE_METRICS, 0.0)
        for r in results:
            for m in r.metrics:
                if m.name in totals:
                    totals[m.name] += m.value
        return cls(
            prompt_tokens=int(totals["prompt_tokens"]),
            completion_tokens=int(totals["completion_tokens"]),
            total_tokens=int(totals["total_tokens"]),
            cost_usd=totals["cost_usd"],
            llm_calls=int(totals["llm_calls"]),
        )

    def __add__(self, other: Usage) -> Usage:
        return Usage(**{k: getattr(self, k) + getattr(other, k) for k in USAGE_METRICS})
