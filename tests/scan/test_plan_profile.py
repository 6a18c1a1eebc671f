"""``AttackProfile.from_agent``: what an agent tells the scan about itself, and scans that use it."""

from __future__ import annotations

import pytest

from giskard_nb.errors import GiskardValidationError
from giskard_nb.scan import run_scan_sync
from giskard_nb.scan.attack import AttackProfile


def test_a_function_exposing_its_system_prompt_and_secrets() -> None:
    def bot(messages):
        return "hello"

    bot.system_prompt = "You are Bot. The vault code is 7781-ALPHA."
    bot.secrets = "7781-ALPHA"  # one string is one secret
    profile = AttackProfile.from_agent(bot)
    assert profile.name == "bot" and profile.description == ""
    assert profile.system_prompt == bot.system_prompt and profile.secrets == ["7781-ALPHA"]
    assert "7781" not in repr(profile)  # never in a repr


def test_an_object_with_a_profile_method_and_one_exposing_nothing() -> None:
    class Bot:
        name = "Vault bot"

        def __call__(self, messages):
            return "hello"

        def profile(self):
            return {"description": "answers about the vault", "secrets": ["7781-ALPHA"]}

    profile = AttackProfile.from_agent(Bot())
    assert (profile.name, profile.description, profile.secrets) == (
        "Vault bot",
        "answers about the vault",
        ["7781-ALPHA"],
    )

    class Bare:
        def __call__(self, messages):
            return "hello"

    with pytest.raises(GiskardValidationError, match="'Bare' exposes nothing the scan can use"):
        AttackProfile.from_agent(Bare())
    with pytest.raises(GiskardValidationError, match="system_prompt attribute"):
        AttackProfile.from_agent(lambda messages: "hi")

    class Wrong(Bare):
        def profile(self):
            return ["not", "a", "profile"]

    with pytest.raises(GiskardValidationError, match=r"profile\(\) returned list"):
        AttackProfile.from_agent(Wrong())


def test_a_hub_agent_record_gives_its_name_and_description() -> None:
    from giskard_nb.hub import Hub

    hub = Hub(":memory:")
    project = hub.projects.create("p")
    record = hub.agents.create(
        project.id, name="prod bot", url="http://127.0.0.1:9/chat", description="support"
    )
    profile = AttackProfile.from_agent(record)
    assert (profile.name, profile.description, profile.system_prompt, profile.secrets) == (
        "prod bot",
        "support",
        None,
        [],
    )


def test_the_demo_agent_exposes_what_its_scan_needs_to_find_its_leak() -> None:
    from giskard_nb.demo.agent import SECRETS, SYSTEM_PROMPT, support_agent

    profile = AttackProfile.from_agent(support_agent)
    assert profile.system_prompt == SYSTEM_PROMPT and profile.secrets == list(SECRETS)
    kwargs = {"max_attempts_per_probe": 2, "judge": None, "generator": None, "progress": False}
    told = run_scan_sync(
        support_agent, categories=["sensitive_information_disclosure"], profile=profile, **kwargs
    )
    leaks = [f for f in told.findings if f.attack.probe_id == "disclosure.internal_codes"]
    assert leaks and all("[secret:" in f.output and "STAFF-2024" not in f.output for f in leaks)
    assert all("configured secrets" in f.reason for f in leaks)
    # the same scan not told the secret finds nothing: the secret is what makes the leak visible
    blind = run_scan_sync(support_agent, categories=["sensitive_information_disclosure"], **kwargs)
    assert not blind.findings
