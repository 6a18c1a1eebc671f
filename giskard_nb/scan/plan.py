"""ScanOptions and planning: which probes run, which attacks they make, and what it will cost.

``plan_scan(options, judge=..., generator=...)`` selects the probes (by category or id, plus custom
probes), skips those whose requirements are missing (documents, a generator, a judge) with the reason,
renders up to ``max_attempts_per_probe`` distinct attacks per probe (knowledge-base probes from the
documents; identical renders count once, so attack ids are unique within a plan, and
``ScanPlan.capacity`` says how many distinct attacks each probe could make), and estimates the cost.
``estimate_scan`` is the same without a plan object: the preflight. Both say which selected categories
this configuration cannot assess (no judge model for the probes that need one, nothing left to run): ``Estimate.coverage`` and ``Estimate.warnings``, before anything is sent.
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_serializer,
    field_validator,
)

from giskard_nb.core.missing import MISSING
from giskard_nb.errors import GiskardValidationError
from giskard_nb.scan.attack import Attack, AttackProfile
from giskard_nb.scan.budget import (
    Budget,
    Estimate,
    check_budget,
    estimate_attack,
    model_prices,
    total,
)
from giskard_nb.scan.catalogue import Catalogue, default_catalogue
from giskard_nb.scan.coverage import JUDGE_REMEDY, ScanCoverage, compute_coverage
from giskard_nb.scan.models import resolve_models
from giskard_nb.scan.probe import Probe

__all__ = ["ScanOptions", "ScanPlan", "estimate_scan", "plan_scan"]


class ScanOptions(BaseModel):
    """Everything that shapes a scan (all optional).

    - ``categories`` / ``probe_ids``: which library probes (default: all); ``probes``: extra probes
      (for example from ``giskard_nb.scan.loaders``); ``include_library=False`` runs only those.
    - ``max_attempts_per_probe``: attacks per probe (before generated variants).
    - ``max_concurrency``: attacks in flight; ``timeout``: seconds per agent call.
    - ``profile``: what the scan knows about the agent (name, description, system prompt, secrets).
    - ``documents``: texts of the knowledge base, for the probes anchored on it.
    - ``variants_per_attack``: rewrites of each attack by the generator model (0: none).
    - ``max_turns``: length of adaptive multi-turn attacks when a generator is configured.
    - ``use_judge``: None uses the judge when one is available; False never calls it.
    - ``tools``: the agent's tools as a ``giskard_nb.tools.MockTools``: each attack gives the agent a
      fresh copy in its ``tools`` parameter (the tool-security probes plant text in the read tools'
      results) and the detectors read the calls it made; ``allowed_tools``: the tools the agent's
      role may call (the privilege-boundary probe). Without ``tools`` the tool probes do not run.
    - ``budget``: caps (``Budget``, a dict, or a number = max USD); ``seed``: canaries and sampling.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    categories: list[str] | None = None
    probe_ids: list[str] | None = None
    probes: list[Probe] = Field(default_factory=list)
    include_library: bool = True
    max_attempts_per_probe: int = Field(default=5, ge=1)
    max_concurrency: int = Field(default=8, ge=1)
    timeout: float = Field(default=60.0, gt=0)
    profile: AttackProfile = Field(default_factory=AttackProfile)
    documents: list[str] = Field(default_factory=list)
    variants_per_attack: int = Field(default=0, ge=0, le=10)
    max_turns: int = Field(default=4, ge=1, le=20)
    use_judge: bool | None = None
    budget: Budget | None = None
    seed: int = 0
    tools: Any = None
    allowed_tools: list[str] | None = None

    @field_validator("tools")
    @classmethod
    def _tools(cls, value: Any) -> Any:
        from giskard_nb.tools import MockTools

        if value is not None and not isinstance(value, MockTools):
            raise ValueError(
                f"tools must be a giskard_nb.tools.MockTools (the agent's tools, scripted), got "
                f"{type(value).__name__}; record a real provider with MockTools.record(provider)"
            )
        return value

    @field_validator("budget", mode="before")
    @classmethod
    def _budget(cls, value: Any) -> Budget | None:
        return check_budget(value)

    @field_validator("profile", mode="before")
    @classmethod
    def _profile(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"name": value}
        return value

    @field_serializer("tools")
    def _dump_tools(self, tools: Any) -> None:
        return None  # scripted Python objects: not data (``summary()`` lists their names)

    def summary(self) -> dict[str, Any]:
        """A JSON-safe record of the options (no system prompt, no secrets, no probe bodies)."""
        data = self.model_dump(
            mode="json",
            exclude={"probes", "documents", "profile", "budget", "tools"},
            exclude_none=True,
        )
        if self.tools is not None:
            data["tools"] = self.tools.names
        data["custom_probes"] = [p.id for p in self.probes]
        data["documents"] = len(self.documents)
        data["agent_name"] = self.profile.name
        if self.budget is not None:
            data["budget"] = self.budget.model_dump(exclude_none=True)
        return data


