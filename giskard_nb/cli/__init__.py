"""The ``giskard-nb`` command line: ``eval``, ``scan``, ``hub``, ``report``/``view`` and ``scheduler``
(one module each), the top layer. May import: errors, core, frames, scan, hub, report and demo.

Exit status: 0 when everything passed, 1 when a test case failed or errored, or a scan has a confirmed
finding at or above ``--fail-on``, a grade below ``--fail-under`` or is incomplete (see ``giskard-nb
scan --help``), 2 for usage errors and bad input (a missing file, an unknown agent, a Hub that cannot
be opened). See docs/cli.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from giskard_nb.cli import evaluate, hub_cmd, report_cmd, scan, scheduler
from giskard_nb.cli._common import EXAMPLES, UsageError

__all__ = ["main"]


def parser() -> argparse.ArgumentParser:
    """The ``giskard-nb`` argument parser (every command registers its own sub-parser)."""
    root = argparse.ArgumentParser(
        prog="giskard-nb",
        description="Test LLM agents from a terminal or a CI job: evaluate a dataset, scan for "
        "vulnerabilities, browse the local Hub, run scheduled evaluations.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (evaluate, scan, hub_cmd, report_cmd, scheduler):
        module.add_parser(commands)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit status (0 ok, 1 failures found, 2 usage error)."""
    from giskard_nb.errors import GiskardNBError

    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (UsageError, GiskardNBError) as exc:
        print(f"giskard-nb {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"giskard-nb {args.command}: interrupted", file=sys.stderr)
        return 130
