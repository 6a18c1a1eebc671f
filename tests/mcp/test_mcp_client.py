"""MCP servers started by the tests on stdio (tests/mcp/server_fixture.py, FastMCP): tool specs, calls
and errors through McpTools, and scan_mcp_server finding the poisoned definition and the planted
weaknesses while the clean server has no finding."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from giskard_nb.core.sync import run_sync
from giskard_nb.errors import ConfigError, GiskardValidationError
from giskard_nb.mcp import McpConnectionError, McpToolError, McpTools, scan_mcp_server

pytest.importorskip("mcp", reason="needs the MCP SDK: pip install 'giskard-nb[mcp]'")

SERVER = str(Path(__file__).with_name("server_fixture.py"))


_ENV_SERVER = (
    "import os\nfrom mcp.server.fastmcp import FastMCP\ns = FastMCP('env')\n"
    "s.tool(name='env', description='Lists environment variable names.')"
    "(lambda: ','.join(sorted(os.environ)))\ns.run()"
)


def _server(kind: str, **options) -> McpTools:
    # a generous timeout: starting a Python MCP server takes seconds on a loaded machine
    return McpTools.stdio(sys.executable, [SERVER, kind], timeout=120, **options)


@pytest.fixture(scope="module")
def clean():
    with _server("clean") as tools:
        yield tools


@pytest.fixture(scope="module")
def poisoned():
    with _server("poisoned") as tools:
        yield tools


def test_specs_calls_and_errors(clean) -> None:
    assert clean.name == "weather"
    names = {s.name: s for s in clean.specs}
    assert set(names) == {"get_weather", "add"}
    assert names["add"].server == "weather"
    assert names["add"].input_schema["required"] == ["a", "b"]
    assert clean.to_openai()[0]["type"] == "function"
    assert clean.call("add", {"a": 2, "b": 3}) == 5
    assert clean.call("get_weather", {"city": "Paris"}) == "sunny, 21 C"
    with pytest.raises(McpToolError, match="nope"):
        clean.call("nope", {})
    with pytest.raises(McpToolError, match="add"):
        clean.call("add", {"a": "not a number"})
    last, failed = clean.calls[-2:]
    assert (last.name, last.status, last.server) == ("nope", "error", "weather")
    assert failed.failed and failed.arguments == {"a": "not a number"}
    ok = next(c for c in clean.calls if c.name == "add" and c.status == "ok")
    assert ok.result == 5 and ok.duration_s is not None
    with pytest.raises(GiskardValidationError, match="arguments"):
        clean.call("add", ["a", 1])


def test_calls_work_from_async_code_and_inside_a_running_loop(clean) -> None:
    async def agent() -> list:
        direct = await clean.acall("add", {"a": 1, "b": 1})
        # a sync call from inside a running loop (a notebook cell) goes through run_sync's thread
        nested = await asyncio.to_thread(clean.call, "add", {"a": 2, "b": 2})
        return [direct, nested]

    assert run_sync(agent()) == [2, 4]


def test_results_are_cut_and_the_server_env_is_only_what_is_given(poisoned, monkeypatch) -> None:
    cut = poisoned.max_result_chars
    poisoned.max_result_chars = 100
    try:
        text = poisoned.call("read_note", {"path": "server_fixture.py"})
    finally:
        poisoned.max_result_chars = cut
    assert text.startswith('"""Small MCP servers') and "more characters cut" in text
    # the server sees only the environment given: not the caller's API keys
    monkeypatch.setenv("OPENAI_API_KEY", "sk-caller-secret-0123456789")
    env_server = McpTools.stdio(
        sys.executable, ["-c", _ENV_SERVER], env={"GIVEN": "yes"}, timeout=120
    )
    with env_server:
        seen = env_server.call("env", {})
    assert "GIVEN" in seen and "OPENAI_API_KEY" not in seen


def test_a_slow_tool_times_out_and_destructive_tools_are_not_probed(poisoned) -> None:
    spec = next(s for s in poisoned.specs if s.name == "wipe_notes")
    assert (spec.side_effect, spec.requires_confirmation) == ("write", True)
    timeout, poisoned.timeout = poisoned.timeout, 0.3
    try:
        with pytest.raises(McpToolError, match="did not answer within 0.3 s"):
            poisoned.call("wipe_notes", {"confirm": "yes"})
    finally:
        poisoned.timeout = timeout
    assert poisoned.calls[-1].status == "error"


