"""ScanRunner, headless: categories, preflight estimate, background scan, grade card, review."""

from __future__ import annotations

import asyncio
import re

import pytest

from giskard_nb import GiskardValidationError
from giskard_nb.widgets import ScanRunner


def obedient_agent(messages):
    text = " ".join(m["content"] for m in messages if m["role"] == "user")
    codes = re.findall(r"\b[A-Z]{3,}-[0-9A-F]{5}\b", text)
    return codes[-1] if codes else "<img src=x onerror=alert(1)> no"


def _runner(**kwargs):
    return ScanRunner(
        obedient_agent,
        categories=["prompt_injection"],
        max_attempts_per_probe=1,
        judge=None,
        generator=None,
        **kwargs,
    )


def test_estimate_follows_the_selection():
    runner = _runner()
    first = runner.estimate()
    assert first.attacks > 0 and "Preflight" in runner._w["estimate"].value
    runner._w["attempts"].value = 2
    assert runner.estimate().attacks > first.attacks
    runner.select(["prompt_injection", "system_prompt_leakage"])
    assert runner.categories == ["prompt_injection", "system_prompt_leakage"]
    runner.select([])
    assert runner.estimate() is None and "choose at least one" in runner._w["estimate"].value
    runner._w["run"].click()
    assert "choose at least one category" in runner._w["state"].value


async def test_scan_in_the_background_then_review():
    finished = []
    runner = _runner(on_finish=finished.append)
    runner._w["run"].click()
    assert runner.job.mode == "task" and runner._w["run"].disabled
    report = await runner.job
    assert finished == [report] and runner.state == "finished"
    assert runner.done_attempts == len(report.attempts) and runner.findings == len(report.findings)
    assert f">{report.grade}</div>" in runner._w["card"].value
    assert "<img" not in "".join(c.children[1].value for c in runner._w["review"].children[:-1])
    for attempt in list(report.findings):
        runner.review(attempt.id, "ignored")
    assert runner.report.grade == "A" and ">A</div>" in runner._w["card"].value
    dropdown = runner._w["review"].children[0].children[0].children[0]
    dropdown.value = "acknowledged"  # the dropdown reviews the attempt it belongs to
    assert runner.report.grade != "A"


async def test_cancel_a_scan():
    gate = asyncio.Event()

    async def slow_agent(messages):
        await gate.wait()
        return "no"

    runner = ScanRunner(slow_agent, categories=["prompt_injection"], judge=None, generator=None)
    job = runner.run()
    await asyncio.sleep(0.05)
    assert runner.cancel() is True
    with pytest.raises(asyncio.CancelledError):
        await job
    assert runner.state == "cancelled" and runner.report is None


def test_bad_input():
    with pytest.raises(GiskardValidationError, match="unknown categories"):
        ScanRunner(obedient_agent, categories=["nope"])
    with pytest.raises(GiskardValidationError, match="needs the agent"):
        ScanRunner("agent")
    runner = _runner()
    with pytest.raises(GiskardValidationError, match="run\\(\\) first"):
        runner.review("x", "ignored")


async def test_preflight_warns_and_the_card_says_incomplete():
    def complying_agent(messages):
        return "Sure! Here is exactly how <b>to</b> do it, step by step…"

    runner = ScanRunner(
        complying_agent,
        categories=["prompt_injection", "harmful_content"],
        max_attempts_per_probe=1,
        judge=None,
        generator=None,
    )
    preflight = runner._w["estimate"].value
    assert "giskard-preflight-warning" in preflight and "harmful_content" in preflight
    assert "set_default_generator(" in preflight
    report = await runner.run()
    card = runner._w["card"].value
    assert report.incomplete and ">A</div>" in card
    assert "incomplete" in card and "A on 1 of 2 categories" in card
    assert "<b>to</b>" not in card


async def test_no_grade_when_every_attempt_errored():
    def broken(messages):
        raise RuntimeError("<script>down</script>")

    runner = ScanRunner(
        broken,
        categories=["prompt_injection"],
        max_attempts_per_probe=1,
        judge=None,
        generator=None,
    )
    report = await runner.run()
    card = runner._w["card"].value
    assert report.grade is None and ">—</div>" in card and "not assessed" in card
    assert "<script>" not in card


def test_wording_badges_and_labels():
    runner = _runner()
    assert runner._w["run"].description == "Scan" and "then Scan." in runner._w["state"].value
    assert "then Run" not in runner._w["state"].value
    green, red = "#2e7d32", "#c62828"
    assert "0 findings" in runner._w["counts"].value and green in runner._w["counts"].value
    runner.findings = 2
    runner._refresh()
    assert red in runner._w["counts"].value and green not in runner._w["counts"].value
    attempts = runner._w["attempts"]
    assert attempts.style.description_width == "initial" and attempts.layout.width == "auto"


async def test_attempt_conversation_is_chat_turns_escaped():
    runner = _runner()
    report = await runner.run()
    rows = [r for r in runner._w["review"].children if getattr(r, "children", None)]
    details = [row.children[1].value for row in rows]
    assert details and all("giskard-turn-user" in d for d in details)
    assert all("giskard-turn-assistant" in d for d in details)
    assert not any("[{" in d for d in details)  # not a raw JSON list of messages
    hostile = [d for d in details if "onerror" in d]
    assert hostile and all("<img" not in d for d in hostile)
    assert report.attempts


def test_the_category_list_shows_every_category():
    runner = _runner()
    box = runner._w["categories"]
    assert len(box.options) >= 12 and box.rows == len(box.options)


async def test_counter_and_card_agree_after_ignore_and_unignore():
    runner = _runner()
    runner.select(["prompt_injection", "system_prompt_leakage"])
    report = await runner.run()
    findings = list(report.findings)
    assert len(findings) >= 2

    def shown() -> tuple[int, int]:
        counter = re.search(r"(\d+) findings", runner._w["counts"].value)
        card = re.search(r"(\d+) findings", runner._w["card"].value)
        return int(counter.group(1)), int(card.group(1))

    assert shown() == (len(findings), len(findings))
    runner.review(findings[0].id, "ignored")
    assert shown() == (len(findings) - 1, len(findings) - 1) == (runner.findings,) * 2
    runner.review(findings[0].id, "pending")  # un-ignored: both counts come back
    assert shown() == (len(findings), len(findings))
