"""The run wings keep to their seams: an evaluation or scan run writes through its ledger
(``giskard_nb.hub.ledger``) and its store (``EvaluationStore``, ``ScanStore``), never the ``Hub``, and
no run module reaches into another resource's private methods."""

from __future__ import annotations

import re
from pathlib import Path

import giskard_nb

ROOT = Path(giskard_nb.__file__).parent
RUNS = [
    "hub/ledger.py",
    "hub/evaluation.py",
    "hub/evaluation_store.py",
    "hub/scan_run.py",
    "hub/scan_store.py",
    "hub/scan_tallies.py",
]
EVALUATION_WING = [
    "hub/ledger.py",
    "hub/scan_run.py",
    "hub/scan_store.py",
    "hub/scan_tallies.py",
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
    for name in RUNS:
        text = (ROOT / name).read_text()
        assert not re.search(r"giskard_nb\.hub\.hub\b|\bself\.hub\b|\b_hub\b", text), name


def test_both_run_types_use_the_one_ledger() -> None:
    from giskard_nb.hub.evaluation import EvaluationRows
    from giskard_nb.hub.ledger import RunLedger
    from giskard_nb.hub.scan_run import ScanAttemptRows

    assert issubclass(EvaluationRows, RunLedger) and issubclass(ScanAttemptRows, RunLedger)
    for name in RUNS[1:]:  # no second heartbeat or batching loop beside the ledger
        text = (ROOT / name).read_text()
        assert not re.search(r"beat_forever|asyncio\.sleep\(", text), name
