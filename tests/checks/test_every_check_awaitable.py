"""``await check.run(trace)`` works for every built-in check kind (issue 15's "Done when").

The list below must name every kind registered by giskard_nb itself: a new built-in check without an
entry here fails ``test_the_list_covers_every_builtin_kind``. LLM checks are answered in-process by
``FakeModel`` with a well-formed verdict, so each returns a real PASS or FAIL, never an ERROR.
"""

from __future__ import annotations

import asyncio
import importlib.util

import pytest

import giskard_nb as g
from giskard_nb.checks.metadata import MetadataRule
from giskard_nb.core.check import Check
from giskard_nb.core.tools import ToolCall, ToolSpec
from giskard_nb.kb.embedding import HashingEmbedder
from giskard_nb.scan.detectors import CanaryDetector
from giskard_nb.scan.regression import Vulnerability  # registers its kind
from giskard_nb.scan.result import Attack
from giskard_nb.testing import FakeModel

_VERDICT = {"reason": "looks fine", "passed": True}


def _judge(**extra: object) -> FakeModel:
    return FakeModel(replies=[{**_VERDICT, **extra}], repeat_last=True)


TRACE = g.Trace(
    interactions=[
        g.Interaction(
            inputs="How do I reset my password?",
            outputs='{"answer": "Open Settings. Click Reset. Check your mail."}',
            metadata={
                "m": 1,
                "retrieved": ["kb-3", "kb-1", "kb-7"],
                "context": "Passwords are reset from Settings.",
            },
            latency_s=0.2,
            tool_calls=[ToolCall(name="reset_password", arguments={"user": "ann"}, result="sent")],
        )
    ]
)
CALL = {"name": "reset_password", "arguments": {"user": "ann"}}
OUT = "trace.last.outputs"

