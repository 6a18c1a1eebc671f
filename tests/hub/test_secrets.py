"""Planted secrets never show up: not in the database file, exports, DataFrames, the audit log, logs,
reprs or pickles; they stay usable (the Hub calls its agent and its judge after a restart)."""

from __future__ import annotations

import base64
import json
import logging
import os
import pickle
import stat
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from giskard_nb import Generator
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Hub
from giskard_nb.hub.check_specs import build_check
from giskard_nb.secrets import is_secret_name, mask_text, mask_values, quiet_http_logs
from giskard_nb.testing import FakeLLMServer

TOKEN = "tokBEARERsecret4567"
HEADER = "hdrHEADERsecret7890"
PASSWORD = "pwURLsecret1234"
API_KEY = "skCHECKsecret0001"
BASIC = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
PLANTED = (TOKEN, HEADER, PASSWORD, API_KEY, BASIC)


class EchoingAgent:
    """``/echo`` answers 401 quoting the credentials it got (as a careless server does); ``/ok``
    answers when the bearer token is right."""

    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []

        agent = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                headers = dict(self.headers)
                agent.seen.append(headers)
                auth = headers.get("Authorization", "")
                if self.path == "/ok" and auth == f"Bearer {TOKEN}":
                    status, body = 200, {"response": {"role": "assistant", "content": "hello"}}
                else:
                    bare = auth.split(" ", 1)[-1]
                    status = 401
                    body = {"detail": f"bad token {bare} (key {headers.get('X-Api-Key')})"}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, path: str, userinfo: str = "") -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{userinfo}{host}:{port}{path}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def echoing_agent() -> Iterator[EchoingAgent]:
    server = EchoingAgent()
    yield server
    server.close()


def _leaks(where: str, text: str | bytes) -> list[str]:
    data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
    return [f"{where}: {s}" for s in PLANTED if s.encode() in data]


