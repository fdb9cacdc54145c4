"""conversations: the context a follow-up continues

One row per (chat, conversation key) with the last answered request's slots (core.question.conversation),
so "and Italy?" reaching another replica, or a second `ricorda ask --chat`, continues it.

Revision ID: 0003_conversations
Revises: 0002_kb_version_inbox_sources
Create Date: 2026-12-02 01:13:13.553361
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import storage.tables

revision = "0003_conversations"
down_revision = "0002_kb_version_inbox_sources"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "conversations",
        sa.Column("chat", sa.String(length=200), nullable=False),
        sa.Column("conversation", sa.String(length=200), nullable=False),
        sa.Column("slots", sa.JSON(), nullable=False),
        sa.Column("updated_at", storage.tables.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("chat", "conversation"),
    )
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_conversations_updated_at"), ["updated_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_conversations_updated_at"))
    op.drop_table("conversations")
