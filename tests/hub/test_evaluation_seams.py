"""The evaluation wing keeps to its seams: a run writes through its ``EvaluationStore`` (never the
``Hub``), and no evaluation module reaches into another resource's private methods."""

from __future__ import annotations

import re
from pathlib import Path

import giskard_nb

ROOT = Path(giskard_nb.__file__).parent
EVALUATION_WING = [
    "hub/evaluation.py",
    "hub/evaluation_store.py",
    "hub/result_rows.py",
    "hub/resources/evaluations.py",
    "hub/resources/results.py",
    "widgets/backends.py",
]
#: ``hub.<resource>._private`` / ``self._hub.<resource>._private(...)``
CROSS_PRIVATE = re.compile(r"\b_?hub\.[a-z_]+\.(?:[a-z_]+\.)?_[a-z]\w*")


def test_no_cross_resource_private_calls() -> None:
    found = [
        f"{name}:{i}: {line.strip()}"
        for name in EVALUATION_WING
        for i, line in enumerate((ROOT / name).read_text().splitlines(), 1)
        if CROSS_PRIVATE.search(line)
    ]
    assert found == []


def test_runs_do_not_hold_the_hub() -> None:
    for name in ("hub/evaluation.py", "hub/evaluation_store.py"):
        text = (ROOT / name).read_text()
        assert not re.search(r"giskard_nb\.hub\.hub\b|\bself\.hub\b|\b_hub\b", text), name
