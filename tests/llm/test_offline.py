"""Offline means offline: a judge call against a loopback server makes no other connection, no DNS
lookup of a remote name, and litellm uses its bundled price table from its very first import.

The call runs in a fresh interpreter whose ``socket`` is guarded: every connect, ``create_connection``
and ``getaddrinfo`` is logged, and any non-loopback one is refused (like a logging proxy that lets nothing
out). ``HTTP(S)_PROXY`` point at a closed local port, so a request that escaped the guard through a proxy
would fail loudly too (the loopback server is reached through ``NO_PROXY``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

GUARD = r"""
import ipaddress, json, socket, sys
ATTEMPTS = []

def _local(host):
    if host is None:
        return True
    host = host.decode() if isinstance(host, bytes) else str(host)
    if host in ("localhost", "") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0]).is_loopback
    except ValueError:
        return False

def _check(kind, host, port=None):
    ATTEMPTS.append([kind, str(host), port])
    if not _local(host):
        raise OSError(f"offline guard: refused {kind} to {host!r}")

_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo
_create = socket.create_connection

def connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _check("connect", address[0], address[1])
    return _connect(self, address)

def connect_ex(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _check("connect", address[0], address[1])
    return _connect_ex(self, address)

def getaddrinfo(host, *args, **kwargs):
    _check("getaddrinfo", host)
    return _getaddrinfo(host, *args, **kwargs)

def create_connection(address, *args, **kwargs):
    _check("create_connection", address[0], address[1])
    return _create(address, *args, **kwargs)

socket.socket.connect = connect
socket.socket.connect_ex = connect_ex
socket.getaddrinfo = getaddrinfo
socket.create_connection = create_connection
"""

SCRIPT = r"""
import asyncio, threading
from pydantic import BaseModel
from giskard_nb import Interaction, LLMJudge, Trace
from giskard_nb.testing import FakeLLMServer

with FakeLLMServer(reply={"reason": "polite and correct", "passed": True}) as server:
    check = LLMJudge(prompt="Is this polite? {{ outputs }}", generator=server.generator())
    trace = Trace(interactions=[Interaction(inputs="hi", outputs="Hello, how can I help?")])
    result = asyncio.run(check.run(trace))
    import litellm
    cost_map_size = len(litellm.model_cost)
    threads = sorted(t.name for t in threading.enumerate() if t is not threading.main_thread())
    port = server.port
print(json.dumps({
    "status": str(result.status.value),
    "attempts": ATTEMPTS,
    "cost_map_size": cost_map_size,
    "threads": threads,
    "port": port,
}))
"""


def test_a_judge_call_sends_nothing_but_loopback_traffic(tmp_path: Path):
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("LITELLM_") and k.upper() not in ("HTTP_PROXY", "HTTPS_PROXY")
    }
    closed = "http://127.0.0.1:9"  # the discard port: nothing listens, so a proxied call fails
    env.update(
        PYTHONPATH=str(ROOT),
        HTTP_PROXY=closed,
        HTTPS_PROXY=closed,
        NO_PROXY="127.0.0.1,localhost",
        GISKARD_NB_LLM_CACHE="0",
    )
    out = subprocess.run(
        [sys.executable, "-c", GUARD + SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["status"] == "pass", report
    remote = [a for a in report["attempts"] if a[1] not in ("127.0.0.1", "localhost", "::1")]
    assert remote == [], f"connections attempted outside loopback: {remote}"
    connects = [a for a in report["attempts"] if a[0] != "getaddrinfo"]
    assert connects, "the guard saw no connection at all"
    assert {a[2] for a in connects} == {report["port"]}, (
        f"only the fake server is reached: {connects}"
    )
    assert report["cost_map_size"] > 100  # the bundled price table, loaded without the network
    assert "model cost map" not in out.stderr and "LiteLLM" not in out.stderr, out.stderr[-2000:]


def test_importing_litellm_submodules_first_still_configures_it_offline():
    """The structured path asks litellm.utils for the response format before any completion: the
    offline defaults must already be in place then."""
    code = (
        "import os\n"
        "from pydantic import BaseModel\n"
        "from giskard_nb.llm.parsing import response_format as _response_format\n"
        "class Verdict(BaseModel):\n"
        "    passed: bool\n"
        "_response_format(Verdict)\n"
        "print(os.environ.get('LITELLM_LOCAL_MODEL_COST_MAP'), os.environ.get('LITELLM_LOG'))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [sys.executable, "-c", GUARD + code + "print(json.dumps(ATTEMPTS))"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.strip().splitlines()
    assert lines[-2] == "True ERROR"
    assert json.loads(lines[-1]) == []


def test_a_user_setting_wins_over_the_offline_default():
    code = (
        "import os\n"
        "from giskard_nb.llm._litellm import offline_environment\n"
        "offline_environment()\n"
        "print(os.environ['LITELLM_LOCAL_MODEL_COST_MAP'], os.environ['LITELLM_LOG'])\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    env.update(PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="False", LITELLM_LOG="INFO")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["False", "INFO"]