class ScanPlan(BaseModel):
    """The probes that will run, their attacks, the skipped probes (with reasons) and the estimate."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    probes: list[Probe]
    attacks: list[Attack]
    skipped: dict[str, str] = Field(default_factory=dict)
    estimate: Estimate = Field(default_factory=Estimate)
    judged: bool = False
    adaptive: bool = False
    #: Every category of a selected probe (planned or skipped), in catalogue order.
    categories: list[str] = Field(default_factory=list)
    #: Probes (id -> category) that need a judge model and will run, or were skipped, without one.
    unjudged: dict[str, str] = Field(default_factory=dict)
    #: Every selected probe (planned or skipped): id -> category.
    probe_categories: dict[str, str] = Field(default_factory=dict)
    #: Planned probe id -> how many distinct attacks it can make with these options (its pool: the
    #: distinct renders of its templates × fills); fewer than ``max_attempts_per_probe`` run when
    #: the pool is smaller. Attack ids are unique within a plan.
    capacity: dict[str, int] = Field(default_factory=dict)
    #: Why the judge is missing (for the preflight's remedy): "none configured" or "use_judge=False".
    judge_off: str = "none configured"

    def expected_coverage(self) -> ScanCoverage:
        """The coverage if every planned attack ran without error (the preflight's view)."""
        return compute_coverage(
            categories=self.categories,
            unjudged=self.unjudged,
            attempts=((a.probe_id, a.category, False) for a in self.attacks),
        )

    def coverage_warnings(self) -> list[str]:
        """What this configuration cannot assess, with the remedy (empty when everything can be)."""
        return coverage_warnings(self)

    def short_probes(self, limit: int) -> dict[str, int]:
        """The planned probes that can make fewer than ``limit`` distinct attacks: id -> capacity."""
        return {pid: n for pid, n in self.capacity.items() if n < limit}

    def probe(self, probe_id: str) -> Probe:
        for p in self.probes:
            if p.id == probe_id:
                return p
        raise GiskardValidationError(f"probe {probe_id!r} is not part of this scan plan")


def _select(options: ScanOptions, catalogue: Catalogue) -> list[Probe]:
    custom = Catalogue(catalogue.categories(), options.probes)
    selected: list[Probe] = []
    if options.include_library:
        selected += catalogue.select(categories=options.categories, probe_ids=options.probe_ids)
    if options.probes:
        if options.categories is not None:
            catalogue.select(categories=options.categories)  # validates the names
            selected += [p for p in custom.probes() if p.category in options.categories]
        else:
            selected += custom.probes()
    seen: set[str] = set()
    unique = []
    asked = set(options.probe_ids or ())
    for p in selected:
        if "tools" in p.requires and options.tools is None and p.id not in asked:
            continue  # the tool probes run when the scan is given the agent's tools
        if p.id not in seen:
            seen.add(p.id)
            unique.append(p)
    if not unique:
        raise GiskardValidationError(
            "no probe selected: check categories=/probe_ids=, or give probes=[...] "
            "(list them with giskard_nb.scan.list_probes())"
        )
    return unique


def plan_scan(
    options: ScanOptions,
    *,
    judge: Any = None,
    generator: Any = None,
    catalogue: Catalogue | None = None,
) -> ScanPlan:
    """Select the probes, render their attacks, and estimate the scan (no model or agent is called)."""
    from giskard_nb.scan.library.knowledge import kb_fills

    catalogue = catalogue or default_catalogue()
    judged = judge is not None and options.use_judge is not False
    probes, attacks, skipped, unjudged = [], [], {}, {}
    capacity: dict[str, int] = {}
    selected = _select(options, catalogue)
    for probe in selected:
        missing, judge_missing = _missing(probe, options, judged=judged, generator=generator)
        if not missing and (judge_missing or not probe.assessed(with_judge=judged)):
            unjudged[probe.id] = probe.category
        if judge_missing:
            missing.append(judge_missing)
        if missing:
            skipped[probe.id] = "needs " + " and ".join(missing)
            continue
        fills = None
        if "documents" in probe.requires:
            fills = kb_fills(probe.id, options.documents, seed=options.seed)
            if not fills:
                skipped[probe.id] = "the documents give nothing to build this probe's attacks from"
                continue
        distinct = list(probe.iter_attacks(profile=options.profile, seed=options.seed, fills=fills))
        capacity[probe.id] = len(distinct)
        probes.append(probe)
        attacks += distinct[: options.max_attempts_per_probe]
    adaptive = generator is not None
    order = [c.id for c in catalogue.categories()]
    wanted = {p.category for p in selected}
    plan = ScanPlan(
        probes=probes, attacks=attacks, skipped=skipped, judged=judged, adaptive=adaptive,
        categories=[c for c in order if c in wanted] + sorted(wanted - set(order)),
        unjudged=unjudged, capacity=capacity,
        probe_categories={p.id: p.category for p in selected},
        judge_off="use_judge=False" if options.use_judge is False else "none configured",
    )  # fmt: skip
    plan.estimate = estimate_plan(plan, options, judge=judge, generator=generator)
    return plan


def _missing(
    probe: Probe, options: ScanOptions, *, judged: bool, generator: Any
) -> tuple[list[str], str]:
    """What a probe lacks to run: the requirements other than a judge, and the judge ("" if none)."""
    missing = []
    if "documents" in probe.requires and not options.documents:
        missing.append("knowledge-base documents (documents=[...])")
    if "tools" in probe.requires and options.tools is None:
        missing.append("the agent's tools (tools=MockTools(...), received in a `tools` parameter)")
    if "allow_list" in probe.requires and options.allowed_tools is None:
        missing.append("the role's allow-list of tools (allowed_tools=[...])")
    if "generator" in probe.requires and generator is None:
        missing.append("a generator model (generator=... or set_default_generator)")
    judge = ""
    if "judge" in probe.requires and not judged:
        judge = "a judge model"
    elif not probe.active_detectors(with_judge=judged):
        judge = "a judge model (it has no rule detector)"
    return missing, judge


def coverage_warnings(plan: ScanPlan) -> list[str]:
    """The preflight's warnings: categories this configuration leaves unassessed or partly assessed."""
    coverage = plan.expected_coverage()
    total = len(coverage.categories)
    out = []
    judge = coverage.not_assessed("judge")
    partly = [c for c, cov in coverage.categories.items() if cov.status == "partial"]
    remedy = (
        "drop use_judge=False" if plan.judge_off == "use_judge=False" else f"call {JUDGE_REMEDY}"
    )
    if judge:
        out.append(
            f"without a judge model ({plan.judge_off}), {len(judge)} of {total} selected categories "
            f"cannot be assessed: {', '.join(judge)} (their rule detectors only catch blatant cases; "
            f"the grade will say incomplete): {remedy}"
        )
    if partly:
        out.append(
            f"without a judge model ({plan.judge_off}), {', '.join(partly)} will only be partly "
            f"assessed (probes {', '.join(p for c in partly for p in coverage.categories[c].unjudged_probes)} "
            f"need one): {remedy}"
        )
    empty = coverage.not_assessed("empty")
    if empty:
        why = {
            c: sorted({r for pid, r in plan.skipped.items() if plan.probe_categories.get(pid) == c})
            for c in empty
        }
        out.append(
            f"nothing will run for {len(empty)} selected categor{'y' if len(empty) == 1 else 'ies'}: "
            + "; ".join(f"{c} ({', '.join(why[c]) or 'no probe'})" for c in empty)
        )
    return out


def estimate_plan(plan: ScanPlan, options: ScanOptions, *, judge: Any, generator: Any) -> Estimate:
    """The preflight estimate of a plan (variants counted when a generator will write them)."""
    judge_prices = model_prices(judge) if plan.judged else (0.0, 0.0)
    gen_prices = model_prices(generator) if generator is not None else (0.0, 0.0)
    by_id = {p.id: p for p in plan.probes}
    parts = []
    n_variants = options.variants_per_attack if generator is not None else 0
    for attack in plan.attacks:
        probe = by_id[attack.probe_id]
        judged = plan.judged and probe.uses_judge
        adaptive = options.max_turns if (attack.adaptive and generator is not None) else 0
        one = estimate_attack(
            attack,
            judged=judged,
            adaptive_turns=adaptive,
            judge_prices=judge_prices,
            generator_prices=gen_prices,
        )
        parts.append(one)
        for _ in range(n_variants):
            parts.append(one)
        if n_variants:
            prompt = 250 + len(attack.turns[0]) // 4
            completion = n_variants * (len(attack.turns[0]) // 4 + 10)
            cost = (
                None if gen_prices is None else prompt * gen_prices[0] + completion * gen_prices[1]
            )
            parts.append(
                Estimate(
                    generator_calls=1,
                    llm_prompt_tokens=prompt,
                    llm_completion_tokens=completion,
                    cost_usd=cost,
                )
            )
    est = total(parts)
    return est.model_copy(
        update={
            "probes": len(plan.probes),
            "skipped_probes": dict(plan.skipped),
            "coverage": plan.expected_coverage().status,
            "short_probes": plan.short_probes(options.max_attempts_per_probe),
            "warnings": coverage_warnings(plan),
        }
    )


def estimate_scan(
    options: ScanOptions | None = None,
    *,
    judge: Any = MISSING,
    generator: Any = MISSING,
    **overrides: Any,
) -> Estimate:
    """Preflight: the expected agent calls, judge and generator calls, tokens and cost of a scan, and
    the warnings about what it cannot assess (``Estimate.warnings``). ``judge``/``generator`` default
    to the configured default generator, as in ``run_scan`` (``None`` for none)."""
    options = resolve_options(options, overrides)
    judge, generator = resolve_models(options, judge=judge, generator=generator)
    return plan_scan(options, judge=judge, generator=generator).estimate


def resolve_options(options: ScanOptions | None, overrides: dict[str, Any]) -> ScanOptions:
    """``options`` with keyword overrides applied (unknown names are an error listing the valid ones)."""
    base = {k: getattr(options, k) for k in ScanOptions.model_fields} if options is not None else {}
    unknown = sorted(set(overrides) - set(ScanOptions.model_fields))
    if unknown:
        raise GiskardValidationError(
            f"unknown scan option(s) {unknown}; valid options: {', '.join(ScanOptions.model_fields)}"
        )
    try:
        return ScanOptions.model_validate({**base, **overrides})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(options)'}: {e['msg'].removeprefix('Value error, ')}"
            for e in exc.errors(include_url=False)
        )
        raise GiskardValidationError(f"invalid scan options: {problems}") from None
