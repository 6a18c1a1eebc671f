"""The check-and-trace core. Public names are re-exported from ``giskard_nb``."""
