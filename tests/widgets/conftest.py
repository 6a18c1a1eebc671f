"""Shares the frontend sample results (``tests/frontend_samples.py``) with this folder's tests."""

import importlib.util
import sys
from pathlib import Path

_path = Path(__file__).resolve().parents[1] / "frontend_samples.py"
if "frontend_samples" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("frontend_samples", _path)
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["frontend_samples"] = _module
    _spec.loader.exec_module(_module)

from frontend_samples import suite_result  # noqa: E402,F401

# tests import helpers with importlib.import_module("frontend_samples")
