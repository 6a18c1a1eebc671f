"""The ``giskard-nb`` command line: ``eval``, ``scan``, ``hub``, ``report``/``view`` and ``scheduler``
(one module each), the top layer. May import: errors, core, executors, frames, scan, hub, report and
demo.

Exit status: 0 when everything passed, 1 when a test case failed or errored, or a scan has a confirmed
finding at or above ``--fail-on``, a grade below ``--fail-under`` or is incomplete (see ``giskard-nb
scan --help``), 2 for usage errors and bad input (a missing file, an unknown agent, a Hub that cannot
be opened). See docs/cli.md.

Output closed early (``giskard-nb hub show ID | head``) ends the command quietly with status 0, as
other Unix tools do, instead of a ``BrokenPipeError`` traceback.
"""

from __future__ import annotations

import argparse
import os
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
    root.add_argument(
        "--version", action="version", version=f"giskard-nb {version()}", help="print the version"
    )
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (evaluate, scan, hub_cmd, report_cmd, scheduler):
        module.add_parser(commands)
    return root


def version() -> str:
    """The installed package's version (from its metadata)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("giskard-nb")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed: pip install -e . in the checkout)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit status (0 ok, 1 failures found, 2 usage error)."""
    try:
        try:
            code = _run(argv)
        except SystemExit:  # --help, --version and usage errors: argparse printed and exits
            sys.stdout.flush()
            raise
        sys.stdout.flush()  # here, so that a closed pipe is seen now rather than at exit
        return code
    except BrokenPipeError:
        _drop_stdout()
        return 0


def _drop_stdout() -> None:
    """Point stdout at the null device: what is still buffered for a reader that is gone is
    discarded at exit instead of raising again (the Python documentation's recipe for SIGPIPE)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _run(argv: Sequence[str] | None) -> int:
    from giskard_nb.core.sanitize import terminal_text
    from giskard_nb.errors import GiskardNBError

    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (UsageError, GiskardNBError) as exc:  # a message may quote an agent's reply
        print(f"giskard-nb {args.command}: {terminal_text(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"giskard-nb {args.command}: interrupted", file=sys.stderr)
        return 130
