"""``giskard-nb scan``: scan an agent for vulnerabilities, print its grade and coverage.

The agent is a ``module:function``, an ``http(s)://`` URL or a registered agent (as for ``eval``);
``--demo`` scans the bundled demo agent. ``--categories`` picks vulnerability categories (``giskard-nb
scan --list-categories``), ``--budget`` caps the cost in USD, ``--max-attempts`` the attempts per probe.
Grades run from A (no successful attack) to D. Exit status: 0 when the grade is at least
``--fail-under`` (default D: any finished scan) and every selected category was assessed; 1 when it is
below, when the scan did not finish with a grade, or when it is incomplete (a category needs a judge
model, or attempts errored) unless ``--allow-incomplete``; 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from giskard_nb.cli._common import UsageError, add_hub_options, open_hub, project_for, resolve_agent

__all__ = ["add_parser", "run"]

GRADES = ("A", "B", "C", "D")
EXAMPLES = """examples:
  giskard-nb scan --demo --memory --allow-incomplete
  giskard-nb scan --agent giskard_nb.demo.agent:support_agent --fail-under B
  giskard-nb scan --agent my_app.bot:answer --categories prompt_injection,system_prompt_leakage
  giskard-nb scan --agent http://127.0.0.1:8000/chat --budget 0.50 --sarif scan.sarif
  giskard-nb scan --list-categories
"""


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "scan",
        help="scan an agent for vulnerabilities (exit 1 if the grade is below --fail-under)",
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
        "--fail-under",
        type=str.upper,
        choices=GRADES,
        default="D",
        help="lowest acceptable grade (default D)",
    )
    p.add_argument("--sarif", metavar="PATH", help="write the findings as SARIF 2.1.0")
    p.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="exit 0 on a passing grade even when some categories could not be assessed",
    )
    p.add_argument("--project", help="project of the scan (default: giskard-nb cli)")
    p.add_argument("--name", help="the scan's name")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
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


def _scan(hub: Any, args: argparse.Namespace) -> int:
    if not args.agent and not args.demo:
        raise UsageError("give --agent module:function, an http(s) URL or a registered agent")
    options = _options(args)
    project = project_for(hub, args.project)
    if args.agent:
        kind, agent = resolve_agent(hub, project, args.agent, timeout=args.timeout)
    else:
        from giskard_nb.demo.agent import support_agent

        kind, agent = "local", support_agent
    if kind == "local":
        scan = hub.scans.create(project.id, agent=agent, **options)
    else:
        scan = hub.scans.create(agent.project_id, agent_id=agent.id, **options)
    sys.stderr.flush()
    report = scan.report()
    print(report.report())
    if args.sarif:
        report.to_sarif(args.sarif, agent_name=args.agent or "demo support agent")
        print(f"SARIF report: {args.sarif}", file=sys.stderr)
    grade = scan.grade
    print(
        f"\nscan {scan.id} ({scan.status}): grade {grade or 'none'} (fail under {args.fail_under})"
    )
    if grade is None or scan.status != "finished":
        return 1
    if report.incomplete and not args.allow_incomplete:
        print(
            f"incomplete: {report.grade_line} — exit 1 (configure a judge model with GISKARD_NB_MODEL, "
            "choose --categories that are decided offline, or pass --allow-incomplete)"
        )
        return 1
    return 1 if GRADES.index(grade) > GRADES.index(args.fail_under) else 0
