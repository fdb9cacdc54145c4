"""Baseline: the schema of the last release without migrations (main at a173d47).

A database from that release (tables, no alembic_version) gets only the tables it lacks, then
this revision.

Revision ID: 0001_baseline
Revises: (none)
Create Date: 2026-12-01 18:31:46.090803
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

import storage.tables

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None


def _exists(table: str) -> bool:
    """A database from before migrations has most tables already (some stores created theirs
    on first use): the baseline creates only the missing ones, and never touches data."""
    return sa.inspect(op.get_bind()).has_table(table)


def upgrade() -> None:
    if not _exists("anti_autopaths"):
        op.create_table(
            "anti_autopaths",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("cluster_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("intent_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("framework_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("failures", sa.Integer(), nullable=False),
            sa.Column("blocked_until", storage.tables.UtcDateTime(timezone=True), nullable=True),
            sa.Column("updated_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint(
                "cluster_id", "intent_hash", "framework_hash", name="uq_anti_autopaths_key"
            ),
        )
        with op.batch_alter_table("anti_autopaths", schema=None) as batch_op:
            batch_op.create_index(
                batch_op.f("ix_anti_autopaths_cluster_id"), ["cluster_id"], unique=False
            )
            batch_op.create_index(
                "ix_anti_autopaths_intent_framework",
                ["intent_hash", "framework_hash"],
                unique=False,
            )

    if not _exists("autopath_observations"):
        op.create_table(
            "autopath_observations",
            sa.Column("turn_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("intent", sa.Text(), nullable=False),
            sa.Column("intent_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("cluster_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("framework_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("plan", sa.JSON(), nullable=False),
            sa.Column("embedding", sa.LargeBinary(), nullable=False),
            sa.Column("query_specific", sa.Boolean(), nullable=False),
            sa.Column("latency_ms", sa.Float(), nullable=False),
            sa.Column("positives", sa.Integer(), nullable=False),
            sa.Column("negatives", sa.Integer(), nullable=False),
            sa.Column("created_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("turn_id"),
        )
        with op.batch_alter_table("autopath_observations", schema=None) as batch_op:
            batch_op.create_index(
                "ix_autopath_observations_cluster_created",
                ["cluster_id", "created_at"],
                unique=False,
            )
            batch_op.create_index(
                batch_op.f("ix_autopath_observations_created_at"), ["created_at"], unique=False
            )
            batch_op.create_index(
                batch_op.f("ix_autopath_observations_intent_hash"), ["intent_hash"], unique=False
            )

    if not _exists("autopaths"):
        op.create_table(
            "autopaths",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("cluster_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("framework_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("intent_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("plan", sa.JSON(), nullable=False),
            sa.Column("confirmations", sa.Integer(), nullable=False),
            sa.Column("failures", sa.Integer(), nullable=False),
            sa.Column("uses", sa.Integer(), nullable=False),
            sa.Column("failed_uses", sa.Integer(), nullable=False),
            sa.Column("mean_latency_ms", sa.Float(), nullable=True),
            sa.Column("status", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("created_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.Column("updated_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.Column("promoted_at", storage.tables.UtcDateTime(timezone=True), nullable=True),
            sa.Column("last_used_at", storage.tables.UtcDateTime(timezone=True), nullable=True),
            sa.Column("demoted_at", storage.tables.UtcDateTime(timezone=True), nullable=True),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint(
                "cluster_id", "framework_hash", name="uq_autopaths_cluster_framework"
            ),
        )
        with op.batch_alter_table("autopaths", schema=None) as batch_op:
            batch_op.create_index(
                batch_op.f("ix_autopaths_cluster_id"), ["cluster_id"], unique=False
            )
            batch_op.create_index(batch_op.f("ix_autopaths_status"), ["status"], unique=False)

    if not _exists("deliveries"):
        op.create_table(
            "deliveries",
            sa.Column("platform", sa.String(length=16), nullable=False),
            sa.Column("delivery_id", sa.String(length=128), nullable=False),
            sa.Column("seen_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("platform", "delivery_id"),
        )
        with op.batch_alter_table("deliveries", schema=None) as batch_op:
            batch_op.create_index(batch_op.f("ix_deliveries_seen_at"), ["seen_at"], unique=False)

    if not _exists("documents"):
        op.create_table(
            "documents",
            sa.Column("path", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("sha256", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("restricted", sa.Boolean(), nullable=False),
            sa.Column("ingested_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.Column("n_chunks", sa.Integer(), nullable=False),
            sa.PrimaryKeyConstraint("path"),
        )
        op.create_table(
            "executors",
            sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("route", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("steps", sa.JSON(), nullable=False),
            sa.Column("shape", sa.JSON(), nullable=False),
            sa.Column("assumed", sa.JSON(), nullable=False),
            sa.Column("intent", sa.Text(), nullable=False),
            sa.Column("framework_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("proposal_id", sa.Integer(), nullable=True),
            sa.Column("status", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("inherited_uses", sa.BigInteger(), nullable=False),
            sa.Column("approved_by", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("created_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.Column("retired_at", storage.tables.UtcDateTime(timezone=True), nullable=True),
            sa.Column("retired_by", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
            sa.PrimaryKeyConstraint("name"),
        )
        with op.batch_alter_table("executors", schema=None) as batch_op:
            batch_op.create_index(batch_op.f("ix_executors_status"), ["status"], unique=False)

    if not _exists("facts"):
        op.create_table(
            "facts",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("metric", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("entity", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("period_type", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("period", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("channel", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("value", sa.Text(), nullable=False),
            sa.Column("unit", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("source_doc", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("source_locator", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("updated_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint(
                "metric", "entity", "period_type", "period", "channel", name="uq_facts_key"
            ),
        )
        op.create_table(
            "fastpath_generation",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("revision", sa.BigInteger(), nullable=False),
            sa.Column("deletions", sa.BigInteger(), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_table(
            "fastpaths",
            sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("canonical_text", sa.Text(), nullable=False),
            sa.Column("canonical_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("plan", sa.JSON(), nullable=False),
            sa.Column("route", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("intent", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("intent_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("framework_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("origin", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("query_specific", sa.Boolean(), nullable=False),
            sa.Column("embedder", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("created_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.Column("last_used_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.Column("updated_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.Column("revision", sa.BigInteger(), nullable=False),
            sa.Column("n_uses", sa.Integer(), nullable=False),
            sa.Column("embedding", sa.LargeBinary(), nullable=True),
            sa.PrimaryKeyConstraint("id"),
        )
        with op.batch_alter_table("fastpaths", schema=None) as batch_op:
            batch_op.create_index(
                batch_op.f("ix_fastpaths_last_used_at"), ["last_used_at"], unique=False
            )
            batch_op.create_index(batch_op.f("ix_fastpaths_revision"), ["revision"], unique=False)
            batch_op.create_index("ix_fastpaths_usage", ["n_uses", "last_used_at"], unique=False)
            batch_op.create_index("ux_fastpaths_canonical_hash", ["canonical_hash"], unique=True)

    if not _exists("glossary"):
        op.create_table(
            "glossary",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("text", sa.Text(), nullable=False),
            sa.Column("source_path", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("sha256", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("loaded_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_table(
            "maintenance_locks",
            sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("holder", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("expires_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("name"),
        )
        op.create_table(
            "maintenance_log",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("run_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("entry_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("rule", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("detail", sa.Text(), nullable=False),
            sa.Column("uses", sa.Integer(), nullable=False),
            sa.Column("heir", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
            sa.Column("at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        with op.batch_alter_table("maintenance_log", schema=None) as batch_op:
            batch_op.create_index(
                batch_op.f("ix_maintenance_log_entry_id"), ["entry_id"], unique=False
            )
            batch_op.create_index(batch_op.f("ix_maintenance_log_run_id"), ["run_id"], unique=False)

    if not _exists("maintenance_runs"):
        op.create_table(
            "maintenance_runs",
            sa.Column("night", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("run_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("finished_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.Column("summary", sa.JSON(), nullable=False),
            sa.PrimaryKeyConstraint("night"),
        )
        op.create_table(
            "promotions",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("executor_name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("fastpath_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("canonical_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("framework_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("created_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("executor_name", "fastpath_id", name="uq_promotions_member"),
        )
        with op.batch_alter_table("promotions", schema=None) as batch_op:
            batch_op.create_index(
                batch_op.f("ix_promotions_executor_name"), ["executor_name"], unique=False
            )
            batch_op.create_index("ix_promotions_fastpath", ["fastpath_id"], unique=False)

    if not _exists("proposals"):
        op.create_table(
            "proposals",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("framework_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("intent", sa.Text(), nullable=False),
            sa.Column("route", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("plan", sa.JSON(), nullable=False),
            sa.Column("members", sa.JSON(), nullable=False),
            sa.Column("entries", sa.Integer(), nullable=False),
            sa.Column("uses", sa.Integer(), nullable=False),
            sa.Column("oldest_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.Column("status", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("tier2_nights", sa.Integer(), nullable=False),
            sa.Column("last_seen_night", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("created_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.Column("decided_at", storage.tables.UtcDateTime(timezone=True), nullable=True),
            sa.Column("decided_by", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
            sa.Column("decided_night", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
            sa.Column("executor_name", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("framework_hash", "intent", name="uq_proposals_group"),
        )
        with op.batch_alter_table("proposals", schema=None) as batch_op:
            batch_op.create_index("ix_proposals_status", ["status"], unique=False)

    if not _exists("turns"):
        op.create_table(
            "turns",
            sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("chat", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("user", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("question", sa.Text(), nullable=False),
            sa.Column("language", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("route", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("served_by", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("plan", sa.JSON(), nullable=False),
            sa.Column("answer_text", sa.Text(), nullable=False),
            sa.Column("options", sa.JSON(), nullable=False),
            sa.Column("fixed_slots", sa.JSON(), nullable=False),
            sa.Column("answer", sa.JSON(), nullable=False),
            sa.Column("latency_ms", sa.Float(), nullable=False),
            sa.Column("reference_date", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
            sa.Column("parent_turn", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
            sa.Column("created_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        with op.batch_alter_table("turns", schema=None) as batch_op:
            batch_op.create_index(batch_op.f("ix_turns_chat"), ["chat"], unique=False)
            batch_op.create_index(batch_op.f("ix_turns_created_at"), ["created_at"], unique=False)

    if not _exists("chunks"):
        op.create_table(
            "chunks",
            sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("doc", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("ordinal", sa.Integer(), nullable=False),
            sa.Column("locator", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("text", sa.Text(), nullable=False),
            sa.Column("restricted", sa.Boolean(), nullable=False),
            sa.Column("metadata", sa.JSON(), nullable=False),
            sa.ForeignKeyConstraint(["doc"], ["documents.path"], ondelete="CASCADE"),
            sa.PrimaryKeyConstraint("id"),
        )
        with op.batch_alter_table("chunks", schema=None) as batch_op:
            batch_op.create_index("ix_chunks_doc_ordinal", ["doc", "ordinal"], unique=False)
            batch_op.create_index(batch_op.f("ix_chunks_restricted"), ["restricted"], unique=False)

    if not _exists("feedback"):
        op.create_table(
            "feedback",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("turn_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("user", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("verdict", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("via", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("created_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.ForeignKeyConstraint(["turn_id"], ["turns.id"], ondelete="CASCADE"),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("turn_id", "user", name="uq_feedback_turn_user"),
        )
        with op.batch_alter_table("feedback", schema=None) as batch_op:
            batch_op.create_index(batch_op.f("ix_feedback_turn_id"), ["turn_id"], unique=False)

    if not _exists("message_map"):
        op.create_table(
            "message_map",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("platform", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("chat", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("turn_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
            sa.Column("created_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
            sa.ForeignKeyConstraint(["turn_id"], ["turns.id"], ondelete="CASCADE"),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("platform", "chat", "message_id", name="uq_message_map_message"),
        )
        with op.batch_alter_table("message_map", schema=None) as batch_op:
            batch_op.create_index("ix_message_map_turn_id", ["turn_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("message_map", schema=None) as batch_op:
        batch_op.drop_index("ix_message_map_turn_id")

    op.drop_table("message_map")
    with op.batch_alter_table("feedback", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_feedback_turn_id"))

    op.drop_table("feedback")
    with op.batch_alter_table("chunks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chunks_restricted"))
        batch_op.drop_index("ix_chunks_doc_ordinal")

    op.drop_table("chunks")
    with op.batch_alter_table("turns", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_turns_created_at"))
        batch_op.drop_index(batch_op.f("ix_turns_chat"))

    op.drop_table("turns")
    with op.batch_alter_table("proposals", schema=None) as batch_op:
        batch_op.drop_index("ix_proposals_status")

    op.drop_table("proposals")
    with op.batch_alter_table("promotions", schema=None) as batch_op:
        batch_op.drop_index("ix_promotions_fastpath")
        batch_op.drop_index(batch_op.f("ix_promotions_executor_name"))

    op.drop_table("promotions")
    op.drop_table("maintenance_runs")
    with op.batch_alter_table("maintenance_log", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_maintenance_log_run_id"))
        batch_op.drop_index(batch_op.f("ix_maintenance_log_entry_id"))

    op.drop_table("maintenance_log")
    op.drop_table("maintenance_locks")
    op.drop_table("glossary")
    with op.batch_alter_table("fastpaths", schema=None) as batch_op:
        batch_op.drop_index("ux_fastpaths_canonical_hash")
        batch_op.drop_index("ix_fastpaths_usage")
        batch_op.drop_index(batch_op.f("ix_fastpaths_revision"))
        batch_op.drop_index(batch_op.f("ix_fastpaths_last_used_at"))

    op.drop_table("fastpaths")
    op.drop_table("fastpath_generation")
    op.drop_table("facts")
    with op.batch_alter_table("executors", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_executors_status"))

    op.drop_table("executors")
    op.drop_table("documents")
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_deliveries_seen_at"))

    op.drop_table("deliveries")
    with op.batch_alter_table("autopaths", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_autopaths_status"))
        batch_op.drop_index(batch_op.f("ix_autopaths_cluster_id"))

    op.drop_table("autopaths")
    with op.batch_alter_table("autopath_observations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_autopath_observations_intent_hash"))
        batch_op.drop_index(batch_op.f("ix_autopath_observations_created_at"))
        batch_op.drop_index("ix_autopath_observations_cluster_created")

    op.drop_table("autopath_observations")
    with op.batch_alter_table("anti_autopaths", schema=None) as batch_op:
        batch_op.drop_index("ix_anti_autopaths_intent_framework")
        batch_op.drop_index(batch_op.f("ix_anti_autopaths_cluster_id"))

    op.drop_table("anti_autopaths")
