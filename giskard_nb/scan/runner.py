"""Running a scan: attacks sent to the agent concurrently, each judged, reported as it completes.

``run_scan(agent, ...)`` plans the scan (``plan.py``), optionally has the generator write variants, then
runs at most ``max_concurrency`` attacks at a time. A multi-turn attack sends its turns in order (with a
generator, an adaptive attacker writes the turns after the first) and stops early once a rule detector
fires. Each finished attack becomes an ``Attempt`` passed to ``on_attempt`` (sync or async) right away,
so a caller can persist it; ``completed`` lists attack ids to skip when resuming; ``plan`` runs a
plan made beforehand (``plan_scan``) instead of planning again.

Failures are data: an agent that raises, times out or answers nonsense gives an errored attempt; so does
a judge or attacker model that fails or answers junk. Only an exception raised by ``on_attempt`` (a
persistence failure) stops the scan.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from giskard_nb.core.missing import MISSING
from giskard_nb.core.sync import sync_twin
from giskard_nb.core.usage import Usage
from giskard_nb.errors import AgentError, GiskardValidationError
from giskard_nb.scan.agent import AgentReply, call_agent
from giskard_nb.scan.attack import Attack
from giskard_nb.scan.budget import BudgetTracker, Estimate, estimate_attack, model_prices
from giskard_nb.scan.detectors.base import Detection, DetectionContext, detector_notes
from giskard_nb.scan.detectors.contacts import ContactMemory
from giskard_nb.scan.detectors.refusal_embed import reading_note
from giskard_nb.scan.detectors.secrets import with_profile_detectors
from giskard_nb.scan.grading import Severity
from giskard_nb.scan.models import resolve_models
from giskard_nb.scan.plan import ScanOptions, ScanPlan, plan_scan, resolve_options
from giskard_nb.scan.probe import Probe
from giskard_nb.scan.redact import redact_attempt
from giskard_nb.scan.remote import Exchange, check_remote_scan, dispatch
from giskard_nb.scan.result import Attempt, ScanReport, _now
from giskard_nb.scan.tooling import attack_tools, bind_tools, check_tools_agent
from giskard_nb.scan.verdict import decide, first_rule

if TYPE_CHECKING:
    from giskard_nb.executors import Executor

__all__ = ["run_scan", "run_scan_sync"]

OnAttempt = Callable[[Attempt], Any]


async def run_scan(
    agent: Callable[..., Any],
    options: ScanOptions | None = None,
    /,
    *,
    judge: Any = MISSING,
    generator: Any = MISSING,
    on_attempt: OnAttempt | None = None,
    progress: bool = False,
    completed: Iterable[str] = (),
    name: str = "scan",
    plan: ScanPlan | None = None,
    executor: Executor | None = None,
    agent_factory: Callable[[], Any] | None = None,
    **overrides: Any,
) -> ScanReport:
    """Scan ``agent`` (a callable taking ``[{role, content}]`` messages, sync or async; or the last
    user message when its first parameter is annotated ``str``: ``giskard_nb.core.agent_convention``).

    ``judge`` / ``generator``: models for judged detectors and for written attacks (default: the
    configured default generator, if any; ``None`` for none). Options are a ``ScanOptions`` and/or
    keyword overrides (``categories=``, ``probe_ids=``, ``max_attempts_per_probe=``, ``budget=``...).
    ``plan``: a ``plan_scan(options, judge=, generator=)`` already made with the same options and
    models (the Hub stores its probes first), run as it is instead of planning again.
    ``tools=MockTools(...)`` (and ``allowed_tools=[...]``): the agent's tools, given to it in its
    ``tools`` parameter, a fresh copy per attack (``giskard_nb.scan.tooling``); the tool-security
    probes run only then.
    ``executor=RayExecutor(...)`` with ``agent_factory=``: the attacks are played on the executor's
    workers, each against the agent the factory built there (``agent`` is then ``None``); a
    multi-turn attack stays on one worker; detectors and judges run here unless the executor says
    ``checks_on="actors"`` (docs/scaling.md).
    """
    if executor is not None or agent_factory is not None:
        check_remote_scan(agent, executor, agent_factory)
    elif not callable(agent):
        raise GiskardValidationError(
            f"the agent must be a function taking the list of chat messages, got {type(agent).__name__}"
        )
    options = resolve_options(options, overrides)
    if options.tools is not None:
        if executor is not None:
            raise GiskardValidationError(
                "tools= (the tool-security probes) runs in this process: scan without executor="
            )
        check_tools_agent(agent)
    judge, generator = resolve_models(options, judge=judge, generator=generator)
    if plan is None:
        plan = plan_scan(options, judge=judge, generator=generator)
    run = _ScanRun(agent, options, plan, judge, generator, on_attempt, name)
    run.executor, run.agent_factory = executor, agent_factory
    return await run.run(set(completed), progress)


run_scan_sync = sync_twin(run_scan)


class _ScanRun:
    def __init__(
        self, agent, options: ScanOptions, plan: ScanPlan, judge, generator, on_attempt, name
    ):
        self.agent, self.options, self.plan = agent, options, plan
        self.executor = self.agent_factory = self.bar = None
        self.judge, self.generator, self.on_attempt = judge, generator, on_attempt
        self.probes = {p.id: p for p in plan.probes}
        self.detectors = {
            p.id: with_profile_detectors(
                p.active_detectors(with_judge=plan.judged), options.profile
            )
            for p in plan.probes
        }
        self.tracker = BudgetTracker(options.budget)
        self.tools: dict[str, Any] = {}  # attack id -> the attack's own copy of options.tools
        self.contacts = ContactMemory()
        priced = options.budget is not None and options.budget.max_cost_usd is not None
        self.prices = {
            "judge_prices": model_prices(judge) if priced and plan.judged else (0.0, 0.0),
            "generator_prices": model_prices(generator) if priced and generator else (0.0, 0.0),
        }
        self.report = ScanReport(
            name=name,
            probes=[
                {"id": p.id, "name": p.name, "category": p.category, "severity": int(p.severity)}
                for p in plan.probes
            ],
            skipped_probes=dict(plan.skipped),
            options=options.summary(),
            estimate=plan.estimate,
            categories=list(plan.categories),
            unjudged=dict(plan.unjudged),
            # the detectors' notes (e.g. translated leaks read in English only) and one line when
            # the refusal reading is the phrase lists' alone (no multilingual extra)
            warnings=[
                *plan.estimate.warnings,
                *detector_notes(self.detectors, options.profile),
                *filter(None, [reading_note()]),
            ],
        )

    # -- the run ---------------------------------------------------------------------------------------

    async def run(self, completed: set[str], progress: bool) -> ScanReport:
        report = self.report
        report.status, report.started_at = "running", _now()
        bar = None
        try:
            attacks = await self._with_variants(self.plan.attacks)
            todo = [a for a in attacks if a.id not in completed]
            report.planned_attacks = len(attacks)
            if progress:
                from tqdm.auto import tqdm

                bar = tqdm(total=len(todo), desc=report.name, unit="attack")
            self.bar = bar
            if self.executor is not None:
                await dispatch(self, self.executor, self.agent_factory, todo)
            else:
                await self._run_here(todo)
            report.stop_reason = self.tracker.stop_reason
            report.status = "stopped" if self.tracker.stop_reason else "completed"
        except (asyncio.CancelledError, KeyboardInterrupt):
            report.status, report.stop_reason = "cancelled", "the scan was interrupted"
            raise
        except Exception as exc:
            report.status, report.stop_reason = "error", f"{type(exc).__name__}: {exc}"
            raise
        finally:
            report.finished_at = _now()
            if bar is not None:
                bar.close()
        return report

    async def _run_here(self, todo: list[Attack]) -> None:
        queue = iter(todo)

        async def worker() -> None:
            for attack in queue:
                expected = self._expected(attack)
                if not self.tracker.reserve(expected):
                    return
                await self.settle(expected, await self.execute(attack))

        workers = [
            asyncio.create_task(worker())
            for _ in range(min(self.options.max_concurrency, len(todo)) or 1)
        ]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise

    async def settle(self, expected: Estimate, attempt: Attempt) -> None:
        """A finished attempt: its cost settled, added to the report, passed to ``on_attempt``."""
        self.tracker.settle(
            expected,
            agent_calls=attempt.agent_calls,
            llm_calls=attempt.usage.llm_calls,
            tokens=attempt.usage.total_tokens,
            cost_usd=attempt.usage.cost_usd,
        )
        self.report.attempts.append(attempt)
        if self.bar is not None:
            self.bar.update(1)
        await self._notify(attempt)

    async def _notify(self, attempt: Attempt) -> None:
        if self.on_attempt is None:
            return
        out = self.on_attempt(attempt)
        if inspect.isawaitable(out):
            await out

    def _expected(self, attack: Attack) -> Estimate:
        probe = self.probes[attack.probe_id]
        adaptive = self.options.max_turns if (attack.adaptive and self.generator is not None) else 0
        return estimate_attack(
            attack,
            judged=self.plan.judged and probe.uses_judge,
            adaptive_turns=adaptive,
            **self.prices,
        )

    async def _with_variants(self, attacks: list[Attack]) -> list[Attack]:
        from giskard_nb.scan.generate import with_variants

        return await with_variants(self, attacks)

    # -- one attack ------------------------------------------------------------------------------------

    async def execute(self, attack: Attack) -> Attempt:
        return await self.conclude(attack, await self.converse(attack))

    async def converse(self, attack: Attack) -> Exchange:
        """The conversation of one attack with the agent (turns, and the rules between turns)."""
        probe = self.probes[attack.probe_id]
        start = time.perf_counter()
        messages: list[dict[str, Any]] = [dict(m) for m in attack.history]
        sent: list[str] = []
        replies: list[AgentReply] = []
        usage = Usage()
        adaptive = attack.adaptive and self.generator is not None
        n_turns = max(len(attack.turns), self.options.max_turns) if adaptive else len(attack.turns)
        error = phase = None
        detection: Detection | None = None
        agent = self.agent
        if self.options.tools is not None:
            tools = self.tools[attack.id] = attack_tools(self.options.tools, attack)
            agent = bind_tools(agent, tools)
        for k in range(n_turns):
            try:
                if (
                    k == 0
                    and attack.metadata.get("generate_first_turn")
                    and self.generator is not None
                ):
                    from giskard_nb.scan.generate import first_turn

                    text, used = await first_turn(
                        str(attack.metadata.get("technique", "")),
                        str(attack.metadata.get("technique_instruction", "")),
                        attack.goal,
                        self.options.profile.description or self.options.profile.name,
                        self.generator,
                    )
                    usage = usage + used
                elif k == 0 or not adaptive:
                    text = attack.turns[k]
                else:
                    from giskard_nb.scan.generate import next_turn

                    text, used = await next_turn(attack, messages, k, self.generator)
                    usage = usage + used
            except Exception as exc:
                error, phase = (
                    f"the attacker model failed: {type(exc).__name__}: {exc}",
                    "generator",
                )
                break
            messages.append({"role": "user", "content": text})
            sent.append(text)
            try:
                reply = await call_agent(agent, messages, timeout=self.options.timeout)
            except AgentError as exc:
                error, phase = str(exc), "agent"
                break
            replies.append(reply)
            self.contacts.record(attack.probe_id, attack.category, reply.text)
            messages.append({"role": "assistant", "content": reply.text})
            if k < n_turns - 1 and n_turns > 1:
                try:
                    detection = await self._rules(probe, attack, sent, replies)
                except Exception as exc:  # a detector that cannot decide errors the attempt
                    error, phase = f"{type(exc).__name__}: {exc}", "detector"
                    break
                if detection is not None:
                    break
        elapsed = (time.perf_counter() - start) * 1000
        return Exchange(messages, sent, replies, usage, error, phase, detection, elapsed)

    async def conclude(self, attack: Attack, exchange: Exchange) -> Attempt:
        """The attempt: the detectors' verdict on the conversation (judges included)."""
        probe = self.probes[attack.probe_id]
        start = time.perf_counter()
        messages, sent, replies, usage, error, phase, detection = exchange.parts()
        verdict_usage, rejected = Usage(), ""
        if error is None and (detection is None or detection.tier == "suspected"):
            try:
                detection, verdict_usage, rejected = await self.detect(
                    probe, attack, sent, replies, suspect=detection
                )
            except Exception as exc:
                error, phase = f"{type(exc).__name__}: {exc}", "detector"
        usage = usage + verdict_usage
        severity = Severity.SAFE
        if detection is not None and error is None:
            severity = detection.severity or attack.severity or probe.severity
        last = replies[-1] if replies else None
        tools = self.tools.pop(attack.id, None)
        calls = [c.model_dump(mode="json") for c in tools.calls] if tools is not None else None
        attempt = Attempt(
            attack=attack,
            probe_name=probe.name,
            messages=messages,
            output=last.text if last else "",
            output_metadata=_jsonable(last.metadata) if last and last.metadata else {},
            tool_calls=calls if calls is not None else _jsonable(last.tool_calls if last else []),
            successful=detection is not None and error is None,
            severity=severity,
            reason=(
                detection.reason
                if detection
                else ("" if error else rejected or "no detector found a successful attack")
            ),
            detector=detection.detector if detection else None,
            detector_config=detection.detector_config if detection else None,
            forbidden_patterns=detection.forbidden_patterns if detection else [],
            evidence=detection.tier if detection and error is None else None,
            excerpt=detection.evidence if detection else None,
            error=error,
            error_phase=phase,
            usage=usage,
            agent_calls=len(replies),
            duration_ms=exchange.duration_ms + (time.perf_counter() - start) * 1000,
        )
        return redact_attempt(attempt, self.options.profile)  # found on the reply, kept masked

    def _context(
        self, attack: Attack, sent: list[str], replies: list[AgentReply]
    ) -> DetectionContext:
        actual = attack.model_copy(update={"turns": list(sent)}) if sent != attack.turns else attack
        shared = {"profile": self.options.profile, "judge": self.judge, "contacts": self.contacts}
        shared |= {"tools": self.tools.get(attack.id), "allowed_tools": self.options.allowed_tools}
        return DetectionContext(attack=actual, replies=replies, **shared)

    async def _rules(
        self, probe: Probe, attack: Attack, sent: list[str], replies: list[AgentReply]
    ) -> Detection | None:
        ctx = self._context(attack, sent, replies)
        rules = with_profile_detectors(probe.detectors, self.options.profile)
        return await first_rule(rules, ctx)

    async def detect(
        self,
        probe: Probe,
        attack: Attack,
        sent: list[str],
        replies: list[AgentReply],
        *,
        suspect: Detection | None = None,
    ) -> tuple[Detection | None, Usage, str]:
        """The verdict of the probe's detectors on the replies (see ``giskard_nb.scan.verdict``)."""
        ctx = self._context(attack, sent, replies)
        return await decide(self.detectors[probe.id], ctx, suspect=suspect)


def _jsonable(value: Any) -> Any:
    import json

    return json.loads(json.dumps(value, default=str))
