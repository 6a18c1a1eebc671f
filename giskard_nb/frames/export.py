"""Writing a DataFrame to a file chosen by its suffix: ``.csv``, ``.parquet``, ``.jsonl`` or ``.json``.

Parquet needs the optional ``pyarrow`` package (``pip install 'giskard-nb[parquet]'``); without it the
error says so before anything is written.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import TYPE_CHECKING

from giskard_nb.core.files import atomic_write, safe_frame, write_csv
from giskard_nb.errors import ConfigError, GiskardValidationError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FRAME_FORMATS", "require_parquet", "write_frame"]

FRAME_FORMATS = ("csv", "parquet", "jsonl", "json")


def require_parquet() -> None:
    """``ConfigError`` naming the ``parquet`` extra unless a Parquet engine (pyarrow) is installed."""
    if importlib.util.find_spec("pyarrow") is None:
        raise ConfigError(
            "writing Parquet needs the optional pyarrow package: pip install 'giskard-nb[parquet]' "
            "(or export to .csv / .jsonl instead)"
        )


def write_frame(
    df: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    escape_formulas: bool = True,
) -> Path:
    """Write ``df`` to ``path`` (``format``: one of ``FRAME_FORMATS``, default from the suffix);
    the path written. Timestamps are written as ISO 8601 text in CSV and JSON.

    The file is replaced atomically (a failure leaves the previous file as it was); lone surrogates
    in text become U+FFFD; in CSV, text a spreadsheet would run as a formula (``=``, ``+``, ``-``,
    ``@``, tab, CR first) gets a leading apostrophe unless ``escape_formulas=False``."""
    target = Path(path).expanduser()
    kind = (format or target.suffix.lstrip(".")).lower()
    if kind not in FRAME_FORMATS:
        raise GiskardValidationError(
            f"cannot tell the format of {target.name!r}: name it .csv, .parquet, .jsonl or .json "
            "(or pass format=)"
        )
    if kind == "parquet":
        require_parquet()
    with atomic_write(target, binary=kind == "parquet", newline="") as handle:
        if kind == "csv":
            write_csv(df, handle, escape_formulas=escape_formulas)
            return target
        df = safe_frame(df, csv=False)
        if kind == "parquet":
            df.to_parquet(handle, index=False)
        else:
            df.to_json(
                handle,
                orient="records",
                lines=kind == "jsonl",
                date_format="iso",
                force_ascii=False,
                indent=None if kind == "jsonl" else 2,
            )
    return target
