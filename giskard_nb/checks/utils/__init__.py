"""giskard-checks' ``giskard.checks.utils`` import path: ``normalization`` (``normalize_string``,
``normalize_data``), the text normalization the comparison and text checks apply. May import: errors and core."""