def test_a_server_that_cannot_start_is_a_clear_error() -> None:
    broken = McpTools.stdio(
        sys.executable, ["-c", "import sys; sys.stderr.write('boom\\n')"], timeout=30
    )
    with pytest.raises(McpConnectionError, match="could not connect to the MCP server"):
        broken.connect()
    with pytest.raises(GiskardValidationError, match="url"):
        McpTools.http("ftp://example.com")
    with pytest.raises(GiskardValidationError, match="args"):
        McpTools.stdio("python", "server.py")
    with pytest.raises(GiskardValidationError, match="env"):
        McpTools.stdio("python", [], env={"A": 1})
    remote = McpTools.http("https://user:pw@mcp.example/mcp", headers={"Authorization": "Bearer x"})
    assert "pw" not in repr(remote) and "Bearer" not in repr(remote)


def test_without_the_sdk_the_error_names_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(ConfigError, match=r"giskard-nb\[mcp\]"):
        McpTools.stdio(sys.executable, [SERVER, "clean"]).connect()


def test_the_clean_server_has_no_finding(clean) -> None:
    report = scan_mcp_server(clean)
    assert report.findings == [] and report.passed
    assert report.calls and all(c.server == "weather" for c in report.calls)
    assert set(report.fingerprints) == {"weather/get_weather", "weather/add"}


def test_the_poisoned_server_is_found(clean, poisoned) -> None:
    report = scan_mcp_server([clean, poisoned])
    assert not report.passed
    found = {(f.kind, f.tool) for f in report.findings}
    assert ("hidden_unicode", "add") in found  # the tag characters in the description
    assert ("instruction", "add") in found  # read ~/.ssh/id_rsa, do not tell the user
    assert ("shadowing", "get_weath\u0435r") in found  # a confusable copy of get_weather
    assert ("payload_executed", "read_note") in found  # path traversal read /etc/passwd
    assert ("payload_executed", "find_user") in found  # SQL injection returned every row
    assert ("secret_leak", "find_user") in found
    assert ("error_leak", "read_note") in found
    assert ("instruction_in_result", "fetch_page") in found
    assert all(f.server == "toolbox" for f in report.findings if f.kind != "shadowing")
    text = str(report) + repr(report.to_dict())
    assert "sk-admin-7f3k9x2m4q8w1z5v" not in text  # the leaked key is masked in the evidence
    # a second run against the saved fingerprints reports no change
    again = scan_mcp_server(poisoned, previous=report.fingerprints, probe=False)
    assert not any(f.kind in ("changed_definition", "new_tool") for f in again.findings)
    assert again.calls == []


def test_probes_skip_tools_with_side_effects_unless_named(poisoned) -> None:
    default = scan_mcp_server(poisoned, max_calls=2)
    assert "wipe_notes" not in {c.name for c in default.calls}
    report = scan_mcp_server(poisoned, probe=["add"], max_calls=3)
    assert {c.name for c in report.calls} == {"add"} and len(report.calls) == 3


@pytest.fixture(scope="module")
def http_url():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, SERVER, "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # the server starts in seconds; poll its port
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None:
                pytest.fail("the HTTP MCP test server exited")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def test_a_streamable_http_server_gets_only_the_headers_given(http_url) -> None:
    with McpTools.http(http_url, headers={"X-Test": "from-the-caller"}, timeout=60) as tools:
        assert {s.name for s in tools.specs} == {"get_weather", "add", "seen_header"}
        assert tools.call("add", {"a": 20, "b": 22}) == 42
        assert tools.call("seen_header", {}) == "from-the-caller"
    with McpTools.http(http_url, timeout=60) as bare:
        assert bare.call("seen_header", {}) == "None"


def test_mock_tools_record_an_mcp_server_and_replay_it_offline(clean, tmp_path) -> None:
    """An MCP server as a tool provider: MockTools records its calls, then answers them offline."""
    from giskard_nb.tools import MockTools

    recorder = MockTools.record(clean)
    assert recorder.call("add", {"a": 20, "b": 22}) == 42
    assert recorder.call("get_weather", {"city": "Paris"}) == "sunny, 21 C"
    recorder.save(tmp_path / "weather.json")
    replay = MockTools.replay(tmp_path / "weather.json")
    assert replay.call("add", {"a": 20, "b": 22}) == 42
    assert replay.call("get_weather", {"city": "Paris"}) == "sunny, 21 C"
    assert {s.name for s in replay.specs} == {"get_weather", "add"}
    assert [(c.name, c.status) for c in replay.calls] == [("add", "ok"), ("get_weather", "ok")]
