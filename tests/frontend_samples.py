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
