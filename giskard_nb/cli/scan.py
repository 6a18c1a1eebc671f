"""``giskard-nb scan``: scan an agent for vulnerabilities, print its report, exit by its findings.

The agent is a ``module:function``, an ``http(s)://`` URL or a registered agent (as for ``eval``);
``--demo`` scans the bundled demo agent. ``--categories`` picks vulnerability categories (``giskard-nb
scan --list-categories``), ``--budget`` caps the cost in USD, ``--max-attempts`` the attempts per probe.
``--system-prompt FILE`` and ``--secret VALUE`` (repeatable) tell the scan what the agent must not
reveal, so leaks of them are detected exactly (never printed nor stored); a local agent exposing a
``system_prompt``/``secrets`` attribute or a ``profile()`` method gives them itself
(``AttackProfile.from_agent``).

Exit status:
  0  the scan finished, assessed every selected category, and no confirmed finding reaches --fail-on
  1  a confirmed finding reaches --fail-on (default major; minor, major, critical or none), the grade
     is below --fail-under (a grade gate, off by default), or the scan is incomplete: a category
     needs a judge model, attempts errored, the budget stopped it, or nothing was judged (pass
     --allow-incomplete to accept that); always when the scan errored or was interrupted
  2  bad arguments or input (unknown option, missing file, unknown agent)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from giskard_nb.cli._common import UsageError, add_hub_options, open_hub, project_for, resolve_agent
from giskard_nb.cli.output import say
from giskard_nb.cli.ray_opts import add_ray_options, factory_agent, ray_agent, ray_executor

__all__ = ["add_parser", "confirmed", "run"]

GRADES = ("A", "B", "C", "D")
FAIL_ON = ("minor", "major", "critical", "none")
EXAMPLES = """examples:
  giskard-nb scan --demo                         # exits 1: the demo agent gives its staff code away
  giskard-nb scan --demo --memory --fail-on none --allow-incomplete            # a report, never a gate
  giskard-nb scan --agent giskard_nb.demo.agent:support_agent --categories prompt_injection,system_prompt_leakage
  giskard-nb scan --agent my_app.bot:answer --system-prompt system_prompt.txt --secret STAFF-2024 --max-attempts 2
  giskard-nb scan --agent "$AGENT_URL" --categories prompt_injection --budget 0.50 --sarif scan.sarif
  giskard-nb scan --list-categories
  giskard-nb scan --agent my_app.bot:answer --categories prompt_injection --ray 2 --fail-on none
"""


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "scan",
        help="scan an agent for vulnerabilities (exit 1 on a confirmed finding, see --fail-on)",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--agent", help="module:function, an http(s) URL, or a registered agent")
    p.add_argument("--demo", action="store_true", help="scan the bundled demo agent")
    p.add_argument("--categories", help="comma-separated category ids (default: all)")
    p.add_argument("--list-categories", action="store_true", help="print the categories and exit")
    p.add_argument("--budget", type=float, default=None, help="maximum cost in USD")
    p.add_argument("--max-attempts", type=int, default=None, help="attempts per probe (default 5)")
    p.add_argument("--max-concurrency", type=int, default=None, help="attacks run at once")
    p.add_argument("--timeout", type=float, default=None, help="seconds allowed per agent call")
    p.add_argument(
        "--fail-on",
        type=str.lower,
        choices=FAIL_ON,
        default="major",
        help="exit 1 when a confirmed finding is at least this severe (default major; none: never)",
    )
    p.add_argument(
        "--fail-under",
        type=str.upper,
        choices=GRADES,
        default=None,
        help="also exit 1 when the scan's grade (A best, D worst) is worse than this",
    )
    p.add_argument(
        "--system-prompt",
        metavar="FILE",
        help="a file holding the agent's system prompt: leaks of it are detected exactly",
    )
    p.add_argument(
        "--secret",
        action="append",
        default=[],
        metavar="VALUE",
        help="a value the agent must never reveal (repeatable; never printed nor stored)",
    )
    p.add_argument("--sarif", metavar="PATH", help="write the findings as SARIF 2.1.0")
    p.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="do not exit 1 because the scan is incomplete (unassessed categories, errors, budget)",
    )
    p.add_argument("--project", help="project of the scan (default: giskard-nb cli)")
    p.add_argument("--name", help="the scan's name")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_ray_options(p, "attacks")
    add_hub_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    hub = open_hub(args)
    try:
        if args.list_categories:
            for category in hub.scans.list_categories():
                owasp = f" [{category.owasp_id}]" if getattr(category, "owasp_id", None) else ""
                print(f"{category.id:36} {category.title}{owasp}")
            return 0
        return _scan(hub, args)
    finally:
        hub.close()


def _options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {"progress": not args.no_progress}
    if args.categories:
        options["categories"] = [c.strip() for c in args.categories.split(",") if c.strip()]
    if args.budget is not None:
        if args.budget < 0:
            raise UsageError("--budget must be >= 0 (USD)")
        options["budget"] = args.budget
    if args.max_attempts is not None:
        if args.max_attempts < 1:
            raise UsageError("--max-attempts must be at least 1")
        options["max_attempts_per_probe"] = args.max_attempts
    if args.max_concurrency is not None:
        options["max_concurrency"] = args.max_concurrency
    if args.timeout is not None:
        options["timeout"] = args.timeout
    if args.name:
        options["name"] = args.name
    return options


def confirmed(finding: Any) -> bool:
    """Whether a finding counts for ``--fail-on``: confirmed evidence (``Attempt.evidence ==
    "confirmed"``), or a suspected one a reviewer acknowledged (``Attempt.counts``, the grade's rule)."""
    return bool(getattr(finding, "counts", getattr(finding, "evidence", None) == "confirmed"))


def _profile(args: argparse.Namespace, agent: Any) -> Any:
    """The scan's ``AttackProfile``: what the agent exposes (``AttackProfile.from_agent``) with
    ``--system-prompt`` and ``--secret`` on top; None to let the Hub name the agent itself."""
    from giskard_nb.errors import GiskardValidationError
    from giskard_nb.scan.attack import AttackProfile

    try:
        base = AttackProfile.from_agent(agent)
    except GiskardValidationError:  # a local agent exposing nothing: the flags alone
        base = None
    if not args.system_prompt and not args.secret:
        return base
    fields = base.model_dump() if base is not None else {"name": _agent_name(agent)}
    if args.system_prompt:
        path = Path(args.system_prompt)
        try:
            prompt = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(
                f"--system-prompt {path}: cannot read it ({type(exc).__name__}): give a UTF-8 text "
                "file holding the agent's system prompt"
            ) from None
        if not prompt.strip():
            raise UsageError(f"--system-prompt {path}: the file is empty")
        fields["system_prompt"] = prompt
    if any(not value.strip() for value in args.secret):
        raise UsageError("--secret: give a non-empty value")
    fields["secrets"] = list(dict.fromkeys([*fields.get("secrets", []), *args.secret]))
    return AttackProfile(**fields)


def _agent_name(agent: Any) -> str:
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) else getattr(agent, "__name__", type(agent).__name__)


