"""``giskard-nb report`` and ``giskard-nb view``: the Hub's records as HTML.

``report ID -o report.html`` writes a self-contained page (no network needed to open it) of an
evaluation or a scan (ID: its id or a unique start of it); ``report ID1 ID2`` compares two evaluations
of the same dataset (regressions and fixes). ``view [HUB]`` serves a read-only viewer of the whole Hub
on 127.0.0.1 until Ctrl-C. Exit status: 0, or 2 for an unknown id or bad arguments.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from giskard_nb.cli._common import UsageError, add_hub_options, open_hub

__all__ = ["add_parser"]

REPORT_EXAMPLES = """examples:
  giskard-nb report "$EVALUATION_ID" -o report.html
  giskard-nb report "$SCAN_ID" -o scan.html
"""
VIEW_EXAMPLES = """examples:
  giskard-nb view
  giskard-nb view hub.db --port 8080
"""


def add_parser(commands: Any) -> None:
    report = commands.add_parser(
        "report",
        help="write an evaluation, a scan or a comparison as a self-contained HTML page",
        description=__doc__,
        epilog=REPORT_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    report.add_argument("id", help="an evaluation or a scan id (or a unique start of one)")
    report.add_argument(
        "id2", nargs="?", help="a second evaluation id: compare the first (before) with it (after)"
    )
    report.add_argument("--output", "-o", required=True, help="the HTML file to write")
    add_hub_options(report)
    report.set_defaults(run=run_report)

    view = commands.add_parser(
        "view",
        help="browse the whole Hub in a web browser (read-only, on 127.0.0.1)",
        description=__doc__,
        epilog=VIEW_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    view.add_argument(
        "hub",
        nargs="?",
        metavar="HUB",
        help="Hub database: a path or URL (default: $GISKARD_NB_HUB_URL, else ~/.giskard_nb/hub.db)",
    )
    view.add_argument(
        "--port", type=int, default=8765, help="port on 127.0.0.1 (default 8765; 0: any free port)"
    )
    view.set_defaults(run=run_view)


def run_report(args: argparse.Namespace) -> int:
    from giskard_nb.report import find_record, write_report

    hub = open_hub(args)
    try:
        kind, record = find_record(hub, args.id)
        after = None
        if args.id2:
            kind2, after = find_record(hub, args.id2)
            if "scan" in (kind, kind2):
                raise UsageError("two ids compare two evaluations: give evaluation ids, not scans")
        path = write_report(record, args.output, after, hub=hub)
    finally:
        hub.close()
    what = (
        f"comparison of {record.name!r} and {after.name!r}" if after else f"{kind} {record.name!r}"
    )
    print(f"wrote the {what} to {path}")
    return 0


def _existing_hub(ref: str | None) -> str | None:
    """``ref`` when it names a Hub that exists (the viewer never creates one)."""
    from giskard_nb.hub.db import resolve_url

    url = resolve_url(ref or os.environ.get("GISKARD_NB_HUB_URL") or None)
    if url.startswith("sqlite") and not url.startswith("sqlite:///"):
        raise UsageError("an in-memory Hub is empty: give the path or URL of a Hub database")
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///").split("?", 1)[0])
        if not path.is_file():
            raise UsageError(
                f"no Hub at {path}: give the path of a Hub database (an evaluation or a scan "
                "creates one: giskard-nb eval --demo)"
            )
    return ref


def run_view(args: argparse.Namespace) -> int:
    from giskard_nb.hub import Hub
    from giskard_nb.report import Viewer

    hub = Hub(_existing_hub(args.hub))
    try:
        viewer = Viewer(hub, args.port, log=True)
        print(
            f"giskard-nb view: serving {hub!r} read-only at {viewer.url} (Ctrl-C stops)", flush=True
        )
        try:
            viewer.serve_forever()
        except KeyboardInterrupt:
            print("giskard-nb view: stopped", flush=True)
        finally:
            viewer.close()
    finally:
        hub.close()
    return 0
