"""Tool checks: what a tool-calling agent called, with which arguments, and how it behaved around
its calls (docs/tools.md, "Tool checks"). Importing this package registers their kinds; the
``giskard_nb`` facade and ``giskard_nb.checks`` load it on first use (``ToolCalled``...), and a saved
check loads by kind (``core.registry.LAZY_KINDS``). May import: errors, core and llm.

Deterministic: ``ToolCalled``, ``ToolNotCalled``, ``ToolSequence`` (``called.py``); ``ToolArgs``,
``ToolSchemaValid``, ``ToolCallF1`` (``arguments.py``); ``ToolBudget``, ``ToolErrorHandled``,
``ConfirmationBeforeSideEffect`` (``behaviour.py``). Judged: ``ToolSelectionJudge``,
``ToolArgumentsJudge``, ``ToolGroundingJudge``, ``TrajectoryJudge`` (``judges.py``) and
``ActionClaimsConsistent`` (``claims.py``: the judge extracts the claims, Python matches them).
"""

from giskard_nb.checks.tools.arguments import ToolArgs, ToolCallF1, ToolSchemaValid
from giskard_nb.checks.tools.behaviour import (
    ConfirmationBeforeSideEffect,
    ToolBudget,
    ToolErrorHandled,
)
from giskard_nb.checks.tools.called import ToolCalled, ToolNotCalled, ToolSequence
from giskard_nb.checks.tools.claims import ActionClaimsConsistent
from giskard_nb.checks.tools.judges import (
    ToolArgumentsJudge,
    ToolGroundingJudge,
    ToolSelectionJudge,
    TrajectoryJudge,
)

#: kind -> class name, for every check of this package.
TOOL_CHECK_KINDS = {
    "tool_called": "ToolCalled",
    "tool_not_called": "ToolNotCalled",
    "tool_sequence": "ToolSequence",
    "tool_args": "ToolArgs",
    "tool_call_f1": "ToolCallF1",
    "tool_schema_valid": "ToolSchemaValid",
    "tool_budget": "ToolBudget",
    "tool_error_handled": "ToolErrorHandled",
    "confirmation_before_side_effect": "ConfirmationBeforeSideEffect",
    "tool_selection_judge": "ToolSelectionJudge",
    "tool_arguments_judge": "ToolArgumentsJudge",
    "tool_grounding_judge": "ToolGroundingJudge",
    "trajectory_judge": "TrajectoryJudge",
    "action_claims_consistent": "ActionClaimsConsistent",
}

__all__ = [
    "TOOL_CHECK_KINDS",
    "ActionClaimsConsistent",
    "ConfirmationBeforeSideEffect",
    "ToolArgs",
    "ToolArgumentsJudge",
    "ToolBudget",
    "ToolCallF1",
    "ToolCalled",
    "ToolErrorHandled",
    "ToolGroundingJudge",
    "ToolNotCalled",
    "ToolSchemaValid",
    "ToolSelectionJudge",
    "ToolSequence",
    "TrajectoryJudge",
]