FACTORIES = {
    "equals": lambda: g.Equals(expected_value=TRACE.last.outputs, key=OUT),
    "not_equals": lambda: g.NotEquals(expected_value="x", key=OUT),
    "greater_than": lambda: g.GreaterThan(expected_value=0, key="trace.last.metadata.m"),
    "greater_than_equals": lambda: g.GreaterEquals(expected_value=1, key="trace.last.metadata.m"),
    "less_than": lambda: g.LessThan(expected_value=2, key="trace.last.metadata.m"),
    "less_than_equals": lambda: g.LessThanEquals(expected_value=1, key="trace.last.metadata.m"),
    "json_valid": lambda: g.JsonValid(key=OUT),
    "regex_matching": lambda: g.RegexMatching(pattern=r"Reset", key=OUT),
    "string_matching": lambda: g.StringMatching(keyword="Settings", key=OUT),
    "metadata": lambda: g.Metadata(rules=[MetadataRule(json_path="m", expected_value=1)]),
    "not": lambda: g.Not(check=g.Equals(expected_value="nope", key=OUT)),
    "all_of": lambda: g.AllOf(checks=[g.JsonValid(key=OUT)]),
    "any_of": lambda: g.AnyOf(checks=[g.JsonValid(key=OUT)]),
    "fn": lambda: g.FnCheck(fn=lambda trace: True),
    "latency": lambda: g.Latency(max_seconds=5),
    "readability": lambda: g.Readability(min_score=0),
    "unsafe_output": lambda: g.UnsafeOutput(),
    "recall_at_k": lambda: g.RecallAtK(relevant=["kb-1"], k=2),
    "precision_at_k": lambda: g.PrecisionAtK(relevant=["kb-1"], k=2, threshold=0.0),
    "hit_rate_at_k": lambda: g.HitRateAtK(relevant=["kb-1"], k=2),
    "mrr": lambda: g.MRR(relevant=["kb-1"], threshold=0.0),
    "ndcg": lambda: g.NDCG(relevant=["kb-1"], threshold=0.0),
    "average_precision": lambda: g.AveragePrecision(relevant=["kb-1"], threshold=0.0),
    "semantic_similarity": lambda: g.SemanticSimilarity(
        reference_text=TRACE.last.outputs, embedding_model=HashingEmbedder(), threshold=0.5
    ),
    "rego_policy": lambda: g.RegoPolicy(
        policy="package t\nallow if { input.m == 1 }",
        rule="data.t.allow",
        target_key="trace.last.metadata",
    ),
    "llm_judge": lambda: g.LLMJudge(
        prompt="Is it polite? {{ trace.last.outputs }}", generator=_judge()
    ),
    "correctness": lambda: g.Correctness(reference="Use Settings.", generator=_judge()),
    "groundedness": lambda: g.Groundedness(generator=_judge()),
    "answer_relevance": lambda: g.AnswerRelevance(generator=_judge()),
    "contradiction": lambda: g.Contradiction(generator=_judge()),
    "conformity": lambda: g.Conformity(rules=["Be polite"], generator=_judge(violated_rules=[])),
    "toxicity": lambda: g.Toxicity(generator=_judge(categories=[])),
    "scan_vulnerability": lambda: Vulnerability(
        detector=CanaryDetector(),
        attack=Attack(
            id="p:1", probe_id="p", category="prompt_injection", turns=["hi"], canary="ZX-CANARY-81"
        ),
    ),
    "tool_called": lambda: g.ToolCalled("reset_password", arguments={"user": "ann"}),
    "tool_not_called": lambda: g.ToolNotCalled("delete_account"),
    "tool_sequence": lambda: g.ToolSequence(expected=[CALL], mode="exact"),
    "tool_args": lambda: g.ToolArgs(tool="reset_password", expected={"user": "ann"}),
    "tool_call_f1": lambda: g.ToolCallF1(expected=[CALL]),
    "tool_schema_valid": lambda: g.ToolSchemaValid(tools=[ToolSpec(name="reset_password")]),
    "tool_budget": lambda: g.ToolBudget(max_calls=3, max_repeats=1),
    "tool_error_handled": lambda: g.ToolErrorHandled(),
    "confirmation_before_side_effect": lambda: g.ConfirmationBeforeSideEffect(
        tool_names=["delete_account"]
    ),
    "tool_selection_judge": lambda: g.ToolSelectionJudge(generator=_judge()),
    "tool_arguments_judge": lambda: g.ToolArgumentsJudge(generator=_judge(wrong_calls=[])),
    "tool_grounding_judge": lambda: g.ToolGroundingJudge(generator=_judge()),
    "trajectory_judge": lambda: g.TrajectoryJudge(
        generator=FakeModel(
            replies=[{"reason": "ok", "efficiency": 5, "plan_adherence": 5, "goal_reached": 5}],
            repeat_last=True,
        )
    ),
    "action_claims_consistent": lambda: g.ActionClaimsConsistent(
        generator=FakeModel(
            replies=[
                {
                    "reason": "one claim",
                    "claims": [{"turn": 0, "quote": "Check your mail", "tool": "reset_password"}],
                }
            ],
            repeat_last=True,
        )
    ),
    "sentiment": lambda: g.Sentiment(
        "positive",
        generator=FakeModel(
            replies=[{"reason": "upbeat", "label": "positive", "confidence": 0.9}], repeat_last=True
        ),
    ),
}


def test_the_list_covers_every_builtin_kind():
    builtin = {
        kind
        for kind in Check.kinds()
        if Check.registered_class(kind).__module__.startswith("giskard_nb.")
    }
    assert builtin == set(FACTORIES)


@pytest.mark.parametrize("kind", sorted(FACTORIES))
def test_await_run_gives_a_decided_result_for_every_builtin_check(kind):
    if kind == "rego_policy" and importlib.util.find_spec("regorus") is None:
        pytest.skip("RegoPolicy needs the rego extra: pip install 'giskard-nb[rego]'")
    check = FACTORIES[kind]()

    async def go():
        return await check.run(TRACE)

    result = asyncio.run(go())
    assert isinstance(result, g.CheckResult)
    assert result.status in (g.CheckStatus.PASS, g.CheckStatus.FAIL), result.message
    assert result.status == g.CheckStatus.PASS, result.message
