"""Loading the documents of a knowledge base: a list of texts or dicts, a CSV/JSONL/JSON file, a folder.

Every source becomes rows (dicts); ``document_column`` names the text of a row and ``topic_column`` its
topic (optional); the other columns are kept as the document's metadata. A folder gives one row per
``.txt``/``.md`` file with the columns ``content``, ``path`` (relative), ``folder`` (first sub-folder, or
``""``) and ``title`` (the first Markdown heading, else the file name), so ``topic_column="folder"``
takes topics from sub-folders. Symbolic links that lead out of the folder are skipped.

Bad input is rejected whole, naming the line or item and the column at fault. Rows whose text is empty
are skipped and counted (``LoadedDocuments.skipped``).
"""

from __future__ import annotations

import csv
import io
import json
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from giskard_nb.errors import GiskardValidationError

logger = logging.getLogger("giskard_nb.kb")

__all__ = [
    "DOCUMENT_COLUMNS",
    "TEXT_SUFFIXES",
    "LoadedDocuments",
    "SourceDocument",
    "load_documents",
]

#: Columns tried, in order, when ``document_column`` is not given.
DOCUMENT_COLUMNS = ("content", "text", "document", "page_content", "body", "context", "passage")
#: The file types read from a folder.
TEXT_SUFFIXES = (".txt", ".md", ".markdown")
_MAX_ERRORS = 20


@dataclass(frozen=True)
class SourceDocument:
    """One document before chunking: its text, its topic (if given) and the rest of its row."""

    content: str
    topic: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    location: str = ""


@dataclass(frozen=True)
class LoadedDocuments:
    """The documents read from a source, where they came from, and the rows skipped (empty text)."""

    documents: list[SourceDocument]
    source: str
    skipped: list[str] = field(default_factory=list)


def load_documents(
    data: Any,
    *,
    document_column: str | None = None,
    topic_column: str | None = None,
) -> LoadedDocuments:
    """Read documents from ``data``: a list of strings or dicts, a path to a ``.csv``, ``.jsonl``,
    ``.json``, ``.txt`` or ``.md`` file, or a folder of text/Markdown files."""
    rows, source = _rows(data)
    column = document_column or _guess_column(rows, source)
    documents, skipped, errors = [], [], []
    for location, row in rows:
        if isinstance(row, str):
            if row.strip():
                documents.append(SourceDocument(row.strip(), None, {}, location))
            else:
                skipped.append(location)
            continue
        if not isinstance(row, Mapping):
            errors.append(f"{location}: a document is a string or an object, got {_kind(row)}")
            continue
        if None in row:  # csv.DictReader puts extra fields under None
            errors.append(f"{location}: more fields than the header has columns")
            continue
        if column not in row:
            errors.append(f"{location}: no column {column!r} (columns: {', '.join(map(str, row))})")
            continue
        text = row[column]
        if text is None or (isinstance(text, str) and not text.strip()):
            skipped.append(location)
            continue
        if not isinstance(text, str | int | float):
            errors.append(f"{location}, column {column!r}: expected text, got {_kind(text)}")
            continue
        topic = row.get(topic_column) if topic_column else None
        if topic_column and topic_column not in row:
            errors.append(f"{location}: no topic column {topic_column!r}")
            continue
        metadata = {
            str(k): v for k, v in row.items() if k not in (column, topic_column) and _scalar(v)
        }
        topic_text = str(topic).strip() if topic is not None and str(topic).strip() else None
        documents.append(SourceDocument(str(text).strip(), topic_text, metadata, location))
    if errors:
        shown = "\n".join(f"  - {e}" for e in errors[:_MAX_ERRORS])
        more = f"\n  ... and {len(errors) - _MAX_ERRORS} more" if len(errors) > _MAX_ERRORS else ""
        raise GiskardValidationError(
            f"{source} was rejected ({len(errors)} bad row{'s' * (len(errors) > 1)}):\n{shown}{more}"
        )
    if not documents:
        raise GiskardValidationError(
            f"{source} holds no document with text (column {column!r}): nothing to index"
        )
    return LoadedDocuments(documents, source, skipped)


