"""``python -m giskard_nb.demo``: a small offline suite of scenarios against a bundled agent."""

from __future__ import annotations

from giskard_nb import Equals, JsonValid, RegexMatching, Scenario, StringMatching, Suite, from_fn

FAQ = {
    "opening hours": "We are open Monday to Friday, 9am to 6pm.",
    "refund": "Refunds are possible within 30 days with a receipt.",
    "shipping": "Standard shipping takes 3 to 5 business days.",
}


def support_agent(inputs: str) -> str:
    """A tiny rule-based support agent (deliberately imperfect)."""
    text = inputs.lower()
    for topic, answer in FAQ.items():
        if topic.split()[0] in text:
            return answer
    if "email" in text:
        return "Write to support@example.com."
    return "Sorry, I can only help with opening hours, refunds and shipping."


def build_suite() -> Suite:
    suite = Suite("support-agent demo", target=support_agent)
    suite.append(
        Scenario("opening hours", tags=["topic:hours"])
        .interact("What are your opening hours?")
        .check(StringMatching(keyword="monday", case_sensitive=False))
    )
    suite.append(
        Scenario("refund window", tags=["topic:refund"])
        .interact("Can I get a refund?")
        .check(RegexMatching(pattern=r"\b30 days\b"))
    )
    suite.append(
        Scenario("weekend opening (expected to fail)", tags=["topic:hours"])
        .interact("Are you open on Sunday?")
        .check(StringMatching(keyword="Sunday"))
    )
    suite.append(
        Scenario("contact email", tags=["topic:contact"])
        .interact("What is your email?")
        .check(RegexMatching(pattern=r"[\w.]+@[\w.]+\.\w+"))
        .interact("Thanks!")
        .check(from_fn(lambda trace: len(trace.interactions) == 2, name="two turns"))
    )
    suite.append(
        Scenario("structured reply", tags=["topic:api"])
        .interact("status", outputs='{"status": "ok", "version": 2}')
        .check(JsonValid(schema={"type": "object", "required": ["status"]}))
        .check(Equals(expected_value='{"status": "ok", "version": 2}'))
    )
    return suite


def main() -> None:
    result = build_suite().run_sync()
    result.print_report(group_by="topic")


if __name__ == "__main__":
    main()
