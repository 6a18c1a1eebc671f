"""The DataFrame of a calibration report: one row per labelled verdict.

Columns: ``scenario``, ``input``, ``output`` (text, bounded), ``judge_passed``, ``human_passed``,
``agree`` (bool), ``judge_reason``, ``human_note`` (text), ``labelers`` (int), ``score`` (float, NaN
when the check records none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from giskard_nb.frames._common import frame

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CALIBRATION_COLUMNS", "calibration_frame"]

CALIBRATION_COLUMNS = (
    "scenario", "input", "output", "judge_passed", "human_passed", "agree", "judge_reason",
    "human_note", "labelers", "score",
)  # fmt: skip


def calibration_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """The rows of ``CalibrationReport`` as a DataFrame (see the module docstring)."""
    c: dict[str, list] = {n: [r.get(n) for r in rows] for n in CALIBRATION_COLUMNS}
    c["score"] = [float("nan") if v is None else v for v in c["score"]]
    dtypes = {
        **dict.fromkeys(("judge_passed", "human_passed", "agree"), "bool"),
        "labelers": "int64",
        "score": "float64",
    }
    text = ("scenario", "input", "output", "judge_reason", "human_note")
    return frame(c, dtypes=dtypes, text=text, order=list(CALIBRATION_COLUMNS))