def test_planted_secrets_appear_nowhere_and_still_work(
    tmp_path: Path, echoing_agent: EchoingAgent, caplog: pytest.LogCaptureFixture
):
    for name in ("httpx", "httpcore", "LiteLLM", "giskard_nb", ""):
        caplog.set_level(logging.DEBUG, logger=name or None)
    db = tmp_path / "hub.db"
    seen: dict[str, Any] = {}
    judge = {"reply": {"reason": "matches the reference", "passed": True}}
    with FakeLLMServer(**judge) as fake:
        generator = {"model": "openai/gpt-4o-mini", "api_base": fake.url, "api_key": API_KEY}
        hub = Hub(str(db), actor="tester")
        project = hub.projects.create("support")
        failing = hub.agents.create(
            project.id,
            name="echoes",
            url=echoing_agent.url("/echo"),
            headers={"Authorization": f"Bearer {TOKEN}", "X-Api-Key": HEADER},
            max_retries=0,
        )
        with_userinfo = hub.agents.create(
            project.id,
            name="basic",
            url=echoing_agent.url("/echo", userinfo=f"alice:{PASSWORD}@"),
            max_retries=0,
        )
        healthy = hub.agents.create(
            project.id,
            name="healthy",
            url=echoing_agent.url("/ok"),
            headers={"Authorization": f"Bearer {TOKEN}"},
            max_retries=0,
        )
        check = hub.checks.create(
            project.id,
            "judged",
            "Judged",
            params={"type": "correctness", "generator": generator},
        )
        dataset = hub.datasets.upload(
            project.id,
            [
                {
                    "messages": [{"role": "user", "content": "hi"}],
                    # a dataset cannot configure the judge (tests/security/test_sec_data_config.py):
                    # the project check holds its endpoint and key
                    "checks": [{"identifier": "judged", "params": {"reference": "hello"}}],
                }
            ],
            name="faq",
        )
        failed = hub.evaluations.create(project.id, failing.id, dataset.id, progress=False)
        report = hub.agents.test_connection(with_userinfo.id)
        hub.close()

        # a restarted Hub still calls the agent and the judge with the stored secrets
        hub = Hub(str(db), actor="tester")
        passed = hub.evaluations.create(project.id, healthy.id, dataset.id, progress=False)
        results = hub.evaluations.results.list(passed.id)
        assert results[0].status == "pass", results[0]
        assert fake.chat_requests and all(
            r.headers.get("authorization", "").endswith(API_KEY[-4:]) for r in fake.chat_requests
        )
        assert echoing_agent.seen[-1]["Authorization"] == f"Bearer {TOKEN}"
        basic = [h for h in echoing_agent.seen if h.get("Authorization", "").startswith("Basic")]
        assert (
            basic and basic[0]["Authorization"] == f"Basic {BASIC}"
        )  # URL creds -> explicit header

        error = hub.evaluations.results.list(failed.id)[0].error or ""
        assert "answered HTTP 401" in error and "***" in error
        assert not report.ok and "***" in (report.error or "")

        built = build_check(
            hub.test_cases.list(dataset.id)[0].checks[0], hub.checks.by_identifier(project.id)
        )
        assert built.generator.api_key.get_secret_value() == API_KEY  # resolved for the run
        export = Path(hub.datasets.export(dataset.id, tmp_path / "export.jsonl")).read_text()
        seen["export"] = export
        seen["frames"] = "\n".join(
            frame.to_csv()
            for frame in (
                passed.to_dataframe(),
                failed.to_dataframe(),
                failed.to_dataframe(level="checks"),
                hub.test_cases.to_dataframe(dataset.id),
                hub.datasets.to_dataframe(),
                hub.audit.to_dataframe(),
            )
        )
        seen["audit"] = json.dumps([e.model_dump(mode="json") for e in hub.audit.search()])
        seen["reprs"] = " ".join(
            repr(x) + str(getattr(x, "model_dump", dict)())
            for x in (
                *hub.agents.list(),
                *hub.checks.list(),
                *hub.test_cases.list(dataset.id),
                *results,
                check,
                failing,
                with_userinfo,
                report,
                built,
                built.generator,
            )
        )
        seen["pickles"] = pickle.dumps(built.generator) + pickle.dumps(
            Generator(
                "openai/gpt-4o-mini",
                api_key=API_KEY,
                extra_headers={"Authorization": f"Bearer {TOKEN}"},
            )
        )
        hub.close()

    seen["logs"] = caplog.text + "\n".join(str(r.args) for r in caplog.records)
    database = b"".join(
        f.read_bytes() for f in tmp_path.glob("hub.db*") if not f.name.endswith(".secrets.json")
    )
    leaks = _leaks("database file", database)
    for where, text in seen.items():
        leaks += _leaks(where, text)
    assert leaks == []

    secrets_file = tmp_path / "hub.db.secrets.json"  # where they are kept instead
    assert stat.S_IMODE(os.stat(secrets_file).st_mode) == 0o600
    kept = secrets_file.read_text()
    assert TOKEN in kept and API_KEY in kept and HEADER in kept and BASIC in kept


def test_url_credentials_never_replace_a_configured_authorization_header(tmp_path: Path):
    with Hub(":memory:") as hub:
        project = hub.projects.create("p")
        with pytest.raises(GiskardValidationError, match="carries credentials") as info:
            hub.agents.create(
                project.id,
                name="a",
                url=f"https://alice:{PASSWORD}@example.test/chat",
                headers={"authorization": f"Bearer {TOKEN}"},
            )
        assert PASSWORD not in str(info.value)
        agent = hub.agents.create(
            project.id, name="b", url=f"https://alice:{PASSWORD}@example.test/chat"
        )
        assert agent.url == "https://example.test/chat"
        assert agent.secret_headers() == {"Authorization": f"Basic {BASIC}"}
        assert PASSWORD not in json.dumps(agent.model_dump(mode="json"))


def test_an_unchanged_secret_is_not_reported_as_changed():
    with Hub(":memory:") as hub:
        project = hub.projects.create("p")
        agent = hub.agents.create(
            project.id, name="a", url="https://example.test", headers={"X-Api-Key": HEADER}
        )
        hub.agents.update(agent.id, headers={"X-Api-Key": HEADER}, description="same key")
        hub.agents.update(agent.id, headers={"X-Api-Key": "another-key-123"})
        updates = [e.changes for e in hub.audit.history(agent.id) if e.action == "update"]
        assert "headers" not in updates[0] and updates[1]["headers"]["after"] == {
            "X-Api-Key": "***"
        }
        assert hub.agents.retrieve(agent.id).secret_headers() == {"X-Api-Key": "another-key-123"}


