"""Documents ingested before document sources existed are adopted into the `default` source.

Kept apart from the document tables: every application start runs this check with plain SQL,
and a structured question should not pay for defining the document tables to do it.
"""

from __future__ import annotations

from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from storage.columns import utcnow


def adopt_legacy_documents(engine: Engine) -> int:
    """Adopt documents ingested before sources existed into the `default` source, once.

    Their keys stay unchanged (so chunk ids and vectors stay valid). The adoption is recorded as
    a `default` source row with no folder yet (the next undeclared folder ingested claims it),
    so the operator's notice is given once. Returns how many documents were adopted (0 when
    nothing to do). Safe when two processes race: the loser records nothing and returns 0.
    """
    columns = {c["name"] for c in inspect(engine).get_columns("documents")}
    try:
        with engine.begin() as conn:
            if "source" not in columns:  # a table older than migration 0002's column
                conn.execute(
                    text(
                        "ALTER TABLE documents ADD COLUMN source VARCHAR NOT NULL "
                        "DEFAULT 'default'"
                    )
                )
                conn.execute(
                    text("CREATE INDEX IF NOT EXISTS ix_documents_source ON documents (source)")
                )
            adopted = int(
                conn.execute(
                    text(
                        "SELECT count(*) FROM documents WHERE source = 'default' AND NOT EXISTS "
                        "(SELECT 1 FROM document_sources WHERE name = 'default')"
                    )
                ).scalar_one()
            )
            if adopted:
                conn.execute(
                    text(
                        "INSERT INTO document_sources (name, root, restricted, declared, "
                        "updated_at) VALUES ('default', '', false, false, :at)"
                    ),
                    {"at": utcnow()},
                )
            return adopted
    except SQLAlchemyError:
        with engine.connect() as conn:
            recorded = conn.execute(
                text("SELECT 1 FROM document_sources WHERE name = 'default'")
            ).first()
        if recorded is not None:
            return 0  # another process adopted them first
        raise
