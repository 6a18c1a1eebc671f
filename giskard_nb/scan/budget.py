"""Preflight estimate (agent calls, judge and generator calls, tokens, cost) and the budget cap.

The estimate is computed from the planned attacks before anything runs. Tokens are approximated (four
characters a token; an agent reply counted as ``REPLY_TOKENS``); the cost uses the judge's and
generator's prices from litellm's bundled table, through ``giskard_nb.llm`` (``None`` when the model's
price is unknown). Only model calls made by the scan are priced: the agent's own cost is yours.

``Budget`` caps a scan. Before each attack starts, its expected calls, tokens and cost are reserved;
if that would pass a cap, no further attack starts, the attacks in flight finish, and the scan ends
with status ``stopped`` and the reason. Nothing is cut off half-way.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from giskard_nb.errors import GiskardValidationError
from giskard_nb.scan.attack import Attack

__all__ = ["Budget", "BudgetTracker", "Estimate", "estimate_attack", "model_prices"]

REPLY_TOKENS = 200
JUDGE_OVERHEAD = 320
JUDGE_COMPLETION = 60
ATTACKER_OVERHEAD = 300
ATTACKER_COMPLETION = 90


def tokens(text: str) -> int:
    return len(text) // 4 + 4


class Budget(BaseModel):
    """Caps for one scan; ``None`` means no cap. ``max_cost_usd`` counts judge and generator calls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_cost_usd: float | None = Field(default=None, ge=0)
    max_llm_calls: int | None = Field(default=None, ge=0)
    max_agent_calls: int | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, ge=0)
    max_seconds: float | None = Field(default=None, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _from_number(cls, data: Any) -> Any:
        if isinstance(data, int | float) and not isinstance(data, bool):
            return {"max_cost_usd": float(data)}
        return data


class Estimate(BaseModel):
    """What a scan is expected to cost before it runs (upper bounds for judge and adaptive calls)."""

    model_config = ConfigDict(frozen=True)

    probes: int = 0
    attacks: int = 0
    agent_calls: int = 0
    agent_tokens: int = 0
    judge_calls: int = 0
    generator_calls: int = 0
    llm_prompt_tokens: int = 0
    llm_completion_tokens: int = 0
    cost_usd: float | None = 0.0
    skipped_probes: dict[str, str] = Field(default_factory=dict)
    #: Expected coverage per selected category (``assessed``/``partial``/``not_assessed``) if every
    #: planned attack runs without error; ``warnings`` say what this configuration cannot assess.
    coverage: dict[str, str] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    #: Planned probes that can make fewer distinct attacks than ``max_attempts_per_probe``: id -> how
    #: many (``ScanPlan.capacity``).
    short_probes: dict[str, int] = Field(default_factory=dict)

    @property
    def llm_calls(self) -> int:
        return self.judge_calls + self.generator_calls

    @property
    def llm_tokens(self) -> int:
        return self.llm_prompt_tokens + self.llm_completion_tokens

    def __add__(self, other: Estimate) -> Estimate:
        cost = (
            None
            if self.cost_usd is None or other.cost_usd is None
            else self.cost_usd + other.cost_usd
        )
        fields = ("probes", "attacks", "agent_calls", "agent_tokens", "judge_calls", "generator_calls",
                  "llm_prompt_tokens", "llm_completion_tokens")  # fmt: skip
        return Estimate(
            **{f: getattr(self, f) + getattr(other, f) for f in fields},
            cost_usd=cost,
            skipped_probes={**self.skipped_probes, **other.skipped_probes},
        )

    def __str__(self) -> str:
        cost = (
            "unknown (model price not in litellm's table)"
            if self.cost_usd is None
            else f"${self.cost_usd:.4f}"
        )
        text = (
            f"{self.attacks} attacks from {self.probes} probes: {self.agent_calls} agent calls "
            f"(~{self.agent_tokens:,} tokens), {self.judge_calls} judge calls, {self.generator_calls} "
            f"generator calls, ~{self.llm_tokens:,} model tokens, cost {cost}"
        )
        lines = [text]
        if self.short_probes:
            lines.append(
                f"{len(self.short_probes)} probes can make fewer distinct attacks than asked: "
                + ", ".join(f"{pid} ({n})" for pid, n in sorted(self.short_probes.items()))
            )
        return "\n".join([*lines, *(f"warning: {w}" for w in self.warnings)])


def model_prices(generator: Any) -> tuple[float, float] | None:
    """USD per prompt token and per completion token of a ``Generator``'s model (None if unknown)."""
    from giskard_nb.llm import model_prices as prices_of

    model = getattr(generator, "model", None)
    return prices_of(model) if isinstance(model, str) else None


def estimate_attack(
    attack: Attack,
    *,
    judged: bool,
    adaptive_turns: int = 0,
    judge_prices: tuple[float, float] | None = (0.0, 0.0),
    generator_prices: tuple[float, float] | None = (0.0, 0.0),
) -> Estimate:
    """The expected calls, tokens and cost of one attack (``adaptive_turns`` generated by the attacker)."""
    if adaptive_turns:  # the first turn is scripted, the attacker model writes the others
        turns = max(len(attack.turns), adaptive_turns)
        generated = turns - 1
    else:
        turns, generated = len(attack.turns), 0
    if attack.metadata.get("generate_first_turn"):
        generated += 1
    conversation = tokens(attack.input_text) + REPLY_TOKENS * turns
    j_prompt = (JUDGE_OVERHEAD + conversation) if judged else 0
    j_completion = JUDGE_COMPLETION if judged else 0
    g_prompt = sum(
        ATTACKER_OVERHEAD + tokens(attack.turns[0]) + REPLY_TOKENS * (k + 1) * 2
        for k in range(generated)
    )
    g_completion = ATTACKER_COMPLETION * generated
    cost: float | None = 0.0
    if judged:
        cost = (
            None
            if judge_prices is None
            else j_prompt * judge_prices[0] + j_completion * judge_prices[1]
        )
    if generated and cost is not None:
        cost = (
            None
            if generator_prices is None
            else cost + g_prompt * generator_prices[0] + g_completion * generator_prices[1]
        )
    return Estimate(
        attacks=1,
        agent_calls=turns,
        agent_tokens=conversation * turns,
        judge_calls=1 if judged else 0,
        generator_calls=generated,
        llm_prompt_tokens=j_prompt + g_prompt,
        llm_completion_tokens=j_completion + g_completion,
        cost_usd=cost,
    )


def total(estimates: Iterable[Estimate]) -> Estimate:
    out = Estimate()
    for e in estimates:
        out = out + e
    return out


class BudgetTracker:
    """Reserves each attack's expected consumption before it starts; refuses once a cap would pass."""

    def __init__(self, budget: Budget | None):
        self.budget = budget or Budget()
        self.start = time.monotonic()
        self.spent = {"agent_calls": 0.0, "llm_calls": 0.0, "tokens": 0.0, "cost_usd": 0.0}
        self.reserved = dict.fromkeys(self.spent, 0.0)
        self.stop_reason: str | None = None

    @staticmethod
    def _amounts(e: Estimate) -> dict[str, float]:
        return {
            "agent_calls": e.agent_calls,
            "llm_calls": e.llm_calls,
            "tokens": e.llm_tokens,
            "cost_usd": e.cost_usd or 0.0,
        }

    def reserve(self, expected: Estimate) -> bool:
        """Book ``expected`` if it fits under every cap; otherwise record why the scan stops."""
        if self.stop_reason is not None:
            return False
        b = self.budget
        if b.max_seconds is not None and time.monotonic() - self.start >= b.max_seconds:
            self.stop_reason = f"time budget of {b.max_seconds:g} s reached"
            return False
        want = self._amounts(expected)
        caps = {
            "agent_calls": (b.max_agent_calls, "agent calls"),
            "llm_calls": (b.max_llm_calls, "judge/generator calls"),
            "tokens": (b.max_tokens, "model tokens"),
            "cost_usd": (b.max_cost_usd, "USD of model cost"),
        }
        for key, (cap, label) in caps.items():
            if cap is not None and self.spent[key] + self.reserved[key] + want[key] > cap:
                self.stop_reason = (
                    f"budget reached: {label} would exceed {cap:g} "
                    f"(spent {self.spent[key]:g}, in flight {self.reserved[key]:g})"
                )
                return False
        for key, value in want.items():
            self.reserved[key] += value
        return True

    def settle(
        self, expected: Estimate, *, agent_calls: int, llm_calls: int, tokens: int, cost_usd: float
    ) -> None:
        """Replace a reservation by what the attack actually consumed."""
        for key, value in self._amounts(expected).items():
            self.reserved[key] = max(0.0, self.reserved[key] - value)
        self.spent["agent_calls"] += agent_calls
        self.spent["llm_calls"] += llm_calls
        self.spent["tokens"] += tokens
        self.spent["cost_usd"] += cost_usd


def check_budget(value: Any) -> Budget | None:
    if value is None or isinstance(value, Budget):
        return value
    try:
        return Budget.model_validate(value)
    except Exception as exc:
        raise GiskardValidationError(
            f"budget must be a Budget, a dict of caps or a number of USD, got {value!r}: {exc}"
        ) from None
