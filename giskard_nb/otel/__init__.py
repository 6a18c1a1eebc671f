"""OpenTelemetry both ways: OTLP JSON traces (GenAI semantic conventions and OpenInference) read into
``Trace`` objects and Hub dataset items, and results written as OTLP spans. May import: errors, secrets
and core.

``traces_from_otlp(path_or_dict)`` and ``test_cases_from_otlp(...)`` read (``giskard_nb.otel.importer``);
``export_otlp(results, path=None, endpoint=None)`` writes (``giskard_nb.otel.exporter``). Reading and
writing files needs nothing extra; posting to an OTLP/HTTP endpoint needs ``pip install
'giskard-nb[otel]'``.
"""

from giskard_nb.otel.exporter import export_otlp, results_to_otlp
from giskard_nb.otel.importer import test_cases_from_otlp, traces_from_otlp

__all__ = ["export_otlp", "results_to_otlp", "test_cases_from_otlp", "traces_from_otlp"]
