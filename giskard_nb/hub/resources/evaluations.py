"""``hub.evaluations``: run an agent over a dataset, resume, re-run errors, summarize and compare.

Every method that runs something is a coroutine with a synchronous twin: ``acreate``/``create``,
``acreate_local``/``create_local``, ``aresume``/``resume``, ``arerun_errored``/``rerun_errored``. The
twins work in scripts and inside a notebook's running loop (interrupting the kernel stops the run;
finished results stay stored and ``resume`` completes the rest).

Each of them takes ``on_result``: a function (sync or async) called with each ``EvaluationResult``
once it is stored, in the order they are stored (within a quarter of a second of the result; see
``giskard_nb.hub.evaluation``). An exception it raises does not stop the run nor lose a result: it
is reported once as a ``RuntimeWarning`` (later ones are logged) and the run carries on.

Runs write through ``store`` (``giskard_nb.hub.evaluation_store``), not through the ``Hub``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from typing import Any, Literal

from giskard_nb.core.check import Check
from giskard_nb.core.collector import paused
from giskard_nb.core.sync import sync_twin
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import schema
from giskard_nb.hub.comparison import EvaluationComparison, compare_rows
from giskard_nb.hub.evaluation_plan import check_executor, check_options, runs_to_play
from giskard_nb.hub.evaluation_store import EvaluationStore
from giskard_nb.hub.models.base import build, require_same_project, utcnow
from giskard_nb.hub.models.dataset import HubTestCase
from giskard_nb.hub.models.evaluation import Evaluation, EvaluationResult
from giskard_nb.hub.resources.base import Resource
from giskard_nb.hub.resources.evaluation_estimates import EstimateEvaluations
from giskard_nb.hub.resources.owned import OwnedRuns
from giskard_nb.hub.resources.results import ResultsResource
from giskard_nb.hub.store import Store
from giskard_nb.hub.summary import EvaluationSummary, summarize

__all__ = ["EvaluationsResource"]

Classifier = Literal["auto", "rules", "llm"]
OnResult = Callable[[EvaluationResult], Any]
DEFAULT_MAX_CONCURRENCY = 8


class EvaluationsResource(EstimateEvaluations, OwnedRuns, Resource[Evaluation]):
    """Evaluations of a project and their results (``hub.evaluations.results``)."""

    entity_type = "evaluation"
    model = Evaluation
    table = schema.evaluations
    columns = ("project_id", "dataset_id", "agent_id", "status")

    def __init__(self, store: Store):
        super().__init__(store)
        #: What evaluation runs (and relabels) write through: the database, the actor, the audit.
        self.store = EvaluationStore(
            store.db,
            lambda: store.actor,
            lambda conn, id, changes: self._update(id, changes, conn=conn),
        )
        self.results = ResultsResource(store, self.store)

    # -- running -------------------------------------------------------------------------------------

    async def acreate(
        self,
        project_id: str,
        agent_id: str,
        dataset_id: str,
        *,
        name: str | None = None,
        tags: Sequence[str] = (),
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        timeout: float | None = None,
        classifier: Classifier = "auto",
        progress: bool = True,
        on_result: OnResult | None = None,
        repeats: int = 1,
    ) -> Evaluation:
        """Evaluate a registered (remote) agent on the active test cases of a dataset (those having
        every tag in ``tags``). ``timeout`` bounds each test case (seconds); ``classifier`` picks how
        failures are categorized ("auto": the LLM judge if one is configured, else the rule);
        ``on_result(result)`` is called with each result once stored (see the module docstring: its
        exceptions are reported, never lose a result). ``repeats=k`` runs each test case k times
        (the agent and the judges called again each time): the summary then gives per-case pass^k,
        pass@k and flaky cases, and intervals bootstrapped over cases (``giskard_nb.hub.evaluation_plan``)."""
        agent = self._store.resources.agents.retrieve(agent_id)
        dataset = self._store.resources.datasets.retrieve(dataset_id)
        require_same_project(
            project_id,
            ("agent", agent),
            ("dataset", dataset),
            advice="evaluate agents and datasets of the same project",
        )
        evaluation, cases = self._new(
            dataset.project_id,
            dataset.id,
            name or f"{agent.name} on {dataset.name}",
            agent_name=agent.name,
            agent_id=agent.id,
            local=False,
            tags=tags,
            max_concurrency=max_concurrency,
            timeout=timeout,
            repeats=repeats,
        )
        return await self._run(
            evaluation, None, classifier, progress, only="all", cases=cases, on_result=on_result
        )

    create = sync_twin(acreate)

    async def acreate_local(
        self,
        agent: Callable[..., Any],
        dataset_id: str,
        *,
        name: str | None = None,
        agent_name: str | None = None,
        tags: Sequence[str] = (),
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        timeout: float | None = None,
        classifier: Classifier = "auto",
        progress: bool = True,
        on_result: OnResult | None = None,
        executor: Any = None,
        repeats: int = 1,
    ) -> Evaluation:
        """Evaluate a Python function (sync or async) taking the list of ``{role, content}`` messages
        (or the last user message when its first parameter is annotated ``str`` or named like text:
        ``giskard_nb.core.agent_convention``) and returning a string, a message dict or an object
        with response and metadata. Options as ``acreate`` (``on_result(result)``: called with each
        result once stored; ``repeats=k``: each test case runs k times).

        ``executor=RayExecutor(...)``: the test cases are played on the executor's workers, and
        ``agent`` is then the *agent factory*, a function without arguments that each worker calls
        once to build the agent (``giskard_nb.hub.evaluation_remote``; ``max_concurrency`` is the
        executor's business then). Results are stored as they arrive, as for a local run."""
        from giskard_nb.hub.agents import LocalAgent

        check_executor(executor, agent)
        local = LocalAgent(agent, name=agent_name)
        dataset = self._store.resources.datasets.retrieve(dataset_id)
        evaluation, cases = self._new(
            dataset.project_id,
            dataset.id,
            name or f"{local.name} on {dataset.name}",
            agent_name=local.name,
            agent_id=None,
            local=True,
            tags=tags,
            max_concurrency=max_concurrency,
            timeout=timeout,
            repeats=repeats,
        )
        return await self._run(
            evaluation, agent if executor is not None else local, classifier, progress, only="all",
            cases=cases, on_result=on_result, executor=executor,
        )  # fmt: skip

    create_local = sync_twin(acreate_local)

    async def aresume(
        self,
        evaluation_id: str,
        *,
        agent: Callable[..., Any] | None = None,
        classifier: Classifier = "auto",
        progress: bool = True,
        on_result: OnResult | None = None,
        executor: Any = None,
    ) -> Evaluation:
        """Run only the test cases (and repeats) that have no result yet (after an interruption). A local
        evaluation needs its ``agent`` function again (with ``executor=``: its agent factory)."""
        check_executor(executor, agent)
        evaluation = self.retrieve(evaluation_id)
        if evaluation.rescored_from is not None:  # a re-score: re-score what is missing
            return await self._rescore(evaluation, None, classifier, progress, on_result)
        return await self._run(
            evaluation, agent, classifier, progress, only="missing", on_result=on_result,
            executor=executor,
        )  # fmt: skip

    resume = sync_twin(aresume)

    async def arerun_errored(
        self,
        evaluation_id: str,
        *,
        agent: Callable[..., Any] | None = None,
        classifier: Classifier = "auto",
        progress: bool = True,
        on_result: OnResult | None = None,
        executor: Any = None,
    ) -> Evaluation:
        """Run again the test cases (and repeats) whose result is an error, replacing those results."""
        check_executor(executor, agent)
        evaluation = self.retrieve(evaluation_id)
        return await self._run(
            evaluation, agent, classifier, progress, only="errored", on_result=on_result,
            executor=executor,
        )  # fmt: skip

    rerun_errored = sync_twin(arerun_errored)

    async def arescore(
        self,
        evaluation_id: str,
        *,
        checks: Sequence[Check] | None = None,
        generator: Any = None,
        name: str | None = None,
        classifier: Classifier = "auto",
        progress: bool = True,
        on_result: OnResult | None = None,
    ) -> Evaluation:
        """Run checks again on the stored conversations and replies of an evaluation, without
        calling the agent, into a new evaluation linked to it (``rescored_from``): the dataset's
        current checks, or ``checks`` (for every result), with ``generator`` (a model name or a
        Generator) as the judge of the checks that have one. See ``giskard_nb.hub.rescore``."""
        from giskard_nb.hub.rescore import given_checks

        source = self.retrieve(evaluation_id)
        given = given_checks(checks, generator)
        model = generator if isinstance(generator, str) else getattr(generator, "model", None)
        data = {
            **source.model_dump(
                include={
                    "project_id",
                    "dataset_id",
                    "agent_id",
                    "agent_name",
                    "local",
                    "tags",
                    "repeats",
                }
            ),
            "name": name or f"{source.name} (re-scored{' by ' + model if model else ''})",
            "max_concurrency": source.max_concurrency,
            "rescored_from": source.id,
            "rescore_generator": model,
            "rescore_given_checks": given is not None,
            "n_test_cases": len({case for case, _ in self.store.statuses(source.id)}),
            "started_at": utcnow(),
        }
        target = self._create(build(Evaluation, data, "evaluation"))
        return await self._rescore(target, given, classifier, progress, on_result, generator)

    rescore = sync_twin(arescore)

    # -- reading -------------------------------------------------------------------------------------

    def update(self, evaluation_id: str, *, name: str) -> Evaluation:
        return self._update(evaluation_id, {"name": name})

    def list(
        self, *, project_id: str | None = None, dataset_id: str | None = None
    ) -> list[Evaluation]:
        """Evaluations, oldest first, of a project and/or a dataset."""
        where = []
        if project_id is not None:
            where.append(self.table.c.project_id == project_id)
        if dataset_id is not None:
            where.append(self.table.c.dataset_id == dataset_id)
        return self._list(*where)

    def summary(self, evaluation_id: str) -> EvaluationSummary:
        """Pass rate overall, per check, per failure category and per tag, from the stored results."""
        evaluation = self.retrieve(evaluation_id)
        with paused():
            return summarize(
                evaluation,
                self.results.iter_raw(evaluation_id),
                n_test_cases=evaluation.n_test_cases,
            )

    def compare(self, before_id: str, after_id: str) -> EvaluationComparison:
        """Per-case changes between two evaluations of the same dataset (pass→fail, fail→pass...)."""
        before, after = self.retrieve(before_id), self.retrieve(after_id)
        if before.dataset_id != after.dataset_id:
            raise GiskardValidationError(
                f"evaluations {before.name!r} and {after.name!r} ran on different datasets: only "
                "evaluations of the same dataset can be compared case by case"
            )
        with paused():
            return compare_rows(
                before,
                after,
                list(self.results.iter_raw(before_id)),
                list(self.results.iter_raw(after_id)),
            )

    # -- internals -----------------------------------------------------------------------------------

    async def _rescore(
        self,
        target: Evaluation,
        checks: list[Check] | None,
        classifier: Classifier,
        progress: bool,
        on_result: OnResult | None,
        generator: Any = None,
    ) -> Evaluation:
        from giskard_nb.hub.rescore import rescore_into

        options = {"progress": progress, "on_result": on_result, "generator": generator}
        return await rescore_into(self._store, self.store, target, checks, classifier, **options)

    def _new(
        self, project_id: str, dataset_id: str, name: str, **fields: Any
    ) -> tuple[Evaluation, list[HubTestCase]]:
        check_options(
            max_concurrency=fields["max_concurrency"],
            timeout=fields["timeout"],
            repeats=fields.setdefault("repeats", 1),
        )
        data = {
            "project_id": project_id,
            "dataset_id": dataset_id,
            "name": name,
            **fields,
            "tags": list(fields["tags"]),
        }
        evaluation = build(Evaluation, data, "evaluation")
        cases = self._cases(evaluation)
        if not cases:
            raise GiskardValidationError(
                f"the dataset has no active test case{' with tags ' + str(list(evaluation.tags)) if evaluation.tags else ''}: "
                "add test cases (hub.test_cases.create or hub.datasets.upload) before evaluating"
            )
        evaluation = evaluation.model_copy(
            update={"n_test_cases": len(cases), "started_at": utcnow()}
        )
        return self._create(evaluation), cases

    def _cases(self, evaluation: Evaluation) -> list[HubTestCase]:
        with paused():  # 10^4 test cases read at once: see giskard_nb.core.collector
            return self._store.resources.test_cases.list(
                evaluation.dataset_id, tags=evaluation.tags or None, status="active"
            )

    async def _run(
        self,
        evaluation: Evaluation,
        agent: Callable[..., Any] | None,
        classifier: Classifier,
        progress: bool,
        *,
        only: Literal["all", "missing", "errored"],
        cases: list[HubTestCase] | None = None,
        on_result: OnResult | None = None,
        executor: Any = None,
    ) -> Evaluation:
        from giskard_nb.hub.agents import LocalAgent, RemoteAgent
        from giskard_nb.hub.evaluation import EvaluationRun
        from giskard_nb.hub.failure_categories import FailureClassifier

        cases = self._cases(evaluation) if cases is None else cases
        stored = self.store.statuses(evaluation.id) if only != "all" else None
        runs = runs_to_play(evaluation, cases, only=only, stored=stored)
        project = self._store.resources.projects.retrieve(evaluation.project_id)
        categorizer = FailureClassifier.create(project.failure_categories, classifier)
        async with AsyncExitStack() as stack:
            if executor is not None:
                caller = agent  # the agent factory, called on each of the executor's workers
            elif agent is not None:
                caller = agent if isinstance(agent, LocalAgent) else LocalAgent(agent)
            elif evaluation.local:
                raise GiskardValidationError(
                    f"evaluation {evaluation.name!r} ran a local agent ({evaluation.agent_name!r}): "
                    "pass it again with agent=<the function>"
                )
            elif evaluation.agent_id is None:
                raise GiskardValidationError(f"evaluation {evaluation.name!r} has no agent")
            else:
                remote = self._store.resources.agents.retrieve(evaluation.agent_id)
                caller = await stack.enter_async_context(RemoteAgent(remote))
            run = EvaluationRun(
                self.store,
                evaluation,
                caller,
                classifier=categorizer,
                custom_checks=self._store.resources.checks.by_identifier(evaluation.project_id),
                progress=progress,
                replace=only == "errored",
                on_result=on_result,
                executor=executor,
            )
            return await run.run(runs)
