"""Every ```python block of README.md and docs/*.md runs as written.

The blocks of one page run in order in one namespace, like the cells of a notebook (a block may use
what an earlier block of the same page defined), with top-level ``await`` allowed. They run offline, in
a temporary working directory holding a copy of ``examples/``, with a temporary ``HOME`` and
``GISKARD_NB_HOME`` (no user Hub, cache or configuration is touched). A block is skipped only when the
line just before its fence is ``<!-- skip-test: reason -->``; the reasons are listed in the test output.
A block that needs an optional extra says so on that line, ``<!-- requires: ray (giskard-nb[ray]) -->``:
it runs when the module (``ray``) is installed and is skipped, with that reason, when it is not.

Blocks display what they promise, as a notebook cell would (only a cell's last expression is shown):

- a top-level expression that is not the block's last statement must not be a table or a figure (a
  pandas DataFrame, Series or Styler, a Plotly figure): pasted into a cell it would be computed and
  silently not shown — make it the last line of its own block, or assign it;
- a block marked ``<!-- shows: table -->`` (or ``figure``) on the line just before its fence must end
  with an expression whose value is a table (or a figure): the block's display is checked, not assumed.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import inspect
import re
import shutil
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

from giskard_nb.llm import set_default_embedding_model, set_default_generator

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SKIP = re.compile(r"<!--\s*skip-test:\s*(?P<reason>.*?)\s*-->")
REQUIRES = re.compile(r"<!--\s*requires:\s*(?P<module>[\w.]+)\s*(?P<extra>\([^)]*\))?\s*-->")
SHOWS = re.compile(r"<!--\s*shows:\s*(?P<what>table|figure)\s*-->")
FENCE = re.compile(r"^```(?P<lang>[\w+-]*)\s*$")
MAX_SKIPS = 4  # across all pages: skipping is for what truly cannot run offline


@dataclass(frozen=True)
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    source: str
    skip_reason: str | None
    shows: str | None = None  # "table" or "figure": what the block's last expression must be
    requires: str | None = (
        None  # a module of an optional extra: the block runs when it is installed
    )

    def missing(self) -> str | None:
        """Why the block cannot run here (its extra's module is not installed), else ``None``."""
        if self.requires is None or importlib.util.find_spec(self.requires) is not None:
            return None
        return f"needs the optional {self.requires!r} module, not installed"


def blocks(path: Path, *, root: Path = REPO) -> list[Block]:
    """The ```python blocks of a Markdown page, with their line numbers and skip markers."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        start = i
        i += 1
        body: list[str] = []
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        i += 1
        if fence["lang"] != "python":
            continue
        previous = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker = SKIP.search(previous)
        shows = SHOWS.search(previous)
        requires = REQUIRES.search(previous)
        found.append(
            Block(
                page=path.relative_to(root).as_posix(),
                line=start + 1,
                source="\n".join(body) + "\n",
                skip_reason=(marker["reason"] or "no reason given") if marker else None,
                shows=shows["what"] if shows else None,
                requires=requires["module"] if requires else None,
            )
        )
    return found


class BlockFailed(Exception):
    """A block raised: the message names the page and the line of the block."""


def displayed_kind(value: object) -> str | None:
    """``"table"`` for a pandas DataFrame, Series or Styler, ``"figure"`` for a Plotly figure, else
    ``None`` (what a notebook would render as a table or a chart)."""
    for cls in type(value).__mro__:
        module, name = cls.__module__.split(".")[0], cls.__name__
        if module == "pandas" and name in ("DataFrame", "Series", "Styler"):
            return "table"
        if module == "plotly" and name == "BaseFigure":
            return "figure"
    return None


_SHOWN = "__docs_shown__"


def _recording(tree: ast.Module) -> ast.Module:
    """``tree`` with each top-level expression statement's value passed through ``__docs_shown__``
    (which records it with its line and returns it unchanged)."""
    for node in tree.body:
        if isinstance(node, ast.Expr):
            call = ast.Call(
                func=ast.Name(id=_SHOWN, ctx=ast.Load()),
                args=[ast.Constant(node.lineno), node.value],
                keywords=[],
            )
            node.value = ast.copy_location(call, node.value)
    return ast.fix_missing_locations(tree)


def _run(block: Block, namespace: dict, loop: asyncio.AbstractEventLoop) -> None:
    # the blank lines keep the traceback's line numbers equal to the page's
    source = "\n" * block.line + block.source
    tree = ast.parse(source, block.page)
    shown: list[tuple[int, object]] = []
    namespace[_SHOWN] = lambda line, value: shown.append((line, value)) or value
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    code = compile(_recording(tree), block.page, "exec", flags=flags)
    if code.co_flags & inspect.CO_COROUTINE:
        loop.run_until_complete(eval(code, namespace))
    else:
        exec(code, namespace)
    _check_display(block, tree, shown)


def _check_display(block: Block, tree: ast.Module, shown: list[tuple[int, object]]) -> None:
    last = tree.body[-1] if tree.body else None
    last_line = last.lineno if isinstance(last, ast.Expr) else None
    for line, value in shown:
        kind = displayed_kind(value)
        if kind and line != last_line:
            raise NotDisplayed(
                f"{block.page}, line {line}: this {kind} is not the block's last expression, so a "
                "notebook cell would compute it and show nothing: make it the last line of its "
                "block, or assign it"
            )
    if block.shows is None:
        return
    value = next((v for line, v in shown if line == last_line), None)
    if last_line is None or displayed_kind(value) != block.shows:
        got = type(value).__name__ if last_line is not None else "no expression"
        raise NotDisplayed(
            f"{block.page}, line {last.lineno if last else block.line}: the block is marked "
            f"<!-- shows: {block.shows} --> but its last statement is {got}: end it with an "
            f"expression whose value is a {block.shows}"
        )


class NotDisplayed(AssertionError):
    """A block does not display the table or figure it builds (see the module docstring)."""


def run_page(page_blocks: list[Block]) -> list[Block]:
    """Run the blocks in order in one namespace (top-level ``await`` allowed); returns the skipped
    ones. Fake LLM servers and Hubs the page left open are closed."""
    namespace: dict = {"__name__": "__docs__"}
    loop = asyncio.new_event_loop()
    skipped = []
    try:
        for block in page_blocks:
            if block.skip_reason is not None or block.missing():
                skipped.append(block)
                continue
            try:
                _run(block, namespace, loop)
            except Exception as exc:
                raise BlockFailed(
                    f"{block.page}: the python block at line {block.line} failed:\n"
                    f"{block.source}\n{traceback.format_exc()}"
                ) from exc
    finally:
        for value in list(namespace.values()):
            if type(value).__name__ in ("FakeLLMServer", "Hub"):
                value.close()
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
    return skipped


@pytest.fixture
def docs_workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(REPO / "examples", work / "examples")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GISKARD_NB_HOME", str(home / ".giskard_nb"))
    monkeypatch.chdir(work)
    set_default_generator(None)
    set_default_embedding_model(None)
    yield work
    set_default_generator(None)
    set_default_embedding_model(None)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_python_block_runs(page: Path, docs_workdir: Path, capsys) -> None:
    try:
        skipped, failure = run_page(blocks(page)), None
    except BlockFailed as exc:
        skipped, failure = [], str(exc)
    if failure:
        pytest.fail(failure, pytrace=False)
    with capsys.disabled():
        for block in skipped:
            reason = block.skip_reason or block.missing()
            print(f"\n  skipped {block.page}:{block.line}: {reason}", end="")


def test_blocks_are_found_and_skips_are_rare_and_explained() -> None:
    every = [b for page in PAGES for b in blocks(page)]
    assert {b.page for b in every} >= {"README.md", "docs/core.md", "docs/hub.md"}
    skipped = [b for b in every if b.skip_reason is not None]
    assert all(b.skip_reason != "no reason given" for b in skipped), skipped
    assert len(skipped) <= MAX_SKIPS, [f"{b.page}:{b.line} {b.skip_reason}" for b in skipped]


def test_the_runner_sees_markers_awaits_and_names_the_failing_line(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# t\n\n```python\nimport asyncio\nx = await asyncio.sleep(0, result=1)\n```\n\n"
        "```bash\nmake demo\n```\n"
        "<!-- skip-test: needs a real provider -->\n```python\nboom()\n```\n\n"
        "```python\nassert x == 1\nundefined_name\n```\n",
        encoding="utf-8",
    )
    found = blocks(page, root=tmp_path)
    assert [(b.line, b.skip_reason) for b in found] == [
        (3, None),
        (12, "needs a real provider"),
        (16, None),
    ]
    with pytest.raises(BlockFailed, match=r"page.md: the python block at line 16 failed") as info:
        run_page(found)
    assert 'page.md", line 18' in str(info.value)  # the traceback points into the page
    assert "NameError" in str(info.value)


def test_a_block_that_requires_an_extra_runs_only_when_its_module_is_installed(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- requires: no_such_module_xyz (giskard-nb[xyz]) -->\n```python\nboom()\n```\n\n"
        "<!-- requires: json -->\n```python\nimport json\nran = json.dumps(1)\n```\n",
        encoding="utf-8",
    )
    found = blocks(page, root=tmp_path)
    assert [b.requires for b in found] == ["no_such_module_xyz", "json"]
    assert "not installed" in (found[0].missing() or "") and found[1].missing() is None
    assert run_page(found) == [found[0]]  # the first is skipped, the second runs
    page.write_text("<!-- requires: json -->\n```python\nboom()\n```\n", encoding="utf-8")
    with pytest.raises(BlockFailed, match="NameError"):  # installed: it runs, and can fail
        run_page(blocks(page, root=tmp_path))


def test_a_table_or_figure_that_a_notebook_would_not_show_fails_the_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    middle = (
        "```python\nimport pandas as pd\ndf = pd.DataFrame({'a': [1]})\ndf[['a']]\nx = 1\n```\n"
    )
    page.write_text(middle, encoding="utf-8")
    with pytest.raises(BlockFailed, match=r"page.md, line 4: this table is not the block's last"):
        run_page(blocks(page, root=tmp_path))

    marked = "<!-- shows: table -->\n```python\nimport pandas as pd\ndf = pd.DataFrame()\n```\n"
    page.write_text(marked, encoding="utf-8")
    (block,) = blocks(page, root=tmp_path)
    assert block.shows == "table"
    with pytest.raises(BlockFailed, match=r"marked <!-- shows: table --> but its last statement"):
        run_page([block])

    figure = "<!-- shows: figure -->\n```python\nimport pandas as pd\npd.DataFrame()\n```\n"
    page.write_text(figure, encoding="utf-8")
    with pytest.raises(BlockFailed, match=r"shows: figure --> but its last statement is DataFrame"):
        run_page(blocks(page, root=tmp_path))

    good = (
        "<!-- shows: figure -->\n```python\nimport plotly.graph_objects as go\n"
        "print(go.Figure())\nfig = go.Figure()\nawait asyncio.sleep(0)\nfig\n```\n"
    )
    page.write_text("```python\nimport asyncio\n```\n" + good, encoding="utf-8")
    assert run_page(blocks(page, root=tmp_path)) == []  # print() and an await are not displays


def test_the_pages_mark_what_they_show() -> None:
    every = [b for page in PAGES for b in blocks(page)]
    readme = [b.shows for b in every if b.page == "README.md" and b.shows]
    assert readme.count("table") >= 1 and readme.count("figure") >= 1
