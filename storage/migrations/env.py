"""Alembic's environment for ricorda: always run programmatically (storage.migrations), on the
connection it is handed, against the SQLModel metadata of every table."""

from __future__ import annotations

from alembic import context

from storage.migrations import target_metadata

config = context.config
connection = config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=target_metadata(),
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters by copying the table
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
