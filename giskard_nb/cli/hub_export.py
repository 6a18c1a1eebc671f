"""``giskard-nb hub export ID``: an evaluation, a scan or a dataset written to a file (or stdout).

The format is ``--format``, else the suffix of ``--output`` (``.junit.xml`` and ``.xml``: JUnit,
``.sarif`` and ``.sarif.json``: SARIF, ``.csv``, ``.parquet``, ``.jsonl``, ``.json``, ``.html``), else
the kind's default (an evaluation: CSV, a scan: SARIF, a dataset: JSONL). Every file is written
atomically; CSV cells a spreadsheet would run as formulas are escaped unless ``--raw-csv``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from giskard_nb.cli._common import UsageError
from giskard_nb.cli.output import short_id

__all__ = ["FORMATS", "SUFFIX_HELP", "export", "format_of"]

FORMATS = ("csv", "parquet", "jsonl", "json", "junit", "sarif", "html")
#: Suffixes, longest first (``.sarif.json`` is SARIF, not JSON).
_SUFFIXES = (
    (".junit.xml", "junit"),
    (".sarif.json", "sarif"),
    (".sarif", "sarif"),
    (".xml", "junit"),
    (".csv", "csv"),
    (".parquet", "parquet"),
    (".jsonl", "jsonl"),
    (".json", "json"),
    (".html", "html"),
    (".htm", "html"),
)
SUFFIX_HELP = ".csv, .parquet, .jsonl, .json, .junit.xml or .xml, .sarif or .sarif.json, .html"
#: What each kind of record can be written as (its default first).
_BY_KIND = {
    "evaluation": ("csv", "parquet", "jsonl", "json", "junit", "html"),
    "scan": ("sarif", "csv", "parquet", "jsonl", "json", "html"),
    "dataset": ("jsonl",),
}
_FILE_ONLY = ("parquet", "junit", "jsonl", "json")  # written to a file only (but a dataset's JSONL)


def format_of(path: str) -> str:
    """The format a file name asks for (``UsageError`` naming the formats when it asks for none)."""
    name = path.lower()
    for suffix, kind in _SUFFIXES:
        if name.endswith(suffix):
            return kind
    raise UsageError(
        f"--output {path}: cannot tell the format from the file name: name it {SUFFIX_HELP}, or pass "
        f"--format {'|'.join(FORMATS)}"
    )


def export(hub: Any, found: tuple[str, Any], args: argparse.Namespace) -> int:
    kind, record = found
    if kind not in _BY_KIND:
        whole = {"result": "evaluation_id", "attempt": "scan_id"}.get(kind)
        part = ""
        if whole:
            owner = getattr(record, whole)
            part = f" (export its {whole[:-3]}: giskard-nb hub export {short_id(owner)} -o FILE)"
        raise UsageError(f"{args.id} is a {kind}: export an evaluation, a scan or a dataset{part}")
    allowed = _BY_KIND[kind]
    fmt = args.format or (format_of(args.output) if args.output else allowed[0])
    if fmt not in allowed:
        raise UsageError(
            f"{kind} {short_id(record.id)} cannot be written as {fmt}: {_a(kind)} exports as "
            f"{', '.join(allowed)}"
        )
    if args.output is None and fmt in _FILE_ONLY and kind != "dataset":
        raise UsageError(f"{fmt} is written to a file: give --output FILE")
    if fmt == "html":
        return _html(hub, record, args.output)
    if kind == "dataset":
        if args.output:
            _done(hub.datasets.export(record.id, args.output))
        else:
            sys.stdout.write(hub.datasets.export(record.id))
        return 0
    if fmt == "junit":
        from giskard_nb.cli.reports import write_junit

        _done(write_junit(record, list(hub.evaluations.results.list(record.id)), args.output))
        return 0
    if fmt == "sarif":
        report = record.report()
        if args.output:
            _done(report.to_sarif(args.output, agent_name=record.agent_name or "agent"))
        else:
            from giskard_nb.scan.sarif import scan_to_sarif

            sarif = scan_to_sarif(report, agent_name=record.agent_name or "agent")
            sys.stdout.write(json.dumps(sarif, indent=2, ensure_ascii=False) + "\n")
        return 0
    df = record.to_dataframe() if kind == "evaluation" else record.report().to_dataframe()
    if not args.output:
        from giskard_nb.core.files import write_csv

        write_csv(df, sys.stdout, escape_formulas=not args.raw_csv)
        return 0
    from giskard_nb.frames import write_frame

    _done(write_frame(df, args.output, format=fmt, escape_formulas=not args.raw_csv))
    return 0


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _done(path: Any) -> None:
    print(f"wrote {path}", file=sys.stderr)


def _html(hub: Any, record: Any, output: str | None) -> int:
    """The self-contained HTML report of ``giskard_nb.report`` (docs/report.md)."""
    from giskard_nb.report import render_html

    text = render_html(record, hub=hub)
    if output is None:
        sys.stdout.write(text)
        return 0
    from giskard_nb.core.files import write_text_atomic

    _done(write_text_atomic(output, text))
    return 0
