"""Tables of the Hub's scans: one row per scan, per probe of a scan, and per attempt.

They join ``schema.metadata`` when this module is imported (``hub.resources.scans`` imports it, and the
Hub imports that before opening its database). Probes and attempts go with their scan (cascade).
"""

from __future__ import annotations

import sqlalchemy as sa

from giskard_nb.hub.schema import record_table, run_owner_columns

__all__ = ["scan_attempts", "scan_probes", "scans"]


def _fk(table: str) -> sa.ForeignKey:
    return sa.ForeignKey(f"{table}.id", ondelete="CASCADE")


scans = record_table(
    "scans",
    sa.Column("project_id", sa.String(36), _fk("hub_projects"), nullable=False, index=True),
    sa.Column("status", sa.String(16), nullable=False),
    *run_owner_columns(),
)

scan_probes = record_table(
    "scan_probes",
    sa.Column("scan_id", sa.String(36), _fk("hub_scans"), nullable=False, index=True),
    sa.Column("project_id", sa.String(36), nullable=False),
    sa.Column("probe_id", sa.String(200), nullable=False),
    sa.Column("position", sa.Integer, nullable=False),
    sa.UniqueConstraint("scan_id", "probe_id", name="uq_hub_scan_probes_probe"),
)

scan_attempts = record_table(
    "scan_attempts",
    sa.Column("scan_id", sa.String(36), _fk("hub_scans"), nullable=False, index=True),
    sa.Column("scan_probe_id", sa.String(36), _fk("hub_scan_probes"), nullable=False, index=True),
    sa.Column("project_id", sa.String(36), nullable=False),
    sa.Column("attack_id", sa.String(250), nullable=False),
    sa.Column("successful", sa.Boolean, nullable=False),
    sa.Column("severity", sa.Integer, nullable=False),
    sa.Column("review_status", sa.String(16), nullable=False),
    sa.Column("error", sa.Text, nullable=True),
    #: A finding's evidence tier (``confirmed``/``suspected``); NULL for no finding or a row stored
    #: before tiers (read from its data then).
    sa.Column("evidence", sa.String(16), nullable=True),
    sa.UniqueConstraint("scan_id", "attack_id", name="uq_hub_scan_attempts_attack"),
)
