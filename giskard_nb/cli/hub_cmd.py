"""``giskard-nb hub``: browse the local Hub from a terminal.

``list KIND`` prints a table (with a header line) of projects, agents, datasets, evaluations, scans, or
the results of an evaluation / the attempts of a scan (``--evaluation``, ``--scan``: default the newest;
``--status``, ``--category``, ``--limit``). ``show ID`` prints one record of any kind: an evaluation with
its summary and its failed and errored test cases with their reasons, a result with its conversation
and every check, a scan with its report and findings, an attempt, a dataset with its test cases.
``export ID`` writes an evaluation (``--format csv|parquet|jsonl|json|junit|html``), a scan
(``sarif|csv|parquet|jsonl|json|html``) or a dataset (``jsonl``, which ``upload`` reads back); the
format is taken from the suffix of ``--output`` when not given.

Every ID is a whole id or a unique start or end of one (4+ characters): the lists show the last 8.
What an agent wrote is printed without its terminal escape sequences and control characters. Exit
status: 0, or 2 for an unknown or ambiguous id or bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from giskard_nb.cli import hub_export, hub_show
from giskard_nb.cli._common import UsageError, add_hub_options, open_hub
from giskard_nb.cli.lookup import find
from giskard_nb.cli.output import cell, say, short_id, table
from giskard_nb.cli.reports import RAW_CSV_HELP

__all__ = ["add_parser", "run"]

KINDS = ("projects", "agents", "datasets", "evaluations", "scans", "results", "attempts")
RESULT_STATUSES = ("pass", "fail", "error", "skip")
ATTEMPT_STATUSES = ("vulnerable", "suspected", "ignored", "safe", "error")
DEFAULT_LIMIT = 50
EXAMPLES = """examples:
  giskard-nb hub list projects
  giskard-nb hub list evaluations --project "giskard-nb demo"
  giskard-nb hub list results --evaluation "$EVALUATION_ID" --status fail
  giskard-nb hub show "$EVALUATION_ID"
  giskard-nb hub show "$SCAN_ID"
  giskard-nb hub export "$DATASET_ID" --output cases.jsonl
  giskard-nb hub export "$EVALUATION_ID" --output results.csv
  giskard-nb hub export "$EVALUATION_ID" -o report.junit.xml
