"""The import layers of giskard_nb, enforced (DESIGN.md, "Layers").

The graph has one node per module of giskard_nb and an arrow for every import of another of its modules,
at module level or inside a function. Imports under ``if TYPE_CHECKING:`` are annotations, not arrows,
and are left out; ``from pkg import name`` points at ``pkg.name`` when that is a module, else at ``pkg``
(the package ``__init__`` that Python runs first is not counted as an arrow).

Rules:
- ``LAYERS`` orders the packages, lowest first. A package may import its own layer and those below; an
  import of a higher layer ("upward arrow") is allowed only if it is in ``UPWARD_ALLOWED``, with a reason,
  and inside a function (a lazy display convenience such as ``result.to_dataframe()``).
- No import circle between modules of different packages (``giskard_nb.hub`` and ``giskard_nb.hub.
  resources`` are different packages), the allowed upward arrows aside.
- Every package's docstring opens with a paragraph that says what it holds and ends with
  ``May import: a, b, c.`` — the packages it imports from (checked against the code and the layers).

The checker's own tests (it can fail) are in tests/test_layers_checker.py.

To add a package: put it in ``LAYERS``. To add an upward arrow: don't — move the code down, or, for a
display convenience, add an entry to ``UPWARD_ALLOWED`` saying why.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "giskard_nb"

#: Renamed packages, old name → new name. Module names are read through this map, so the tables below
#: use the new names and hold before and after the rename lands (drop an entry once the old name is gone).
RENAMED = {
    "giskard_nb.generation": "giskard_nb.dataset_generation",
    "giskard_nb.generators": "giskard_nb.input_generators",
}

#: Lowest first. A package may import its own layer and the layers below.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "config", "secrets", "target", "palette"),  # plain modules: errors, settings, data
    ("core", "stats", "executors"),  # scenarios, runners; statistics; executors (Ray, lazily)
    ("tools",),  # MockTools, recording and replay of tool calls, static scan of definitions
    ("llm", "agents"),  # the litellm boundary; agents: giskard-agents import paths of its classes
    ("checks",),  # built-in and LLM-judged checks
    ("mcp", "otel"),  # the MCP client and its scan, OpenTelemetry in/out
    ("kb",),  # knowledge bases: chunking, search, topics
    ("scan",),  # the vulnerability-scan engine
    ("dataset_generation", "input_generators"),  # test cases from personas/documents; UserSimulator
    ("schedule",),  # recurring jobs: timing, clock, reports (the Hub stores the schedules)
    ("hub",),  # the local Hub: storage around the engines; it declares its stored columns
    ("frames",),  # DataFrames of results, scans and Hub records
    ("charts",),  # Plotly figures of results, evaluations and scans
    ("widgets",),  # ipywidgets views
    ("report",),  # self-contained HTML reports and the read-only local viewer
    ("testing", "demo"),  # fakes for tests; the bundled demo
    ("cli",),  # the giskard-nb command line
    ("giskard_nb",),  # the top-level facade (giskard_nb/__init__.py re-exports the public names)
)


class Arrow(NamedTuple):
    """An import allowed despite the rules: ``importer`` imports ``imported``, because ``reason``."""

    importer: str
    imported: str
    reason: str


_DISPLAY = "display convenience: lazy import inside"

_RECORDS = ("frames.hub_records", "to_dataframe()")
#: The Hub's display conveniences (module, module of frames or charts, method): frames and charts
#: sit above the Hub and read its records; the results' frame follows the Hub's declared columns.
_HUB_VIEWS = (
    *((m, *_RECORDS) for m in ("audit", "comparison", "resources.knowledge_bases")),
    *((f"resources.{m}", *_RECORDS) for m in ("playground_chats", "scenarios", "tasks")),
    ("resources.scheduled_evaluations", *_RECORDS),
    *((f"resources.{m}", "frames", "to_dataframe()") for m in ("datasets", "test_cases")),
    ("resources.results", "frames.hub_results", "to_dataframe()"),
    ("models.label", "frames", "to_dataframe()"),
    ("judging", "frames", "to_dataframe()"),
    ("resources.results", "frames.tool_calls", "to_dataframe()"),
    ("resources.results", "frames.rates", "to_dataframe(level='cases')"),
    ("summary", "frames.rates", "to_dataframe(by='case')"),
    ("models.evaluation", "charts", "plot_*()"),
    ("resources.knowledge_bases", "charts.topics", "plot_topics()"),
)

#: The upward arrows allowed. Each must be an import inside a function (lazy).
UPWARD_ALLOWED: tuple[Arrow, ...] = (
    Arrow("giskard_nb.core.scenario_result", "giskard_nb.frames", f"{_DISPLAY} to_dataframe()"),
    Arrow("giskard_nb.core.scenario_result", "giskard_nb.charts", f"{_DISPLAY} plot_*()"),
    Arrow("giskard_nb.core.suite_result", "giskard_nb.frames", f"{_DISPLAY} to_dataframe()"),
    Arrow("giskard_nb.core.suite_result", "giskard_nb.charts", f"{_DISPLAY} plot_*()"),
    Arrow("giskard_nb.core.labels", "giskard_nb.frames", f"{_DISPLAY} to_dataframe()"),
    Arrow("giskard_nb.core.calibration_report", "giskard_nb.frames", f"{_DISPLAY} to_dataframe()"),
    Arrow(
        "giskard_nb.core.calibration_report", "giskard_nb.charts", f"{_DISPLAY} plot_confusion()"
    ),
    Arrow("giskard_nb.scan.result", "giskard_nb.frames.scans", f"{_DISPLAY} *_dataframe()"),
    Arrow(
        "giskard_nb.scan.result", "giskard_nb.charts", f"{_DISPLAY} plot_grid(), plot_grade_card()"
    ),
    *(Arrow(f"giskard_nb.hub.{a}", f"giskard_nb.{b}", f"{_DISPLAY} {c}") for a, b, c in _HUB_VIEWS),
    Arrow(
        "giskard_nb.checks",
        "giskard_nb",
        "the reference's import path giskard.checks: a lazy module __getattr__ finds the public names",
    ),
)

#: Arrows left out when looking for import circles between packages (beyond the upward ones above).
CIRCLE_ALLOWED: tuple[Arrow, ...] = ()


# -- the graph ---------------------------------------------------------------------------------------


@dataclass
class Graph:
    """Modules (name → is a package ``__init__``) and arrows ((importer, imported) → at module level)."""

    modules: dict[str, bool] = field(default_factory=dict)
    arrows: dict[tuple[str, str], bool] = field(default_factory=dict)


def _renamed(name: str) -> str:
    for old, new in RENAMED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :]
    return name


def _module_names(root: Path) -> dict[str, Path]:
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                skipped |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skipped


def _imports(tree: ast.Module) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement outside ``if TYPE_CHECKING:``, with whether it runs at module level."""
    skipped = _type_checking_nodes(tree)
    lazy: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            lazy |= {id(n) for n in ast.walk(node)}
    return [
        (node, id(node) not in lazy)
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skipped
    ]


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[: len(parts) - node.level + 1]
        base = ".".join(parts + ([node.module] if node.module else []))
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]


