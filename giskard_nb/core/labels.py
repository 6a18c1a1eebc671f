"""Human labels on check verdicts of core results, kept in a JSONL labels file when there is no Hub.

``label(result, check="groundedness", passed=False, note="invents a phone number", labeler="ana")``
records what a person says the verdict of check ``check`` on ``result`` (a ``ScenarioResult``) should
have been; ``labels()`` lists them (``.to_dataframe()``). A label points at its result by
``result_key(result)``: a digest of the scenario name and the conversation (inputs and outputs), so it
still applies after ``SuiteResult.rescore()`` and to every repeat that produced the same conversation.

Several labelers may label the same verdict; a labeler labelling it again replaces their label. The
file (default ``<GISKARD_NB_HOME>/labels.jsonl``, or ``path=``) is rewritten atomically
(``core.files.atomic_write``); every line read back is validated (a stored row is untrusted), and a
note is stored with credentials masked (``secrets.mask_credentials``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from giskard_nb.errors import GiskardValidationError

if TYPE_CHECKING:
    from giskard_nb.core.scenario_result import ScenarioResult

__all__ = [
    "Label",
    "LabelList",
    "LabelStore",
    "label",
    "labels",
    "result_key",
    "scenario_results",
    "validate_label",
]

LABELS_FILE = "labels.jsonl"
_NAME = Field(min_length=1, max_length=200)


class Label(BaseModel):
    """One person's verdict on one check of one result."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    key: str = Field(pattern=r"^[0-9a-f]{32}$")
    scenario: str = Field(max_length=1000)
    check: str = _NAME
    passed: bool = Field(strict=True)
    note: str | None = Field(default=None, max_length=4000)
    labeler: str = _NAME
    created_at: str = Field(max_length=40)


class LabelList(list):
    """A list of ``Label`` with ``to_dataframe()``."""

    def to_dataframe(self) -> Any:
        """One row per label: the ``Label`` fields as columns."""
        from giskard_nb.frames import records_frame

        return records_frame(list(self))


