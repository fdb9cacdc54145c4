"""chunk tokens: each chunk's BM25 term counts, stored at ingest

A replica starting on an empty volume builds its lexical index from these instead of
tokenising every chunk's text (core.documents.chunk_tokens, docs/scale.md). Chunks ingested
before this migration keep NULL and are tokenised from their text, as before.

Revision ID: 0004_chunk_tokens
Revises: 0003_conversations
Create Date: 2026-12-03 02:45:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0004_chunk_tokens"
down_revision = "0003_conversations"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # added in place (ALTER TABLE ADD COLUMN, nullable): no copy of a table that may hold
    # a million chunks
    op.add_column("chunks", sa.Column("tokens", sa.Text(), nullable=True))
    op.add_column(
        "chunks", sa.Column("tokens_key", sqlmodel.sql.sqltypes.AutoString(), nullable=True)
    )


def downgrade() -> None:
    with op.batch_alter_table("chunks", schema=None) as batch_op:
        batch_op.drop_column("tokens_key")
        batch_op.drop_column("tokens")
