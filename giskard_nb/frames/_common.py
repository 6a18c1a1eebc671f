"""Building blocks shared by every ``to_dataframe``: the status dtype, JSON cells, text cells, timestamps.

The categories of every ``status`` column are ``giskard_nb.palette.STATUSES``, in that order.

pandas is imported inside functions only (``import giskard_nb`` never loads it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from giskard_nb.palette import STATUSES

__all__ = [
    "STATUSES",
    "frame",
    "json_cell",
    "status_values",
    "text_cell",
    "utc_timestamps",
]


def _default(value: Any) -> Any:
    """JSON fallback: pydantic models dump themselves, sets become lists, anything else its ``str``."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        try:
            return dump(mode="json")
        except Exception:
            return str(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if callable(value):
        return f"<callable {getattr(value, '__qualname__', type(value).__name__)}>"
    return str(value)


_ENCODER = json.JSONEncoder(ensure_ascii=False, default=_default)
_EMPTY = {dict: "{}", list: "[]"}


def json_cell(value: Any) -> str | None:
    """A nested payload as a JSON string (``None`` stays ``None``): never an opaque Python object."""
    if value is None:
        return None
    if not value and type(value) in _EMPTY:
        return _EMPTY[type(value)]
    try:
        return _ENCODER.encode(value)
    except (TypeError, ValueError):  # circular references and the like
        return json.dumps(str(value), ensure_ascii=False)


def text_cell(value: Any) -> str | None:
    """Agent inputs/outputs as text: strings as they are, anything else as JSON."""
    if value is None or isinstance(value, str):
        return value
    return json_cell(value)


#: status (a CheckStatus is a str enum, so it hashes like its value) -> category code
_CODES = {s: i for i, s in enumerate(STATUSES)}


def status_values(values: Iterable[Any]):
    """A pandas Categorical with categories ``pass, fail, error, skip`` (accepts enums or strings)."""
    import pandas as pd

    codes = [-1 if v is None else _CODES[v] for v in values]
    return pd.Categorical.from_codes(codes, categories=list(STATUSES))


def utc_timestamps(values: Iterable[datetime | str | None]):
    """tz-aware UTC timestamps; naive datetimes are taken as UTC (that is how the Hub stores them)."""
    import pandas as pd

    out = []
    for v in values:
        if isinstance(v, str):
            v = datetime.fromisoformat(v)
        if isinstance(v, datetime) and v.tzinfo is None:
            v = v.replace(tzinfo=UTC)
        out.append(v)
    return pd.to_datetime(pd.Series(out, dtype="object"), utc=True)


def frame(
    columns: dict[str, Any],
    *,
    dtypes: dict[str, str] | None = None,
    text: Sequence[str] = (),
    order: Sequence[str],
):
    """A DataFrame from column lists, columns in ``order`` (extra columns after).

    Columns named in ``dtypes`` get that dtype; ``text`` columns get pandas' ``string`` dtype
    (missing = ``<NA>``), so text columns are typed the same on pandas 2 and 3.
    """
    import pandas as pd

    df = pd.DataFrame(columns)
    for name, dtype in {**dict.fromkeys(text, "string"), **(dtypes or {})}.items():
        if name in df.columns:
            df[name] = df[name].astype(dtype)
    ordered = [c for c in order if c in df.columns]
    return df[ordered + [c for c in df.columns if c not in ordered]]
