"""A Hub test case and a core ``Scenario``, both ways: the one place where one becomes the other.

- ``test_case_to_scenario(test_case, agent)``: the Scenario a test case is run as —
  ``Scenario(name).interact(inputs=<the conversation>, outputs=<call the agent>)`` followed by its
  enabled checks (``check_specs.build_check``). The agent is called with the whole conversation; the
  interaction's ``outputs`` is the reply's text (checks read it at ``trace.last.outputs``) and its
  ``metadata`` the reply's metadata (``trace.last.metadata``), its ``tool_calls`` the calls the reply
  reports (``metadata["tool_calls"]``, read by ``core.tool_adapters.tool_calls_from``). The scenario
  carries the test case's name, tags, ids and ``expected_tool_calls`` (``annotations``).
- ``scenario_to_test_case(scenario)``: the ``hub.test_cases.create`` arguments of a scenario made of
  text turns — its inputs become user messages, fixed or recorded outputs assistant messages (JSON data
  written as JSON), its checks check specs (``check_specs.check_to_spec``), its name and tags kept.

``test_case_to_scenario(HubTestCase(**scenario_to_test_case(s)), agent)`` runs the checks of ``s``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from giskard_nb.core.agent_convention import agent_input
from giskard_nb.core.check import Check
from giskard_nb.core.interaction import Interaction
from giskard_nb.core.missing import MISSING
from giskard_nb.core.reply import AgentOutput
from giskard_nb.core.scenario import Scenario
from giskard_nb.core.tool_adapters import tool_calls_from
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub.check_specs import build_check, check_to_spec
from giskard_nb.hub.models.check import HubCheck
from giskard_nb.hub.models.dataset import HubTestCase

__all__ = ["AgentFn", "scenario_to_test_case", "test_case_to_scenario"]

#: An async agent: the conversation (``{role, content}`` dicts) in, an ``AgentOutput`` out.
AgentFn = Callable[[Sequence[Any]], Awaitable[AgentOutput]]


def test_case_to_scenario(
    test_case: HubTestCase,
    agent: AgentFn | None = None,
    *,
    checks: Sequence[Check] | None = None,
    custom_checks: Mapping[str, HubCheck] | None = None,
    outputs: Callable[..., Any] | None = None,
    repeat: int = 0,
) -> Scenario:
    """The core Scenario ``test_case`` is run as, calling ``agent`` (see the module docstring).

    ``checks``: the checks already built from the test case's enabled specs (an evaluation builds each
    distinct spec once); by default they are built here, with the project's ``custom_checks``.
    ``outputs``: instead of ``agent``, the interaction's outputs callable shared by every scenario of
    a run (an evaluation passes one, so that its signature is checked once); ``MISSING``: none, the
    target the scenario is run with answers (an executor's worker, ``hub.evaluation_remote``).
    ``repeat``: which run of the test case this is, in an evaluation with ``repeats=k`` (annotated
    when not 0: ``run_key``)."""
    if outputs is None:
        if agent is None:
            raise GiskardValidationError(
                "test_case_to_scenario needs the agent to call: test_case_to_scenario(case, agent)"
            )
        outputs = _AgentTarget(agent)
    if checks is None:
        checks = [build_check(s, custom_checks) for s in test_case.checks if s.enabled]
    annotations: dict[str, Any] = {"test_case_id": test_case.id, "dataset_id": test_case.dataset_id}
    if repeat:
        annotations["repeat"] = repeat
    if test_case.expected_tool_calls:  # what tool checks compare the trajectory with
        annotations["expected_tool_calls"] = [
            c.model_dump(mode="json", exclude_defaults=True) for c in test_case.expected_tool_calls
        ]
    scenario = Scenario(
        test_case.name or f"test case {test_case.position + 1}",
        annotations=annotations,
        tags=list(test_case.tags),
    )
    scenario.interact(inputs=test_case.conversation, outputs=outputs)
    return scenario.checks(*checks)


def run_key(annotations: Mapping[str, Any]) -> tuple[str, int]:
    """Which run a scenario (or its trace) is, from its annotations: (test case id, repeat)."""
    return annotations["test_case_id"], annotations.get("repeat", 0)


test_case_to_scenario.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


@agent_input("messages")  # its inputs: the test case's conversation, whatever the parameter's name
class _AgentTarget:
    """The scenario target calling an agent with the conversation. Equal for the same agent, so the
    core's cached signature check runs once per agent, not once per test case."""

    __slots__ = ("agent",)

    def __init__(self, agent: AgentFn):
        self.agent = agent

    async def __call__(self, inputs: list[dict[str, str]]) -> Interaction:
        output = await self.agent(inputs)
        metadata = json.loads(json.dumps(output.metadata, default=str))  # the checks' own copy
        calls = tool_calls_from(metadata.get("tool_calls"))
        return Interaction(
            inputs=inputs, outputs=output.content, metadata=metadata, tool_calls=calls
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _AgentTarget) and other.agent is self.agent

    def __hash__(self) -> int:
        return id(self.agent)


def scenario_to_test_case(scenario: Scenario) -> dict[str, Any]:
    """The ``hub.test_cases.create`` arguments (messages, checks, tags, name) of a scenario.

    ``GiskardValidationError`` names what cannot be stored: a Python function as a turn, an
    interaction that is not ``interact(inputs, outputs)``, an unregistered check or one holding a
    function, a scenario with no interaction."""
    messages: list[dict[str, str]] = []
    checks: list[dict[str, Any]] = []
    for step in scenario.steps:
        for spec in step.interacts:
            inputs = getattr(spec, "inputs", MISSING)
            if inputs is MISSING:
                raise GiskardValidationError(
                    f"cannot save a {type(spec).__name__} interaction as a Hub test case: only "
                    "interact(inputs, outputs) turns can be saved"
                )
            messages.append({"role": "user", "content": _text(inputs, "input")})
            outputs = getattr(spec, "outputs", MISSING)
            if outputs is not MISSING:
                messages.append({"role": "assistant", "content": _text(outputs, "output")})
        for check in step.checks:
            spec = check_to_spec(check)
            checks.append({"identifier": spec.identifier, "params": spec.params})
    if not messages:
        raise GiskardValidationError("the scenario has no interaction to save")
    return {
        "messages": messages,
        "checks": checks,
        "tags": list(scenario.tags),
        "name": scenario.name,
    }


def _text(value: Any, what: str) -> str:
    if isinstance(value, str):
        return value
    if callable(value):
        raise GiskardValidationError(
            f"this scenario's {what} is a Python function: only text (or JSON data) turns can be "
            "saved as a Hub test case"
        )
    return json.dumps(value, ensure_ascii=False)
