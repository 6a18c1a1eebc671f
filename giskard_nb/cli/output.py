"""What the ``hub`` commands print: text made safe for a terminal (agent output is untrusted: its
escape sequences and control characters are removed by ``core.sanitize.terminal_text``), tables with a
header line, and short ids."""

from __future__ import annotations

from collections.abc import Sequence

from giskard_nb.core.sanitize import terminal_text

__all__ = ["SHORT", "cell", "say", "short_id", "table"]

#: How many characters of an id the listings show (the end of the id: see ``short_id``).
SHORT = 8


def short_id(record_id: str) -> str:
    """The last ``SHORT`` characters of an id: the Hub's ids are time-ordered (UUID version 7), so
    records written in the same minute share their first characters; the end is random. Every id
    argument of the command line takes it (``giskard_nb.cli.lookup``)."""
    return record_id[-SHORT:]


def cell(value: object, limit: int = 60) -> str:
    """One table cell: one line, terminal-safe, at most ``limit`` characters (a cut ends with …)."""
    text = terminal_text("" if value is None else str(value), one_line=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def say(text: object = "") -> None:
    """Print ``text`` (any number of lines) with what a terminal would act on removed."""
    print(terminal_text(str(text)))


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print a header line and aligned rows (each cell through ``cell``)."""
    cells = [[cell(v, 200) for v in row] for row in rows]
    lines = [list(header), *cells]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    for line in lines:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
