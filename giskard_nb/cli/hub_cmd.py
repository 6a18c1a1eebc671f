"""``giskard-nb hub``: browse the local Hub from a terminal.

``list`` prints projects, agents, datasets, evaluations or scans (``--project`` filters by a project's
id or name); ``show ID`` prints one record (an evaluation with its summary, a scan with its report, a
dataset with its test cases); ``export ID`` writes a dataset as JSONL (``upload`` reads it back) or an
evaluation's results as CSV, JSONL, JSON or Parquet (by the suffix of ``--output``). Exit status: 0, or 2
for an unknown id or bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from giskard_nb.cli._common import UsageError, add_hub_options, open_hub
from giskard_nb.cli.reports import RAW_CSV_HELP

__all__ = ["add_parser", "run"]

KINDS = ("projects", "agents", "datasets", "evaluations", "scans")
EXAMPLES = """examples:
  giskard-nb hub list projects
  giskard-nb hub list evaluations --project "giskard-nb demo"
  giskard-nb hub show "$SCAN_ID"
  giskard-nb hub export "$DATASET_ID" --output cases.jsonl
  giskard-nb hub export "$EVALUATION_ID" --output results.csv
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
    listing = actions.add_parser("list", help="list records of one kind", epilog=EXAMPLES)
    listing.add_argument("kind", choices=KINDS)
    listing.add_argument("--project", help="only this project's (id or name)")
    show = actions.add_parser("show", help="print one record (any kind) by id", epilog=EXAMPLES)
    show.add_argument("id")
    export = actions.add_parser("export", help="write a dataset or an evaluation to a file")
    export.add_argument("id", help="a dataset or an evaluation id")
    export.add_argument(
        "--output", "-o", help="file to write (default: stdout; datasets JSONL, evaluations CSV)"
    )
    export.add_argument("--raw-csv", action="store_true", help=RAW_CSV_HELP)
    for sub in (listing, show, export):
        add_hub_options(sub)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    hub = open_hub(args)
    try:
        return {"list": _list, "show": _show, "export": _export}[args.action](hub, args)
    finally:
        hub.close()


def _project_id(hub: Any, ref: str | None) -> str | None:
    if ref is None:
        return None
    for project in hub.projects.list():
        if ref in (project.id, project.name):
            return project.id
    raise UsageError(f"--project {ref!r}: no project has that id or name")


def _rows(hub: Any, kind: str, project_id: str | None) -> list[tuple[str, ...]]:
    if kind == "projects":
        return [(p.id, p.name, p.created_at.strftime("%Y-%m-%d")) for p in hub.projects.list()]
    if kind == "agents":
        return [(a.id, a.name, a.url) for a in hub.agents.list(project_id=project_id)]
    if kind == "datasets":
        return [
            (d.id, d.name, f"{len(hub.test_cases.list(d.id))} cases")
            for d in hub.datasets.list(project_id=project_id)
        ]
    if kind == "evaluations":
        return [
            (e.id, e.name, e.status, _rate(e), e.created_at.strftime("%Y-%m-%d %H:%M"))
            for e in hub.evaluations.list(project_id=project_id)
        ]
    return [
        (s.id, s.name, s.status, f"grade {s.grade or '-'}", s.created_at.strftime("%Y-%m-%d %H:%M"))
        for s in hub.scans.list(project_id=project_id)
    ]


def _rate(evaluation: Any) -> str:
    from giskard_nb.core.pass_rate import PassRate

    return PassRate.from_counts(evaluation.counts).text()


def _list(hub: Any, args: argparse.Namespace) -> int:
    rows = _rows(hub, args.kind, _project_id(hub, args.project))
    if not rows:
        print(f"no {args.kind} in {hub!r}")
        return 0
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return 0


def _find(hub: Any, record_id: str) -> tuple[str, Any]:
    from giskard_nb.errors import NotFoundError

    for kind in ("projects", "agents", "datasets", "evaluations", "scans", "test_cases"):
        try:
            return kind, getattr(hub, kind).retrieve(record_id)
        except NotFoundError:
            continue
    raise UsageError(f"no record with id {record_id!r} in {hub!r} (see: giskard-nb hub list ...)")


def _show(hub: Any, args: argparse.Namespace) -> int:
    kind, record = _find(hub, args.id)
    print(repr(record))
    if kind == "evaluations":
        print(record.summary())
    elif kind == "scans":
        print(record.report().report())
    elif kind == "datasets":
        for case in hub.test_cases.list(record.id):
            print(f"  {case.id}  {case!r}")
    elif kind == "projects":
        for what in ("agents", "datasets", "evaluations", "scans"):
            print(f"  {what}: {len(_rows(hub, what, record.id))}")
    else:
        print(record.model_dump_json(indent=2))
    return 0


def _export(hub: Any, args: argparse.Namespace) -> int:
    kind, record = _find(hub, args.id)
    if kind == "datasets":
        if args.output:
            print(hub.datasets.export(record.id, args.output), file=sys.stderr)
        else:
            sys.stdout.write(hub.datasets.export(record.id))
        return 0
    if kind != "evaluations":
        raise UsageError(
            f"{args.id} is a {kind[:-1].replace('_', ' ')}: export a dataset or an evaluation"
        )
    df = record.to_dataframe()
    if not args.output:
        from giskard_nb.core.files import write_csv

        write_csv(df, sys.stdout, escape_formulas=not args.raw_csv)
        return 0
    from giskard_nb.frames import write_frame

    print(write_frame(df, args.output, escape_formulas=not args.raw_csv), file=sys.stderr)
    return 0