def _rows(data: Any) -> tuple[list[tuple[str, Any]], str]:
    if isinstance(data, str | os.PathLike):
        path = Path(data).expanduser()
        if path.is_dir():
            return _folder_rows(path), f"folder {path.name!r}"
        if not path.is_file():
            raise GiskardValidationError(
                f"no file or folder at {str(path)!r}: give a .csv/.jsonl/.json/.txt/.md file, a folder "
                "of .txt/.md files, or a list of texts or dicts"
            )
        return _file_rows(path), f"file {path.name!r}"
    if isinstance(data, Mapping):
        data = [data]
    if isinstance(data, Iterable) and not isinstance(data, bytes):
        return [(f"item {i}", item) for i, item in enumerate(data, 1)], "the data"
    raise GiskardValidationError(
        "knowledge base data is a list of texts or dicts, or the path of a file or folder; got "
        f"{_kind(data)}"
    )


def _file_rows(path: Path) -> list[tuple[str, Any]]:
    suffix = path.suffix.lower()
    if suffix not in (*TEXT_SUFFIXES, ".csv", ".json", ".jsonl"):
        raise GiskardValidationError(
            f"cannot read {path.name!r}: knowledge base files are .csv, .jsonl, .json, .txt or .md"
        )
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise GiskardValidationError(f"{path.name} is not UTF-8 text: convert it first") from None
    if suffix in TEXT_SUFFIXES:
        return [("file", _text_row(text, path.name, ""))]
    if suffix == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        if not reader.fieldnames:
            raise GiskardValidationError(
                f"{path.name} has no header row: the first line names columns"
            )
        return [(f"line {reader.line_num}", dict(row)) for row in reader]
    if suffix == ".json":
        try:
            payload = json.loads(text)
        except json.JSONDecodeError as exc:
            raise GiskardValidationError(
                f"{path.name}: line {exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})"
            ) from None
        if isinstance(payload, dict) and isinstance(payload.get("documents"), list):
            payload = payload["documents"]
        if not isinstance(payload, list):
            raise GiskardValidationError(
                f"{path.name}: a .json knowledge base is a list of documents (texts or objects) or "
                '{"documents": [...]}'
            )
        return [(f"item {i}", row) for i, row in enumerate(payload, 1)]
    rows, errors = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {number}: not valid JSON ({exc.msg}, column {exc.colno})")
            continue
        rows.append((f"line {number}", value))
    if errors:
        raise GiskardValidationError(f"{path.name} was rejected:\n  - " + "\n  - ".join(errors))
    return rows


def _folder_files(root: Path) -> list[Path]:
    """The text files under ``root``, never leaving it: symbolic links are followed only when they
    point inside the folder (a link to ``/etc/passwd`` or to a parent folder is skipped, with a log
    line), and linked folders are not walked into."""
    base = root.resolve()
    found = []
    for folder, _dirs, names in os.walk(root, followlinks=False):
        for name in names:
            path = Path(folder, name)
            if path.suffix.lower() not in TEXT_SUFFIXES or not path.is_file():
                continue
            if not path.resolve().is_relative_to(base):
                logger.warning("skipped %s: a link to outside the folder %s", path, root)
                continue
            found.append(path)
    return sorted(found)


def _folder_rows(root: Path) -> list[tuple[str, Any]]:
    files = _folder_files(root)
    if not files:
        raise GiskardValidationError(
            f"folder {str(root)!r} holds no {', '.join(TEXT_SUFFIXES)} file"
        )
    rows = []
    for path in files:
        relative = path.relative_to(root)
        folder = relative.parts[0] if len(relative.parts) > 1 else ""
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            raise GiskardValidationError(
                f"{relative.as_posix()} is not UTF-8 text: convert it or remove it from the folder"
            ) from None
        rows.append((relative.as_posix(), _text_row(text, relative.as_posix(), folder)))
    return rows


def _text_row(text: str, path: str, folder: str) -> dict[str, Any]:
    title = next(
        (line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")), ""
    )
    return {
        "content": text,
        "path": path,
        "folder": folder,
        "title": title or Path(path).stem,
    }


def _guess_column(rows: list[tuple[str, Any]], source: str) -> str:
    first = next((row for _, row in rows if isinstance(row, Mapping)), None)
    if first is None:
        if not rows:
            raise GiskardValidationError(f"{source} holds no document")
        return DOCUMENT_COLUMNS[0]  # plain texts: no column to pick
    for name in DOCUMENT_COLUMNS:
        if name in first:
            return name
    texts = [k for k, v in first.items() if isinstance(v, str)]
    if len(texts) == 1:
        return texts[0]
    raise GiskardValidationError(
        f"which column of {source} holds the document text? Pass document_column= (columns: "
        f"{', '.join(map(str, first))})"
    )


def _scalar(value: Any) -> bool:
    if value is None or isinstance(value, str | int | float | bool):
        return True
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _kind(value: Any) -> str:
    return type(value).__name__
