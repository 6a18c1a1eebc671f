"""Untrusted JSON never chooses what is imported: a saved scenario names classes the program defined."""

from __future__ import annotations

import sys

import pytest

from giskard_nb.core.interaction import Trace
from giskard_nb.core.registry import subclass_by_name
from giskard_nb.core.scenario import Scenario


class LocalTrace(Trace):
    """A trace subclass this module defines (as a user's notebook would)."""


def test_a_trace_type_naming_a_module_imports_nothing(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delitem(sys.modules, "this", raising=False)  # importing it prints the Zen of Python
    for value in ("this.Trace", "giskard_nb_sec_probe.X", "os.system", "x" * 10_000):
        with pytest.raises(ValueError, match="never imports code"):  # pydantic wraps the error
            Scenario.model_validate({"name": "s", "trace_type": value})
    assert "this" not in sys.modules


def test_a_defined_trace_type_still_loads_from_its_dump():
    dumped = Scenario("s", trace_type=LocalTrace).model_dump(mode="json")
    assert Scenario.model_validate(dumped).trace_type is LocalTrace
    assert subclass_by_name(Trace, "giskard_nb.core.interaction.Trace") is Trace
    assert subclass_by_name(Trace, "giskard_nb.core.interaction.Interaction") is None


def test_no_data_driven_import_is_left_in_the_package():
    """Every dynamic import in giskard_nb names a module fixed in code (an allow-list reviewed here);
    a new one must be added to the list after checking that no data chooses the module."""
    import re
    from pathlib import Path

    import giskard_nb

    root = Path(giskard_nb.__file__).parent
    call = re.compile(r"import_module\(|__import__\(|pydoc\.locate|importlib\.util\.spec_from")
    found = {
        f"{path.relative_to(root)}: {line.strip()}"
        for path in root.rglob("*.py")
        for line in path.read_text(encoding="utf-8").splitlines()
        if call.search(line)
    }
    reviewed = {
        # lazy public names: keys of the fixed _LAZY table
        "__init__.py: value = getattr(importlib.import_module(module), name)",
        # the CLI's --agent module:function, typed by the user on the command line
        "cli/_common.py: target: Any = importlib.import_module(module_name)",
        # a module of the LAZY_KINDS table, fixed in code
        "core/registry.py: importlib.import_module(module)",
        # html.escape in a repr
        "hub/models/scan.py: return f\"<pre>{__import__('html').escape(repr(self))}</pre>\"",
    }
    assert found <= reviewed, sorted(found - reviewed)