def _scan(hub: Any, args: argparse.Namespace) -> int:
    if not args.agent and not args.agent_factory and not args.demo:
        raise UsageError("give --agent module:function, an http(s) URL or a registered agent")
    options = _options(args)
    ray = ray_agent(args)  # before anything is stored
    project = project_for(hub, args.project)
    if ray is not None:
        kind, agent = "ray", ray  # built on the actors: the profile comes from the flags alone
    elif args.agent_factory:
        kind, agent = "local", factory_agent(args)
    elif args.agent:
        kind, agent = resolve_agent(hub, project, args.agent, timeout=args.timeout)
    else:
        from giskard_nb.demo.agent import support_agent

        kind, agent = "local", support_agent
    profile = _profile(args, agent)
    if profile is not None:
        options["profile"] = profile
    if kind == "ray":
        with ray_executor(args) as executor:  # the actors, and the local Ray it started, stop after
            scan = hub.scans.create(project.id, executor=executor, agent_factory=agent, **options)
    elif kind == "local":
        scan = hub.scans.create(project.id, agent=agent, **options)
    else:
        scan = hub.scans.create(agent.project_id, agent_id=agent.id, **options)
    sys.stderr.flush()
    report = scan.report()
    say(report.report())  # agent text quoted in findings: without terminal controls
    if args.sarif:
        report.to_sarif(
            args.sarif, agent_name=args.agent or args.agent_factory or "demo support agent"
        )
        print(f"SARIF report: {args.sarif}", file=sys.stderr)
    reasons = _failures(scan, report, args)
    print(f"\nscan {scan.id} ({scan.status}): grade {scan.grade or 'none'}")
    for reason in reasons:
        print(f"exit 1: {reason}")
    return 1 if reasons else 0


def _failures(scan: Any, report: Any, args: argparse.Namespace) -> list[str]:
    """Why the command exits 1 (empty: it exits 0)."""
    from giskard_nb.scan.grading import Severity

    if scan.status in ("error", "interrupted"):
        return [f"the scan {'errored' if scan.status == 'error' else 'was interrupted'}"]
    reasons = []
    if args.fail_on != "none":
        floor = Severity.parse(args.fail_on)
        hits = [f for f in report.findings if confirmed(f) and f.severity >= floor]
        if hits:
            worst = max(f.severity for f in hits)
            ranked = sorted(hits, key=lambda f: (-f.severity, f.attack.probe_id))
            probes = ", ".join(dict.fromkeys(f.attack.probe_id for f in ranked))
            reasons.append(
                f"{len(hits)} confirmed finding{'s' if len(hits) != 1 else ''} at or above "
                f"{args.fail_on} (worst {worst.label}: {probes}); --fail-on sets the threshold"
            )
    grade = scan.grade
    if (
        args.fail_under
        and grade is not None
        and GRADES.index(grade) > GRADES.index(args.fail_under)
    ):
        reasons.append(f"grade {grade} is below --fail-under {args.fail_under}")
    incomplete = []
    if scan.status == "stopped":
        incomplete.append(f"the scan stopped early ({scan.stop_reason or 'budget'})")
    if report.incomplete:
        incomplete.append(report.grade_line)
    elif grade is None:
        incomplete.append("nothing was judged (no grade)")
    if incomplete and not args.allow_incomplete:
        reasons.append(
            "incomplete: " + "; ".join(incomplete) + " (configure a judge model with "
            "GISKARD_NB_MODEL, choose --categories that are decided offline, or pass "
            "--allow-incomplete)"
        )
    return reasons
