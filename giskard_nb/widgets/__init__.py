"""ipywidgets frontends: thin views over the library's objects. Every button has a Python method, so
each widget can be driven from code (and is tested headless). May import: errors, palette, core,
scan, frames and hub."""

from giskard_nb.widgets.builder import ScenarioBuilder
from giskard_nb.widgets.evaluation_runner import EvaluationRunner
from giskard_nb.widgets.hub_browser import HubBrowser
from giskard_nb.widgets.hub_save import save_to_hub, scenario_to_test_case
from giskard_nb.widgets.playground import Playground
from giskard_nb.widgets.results_viewer import ResultsViewer
from giskard_nb.widgets.scan_runner import ScanRunner

__all__ = [
    "EvaluationRunner",
    "HubBrowser",
    "Playground",
    "ResultsViewer",
    "ScanRunner",
    "ScenarioBuilder",
    "save_to_hub",
    "scenario_to_test_case",
]
