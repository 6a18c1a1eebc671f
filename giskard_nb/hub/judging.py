"""How far a project's checks agree with people, and judge models with each other.

``calibrate`` builds a core ``CalibrationReport`` (``giskard_nb.core.calibration``) from the stored
results of a project's evaluations and the Hub's labels (``hub.evaluations.results.label``): a label
applies to every result of its conversation (``core.labels.result_key``), so the labels given on one
evaluation calibrate its re-scores too. Every judged verdict counts once per evaluation it is stored in.

``compare_judges`` re-scores one evaluation with each judge model (``hub.evaluations.rescore``), then
tabulates per judge and check the pass rate, the agreement with the human labels (the calibration
figures) and the cost of the judge calls (the usage recorded per check), and per pair of judges their
agreement and Cohen's kappa on the verdicts both gave.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from giskard_nb.core.calibration import calibrate as core_calibrate
from giskard_nb.core.calibration_report import CalibrationReport
from giskard_nb.core.collector import paused
from giskard_nb.core.labels import result_key
from giskard_nb.core.usage import Usage
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub.models.evaluation import Evaluation
from giskard_nb.stats.agreement import cohen_kappa, raw_agreement

__all__ = ["JudgeComparison", "calibrate", "judge_table"]


def _evaluations(hub: Any, project_id: str, evaluation_ids: Sequence[str] | None) -> list[Any]:
    evaluations = hub.evaluations
    if evaluation_ids is None:
        found = evaluations.list(project_id=project_id)
    else:
        if isinstance(evaluation_ids, str):
            evaluation_ids = [evaluation_ids]
        found = [evaluations.retrieve(i) for i in evaluation_ids]
    for e in found:
        if e.project_id != project_id:
            raise GiskardValidationError(
                f"evaluation {e.name!r} belongs to another project: calibrate with the evaluations "
                "of the project given"
            )
    if not found:
        raise GiskardValidationError(
            "the project has no evaluation to calibrate against: run one (hub.evaluations.create"
            "_local) and label some of its verdicts (hub.evaluations.results.label)"
        )
    return found


def _check_name(check: str, results: list[Any]) -> str:
    """The name the check's verdicts carry: ``check`` itself, or the one name of the verdicts of that
    kind (a built-in identifier such as ``"correctness"`` or a project check's identifier)."""
    names = {c.check_name for r in results for c in r.check_results}
    if check in names:
        return check
    kinds = {
        c.check_name
        for r in results
        for c in r.check_results
        if c.details.get("check_kind") == check and c.check_name
    }
    if len(kinds) == 1:
        return kinds.pop()
    shown = ", ".join(sorted(map(repr, names - {None}))) or "none"
    if kinds:
        raise GiskardValidationError(
            f"several checks of kind {check!r} ({', '.join(sorted(kinds))}): pass one of the names"
        )
    raise GiskardValidationError(
        f"no verdict of a check {check!r} in these evaluations; checks: {shown}"
    )


def calibrate(
    hub: Any,
    project_id: str,
    check: str,
    evaluation_ids: Sequence[str] | None = None,
    *,
    min_labels: int = 30,
    seed: int | None = 0,
) -> CalibrationReport:
    """The calibration report of ``check`` over the project's evaluations (or ``evaluation_ids``)."""
    if not isinstance(check, str) or not check:
        raise GiskardValidationError("calibrate() needs check=<a check's identifier or name>")
    with paused():
        results = [
            r.scenario_result
            for e in _evaluations(hub, project_id, evaluation_ids)
            for r in hub.evaluations.results.list(e.id)
        ]
    name = _check_name(check, results)
    labels = [x for x in hub.evaluations.results.labels(check=name) if x.project_id == project_id]
    return core_calibrate(results, labels, check=name, min_labels=min_labels, seed=seed)


@dataclass(frozen=True)
class JudgeComparison:
    """Judges side by side: ``judges`` (one row per judge and check), ``pairs`` (one row per pair of
    judges and check) and ``evaluations`` (judge -> the evaluation it re-scored into)."""

    judges: list[dict[str, Any]]
    pairs: list[dict[str, Any]]
    evaluations: dict[str, str]

    def to_dataframe(self) -> Any:
        """The ``judges`` rows as a DataFrame."""
        from giskard_nb.frames import records_frame

        return records_frame(self.judges)

    def pairs_dataframe(self) -> Any:
        """The ``pairs`` rows as a DataFrame."""
        from giskard_nb.frames import records_frame

        return records_frame(self.pairs)

    def text(self) -> str:
        lines = []
        for j in self.judges:
            human = (
                f"agreement with people {j['human_agreement']:.0%} (kappa "
                f"{_opt(j['human_kappa'])}, {j['human_labels']} labels)"
                if j["human_labels"]
                else "no human labels"
            )
            lines.append(
                f"{j['judge']} / {j['check']}: pass rate {_pct(j['pass_rate'])}, {human}, "
                f"${j['cost_usd']:.4f} for {j['llm_calls']} calls"
            )
        for p in self.pairs:
            lines.append(
                f"{p['judge_a']} vs {p['judge_b']} / {p['check']}: agree on "
                f"{_pct(p['agreement'])} of {p['n']} verdicts, kappa {_opt(p['kappa'])}"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.text()


def _opt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def judge_name(generator: Any, taken: set[str]) -> str:
    """A judge's name in the table: its model, numbered when two judges share it."""
    base = generator if isinstance(generator, str) else str(getattr(generator, "model", generator))
    name, n = base, 2
    while name in taken:
        name, n = f"{base} #{n}", n + 1
    taken.add(name)
    return name


def judge_table(hub: Any, project_id: str, judged: dict[str, Evaluation]) -> JudgeComparison:
    """Tabulate the judges' re-scored evaluations (``judge name -> evaluation``)."""
    verdicts: dict[str, dict[tuple[str, str], bool]] = {}
    rows = []
    for judge, evaluation in judged.items():
        with paused():
            results = [r.scenario_result for r in hub.evaluations.results.list(evaluation.id)]
        mine = verdicts[judge] = {}
        by_check: dict[str, list[Any]] = {}
        for r in results:
            key = result_key(r)
            for c in r.check_results:
                if "judge_model" not in c.details or not c.check_name:
                    continue  # only checks with a judge
                by_check.setdefault(c.check_name, []).append(c)
                if c.status.value in ("pass", "fail"):
                    mine[(key, c.check_name)] = c.passed
        for check, found in sorted(by_check.items()):
            usage = Usage.from_results(found)
            judged_n = [c for c in found if c.status.value in ("pass", "fail")]
            report = calibrate(hub, project_id, check, [evaluation.id], min_labels=1)
            rows.append(
                {
                    "judge": judge,
                    "check": check,
                    "evaluation_id": evaluation.id,
                    "verdicts": len(judged_n),
                    "errors": len(found) - len(judged_n),
                    "pass_rate": sum(c.passed for c in judged_n) / len(judged_n)
                    if judged_n
                    else None,
                    "human_labels": report.n_labels,
                    "human_agreement": report.scores.agreement,
                    "human_kappa": report.scores.kappa,
                    "cost_usd": usage.cost_usd,
                    "total_tokens": usage.total_tokens,
                    "llm_calls": usage.llm_calls,
                }
            )
    pairs = []
    checks = sorted({check for v in verdicts.values() for _, check in v})
    for a, b in combinations(verdicts, 2):
        for check in checks:
            shared = sorted(k for k in verdicts[a] if k[1] == check and k in verdicts[b])
            first = [verdicts[a][k] for k in shared]
            second = [verdicts[b][k] for k in shared]
            pairs.append(
                {
                    "judge_a": a,
                    "judge_b": b,
                    "check": check,
                    "n": len(shared),
                    "agreement": raw_agreement(first, second),
                    "kappa": cohen_kappa(first, second),
                }
            )
    return JudgeComparison(rows, pairs, {j: e.id for j, e in judged.items()})
