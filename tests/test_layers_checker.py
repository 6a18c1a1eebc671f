"""The import-layer checker of tests/test_layers.py can fail: it finds a new circle and a new upward
import, counts imports inside functions, skips ``if TYPE_CHECKING:`` and reads ``May import:``."""

from __future__ import annotations

from pathlib import Path

from .test_layers import cross_package_circles, import_graph, may_import, upward_arrows


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_the_checker_finds_a_new_circle_and_a_new_upward_import(tmp_path):
    pkg = _write(
        tmp_path,
        {
            "pkg/__init__.py": '"""Root. May import: low, high."""\n',
            "pkg/low/__init__.py": '"""Low. May import: nothing."""\n',
            "pkg/low/a.py": "from pkg.high import b\n",
            "pkg/high/__init__.py": "",
            "pkg/high/b.py": "from ..low import a\n",
        },
    )
    graph = import_graph(pkg)
    assert graph.arrows == {("pkg.low.a", "pkg.high.b"): True, ("pkg.high.b", "pkg.low.a"): True}
    layers = (("low",), ("high",), ("pkg",))
    assert upward_arrows(graph, layers) == [("pkg.low.a", "pkg.high.b")]
    assert cross_package_circles(graph, set()) == [["pkg.high.b", "pkg.low.a"]]
    assert cross_package_circles(graph, {("pkg.low.a", "pkg.high.b")}) == []


def test_the_checker_counts_function_imports_and_skips_type_checking(tmp_path):
    pkg = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/low/__init__.py": "",
            "pkg/low/a.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from pkg.high.c import C\n"
                "def plot():\n    from pkg.high import b\n    return b\n"
            ),
            "pkg/high/__init__.py": "",
            "pkg/high/b.py": "import pkg.low.a\n",
            "pkg/high/c.py": "from pkg.low.a import plot\n",
        },
    )
    graph = import_graph(pkg)
    assert graph.arrows == {
        ("pkg.low.a", "pkg.high.b"): False,  # inside a function: lazy
        ("pkg.high.b", "pkg.low.a"): True,
        ("pkg.high.c", "pkg.low.a"): True,
    }
    layers = (("low",), ("high",), ("pkg",))
    assert upward_arrows(graph, layers) == [("pkg.low.a", "pkg.high.b")]
    assert [len(c) for c in cross_package_circles(graph, set())] == [2]


def test_a_circle_inside_one_package_is_not_a_circle_between_packages(tmp_path):
    pkg = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",
            "pkg/b.py": "def f():\n    from pkg.a import x\n",
        },
    )
    graph = import_graph(pkg)
    assert set(graph.arrows) == {("pkg.a", "pkg.b"), ("pkg.b", "pkg.a")}
    assert cross_package_circles(graph, set()) == []


def test_may_import_reads_the_first_paragraph():
    assert may_import("Checks. May import: core, llm and errors.\n\nMore.") == {
        "core",
        "llm",
        "errors",
    }
    assert may_import("Errors. May import: nothing.") == set()
    assert may_import("Data. May import: nothing else.") == set()
    assert may_import("Checks.\n\nMay import: core.") is None
    assert may_import(None) is None
