"""DataFrames of Hub evaluation results, built from plain column data (pandas is imported inside).

``results_frame(records)`` — one row per result: the columns the Hub declares
  (``giskard_nb.hub.result_columns``, in its order; ``id`` is named ``result_id`` here), typed by
  their kind: status a Categorical pass/fail/error/skip, integers int64, floats float (NaN when
  none), created_at UTC, JSON and other text as they are stored.
``checks_frame(records)`` — one row per check result:
  evaluation_id, result_id, test_case_id, result_status, check_name, check_kind, status, message,
  score and threshold (float, NaN when the check reports none), metrics (JSON), created_at (UTC).

The rows are plain sequences of values in column order (the Hub reads them straight from its
index columns, ``giskard_nb.hub.result_rows``). The results' columns and their kinds are the Hub's
declaration (``giskard_nb.hub.result_columns``): a field the Hub stores shows in the frame with no
change here. Rows are turned into columns at C speed (``zip``), the frame's strings are the rows'
own (no copies), and the garbage collector is paused meanwhile (``core.collector.paused``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from giskard_nb.core.collector import paused
from giskard_nb.frames._common import STATUSES
from giskard_nb.hub.result_columns import RESULT_COLUMNS as STORED_RESULT_COLUMNS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CHECK_COLUMNS", "RESULT_COLUMNS", "checks_frame", "results_frame"]

#: The results' columns: the Hub's declaration of its stored result columns, in its order
#: (``giskard_nb.hub.result_columns``; its ``id`` is the frame's ``result_id``).
RESULT_COLUMNS = tuple("result_id" if c.name == "id" else c.name for c in STORED_RESULT_COLUMNS)
CHECK_COLUMNS = (
    "evaluation_id",
    "result_id",
    "test_case_id",
    "result_status",
    "check_name",
    "check_kind",
    "status",
    "message",
    "score",
    "threshold",
    "metrics",
    "created_at",
)
_STATUS_COLUMNS = tuple(c.name for c in STORED_RESULT_COLUMNS if c.kind == "status")
_INTEGERS = tuple(c.name for c in STORED_RESULT_COLUMNS if c.kind == "integer")
_FLOATS = (*(c.name for c in STORED_RESULT_COLUMNS if c.kind == "float"), "score", "threshold")


def results_frame(
    rows: Iterable[Sequence[Any]], *, same: Mapping[str, Any] | None = None
) -> pd.DataFrame:
    """One row per result; each of ``rows`` holds the values of ``RESULT_COLUMNS``, in that order,
    but for the columns given in ``same`` (one value for every row, such as the evaluation id)."""
    return _frame(
        rows, RESULT_COLUMNS, status_columns=_STATUS_COLUMNS, integers=_INTEGERS, same=same or {}
    )


def checks_frame(rows: Iterable[Sequence[Any]]) -> pd.DataFrame:
    """One row per check result; each of ``rows`` holds the values of ``CHECK_COLUMNS``."""
    return _frame(
        rows, CHECK_COLUMNS, status_columns=("status", "result_status"), integers=(), same={}
    )


def _frame(
    rows: Iterable[Sequence[Any]],
    names: tuple[str, ...],
    *,
    status_columns: tuple[str, ...],
    integers: tuple[str, ...],
    same: Mapping[str, Any],
) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    with paused():
        gathered = list(rows)
        stored = [name for name in names if name not in same]
        columns = list(zip(*gathered, strict=True)) if gathered else [() for _ in stored]
        by_name = dict(zip(stored, columns, strict=True))
        by_name.update({name: [value] * len(gathered) for name, value in same.items()})
        del gathered, columns
        data: dict[str, Any] = {}
        for name in names:
            values = by_name.pop(name)
            if name in status_columns:
                data[name] = _statuses(values)
            elif name in integers:
                data[name] = np.array(values, dtype="int64")
            elif name in _FLOATS:
                data[name] = np.array([np.nan if v is None else v for v in values], dtype=float)
            elif name == "created_at":  # datetimes, or ISO text (naive: UTC)
                data[name] = pd.to_datetime(
                    pd.Series(values, dtype=object), utc=True, format="ISO8601"
                ).array
            elif (
                values
            ):  # text: pandas infers its dtype from the values (as for any frame of records)
                data[name] = list(values)
            else:  # no rows: a text column all the same, not float
                data[name] = np.array([], dtype=object)
            del values
        return pd.DataFrame(data, columns=list(names))


def _statuses(values: Sequence[Any]) -> pd.Categorical:
    import pandas as pd

    codes = {s: i for i, s in enumerate(STATUSES)}
    return pd.Categorical.from_codes([codes[v] for v in values], categories=list(STATUSES))
