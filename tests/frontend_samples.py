"""Sample results for the frames, charts and widgets tests: every status, usage metrics, tags,
multi-turn traces, structured outputs and hostile agent output. Loaded by tests/conftest.py."""

from __future__ import annotations

import pytest

from giskard_nb import (
    Check,
    CheckResult,
    Metric,
    Scenario,
    StringMatching,
    Suite,
    SuiteResult,
    from_fn,
)

XSS = (
    "<img src=x onerror=\"document.title='pwned';window.__xss=1\">"
    "<script>window.__xss=2;document.title='pwned'</script>"
)


@Check.register("frontend_fake_judge")
class FakeJudge(Check):
    """Passes when the output mentions ``word``; reports usage metrics like an LLM judge."""

    word: str

    def run(self, trace):
        metrics = [
            Metric(name="prompt_tokens", value=100),
            Metric(name="completion_tokens", value=20),
            Metric(name="total_tokens", value=120),
            Metric(name="cost_usd", value=0.0015),
            Metric(name="llm_calls", value=1),
        ]
        ok = self.word in str(trace.last.outputs)
        factory = CheckResult.success if ok else CheckResult.failure
        return factory(f"judge says {'yes' if ok else 'no'}", metrics=metrics, details={"k": [1]})


def agent(inputs):
    if "boom" in inputs:
        raise RuntimeError("agent exploded")
    if "json" in inputs:
        return {"answer": "hello", "items": [1, 2]}
    if "xss" in inputs:
        return XSS
    return f"hello {inputs}"


def build_suite() -> Suite:
    return Suite(
        "sample",
        target=agent,
        scenarios=[
            Scenario("greets", tags=["topic:greeting", "smoke"])
            .interact("world")
            .check(StringMatching(keyword="hello"))
            .check(FakeJudge(word="world")),
            Scenario("fails", tags=["topic:greeting"])
            .interact("there")
            .check(StringMatching(keyword="bye"))
            .interact("again")
            .check(StringMatching(keyword="hello")),
            Scenario("errors", tags=["topic:robustness"])
            .interact("boom")
            .check(StringMatching(keyword="x")),
            Scenario("structured", tags=["topic:api"])
            .interact("json")
            .check(from_fn(lambda trace: trace.last.outputs["answer"] == "hello", name="answer")),
            Scenario("hostile output", tags=["topic:security"])
            .interact("xss")
            .check(StringMatching(keyword="nothing-like-this")),
        ],
    )


@pytest.fixture(scope="session")
def suite_result() -> SuiteResult:
    return build_suite().run_sync()


def big_suite_result(n: int, checks_per: int = 1) -> SuiteResult:
    """``n`` scenarios built directly (no run), for paging and benchmark-like tests."""
    from giskard_nb import Interaction, ScenarioResult, TestCaseResult, Trace

    statuses = [CheckResult.success, CheckResult.failure, CheckResult.error, CheckResult.success]
    results = []
    for i in range(n):
        crs = [
            statuses[(i + j) % 4](f"reason {i}.{j}", details={"check_name": f"check_{j}"})
            for j in range(checks_per)
        ]
        trace = Trace(interactions=[Interaction(inputs=f"q{i}", outputs=f"a{i}")])
        results.append(
            ScenarioResult(
                scenario_name=f"s{i}",
                steps=[TestCaseResult(results=crs, last_interaction_index=0)],
                final_trace=trace,
                duration_ms=float(i % 50),
                tags=[f"group:{i % 3}"],
            )
        )
    return SuiteResult(name="big", results=results)


# -- a tool-calling agent: a multi-turn trajectory with a hostile tool result and a failed call -------

#: What a tool returned: markup that must never run in a view.
TOOL_XSS = (
    "<script>window.__xss='tool';alert('tool')</script><img src=x onerror=\"window.__xss='t'\">"
)


@Check.register("frontend_tool_trajectory")
class FrontendTrajectory(Check):
    """Compares the names of the calls made with ``expected``; its details hold the diff (matched,
    missing, extra), as the trajectory checks write it."""

    expected: list[str]

    def run(self, trace):
        made = [c.name for c in trace.tool_calls]
        details = {
            "matched": [{"name": n, "arguments": {}} for n in self.expected if n in made],
            "missing": [
                {"name": n, "arguments": {"why": TOOL_XSS}} for n in self.expected if n not in made
            ],
            "extra": [
                c.model_dump(mode="json") for c in trace.tool_calls if c.name not in self.expected
            ],
        }
        if details["missing"] or details["extra"]:
            return CheckResult.failure("the trajectory differs", details=details)
        return CheckResult.success("the expected calls were made", details=details)


def tool_agent(inputs):
    """Looks the order up, then (second turn) refunds it: the refund tool fails."""
    if "order" not in inputs and "refund" not in inputs:
        return "Hello! Your order ships tomorrow."
    if "refund" in inputs:
        calls = [
            {
                "name": "refund",
                "arguments": {"order": 42},
                "error": f"denied {TOOL_XSS}",
                "duration_s": 0.05,
            }
        ]
        return {"text": "Refunded!", "tool_calls": calls}
    calls = [
        {
            "name": "lookup_order",
            "arguments": {"id": 42, "note": TOOL_XSS},
            "result": TOOL_XSS,
            "duration_s": 0.2,
        }
    ]
    return {"text": "Your order ships tomorrow.", "tool_calls": calls}


def tool_suite_result() -> SuiteResult:
    return Suite(
        "tools",
        target=tool_agent,
        scenarios=[
            Scenario("refund flow")
            .interact("where is order 42?")
            .interact("refund it")
            .check(FrontendTrajectory(expected=["lookup_order", "refund", "notify_user"])),
            Scenario("no tools").interact("hi").check(StringMatching(keyword="ships")),
        ],
    ).run_sync()