def test_environment_references_are_kept_as_written():
    with Hub(":memory:") as hub:
        project = hub.projects.create("p")
        agent = hub.agents.create(
            project.id,
            name="a",
            url="https://example.test",
            headers={"Authorization": "Bearer ${MY_AGENT_TOKEN}"},
        )
        assert agent.secret_headers() == {"Authorization": "Bearer ${MY_AGENT_TOKEN}"}


def test_bare_forms_of_a_secret_are_masked():
    text = f"bad token {TOKEN}; basic {BASIC}; decoded alice:{PASSWORD}; pw {PASSWORD}"
    masked = mask_text(text, [f"Bearer {TOKEN}", f"Basic {BASIC}"])
    assert all(s not in masked for s in PLANTED) and masked.count("***") == 4
    assert mask_text("a tiny abc value", ["Bearer abc"]) == "a tiny abc value"  # too short to mask


def test_secret_names():
    secret = ["api_key", "x-api-key", "Authorization", "client_secret", "access_token", "password"]
    plain = ["max_tokens", "key", "target_key", "answer_key", "total_tokens", "tokenizer", "model"]
    assert all(is_secret_name(n) for n in secret)
    assert not any(is_secret_name(n) for n in plain)
    data = {"generator": {"api_key": API_KEY, "url": f"https://u:{PASSWORD}@h/x"}, "key": "outputs"}
    assert mask_values(data) == {
        "generator": {"api_key": "***", "url": "https://u:***@h/x"},
        "key": "outputs",
    }


def test_http_logs_are_quiet_inside_calls_and_restored_after():
    logger = logging.getLogger("httpx")
    before = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        with quiet_http_logs(), quiet_http_logs():
            assert logger.level == logging.WARNING
        assert logger.level == logging.DEBUG
    finally:
        logger.setLevel(before)


def test_a_masked_value_written_back_keeps_the_secret_and_a_new_one_is_refused():
    with Hub(":memory:") as hub:
        project = hub.projects.create("p")
        agent = hub.agents.create(
            project.id, name="a", url="https://example.test", headers={"X-Api-Key": HEADER}
        )
        hub.agents.update(agent.id, headers=agent.model_dump()["headers"])  # {"X-Api-Key": "***"}
        assert hub.agents.retrieve(agent.id).secret_headers() == {"X-Api-Key": HEADER}
        with pytest.raises(GiskardValidationError, match="the mask shown in dumps and exports"):
            hub.checks.create(
                project.id,
                "judged",
                "Judged",
                params={"type": "correctness", "generator": {"model": "m", "api_key": "***"}},
            )


def test_two_hubs_on_one_file_do_not_lose_each_others_secrets(tmp_path: Path):
    first, second = Hub(str(tmp_path / "hub.db")), Hub(str(tmp_path / "hub.db"))
    try:
        project = first.projects.create("p")
        agents = [
            hub.agents.create(project.id, name=n, url="https://a.test", headers={"K": f"{n}-111"})
            for hub, n in ((second, "one"), (first, "two"), (second, "three"))
        ]
    finally:
        first.close()
        second.close()
    with Hub(str(tmp_path / "hub.db")) as hub:
        for agent in agents:
            assert hub.agents.retrieve(agent.id).secret_headers() == {"K": f"{agent.name}-111"}


def test_deleting_an_agent_removes_its_secrets_from_the_file(tmp_path: Path):
    with Hub(str(tmp_path / "hub.db")) as hub:
        project = hub.projects.create("p")
        agent = hub.agents.create(
            project.id, name="a", url="https://a.test", headers={"X-Api-Key": HEADER}
        )
        kept = tmp_path / "hub.db.secrets.json"
        assert HEADER in kept.read_text()
        hub.agents.delete(agent.id)
        assert HEADER not in kept.read_text()
