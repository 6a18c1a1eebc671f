"""Secrets never sit in clear where a reply, a URL or an export is kept (security item 7):
query-string credentials move to the secrets file, a reply echoing a configured header is stored masked,
and a scan reply revealing a profile secret stays a finding while every stored or exported copy of it
shows ``[secret:...]``."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from giskard_nb.cli import main as cli_main
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Agent, Hub
from giskard_nb.scan import AttackProfile, run_scan
from giskard_nb.scan.sarif import scan_to_sarif
from giskard_nb.secrets import redact_secrets

from .sec_http_server import HostileServer, hub_reply, reply

QS = "qs-9d8c7b6a5f4e3d2c"
KEY = "hk-1a2b3c4d5e6f7a8b"
TOKEN = "tok-0f1e2d3c4b5a6978"
PROFILE_SECRET = "VAULT-7731-ZEBRA"
HELLO = [{"role": "user", "content": "Hello"}]


@pytest.fixture
def server() -> Iterator[HostileServer]:
    s = HostileServer()

    def echo(handler: Any, request: dict[str, Any]) -> None:  # a reply quoting what it received
        text = f"you sent {request['path']} with {json.dumps(request['headers'])}"
        body = json.dumps(
            {"response": {"role": "assistant", "content": text}, "metadata": {"seen": text}}
        )
        reply(handler, 200, body.encode())

    s.routes["/echo"] = echo
    s.routes["/plain"] = lambda h, r: reply(h, 200, hub_reply("fine"))
    yield s
    s.close()


@pytest.fixture
def file_hub(tmp_path: Path) -> Iterator[tuple[Hub, Path]]:
    db = tmp_path / "hub.db"
    hub = Hub(str(db), actor="tester")
    yield hub, db
    hub.close()


# -- query-string credentials ---------------------------------------------------------------------


@pytest.mark.parametrize("param", ["api_key", "token", "key", "access_token", "sig", "code"])
def test_query_string_credentials_leave_the_url(param: str) -> None:
    agent = Agent(project_id="p", name="a", url=f"https://x.example/chat?v=2&{param}={QS}")
    assert agent.url == f"https://x.example/chat?v=2&{param}=***"
    assert QS not in repr(agent) and QS not in json.dumps(agent.model_dump(mode="json"))
    assert agent.call_url() == f"https://x.example/chat?v=2&{param}={QS}"
    assert Agent(project_id="p", name="a", url="https://x.example/?page=3").url.endswith("page=3")


def test_a_query_credential_may_reference_the_environment(
    server: HostileServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEC_QS_KEY", "env key&more")
    agent = Agent(project_id="p", name="a", url=server.url("/plain?api_key=${SEC_QS_KEY}"))
    assert agent.url.endswith("?api_key=***")
    assert agent.call_url().endswith("?api_key=env%20key%26more")  # resolved, then encoded
    with pytest.raises(Exception, match="twice"):
        Agent(project_id="p", name="a", url="https://x.example/?key=a&key=b")


def test_a_masked_query_credential_without_a_value_is_refused() -> None:
    hub = Hub(":memory:")
    try:
        project = hub.projects.create(name="p")
        with pytest.raises(GiskardValidationError, match="the mask shown in dumps"):
            hub.agents.create(project.id, name="a", url="https://x.example/chat?api_key=***")
    finally:
        hub.close()


def test_query_credentials_are_kept_in_the_secrets_file_only(
    file_hub: tuple[Hub, Path], server: HostileServer, capsys: pytest.CaptureFixture[str]
) -> None:
    hub, db = file_hub
    project = hub.projects.create(name="p")
    agent = hub.agents.create(project.id, name="qs", url=server.url(f"/plain?api_key={QS}&v=2"))
    assert agent.url.endswith("/plain?api_key=***&v=2")

    assert hub.agents.call(agent.id, HELLO).content == "fine"
    assert server.requests[-1]["path"] == f"/plain?api_key={QS}&v=2"  # sent, in the request only

    # a masked dump written back keeps the secret; a new value replaces it
    hub.agents.update(agent.id, url=agent.url, description="same key")
    hub.agents.call(agent.id, HELLO)
    assert server.requests[-1]["path"] == f"/plain?api_key={QS}&v=2"
    hub.agents.update(agent.id, url=server.url("/plain?api_key=rotated-4242&v=3"))
    hub.agents.call(agent.id, HELLO)
    assert server.requests[-1]["path"] == "/plain?api_key=rotated-4242&v=3"

    stored = hub.agents.retrieve(agent.id)
    shown = [
        repr(stored),
        json.dumps(stored.model_dump(mode="json")),
        hub.audit.to_dataframe().to_csv(),
    ]
    cli_main(["hub", "list", "agents", "--hub", str(db)])
    shown.append(capsys.readouterr().out)
    assert "api_key=***" in shown[-1]
    hub.close()
    shown.append(db.read_bytes().decode("latin-1"))
    for text in shown:
        assert QS not in text and "rotated-4242" not in text
    assert "rotated-4242" in Path(f"{db}.secrets.json").read_text()


# -- a reply echoing the configured headers -------------------------------------------------------


def test_a_reply_echoing_the_headers_is_stored_masked(server: HostileServer) -> None:
    hub = Hub(":memory:")
    try:
        project = hub.projects.create(name="p")
        agent = hub.agents.create(
            project.id,
            name="echo",
            url=server.url(f"/echo?token={QS}"),
            headers={"X-Api-Key": KEY, "Authorization": f"Bearer {TOKEN}"},
        )
        out = hub.agents.call(agent.id, HELLO)
        assert server.requests[-1]["headers"]["X-Api-Key"] == KEY  # the agent did receive it
        for text in (out.content, json.dumps(out.metadata)):
            assert KEY not in text and TOKEN not in text and QS not in text
            assert "[secret:X-Api-Key]" in text and "[secret:Authorization]" in text
            assert "[secret:token]" in text

        chat = hub.playground_chats.create(project.id, agent_id=agent.id)
        chat = hub.playground_chats.send(chat.id, "what did I send?")
        stored = json.dumps(hub.playground_chats.retrieve(chat.id).model_dump(mode="json"))
        assert KEY not in stored and TOKEN not in stored and "[secret:X-Api-Key]" in stored
    finally:
        hub.close()


def test_redact_secrets_masks_bare_forms_at_any_depth() -> None:
    basic = base64.b64encode(b"ana:pa55word-xyz").decode()
    data = {"a": [f"Bearer {TOKEN} and {TOKEN}", {"b": "pa55word-xyz"}], "keep": 3}
    named = {"Authorization": f"Bearer {TOKEN}", "Proxy": f"Basic {basic}"}
    assert redact_secrets(data, named) == {
        "a": ["[secret:Authorization] and [secret:Authorization]", {"b": "[secret:Proxy]"}],
        "keep": 3,
    }


# -- scans: the leak is the finding, its copies are masked -----------------------------------------


def _leaky(messages: list[dict[str, str]]) -> str:
    encoded = base64.b64encode(f"the vault code is {PROFILE_SECRET}".encode()).decode()
    return (
        f"Sure, the vault code is {PROFILE_SECRET}; encoded: {encoded}; "
        "and the admin key is AKIAIOSFODNN7Q2XK4PZ"
    )


FAST = {"max_attempts_per_probe": 1, "judge": None, "generator": None}


def _assert_masked(text: str) -> None:
    assert PROFILE_SECRET not in text
    assert "AKIAIOSFODNN7Q2XK4PZ" not in text
    assert base64.b64encode(f"the vault code is {PROFILE_SECRET}".encode()).decode() not in text


async def test_a_scan_keeps_the_finding_and_masks_the_secret(tmp_path: Path) -> None:
    profile = AttackProfile(secrets=[PROFILE_SECRET])
    report = await run_scan(
        _leaky, categories=["sensitive_information_disclosure"], profile=profile, **FAST
    )
    assert report.findings and report.grade == "D"  # the leak is the finding
    leak = report.findings[0]
    assert "configured secrets" in leak.reason
    assert "[secret:profile-1]" in leak.output and "[secret:AWS access key]" in leak.output

    _assert_masked(json.dumps(scan_to_sarif(report), ensure_ascii=False))
    _assert_masked(report.to_dataframe().to_csv())
    _assert_masked(report.model_dump_json())
    path = tmp_path / "report.json"
    path.write_text(report.model_dump_json())
    _assert_masked(path.read_text())


def test_a_hub_scan_stores_the_finding_masked(file_hub: tuple[Hub, Path]) -> None:
    hub, db = file_hub
    project = hub.projects.create(name="p")
    scan = hub.scans.create(
        project.id,
        agent=_leaky,
        categories=["sensitive_information_disclosure"],
        profile=AttackProfile(secrets=[PROFILE_SECRET]),
        progress=False,
        **FAST,
    )
    assert scan.grade == "D"
    attempts = scan.attempts(successful=True)
    assert attempts and all("[secret:profile-1]" in a.output for a in attempts)
    _assert_masked(json.dumps([a.model_dump(mode="json") for a in scan.attempts()]))
    _assert_masked(scan.to_dataframe().to_csv())
    hub.close()
    _assert_masked(db.read_bytes().decode("latin-1"))


def test_exports_of_an_older_report_mask_leaked_keys() -> None:
    from giskard_nb.scan import Attack
    from giskard_nb.scan.result import Attempt, ScanReport

    attack = Attack(id="a", probe_id="p", category="sensitive_information_disclosure", turns=["hi"])
    old = Attempt(
        attack=attack,
        output="the key is AKIAIOSFODNN7Q2XK4PZ",
        evidence="AKIAIOSFODNN7Q2XK4PZ",
        successful=True,
        severity=30,
    )
    report = ScanReport(name="old", attempts=[old])
    _assert_masked(json.dumps(scan_to_sarif(report)))
    _assert_masked(report.to_dataframe().to_csv())