"""


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "hub",
        help="list, show and export what the Hub holds",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser(
        "list", help="a table of records of one kind", description=__doc__, epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    listing.add_argument("kind", choices=KINDS)
    listing.add_argument("--project", help="only this project's (id or name)")
    listing.add_argument(
        "--evaluation", metavar="ID", help="results: of this evaluation (default: the newest)"
    )
    listing.add_argument(
        "--scan", metavar="ID", help="attempts: of this scan (default: the newest)"
    )
    listing.add_argument(
        "--status",
        help=f"results: {'|'.join(RESULT_STATUSES)}; attempts: {'|'.join(ATTEMPT_STATUSES)}",
    )
    listing.add_argument(
        "--category",
        help="results: a failure category identifier (data_leak...); attempts: a scan category "
        "(prompt_injection...; giskard-nb scan --list-categories)",
    )
    listing.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"results and attempts: at most N rows (default {DEFAULT_LIMIT}; 0: all)",
    )
    show = actions.add_parser(
        "show", help="print one record (any kind) by id", epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    show.add_argument("id", help="a whole id, or 4+ characters of its start or end")
    export = actions.add_parser(
        "export", help="write an evaluation, a scan or a dataset to a file", epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    export.add_argument("id", help="an evaluation, a scan or a dataset id")
    export.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="file to write (default: stdout, as CSV for an evaluation, JSONL for a dataset; the "
        f"format is taken from its suffix: {hub_export.SUFFIX_HELP})",
    )
    export.add_argument(
        "--format", choices=hub_export.FORMATS, help="the format, whatever the suffix"
    )
    export.add_argument("--raw-csv", action="store_true", help=RAW_CSV_HELP)
    for sub in (listing, show, export):
        add_hub_options(sub)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    hub = open_hub(args)
    try:
        if args.action == "show":
            return hub_show.show(hub, find(hub, args.id))
        if args.action == "export":
            return hub_export.export(hub, find(hub, args.id), args)
        return _list(hub, args)
    finally:
        hub.close()


def _project_id(hub: Any, ref: str | None) -> str | None:
    if ref is None:
        return None
    named = hub.projects.list(name=ref)
    if named:
        return named[0].id
    return find(hub, ref, kinds=("project",), what="--project")[1].id


def _list(hub: Any, args: argparse.Namespace) -> int:
    if args.limit < 0:
        raise UsageError(f"--limit {args.limit}: give 0 (no limit) or more")
    for flag, kinds in (("evaluation", ("results",)), ("scan", ("attempts",))):
        if getattr(args, flag) is not None and args.kind not in kinds:
            raise UsageError(f"--{flag} filters {' and '.join(kinds)}, not {args.kind}")
    if (args.status or args.category) and args.kind not in ("results", "attempts"):
        raise UsageError(f"--status and --category filter results and attempts, not {args.kind}")
    project_id = _project_id(hub, args.project)
    if args.kind == "results":
        return _list_results(hub, args, project_id)
    if args.kind == "attempts":
        return _list_attempts(hub, args, project_id)
    header, rows = _rows(hub, args.kind, project_id)
    if not rows:
        say(f"no {args.kind} in {hub!r}")
        return 0
    table(header, rows)
    return 0


def _rows(hub: Any, kind: str, project_id: str | None) -> tuple[tuple[str, ...], list[tuple]]:
    if kind == "projects":
        return ("ID", "NAME", "CREATED"), [
            (short_id(p.id), p.name, p.created_at.strftime("%Y-%m-%d")) for p in hub.projects.list()
        ]
    if kind == "agents":
        return ("ID", "NAME", "URL"), [
            (short_id(a.id), a.name, a.url) for a in hub.agents.list(project_id=project_id)
        ]
    if kind == "datasets":
        return ("ID", "NAME", "TEST CASES"), [
            (short_id(d.id), d.name, len(hub.test_cases.list(d.id)))
            for d in hub.datasets.list(project_id=project_id)
        ]
    if kind == "evaluations":
        return ("ID", "NAME", "STATUS", "PASS RATE", "CREATED"), [
            (short_id(e.id), e.name, e.status, e.rate.text(), _when(e.created_at))
            for e in hub.evaluations.list(project_id=project_id)
        ]
    return ("ID", "NAME", "STATUS", "GRADE", "CREATED"), [
        (short_id(s.id), s.name, s.status, s.grade or "-", _when(s.created_at))
        for s in hub.scans.list(project_id=project_id)
    ]


def _when(moment: Any) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


def _newest(records: list[Any]) -> Any:
    return max(records, key=lambda r: (r.created_at, r.id)) if records else None


def _limited(rows: list[Any], limit: int, what: str) -> list[Any]:
    """The first ``limit`` rows (0: all), with a note on stderr when there were more."""
    if limit and len(rows) > limit:
        print(f"(the first {limit} {what}: --limit N shows more, --limit 0 all)", file=sys.stderr)
        return rows[:limit]
    return rows


def _list_results(hub: Any, args: argparse.Namespace, project_id: str | None) -> int:
    if args.status is not None and args.status not in RESULT_STATUSES:
        raise UsageError(f"--status {args.status!r}: results are {', '.join(RESULT_STATUSES)}")
    if args.evaluation is not None:
        evaluation = find(hub, args.evaluation, kinds=("evaluation",), what="--evaluation")[1]
    else:
        evaluation = _newest(hub.evaluations.list(project_id=project_id))
        if evaluation is None:
            say(f"no evaluations in {hub!r}: no results to list")
            return 0
    results = hub.evaluations.results.list(
        evaluation.id,
        status=args.status,
        failure_category=args.category,
        limit=args.limit + 1 if args.limit else None,
    )
    say(f"results of evaluation {short_id(evaluation.id)} {evaluation.name!r}")
    if not results:
        say("no results match")
        return 0
    rows = [
        (
            short_id(r.id),
            r.status,
            r.failure_category.identifier if r.failure_category else "",
            cell(hub_show.question(r), 50),
            cell(r.reason or "", 100),
        )
        for r in _limited(results, args.limit, "results")
    ]
    table(("ID", "STATUS", "CATEGORY", "QUESTION", "REASON"), rows)
    return 0


def _list_attempts(hub: Any, args: argparse.Namespace, project_id: str | None) -> int:
    if args.status is not None and args.status not in ATTEMPT_STATUSES:
        raise UsageError(f"--status {args.status!r}: attempts are {', '.join(ATTEMPT_STATUSES)}")
    if args.scan is not None:
        scan = find(hub, args.scan, kinds=("scan",), what="--scan")[1]
    else:
        scan = _newest(hub.scans.list(project_id=project_id))
        if scan is None:
            say(f"no scans in {hub!r}: no attempts to list")
            return 0
    attempts = [
        a
        for a in hub.scans.attempts.list(scan_id=scan.id)
        if args.status in (None, a.attempt.status) and args.category in (None, a.attempt.category)
    ]
    say(f"attempts of scan {short_id(scan.id)} {scan.name!r} (grade {scan.grade or '-'})")
    if not attempts:
        say("no attempts match")
        return 0
    rows = [
        (
            short_id(a.id),
            hub_show.verdict(a.attempt),
            a.attempt.category,
            a.attempt.probe_name,
            cell(a.attempt.error or a.attempt.reason, 100),
        )
        for a in _limited(attempts, args.limit, "attempts")
    ]
    table(("ID", "VERDICT", "CATEGORY", "PROBE", "REASON"), rows)
    return 0
