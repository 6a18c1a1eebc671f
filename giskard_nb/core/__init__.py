"""The check-and-trace core: interactions and traces, the check registry and check results, scenarios,
test cases and suites with their runners, the worker pool and the sync facade (``run_sync`` and
``sync_twin``), human labels on results and the calibration of a check against them. Public names are
re-exported from ``giskard_nb``. May import: errors, config, palette, secrets, stats and executors; no
heavy dependency (litellm, pandas, plotly, ipywidgets), and frames and charts only lazily, for the
``to_dataframe()`` and ``plot_*()`` conveniences of results."""
