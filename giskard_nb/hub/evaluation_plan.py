"""What an evaluation run plays: its options checked, and the runs (test case, repeat) a new run, a
resume or a re-run of errors covers.

An evaluation with ``repeats=k`` plays each of its test cases k times, independently (the agent and
the judges are called again each time); the results keep their repeat index (0..k-1). Runs are played
case by case (a case's k runs one after the other in the queue, as ``Suite.run(repeats=k)`` does), so
an interrupted evaluation holds whole cases first. ``resume`` plays the runs that have no result,
``rerun_errored`` those whose result is an error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from giskard_nb.core.suite import check_repeats
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub.evaluation import Run
from giskard_nb.hub.models.dataset import HubTestCase
from giskard_nb.hub.models.evaluation import Evaluation

__all__ = ["check_executor", "check_options", "runs_to_play"]

Only = Literal["all", "missing", "errored"]


def check_options(*, max_concurrency: int, timeout: float | None, repeats: int) -> None:
    """A clear error for an option a run cannot take."""
    if (
        isinstance(max_concurrency, bool)
        or not isinstance(max_concurrency, int)
        or max_concurrency < 1
    ):
        raise GiskardValidationError(f"max_concurrency must be >= 1, got {max_concurrency!r}")
    if timeout is not None and timeout <= 0:
        raise GiskardValidationError(f"timeout must be > 0 seconds, got {timeout}")
    check_repeats(repeats, "test case")


def runs_to_play(
    evaluation: Evaluation,
    cases: Sequence[HubTestCase],
    *,
    only: Only,
    stored: Mapping[tuple[str, int], str] | None = None,
) -> list[Run]:
    """The runs to play, case by case: every run of ``cases`` (``only="all"``), or, of the test
    cases the evaluation had when it was created, those without a stored result (``"missing"``) or
    whose stored result is an error (``"errored"``); ``stored``: ``{(test case id, repeat): status}``."""
    repeats = evaluation.repeats
    if only == "all":
        return [(case, r) for case in cases for r in range(repeats)]
    stored = stored or {}
    runs = []
    for case in cases:
        if case.created_at > evaluation.created_at:  # added to the dataset after the evaluation
            continue
        for r in range(repeats):
            status = stored.get((case.id, r))
            if (status is None) if only == "missing" else (status == "error"):
                runs.append((case, r))
    return runs


def check_executor(executor: Any, agent: Any) -> None:
    """A run on an executor needs ``agent``: the factory its workers build the agent with."""
    if executor is None:
        return
    from giskard_nb.executors.base import check_executor_args

    if agent is None:
        raise GiskardValidationError(
            "a run on an executor needs agent=<agent factory>: a function without arguments that "
            "builds the agent, called once on each worker (so a model loads once per worker)"
        )
    check_executor_args(executor, agent)
