"""Cases of a suite run and their pass rates with 95 % intervals: per case over its repeats (pass^k,
pass@k, pass fraction, flaky), and overall, per check and per tag value.

A *case* is one scenario of the suite; with ``Suite.run(repeats=k)`` it ran k times and its results
share a ``case_index`` (their ``repeat`` is 0…k-1). Without repeats each result is its own case. The
interval of a pooled rate is Wilson's for one run of each case and the bootstrap over cases (seeded)
for repeated runs (``giskard_nb.core.pass_rate.rate_interval``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from giskard_nb.core.pass_rate import PassRate, rate_interval
from giskard_nb.stats.intervals import Interval
from giskard_nb.stats.paired import PairedTest, paired_test

if TYPE_CHECKING:
    from giskard_nb.core.scenario_result import ScenarioResult

__all__ = [
    "CaseSummary",
    "GroupRate",
    "case_summaries",
    "compare_runs",
    "group_cases",
    "group_rates",
    "rates_by",
    "tag_value",
]


def tag_value(tag: str, key: str) -> str | None:
    """The value of tag ``"key:value"`` for ``key`` (``"true"`` for a bare ``"key"``), else None."""
    name, sep, value = tag.partition(":")
    if name.strip() != key:
        return None
    return value.strip() if sep else "true"


@dataclass(frozen=True)
class CaseSummary:
    """One case over its runs: the counts of its run statuses and what they say together."""

    case_index: int
    scenario: str
    runs: int
    rate: PassRate

    @property
    def pass_fraction(self) -> float | None:
        """The share of runs that passed (skipped runs left out; None when none was judged)."""
        return self.rate.value

    @property
    def pass_all(self) -> bool:
        """pass^k: every one of the k runs passed."""
        return self.runs > 0 and self.rate.passed == self.runs

    @property
    def pass_any(self) -> bool:
        """pass@k: at least one of the k runs passed."""
        return self.rate.passed > 0

    @property
    def flaky(self) -> bool:
        """The runs disagree: some passed, some failed or errored."""
        return self.rate.passed > 0 and (self.rate.failed + self.rate.errored) > 0

    def interval(self, confidence: float = 0.95) -> Interval | None:
        """Wilson's interval of this case's pass fraction over its runs."""
        return self.rate.interval(confidence)


def group_cases(results: Sequence[ScenarioResult]) -> list[list[ScenarioResult]]:
    """The results of each case, in the order cases first appear: grouped by ``case_index`` when
    every result has one, else one result per case."""
    if not results or any(r.case_index is None for r in results):
        return [[r] for r in results]
    groups: dict[int, list[ScenarioResult]] = {}
    for r in results:
        groups.setdefault(r.case_index, []).append(r)  # type: ignore[arg-type]
    return list(groups.values())


def case_summaries(results: Sequence[ScenarioResult]) -> list[CaseSummary]:
    """A ``CaseSummary`` per case (see ``group_cases``)."""
    summaries = []
    for position, runs in enumerate(group_cases(results)):
        index = runs[0].case_index if runs[0].case_index is not None else position
        rate = PassRate.from_statuses(r.status for r in runs)
        summaries.append(CaseSummary(index, runs[0].scenario_name, len(runs), rate))
    return summaries


@dataclass(frozen=True)
class GroupRate:
    """The pass rate of one group (a check, a tag value, or everything) with its interval."""

    name: str | None
    rate: PassRate
    interval: Interval | None

    def text(self, digits: int = 0) -> str:
        return self.rate.text(digits, self.interval)


def _statuses_by(
    runs: Iterable[ScenarioResult], by: str, tag_key: str | None
) -> dict[str | None, list[str]]:
    """Statuses per group within one case's runs."""
    out: dict[str | None, list[str]] = {}
    for r in runs:
        if by == "overall":
            out.setdefault(None, []).append(r.status.value)
        elif by == "check":
            for c in r.check_results:
                out.setdefault(c.check_name, []).append(c.status.value)
        else:
            values = {tag_value(t, tag_key) for t in r.tags} if tag_key else set(r.tags)
            for v in values - {None} or {None}:
                out.setdefault(v, []).append(r.status.value)
    return out


def rates_by(
    results: Sequence[ScenarioResult],
    *,
    by: str = "overall",
    tag_key: str | None = None,
    repeated: bool | None = None,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> list[GroupRate]:
    """The pass rate of each group with its interval: ``by="overall"`` (one group, name None),
    ``"check"`` (per check name, over its results) or ``"tag"`` (per value of ``tag_key``, or per
    whole tag when None; untagged results form the group None). ``repeated`` (default: whether any
    case ran more than once) chooses the bootstrap over cases instead of Wilson."""
    if by not in ("overall", "check", "tag"):
        from giskard_nb.errors import GiskardValidationError

        raise GiskardValidationError(f"by must be 'overall', 'check' or 'tag', got {by!r}")
    cases = group_cases(results)
    if repeated is None:
        repeated = any(len(runs) > 1 for runs in cases)
    return group_rates(
        (_statuses_by(runs, by, tag_key) for runs in cases),
        repeated=repeated,
        confidence=confidence,
        seed=seed,
    )


def group_rates(
    per_case: Iterable[Mapping[str | None, Iterable[Any]]],
    *,
    repeated: bool,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> list[GroupRate]:
    """The pass rate of each group with its interval, from each case's statuses per group (one
    mapping per case: group name → the statuses of that group's results in the case's runs; strings
    or ``CheckStatus``). Groups come in the order they first appear. ``repeated``: the bootstrap over
    cases (seeded by ``seed``) instead of Wilson (see ``rate_interval``)."""
    per_group: dict[str | None, list[PassRate]] = {}
    for groups in per_case:
        for name, statuses in groups.items():
            per_group.setdefault(name, []).append(PassRate.from_statuses(statuses))
    return [
        GroupRate(
            name,
            sum(rates, PassRate()),
            rate_interval(rates, repeated=repeated, confidence=confidence, seed=seed),
        )
        for name, rates in per_group.items()
    ]


def compare_runs(
    old: Sequence[ScenarioResult],
    new: Sequence[ScenarioResult],
    *,
    old_name: str = "before",
    new_name: str = "after",
    confidence: float = 0.95,
) -> PairedTest:
    """The paired test of two runs of the same cases (case by case, by pass fraction)."""
    old_cases, new_cases = case_summaries(old), case_summaries(new)
    if len(old_cases) == len(new_cases):
        for a, b in zip(old_cases, new_cases, strict=True):
            if a.scenario != b.scenario:
                from giskard_nb.errors import GiskardValidationError

                raise GiskardValidationError(
                    f"a paired comparison needs the same cases in both runs, in the same order: case "
                    f"{a.case_index} is {a.scenario[:100]!r} in one and {b.scenario[:100]!r} in the "
                    "other (compare results of the same suite)"
                )
    before = [c.pass_fraction for c in old_cases]
    after = [c.pass_fraction for c in new_cases]
    return paired_test(before, after, confidence=confidence, old_name=old_name, new_name=new_name)
