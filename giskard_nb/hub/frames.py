"""DataFrame helpers of the Hub: the status and timestamp columns, and the audit log's frame (pandas is
imported inside the functions). The results' frames are built by ``giskard_nb.frames.hub_results``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic_core import to_json

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["STATUSES", "audit_frame", "status_column", "utc_column"]

STATUSES = ("pass", "fail", "error", "skip")


def _json(value: Any) -> str:
    return to_json(value, fallback=str).decode()


def status_column(values: Sequence[Any]) -> pd.Categorical:
    """A Categorical of statuses with the categories pass, fail, error, skip."""
    import pandas as pd

    return pd.Categorical(list(values), categories=list(STATUSES))


def utc_column(values: Sequence[Any]) -> pd.Series:
    """Timestamps (datetimes or ISO text; naive ones are UTC) as a tz-aware UTC column."""
    import pandas as pd

    return pd.to_datetime(pd.Series(list(values), dtype=object), utc=True, format="ISO8601")


def audit_frame(entries: Sequence[Any]) -> pd.DataFrame:
    """One row per audit entry; ``changes`` as JSON text."""
    import pandas as pd

    columns = [
        "created_at",
        "actor",
        "action",
        "entity_type",
        "entity_id",
        "project_id",
        "triggered_by",
        "changes",
    ]
    records = [
        {**{c: getattr(e, c) for c in columns[:-1]}, "changes": _json(e.changes)} for e in entries
    ]
    df = pd.DataFrame(records, columns=columns)
    df["created_at"] = utc_column(df["created_at"]).array
    return df
