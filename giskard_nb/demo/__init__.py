"""The offline demo: a bundled agent and dataset that run with no key and no network."""
