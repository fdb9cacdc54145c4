"""feedback reasons: what was wrong with a rejected answer

After a ✗ the bot asks once which part was wrong and accepts a note (core.chat.feedback_reasons);
one row per turn, leaving with its turn.

Revision ID: 0006_feedback_reasons
Revises: 0005_subscriptions
Create Date: 2026-12-03 16:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

import storage.tables

revision = "0006_feedback_reasons"
down_revision = "0005_subscriptions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "feedback_reasons",
        sa.Column("turn_id", sa.String(), nullable=False),
        sa.Column("chat", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("user", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("stage", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("asked_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["turn_id"], ["turns.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("turn_id"),
    )
    with op.batch_alter_table("feedback_reasons", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_feedback_reasons_asked_at"), ["asked_at"],
                              unique=False)
        batch_op.create_index("ix_feedback_reasons_user_stage", ["user", "stage"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("feedback_reasons", schema=None) as batch_op:
        batch_op.drop_index("ix_feedback_reasons_user_stage")
        batch_op.drop_index(batch_op.f("ix_feedback_reasons_asked_at"))
    op.drop_table("feedback_reasons")
