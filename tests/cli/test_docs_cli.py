"""Every ``giskard-nb`` example of docs/cli.md runs exactly as written, and exits as the doc says.

The ```bash blocks are run in order, line by line (split and quoted as a shell does), in a temporary
folder holding a copy of ``examples/`` and the stand-ins the page names (``my_app/bot.py``,
``cases.csv``, ``system_prompt.txt``), with a fresh ``HOME``; ``$AGENT_URL`` is a local HTTP agent and
``$DATASET_ID``/``$EVALUATION_ID``/``$SCAN_ID`` the newest records of the Hub the earlier lines filled.
A line's exit status is the "exits N" of its comment, else 0. The examples ``--help`` shows are lines
of the page too, so they run as well. A block marked ``<!-- requires: ray (giskard-nb[ray]) -->`` runs
when that module is installed (on the tests' one Ray instance, ``ray_session``), else is skipped.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import shutil
import string
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "cli.md"
BOT = '''"""Stands for your agent: a plain function (it exposes no system prompt nor secrets)."""

from giskard_nb.demo.agent import support_agent


def answer(messages):
    return support_agent(messages)


def make_agent():
    """An agent factory (--agent-factory): load a model here, return the agent."""
    return answer
'''


_BLOCK = re.compile(r"^(?:<!--\s*requires:\s*([\w.]+)[^>]*-->\n)?```bash\n(.*?)^```", re.M | re.S)


def doc_blocks() -> list[tuple[str | None, list[str]]]:
    """Each ```bash block of the page: the module it requires (or None), its non-blank lines."""
    blocks = _BLOCK.findall(DOC.read_text(encoding="utf-8"))
    return [(needs or None, [x for x in body.splitlines() if x.strip()]) for needs, body in blocks]


def doc_lines() -> list[str]:
    """Every non-blank line of the page's ```bash blocks, in order."""
    return [line for _, lines in doc_blocks() for line in lines]


def command(line: str) -> str:
    """The line without its comment."""
    return re.sub(r"\s+#.*$", "", line).strip()


def expected_status(line: str) -> int:
    comment = line.partition("  #")[2]
    found = re.search(r"\bexits (\d+)", comment)
    return int(found.group(1)) if found else 0


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    from giskard_nb.demo.agent import SYSTEM_PROMPT

    shutil.copytree(REPO / "examples", tmp_path / "examples")
    (tmp_path / "my_app").mkdir()
    (tmp_path / "my_app" / "__init__.py").write_text("")
    (tmp_path / "my_app" / "bot.py").write_text(BOT, encoding="utf-8")
    shutil.copy(REPO / "examples" / "faq.csv", tmp_path / "cases.csv")
    (tmp_path / "system_prompt.txt").write_text(SYSTEM_PROMPT, encoding="utf-8")
    (tmp_path / "home").mkdir()
    return tmp_path


def _ids(home: Path) -> dict[str, str]:
    """The newest dataset, evaluation, failed result and scan of the Hub the earlier lines wrote."""
    from giskard_nb.hub import Hub

    path = home / ".giskard_nb" / "hub.db"
    if not path.exists():
        return {}
    hub = Hub(str(path))
    try:
        newest = {
            "DATASET_ID": hub.datasets.list(),
            "EVALUATION_ID": hub.evaluations.list(),
            "SCAN_ID": hub.scans.list(),
            "RESULT_ID": [
                r
                for e in hub.evaluations.list()
                for r in hub.evaluations.results.list(e.id, status="fail")
            ],
        }
        return {k: max(v, key=lambda r: r.created_at).id for k, v in newest.items() if v}
    finally:
        hub.close()


def test_the_page_has_examples_and_nothing_else_in_its_bash_blocks() -> None:
    lines = doc_lines()
    assert len(lines) >= 20
    strays = [line for line in lines if not line.startswith("giskard-nb ")]
    assert not strays, f"a ```bash line of docs/cli.md that is not a giskard-nb example: {strays}"
    assert command(lines[0]) == "giskard-nb --help"
    assert "giskard-nb scan --demo" in [command(line) for line in lines]


def run_line(line: str, env: dict[str, str], capsys) -> tuple[int, str, str]:
    """Run one example as a shell would (its words split and quoted by ``shlex``, ``$NAMES`` from
    ``env``), through the ``giskard-nb`` entry point's ``main`` in this process (a subprocess per line
    costs seconds of imports: ``tests/cli/test_cli.py`` runs the installed command)."""
    from giskard_nb.cli import main

    words = shlex.split(string.Template(command(line)).safe_substitute(env))
    assert words[0] == "giskard-nb", line
    assert not any("$" in w for w in words), f"{line}: a variable the test does not provide"
    try:
        code = main(words[1:])
    except SystemExit as exc:  # --help, and argparse's usage errors
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_every_example_runs_as_written(
    folder: Path, http_agent: str, capsys, monkeypatch, request
) -> None:
    home = folder / "home"
    monkeypatch.chdir(folder)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GISKARD_NB_HOME", str(home / ".giskard_nb"))
    needs = {n for n, _ in doc_blocks() if n}
    assert needs <= {"ray"}, f"a block requires {needs - {'ray'}}: the test knows only ray"
    missing = {n for n in needs if importlib.util.find_spec(n) is None}
    if needs - missing:
        request.getfixturevalue("ray_session")  # --ray N runs on the tests' one Ray instance
    lines = [line for n, block in doc_blocks() if n not in missing for line in block]
    ran = []
    for line in lines:
        env = {"AGENT_URL": http_agent, **_ids(home)}
        code, out, err = run_line(line, env, capsys)
        want = expected_status(line)
        assert code == want, (
            f"{line}\nexited {code}, the doc says {want}\nstdout: {out[-3000:]}\nstderr: {err[-3000:]}"
        )
        ran.append((line, out))
    assert len(ran) == len(lines)  # none skipped, but the lines of an extra not installed
    out = {command(line): text for line, text in ran}
    if "ray" not in missing:  # on Ray actors: the same verdicts as in this process
        ray = out["giskard-nb eval --dataset examples/faq.csv --agent my_app.bot:answer --ray 2"]
        here = out[
            "giskard-nb eval --dataset examples/faq.csv --agent giskard_nb.demo.agent:support_agent"
        ]
        assert re.search(r"\(finished\): 5 pass, 1 fail, 0 error, 0 skip", ray)
        assert re.search(r"\(finished\): 5 pass, 1 fail, 0 error, 0 skip", here)
    repeated = out["giskard-nb eval --demo --memory --repeats 3"]
    assert "Repeats: 3 per case; pass^3 " in repeated and "(run 3/3)" in repeated
    assert re.search(r"\(finished\): \d+ pass, 15 fail, 0 error, 0 skip", repeated)
    demo = out["giskard-nb scan --demo"]
    # what the page says the demo prints
    assert "grade D on 8 of 12 categories — incomplete: " in demo and "STAFF-2024" not in demo
    assert re.search(
        r"\nexit 1: \d+ confirmed findings? at or above major \(worst critical: "
        r"disclosure\.internal_codes",
        demo,
    )
    assert "\nexit 1: incomplete: " in demo
    shown = out['giskard-nb hub show "$SCAN_ID"']
    assert "== Scan " in shown and "INSERT" not in shown
    assert re.match(r"giskard-nb \d+\.\d+", out["giskard-nb --version"])
    result = out['giskard-nb hub show "$RESULT_ID"']
    assert "\nConversation:\n" in result and "\nChecks:\n  FAIL " in result
    listed = out['giskard-nb hub list results --evaluation "$EVALUATION_ID" --status fail']
    assert listed.splitlines()[0].startswith("results of evaluation ")
    assert (folder / "report.junit.xml").is_file() and (folder / "findings.sarif").is_file()
    assert (folder / "cases.jsonl").is_file() and (folder / "results.csv").is_file()
    assert (folder / "junit.xml").is_file() and (folder / "scan.sarif").is_file()
    assert (folder / "report.html").is_file() and (folder / "scan.html").is_file()
    assert (home / ".giskard_nb" / "hub.db").is_file()  # the Hub the page says: ~/.giskard_nb


@pytest.mark.parametrize("args", [(), ("eval",), ("scan",), ("hub",), ("report",), ("scheduler",)])
def test_help_examples_are_lines_of_the_page(args: tuple[str, ...]) -> None:
    """What ``--help`` shows as examples is on the page, so the test above runs it."""
    from giskard_nb.cli import parser

    root = parser()
    target = root
    for name in args:
        target = next(a for a in root._subparsers._group_actions if hasattr(a, "choices")).choices[
            name
        ]
    epilog = target.epilog or ""
    examples = [line.strip() for line in epilog.partition("examples:")[2].splitlines()]
    examples = [command(e) for e in examples if e]
    assert examples, f"giskard-nb {' '.join(args)} --help shows no example"
    page = {command(line) for line in doc_lines()}
    missing = [e for e in examples if e not in page]
    assert not missing, f"--help examples not on docs/cli.md (so never run): {missing}"
