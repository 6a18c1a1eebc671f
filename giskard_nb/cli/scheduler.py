"""``giskard-nb scheduler``

``giskard-nb scheduler`` runs the Hub's due scheduled evaluations, then sleeps ``--interval`` seconds
and checks again, until interrupted (Ctrl-C or SIGTERM end it after the current run). ``--once`` checks
once and exits (for cron or CI). ``--db`` selects the Hub database (default: ``$GISKARD_NB_HUB_URL``,
else ``~/.giskard_nb/hub.db``). Results and e-mails are as for ``hub.scheduled_evaluations.run_due()``;
e-mail settings come from ``GISKARD_NB_SMTP_*``. Exit status: 0, or 2 for bad arguments or a Hub that
cannot be opened.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from typing import Any

__all__ = ["add_parser", "scheduler_loop"]

logger = logging.getLogger("giskard_nb.scheduler")


def add_parser(commands: Any) -> None:
    scheduler = commands.add_parser(
        "scheduler",
        help="run the Hub's scheduled evaluations when they are due",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  giskard-nb scheduler --once\n  giskard-nb scheduler --db team.db --once",
    )
    scheduler.add_argument(
        "--db",
        "--url",
        "--hub",
        dest="url",
        default=None,
        help="Hub database: a file path, ':memory:' or a database URL "
        "(default: $GISKARD_NB_HUB_URL or ~/.giskard_nb/hub.db)",
    )
    scheduler.add_argument(
        "--interval",
        type=float,
        default=60.0,
        help="seconds between checks (default: 60)",
    )
    scheduler.add_argument("--once", action="store_true", help="check once, run what is due, exit")
    scheduler.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    scheduler.set_defaults(
        run=lambda args: scheduler_loop(
            url=args.url, interval=args.interval, once=args.once, quiet=args.quiet
        )
    )


def scheduler_loop(
    *, url: str | None, interval: float, once: bool, quiet: bool = False, stop: Any = None
) -> int:
    """The scheduler loop (``stop``: a ``threading.Event`` that ends it, for embedding and tests)."""
    from giskard_nb.errors import GiskardNBError
    from giskard_nb.hub import Hub

    if interval <= 0:
        print("giskard-nb scheduler: --interval must be > 0 seconds", file=sys.stderr)
        return 2
    try:
        hub = Hub(url)
    except GiskardNBError as exc:
        print(f"giskard-nb scheduler: {exc}", file=sys.stderr)
        return 2
    say = (lambda *_: None) if quiet else print
    stop = stop or threading.Event()
    restore = _stop_on_signals(stop) if not once else None
    say(f"giskard-nb scheduler: {hub!r}" + ("" if once else f", checking every {interval:g} s"))
    try:
        while True:
            _tick(hub, say)
            if once or stop.wait(interval):
                break
    except KeyboardInterrupt:
        say("giskard-nb scheduler: interrupted")
    finally:
        if restore is not None:
            restore()
        hub.close()
    return 0


def _tick(hub: Any, say: Any) -> None:
    try:
        runs = hub.scheduled_evaluations.run_due()
    except Exception as exc:  # a database hiccup: report it and try again at the next tick
        print(f"giskard-nb scheduler: check failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return
    now = hub.scheduled_evaluations.clock.now()
    if not runs:
        say(f"{now:%Y-%m-%d %H:%M:%S} UTC: nothing due")
        return
    for run in runs:
        detail = run.report.subject() if run.status == "success" else run.report.error
        say(
            f"{now:%Y-%m-%d %H:%M:%S} UTC: {run.name}: {run.status} — {detail} (e-mail {run.notification})"
        )
    say(f"{len(runs)} scheduled evaluation(s) ran")


def _stop_on_signals(stop: threading.Event) -> Any:
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGTERM)

    def handle(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, handle)
    return lambda: signal.signal(signal.SIGTERM, previous)
