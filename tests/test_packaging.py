"""Every data file the package reads ships in its wheel: ``[tool.setuptools.package-data]`` covers each
non-Python file under ``giskard_nb/`` (an editable install reads the tree, so nothing else would notice a
template or stylesheet missing from ``pip install giskard-nb``)."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_package_data_covers_every_data_file() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["*"]
    missing = [
        path.relative_to(REPO).as_posix()
        for path in (REPO / "giskard_nb").rglob("*")
        if path.is_file()
        and path.suffix not in (".py", ".pyc")
        and "__pycache__" not in path.parts
        and not any(fnmatch.fnmatch(path.name, p) for p in patterns)
    ]
    assert missing == [], f"add their patterns to [tool.setuptools.package-data]: {missing}"