def import_graph(root: Path) -> Graph:
    """The import graph of the package in ``root`` (a directory with an ``__init__.py``)."""
    paths = _module_names(root)
    graph = Graph({_renamed(m): p.name == "__init__.py" for m, p in paths.items()})
    for module, path in paths.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, module_level in _imports(tree):
            for target in _targets(node, module, is_package, paths):
                while target not in paths and "." in target:
                    target = target.rsplit(".", 1)[0]  # an attribute of a module
                if target in paths and target != module:
                    key = (_renamed(module), _renamed(target))
                    graph.arrows[key] = graph.arrows.get(key, False) or module_level
    return graph


# -- the rules ---------------------------------------------------------------------------------------


def top_package(module: str) -> str:
    """``giskard_nb.hub.resources.scans`` → ``hub``; the root package is its own name."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def package_of(module: str, graph: Graph) -> str:
    """The package a module's file is in (a package ``__init__`` is in its own package)."""
    return module if graph.modules[module] else module.rsplit(".", 1)[0]


def layer_index(layers: tuple[tuple[str, ...], ...]) -> dict[str, int]:
    return {name: i for i, names in enumerate(layers) for name in names}


def upward_arrows(graph: Graph, layers: tuple[tuple[str, ...], ...]) -> list[tuple[str, str]]:
    """Arrows from a lower layer to a higher one."""
    level = layer_index(layers)
    return sorted((a, b) for a, b in graph.arrows if level[top_package(a)] < level[top_package(b)])


