"""Hostile remote agents (security issue, item 3): peak memory of one call. Prints numbers; asserts nothing.

Each measurement runs in its own process (peak RSS from ``resource.getrusage``, the growth over the
process's RSS just before the call), against a local server on 127.0.0.1 answering:

(a) a 1 GiB body (``Content-Length: 1073741824``, streamed 1 MB at a time);
(b) a gzip bomb: ~300 KB on the wire, 300 MB inflated.

``before``: how the HTTP agent read a reply before the cap (``httpx.AsyncClient(follow_redirects=True)
.post()``, the whole body read, then ``parse_reply``). ``after``: ``RemoteAgent`` with the default
``max_reply_bytes`` (10 MB). ``before`` on (a) needs ~3 GB: it is skipped when the machine has less
than 6 GB available (``--no-before`` skips every ``before`` run).
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import subprocess
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GIB = 1 << 30
BOMB_INFLATED = 300_000_000
SCENARIOS = ("1 GiB body", "gzip bomb")


def _bomb() -> bytes:
    """A gzip stream of a JSON reply padded with ``BOMB_INFLATED`` spaces (built chunk by chunk)."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [z.compress(b'{"response": "')]
    block = b" " * 1_000_000
    parts += [z.compress(block) for _ in range(BOMB_INFLATED // len(block))]
    parts += [z.compress(b'"}'), z.flush()]
    return b"".join(parts)


def _serve(scenario: str) -> tuple[ThreadingHTTPServer, str, int]:
    bomb = _bomb() if scenario == "gzip bomb" else b""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            try:
                if bomb:
                    self.send_header("Content-Encoding", "gzip")
                    self.send_header("Content-Length", str(len(bomb)))
                    self.end_headers()
                    self.wfile.write(bomb)
                    return
                self.send_header("Content-Length", str(GIB))
                self.end_headers()
                chunk = b"a" * (1 << 20)
                for _ in range(GIB // len(chunk)):
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading: the cap at work

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/chat", len(bomb) or GIB


async def _before(url: str) -> str:
    import httpx

    from giskard_nb.hub.agents import parse_reply

    async with httpx.AsyncClient(follow_redirects=True) as client:
        response = await client.post(url, json={"messages": [{"role": "user", "content": "hi"}]})
        return f"read {len(parse_reply(response).content):,} characters"


async def _after(url: str) -> str:
    from giskard_nb.errors import AgentError
    from giskard_nb.hub import Agent, RemoteAgent

    agent = Agent(project_id="p", name="bench", url=url, max_retries=0, timeout=120)
    try:
        async with RemoteAgent(agent) as remote:
            out = await remote([{"role": "user", "content": "hi"}])
    except AgentError as exc:
        return "AgentError: " + str(exc).split(": ", 1)[-1][:60] + "…"
    return f"read {len(out.content):,} characters"


def _rss_mb() -> float:
    """This process's peak RSS (VmHWM: reset at exec, unlike ``ru_maxrss``, which a child started by a
    large parent inherits), else ``ru_maxrss``."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def child(scenario: str, mode: str) -> None:
    import httpx  # noqa: F401  (imported before the baseline, as in a running notebook)

    import giskard_nb.hub  # noqa: F401

    server, url, wire = _serve(scenario)
    base = _rss_mb()
    start = time.perf_counter()
    try:
        outcome = asyncio.run((_before if mode == "before" else _after)(url))
    except MemoryError:
        outcome = "MemoryError"
    seconds = time.perf_counter() - start
    peak = _rss_mb()
    server.shutdown()
    result = {"peak": peak, "growth": peak - base, "s": seconds, "outcome": outcome, "wire": wire}
    print(json.dumps(result))


def _available_gb() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return 0.0


def _measure(scenario: str, mode: str) -> dict[str, Any] | None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = [sys.executable, __file__, "--child", scenario, mode]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if done.returncode != 0:
        return {"outcome": f"process failed ({done.returncode}): {done.stderr[-200:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    before = "--no-before" not in sys.argv
    print("Hostile remote agents: peak memory of one call (each in its own process)")
    print(f"  {'scenario':<12} {'mode':<7} {'peak RSS':>10} {'growth':>10} {'time':>8}  outcome")
    wires: dict[str, int] = {}
    for scenario in SCENARIOS:
        for mode in ("before", "after"):
            if mode == "before" and not before:
                continue
            if mode == "before" and scenario == "1 GiB body" and _available_gb() < 6:
                print(f"  {scenario:<12} {mode:<7} skipped (needs ~3 GB; under 6 GB available)")
                continue
            r = _measure(scenario, mode)
            if r is None or "peak" not in r:
                print(f"  {scenario:<12} {mode:<7} {r['outcome'] if r else 'no result'}")
                continue
            wires[scenario] = r["wire"]
            print(
                f"  {scenario:<12} {mode:<7} {r['peak']:>7.0f} MB {r['growth']:>7.0f} MB "
                f"{r['s']:>6.2f} s  {r['outcome']}"
            )
    if "gzip bomb" in wires:
        print(f"  (the gzip bomb: {wires['gzip bomb'] / 1000:.0f} KB on the wire, 300 MB inflated)")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        main()
