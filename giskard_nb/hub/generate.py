"""``hub.datasets.generate_scenario_based`` and ``generate_document_based``: generated test cases,
stored in a new (or given) dataset in one transaction.

Each test case keeps its origin in ``metadata["source"]`` (scenario or knowledge base document and
topic) and its checks: a conformity check with the scenario's rules, or correctness (reference
answer) and groundedness (the document) for document-based ones. Cases duplicating one another or a
test case already in the target dataset are dropped. With no generator model configured the call fails
with a ``ConfigError`` saying how to configure one, before anything is stored. When fewer cases than
requested could be generated, a ``UserWarning`` says why; when none could, ``LLMError`` is raised.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from giskard_nb.dataset_generation import (
    GenerationResult,
    Passage,
    generate_from_passages,
    generate_from_persona,
)
from giskard_nb.errors import GiskardValidationError, LLMError
from giskard_nb.hub.models.base import build, require_same_project
from giskard_nb.hub.models.dataset import Dataset, HubTestCase
from giskard_nb.hub.store import Resources, Store
from giskard_nb.llm.structured import require_generator

__all__ = ["Generated", "generate_document_based", "generate_scenario_based", "persona_cases"]

#: What a generation returns for ``hub.datasets`` to store in one transaction: the target dataset,
#: whether it is new, and the generated test cases (not yet positioned).
Generated = tuple[Dataset, bool, list[HubTestCase]]

_ADVICE = "generate from resources of the same project"


async def persona_cases(
    store: Store,
    scenario: Any,
    *,
    agent_id: str | None,
    n_examples: int,
    generator: Any = None,
    existing: Sequence[str] = (),
) -> GenerationResult:
    """Test cases generated for a project scenario (persona), not stored."""
    agent = store.resources.agents.retrieve(agent_id) if agent_id else None
    return await generate_from_persona(
        scenario,  # a ProjectScenario is a Persona
        n_examples=n_examples,
        agent_name=agent.name if agent else "",
        agent_description=agent.description if agent else "",
        generator=generator,
        embedding_model=_embedding_model(),
        existing=existing,
        source={"scenario_id": scenario.id},
    )


async def generate_scenario_based(
    store: Store,
    project_id: str,
    agent_id: str,
    scenario_id: str,
    n_examples: int = 10,
    *,
    dataset_id: str | None = None,
    dataset_name: str | None = None,
    generator: Any = None,
) -> Generated:
    """``hub.datasets.generate_scenario_based`` (see the module docstring)."""
    resources = store.resources
    scenario = resources.projects.scenarios.retrieve(scenario_id)
    agent = resources.agents.retrieve(agent_id)
    require_same_project(project_id, ("scenario", scenario), ("agent", agent), advice=_ADVICE)
    model = require_generator("hub.datasets.generate_scenario_based", generator)
    dataset, existing = _target(
        resources, project_id, dataset_id, dataset_name or f"{scenario.name} (generated)"
    )
    result = await persona_cases(
        store,
        scenario,
        agent_id=agent_id,
        n_examples=n_examples,
        generator=model,
        existing=existing,
    )
    return _cases(store, dataset, dataset_id is None, result)


async def generate_document_based(
    store: Store,
    project_id: str,
    agent_id: str,
    knowledge_base_id: str,
    n_examples: int = 10,
    *,
    topic_ids: Sequence[str] | None = None,
    dataset_id: str | None = None,
    dataset_name: str | None = None,
    description: str = "",
    generator: Any = None,
    seed: int = 0,
) -> Generated:
    """``hub.datasets.generate_document_based`` (see the module docstring)."""
    resources = store.resources
    kb = resources.knowledge_bases.retrieve(knowledge_base_id)
    agent = resources.agents.retrieve(agent_id)
    require_same_project(project_id, ("knowledge base", kb), ("agent", agent), advice=_ADVICE)
    model = require_generator("hub.datasets.generate_document_based", generator)
    topics = {t.id: t for t in resources.knowledge_bases.list_topics(kb.id)}
    unknown = sorted(set(topic_ids or ()) - set(topics))
    if unknown:
        raise GiskardValidationError(
            f"no topic {unknown[0]!r} in knowledge base {kb.name!r}: its topics are "
            f"{', '.join(f'{t.name} ({i})' for i, t in topics.items())}"
        )
    passages = [
        Passage(d.id, d.content, d.topic_id, topics[d.topic_id].name if d.topic_id else None)
        for d in resources.knowledge_bases.list_documents(kb.id)
        if not topic_ids or d.topic_id in topic_ids
    ]
    if not passages:
        raise GiskardValidationError(f"the selected topics of {kb.name!r} hold no document")
    dataset, existing = _target(
        resources, project_id, dataset_id, dataset_name or f"{kb.name} (generated)", description
    )
    result = await generate_from_passages(
        passages,
        n_examples=n_examples,
        agent_description=agent.description,
        generator=model,
        embedding_model=_embedding_model(),
        existing=existing,
        seed=seed,
        source={"knowledge_base_id": kb.id},
    )
    return _cases(store, dataset, dataset_id is None, result)


def _target(
    resources: Resources, project_id: str, dataset_id: str | None, name: str, description: str = ""
) -> tuple[Dataset, list[str]]:
    if dataset_id is None:
        resources.projects.retrieve(project_id)
        data = {"project_id": project_id, "name": name[:200], "description": description}
        return build(Dataset, data, "dataset"), []
    dataset = resources.datasets.retrieve(dataset_id)
    require_same_project(project_id, ("dataset", dataset), advice=_ADVICE)
    cases = resources.test_cases.list(dataset.id)
    return dataset, ["\n".join(f"{m.role}: {m.content}" for m in c.messages) for c in cases]


def _cases(store: Store, dataset: Dataset, new: bool, result: GenerationResult) -> Generated:
    if not result.cases:
        raise LLMError(f"no test case could be generated: {result.shortfall()}")
    if not result.complete:
        warnings.warn(result.shortfall(), UserWarning, stacklevel=3)
    records = [
        build(
            HubTestCase,
            {
                "dataset_id": dataset.id,
                "project_id": dataset.project_id,
                "messages": case.messages,
                "checks": case.checks,
                "tags": case.tags,
                "metadata": {"source": case.source, "generated": True},
            },
            "generated test case",
        )
        for case in result.cases
    ]
    for record in records:
        store.resources.test_cases.validate_checks(dataset.project_id, record.checks)
    return dataset, new, records


def _embedding_model() -> Any:
    from giskard_nb.kb.embedding import default_embedding_model

    return default_embedding_model()
