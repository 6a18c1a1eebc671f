from __future__ import annotations

import subprocess
import sys

import giskard_nb


def test_all_is_sorted_and_complete():
    assert giskard_nb.__all__ == sorted(giskard_nb.__all__)
    public = {n for n in vars(giskard_nb) if not n.startswith("_")} - {"annotations"}
    modules = {n for n in public if type(getattr(giskard_nb, n)).__name__ == "module"}
    assert public - modules <= set(giskard_nb.__all__) | {"__version__"}
    for name in giskard_nb.__all__:
        assert getattr(giskard_nb, name) is not None, name


def test_import_is_light_and_silent():
    code = (
        "import sys, giskard_nb; "
        "print(','.join(m for m in ('litellm','pandas','plotly','ipywidgets','sqlalchemy','jsonpath_ng') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    assert out.stderr == ""