def result_key(result: ScenarioResult) -> str:
    """The stable identity of a result's conversation: a digest of its scenario name and the inputs
    and outputs of its final trace (not timings, not verdicts)."""
    from giskard_nb.core.sanitize import to_safe_data

    turns = [
        [to_safe_data(i.inputs), to_safe_data(i.outputs)] for i in result.final_trace.interactions
    ]
    data = json.dumps([result.scenario_name, turns], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _check_names(result: ScenarioResult) -> list[str]:
    return sorted({c.check_name for c in result.check_results if c.check_name})


class LabelStore:
    """The labels file: ``add`` one label, ``list`` them."""

    def __init__(self, path: str | Path | None = None):
        if path is None:
            from giskard_nb.config import home_dir

            path = home_dir() / LABELS_FILE
        self.path = Path(path).expanduser()

    def __repr__(self) -> str:
        return f"LabelStore({str(self.path)!r})"

    def _read(self) -> list[Label]:
        if not self.path.exists():
            return []
        out = []
        text = self.path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                out.append(Label.model_validate_json(line))
            except ValidationError as exc:
                problem = exc.errors()[0]
                where = ".".join(str(p) for p in problem.get("loc", ())) or "the line"
                raise GiskardValidationError(
                    f"{self.path} line {number} is not a label ({where}: {problem.get('msg')}); "
                    "fix or delete that line (each line is one JSON label written by label())"
                ) from None
        return out

    def _write(self, items: Iterable[Label]) -> None:
        from giskard_nb.core.files import atomic_write

        with atomic_write(self.path) as handle:
            for item in items:
                handle.write(item.model_dump_json() + "\n")

    def add(
        self,
        result: ScenarioResult,
        *,
        check: str,
        passed: bool,
        note: str | None = None,
        labeler: str | None = None,
    ) -> Label:
        """Record ``labeler``'s verdict on check ``check`` of ``result`` (replacing their earlier
        one); the label."""
        from giskard_nb.core.scenario_result import ScenarioResult
        from giskard_nb.secrets import mask_credentials

        if not isinstance(result, ScenarioResult):
            raise GiskardValidationError(
                f"label() takes a ScenarioResult (one item of SuiteResult.results), not "
                f"{type(result).__name__}"
            )
        validate_label(
            _check_names(result), check, passed, note, f"scenario {result.scenario_name[:200]!r}"
        )
        try:
            new = Label(
                key=result_key(result),
                scenario=result.scenario_name[:1000],
                check=check,
                passed=passed,
                note=mask_credentials(note) if note else None,
                labeler=labeler if labeler is not None else "default",
                created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            )
        except ValidationError as exc:
            problem = exc.errors()[0]
            raise GiskardValidationError(
                f"invalid label: {'.'.join(map(str, problem['loc']))}: {problem['msg']} "
                "(labeler: 1-200 characters; note: at most 4000)"
            ) from None
        same = (new.key, new.check, new.labeler)
        kept = [x for x in self._read() if (x.key, x.check, x.labeler) != same]
        self._write([*kept, new])
        return new

    def list(
        self,
        *,
        check: str | None = None,
        labeler: str | None = None,
        results: Iterable[ScenarioResult] | None = None,
    ) -> LabelList:
        """The labels, optionally only those of ``check``, of ``labeler``, or on ``results``."""
        keys = None if results is None else {result_key(r) for r in scenario_results(results)}
        return LabelList(
            x
            for x in self._read()
            if (check is None or x.check == check)
            and (labeler is None or x.labeler == labeler)
            and (keys is None or x.key in keys)
        )


def scenario_results(results: Any) -> list[ScenarioResult]:
    """The ScenarioResults of a SuiteResult, a ScenarioResult or a list of them (anything else is a
    clear error)."""
    from giskard_nb.core.scenario_result import ScenarioResult

    found = getattr(results, "results", results)
    if isinstance(found, ScenarioResult):
        return [found]
    items = list(found) if isinstance(found, list | tuple) else None
    if items is None or not all(isinstance(r, ScenarioResult) for r in items):
        raise GiskardValidationError(
            "results must be a SuiteResult, a ScenarioResult or a list of ScenarioResults, got "
            f"{type(results).__name__}"
        )
    return items


def label(
    result: ScenarioResult,
    *,
    check: str,
    passed: bool,
    note: str | None = None,
    labeler: str | None = None,
    path: str | Path | None = None,
) -> Label:
    """Record a human verdict on check ``check`` of ``result`` in the labels file (see the module)."""
    return LabelStore(path).add(result, check=check, passed=passed, note=note, labeler=labeler)


def labels(
    *,
    check: str | None = None,
    labeler: str | None = None,
    results: Any = None,
    path: str | Path | None = None,
) -> LabelList:
    """The labels in the labels file, filtered by ``check``, ``labeler`` or ``results`` (a
    SuiteResult or ScenarioResults); ``.to_dataframe()`` for a DataFrame."""
    return LabelStore(path).list(check=check, labeler=labeler, results=results)


def validate_label(names: list[str], check: Any, passed: Any, note: Any, owner: str) -> None:
    """``GiskardValidationError`` unless ``check`` is one of ``names`` (the checks of ``owner``, a
    result), ``passed`` a bool and ``note`` text or ``None`` (core and Hub labels alike)."""
    if check not in names:
        raise GiskardValidationError(
            f"{owner} has no check named {str(check)[:200]!r}; its checks: "
            f"{', '.join(map(repr, names)) or 'none'}"
        )
    if not isinstance(passed, bool):
        raise GiskardValidationError(
            f"passed must be True or False (the verdict the check should give), got {passed!r}"
        )
    if note is not None and not isinstance(note, str):
        raise GiskardValidationError(f"note must be text or None, got {type(note).__name__}")