def _reachable(start: str, succ: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in succ[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def cross_package_circles(graph: Graph, ignored: set[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected sets of modules (minus the ``ignored`` arrows) spanning several packages."""
    succ: dict[str, set[str]] = {m: set() for m in graph.modules}
    for a, b in graph.arrows:
        if (a, b) not in ignored:
            succ[a].add(b)
    reach = {m: _reachable(m, succ) for m in succ}
    circles = {frozenset(w for w in reach[m] if m in reach[w]) for m in succ if m in reach[m]}
    return sorted(sorted(c) for c in circles if len({package_of(m, graph) for m in c}) > 1)


_MAY_IMPORT = re.compile(r"May import:\s*([^.;]*)[.;]")


def may_import(docstring: str | None) -> set[str] | None:
    """The packages named after ``May import:`` in the docstring's first paragraph (None if absent)."""
    first = (docstring or "").strip().split("\n\n")[0]
    match = _MAY_IMPORT.search(" ".join(first.split()))
    if match is None:
        return None
    names = re.split(r",\s*|\s+and\s+", match.group(1).strip())
    return {n.strip("` ") for n in names} - {"", "nothing", "nothing else"}


# -- the tests on giskard_nb -------------------------------------------------------------------------

GRAPH = import_graph(PACKAGE_DIR)


def _allowed(entries: tuple[Arrow, ...]) -> set[tuple[str, str]]:
    return {(e.importer, e.imported) for e in entries}


def test_every_package_has_a_layer():
    placed = layer_index(LAYERS)
    missing = sorted({top_package(m) for m in GRAPH.modules} - set(placed))
    assert missing == [], f"put these packages in LAYERS (tests/test_layers.py): {missing}"


def test_no_upward_import_outside_the_allow_list():
    unexpected = [a for a in upward_arrows(GRAPH, LAYERS) if a not in _allowed(UPWARD_ALLOWED)]
    assert unexpected == [], (
        "these imports point to a higher layer: move the code down a layer, or (for a lazy display "
        f"convenience) add it to UPWARD_ALLOWED with a reason: {unexpected}"
    )


def test_allowed_upward_imports_are_lazy_and_still_exist():
    upward = set(upward_arrows(GRAPH, LAYERS))
    for entry in UPWARD_ALLOWED:
        arrow = (entry.importer, entry.imported)
        assert arrow in upward, f"stale UPWARD_ALLOWED entry (no such upward import): {entry}"
        assert GRAPH.arrows[arrow] is False, f"import it inside the method that needs it: {entry}"
        assert entry.reason.strip(), entry


def test_no_import_circle_between_packages():
    for entry in CIRCLE_ALLOWED:
        assert (entry.importer, entry.imported) in GRAPH.arrows, f"stale CIRCLE_ALLOWED: {entry}"
    circles = cross_package_circles(GRAPH, _allowed(UPWARD_ALLOWED) | _allowed(CIRCLE_ALLOWED))
    assert circles == [], f"import circles between packages: {circles}"


def _package_docstrings() -> dict[str, str | None]:
    out = {}
    for path in sorted(PACKAGE_DIR.rglob("__init__.py")):
        module = _renamed(".".join([PACKAGE_DIR.name, *path.parent.relative_to(PACKAGE_DIR).parts]))
        out[module] = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    return out


def test_every_package_docstring_says_what_it_may_import():
    level = layer_index(LAYERS)
    upward = _allowed(UPWARD_ALLOWED)
    for package, docstring in _package_docstrings().items():
        named = may_import(docstring)
        assert named is not None, (
            f"{package}: end the docstring's first paragraph with 'May import: …'"
        )
        unknown = named - set(level)
        assert not unknown, f"{package} docstring names unknown packages {sorted(unknown)}"
        top = top_package(package)
        higher = sorted(n for n in named if level[n] > level[top])
        assert not higher, f"{package} docstring allows higher layers {higher}"
        inside = {m for m in GRAPH.modules if m == package or m.startswith(package + ".")}
        if package == PACKAGE_DIR.name:  # the facade: its own module only
            inside = {package}
        used = {
            top_package(b)
            for a, b in GRAPH.arrows
            if a in inside and top_package(b) != top and (a, b) not in upward
        }
        assert used <= named, f"{package} imports {sorted(used - named)}: add them to 'May import:'"


def test_the_top_level_docstring_draws_the_layers():
    import giskard_nb

    text = " ".join((giskard_nb.__doc__ or "").split())
    drawn = re.search(r"Layers, lowest first \(.*?\): (.*?)\.(?: |$)", text)
    assert drawn is not None, (
        "giskard_nb/__init__.py: draw the layers ('Layers, lowest first (…): …')"
    )
    layers = tuple(tuple(n.strip() for n in part.split(",")) for part in drawn.group(1).split("→"))
    assert layers == LAYERS[:-1], "the layers in giskard_nb's docstring differ from LAYERS"
