"""The Binder configuration: files in sync with pyproject.toml, and repo2docker accepts them.

``repo2docker --no-build`` prints the Dockerfile it would build without Docker and without
installing anything; the test reads that Dockerfile.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BINDER = REPO / "binder"


def _requirements() -> list[str]:
    lines = (BINDER / "requirements.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_requirements_match_the_package_dependencies():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    missing = sorted(set(project["dependencies"]) - set(_requirements()))
    extra = sorted(set(_requirements()) - set(project["dependencies"]))
    assert not missing and not extra, (
        "binder/requirements.txt must list exactly pyproject.toml's [project].dependencies: "
        f"add {missing}, remove {extra}"
    )
    # never a path relative to binder/: repo2docker installs from the repository root
    assert not any(r.startswith("-e") or ".." in r for r in _requirements())


def test_runtime_is_the_supported_floor():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    floor = re.search(r">=\s*(\d+\.\d+)", project["requires-python"]).group(1)
    assert (BINDER / "runtime.txt").read_text().strip() == f"python-{floor}"


def test_post_build_installs_the_package_and_is_executable():
    post = BINDER / "postBuild"
    assert os.access(post, os.X_OK), "binder/postBuild must be executable (chmod +x)"
    text = post.read_text()
    assert text.startswith("#!/bin/bash") and "set -euo pipefail" in text
    assert re.search(r"^pip install --no-cache-dir --no-deps \.$", text, re.M)


def test_the_quickstart_exists_where_the_binder_link_points():
    assert (REPO / "notebooks" / "quickstart.ipynb").is_file()
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    links = [
        link
        for page in pages
        for link in re.findall(r"https://mybinder\.org/v2/[^)\s]+", page.read_text())
    ]
    assert links, (
        "the Binder badge is gone from README.md and docs/ (it lives in docs/frontends.md)"
    )
    for link in links:
        assert link.endswith("urlpath=lab/tree/notebooks/quickstart.ipynb"), link


def test_repo2docker_accepts_the_configuration(tmp_path: Path):
    exe = shutil.which("repo2docker") or str(Path(sys.executable).parent / "repo2docker")
    if not Path(exe).exists():
        pytest.skip("jupyter-repo2docker is not installed (a CI tool: pip install -e '.[ci]')")
    # only what repo2docker reads, so the check does not depend on the state of the work tree
    for name in ("binder", "notebooks"):
        shutil.copytree(REPO / name, tmp_path / name)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, tmp_path / name)
    out = subprocess.run(
        [exe, "--no-build", "--debug", "--user-id", "1000", "--user-name", "jovyan", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path / "home")},
    )
    log = out.stdout + out.stderr
    assert out.returncode == 0, log[-3000:]
    assert "python=3.11" in log
    assert 'pip install --no-cache-dir -r "binder/requirements.txt"' in log
    assert "./binder/postBuild" in log
    # with a binder/ folder, root-level configuration is ignored: no setup.py/pyproject install step
    assert not re.search(r"pip install[^\n]* \.$", log, re.M)
