"""The newest revision in versions/: what a database must be at for the cheap check at start.

Bump it with every new migration (tests/test_migrations.py fails until it matches alembic's
own head), so `ricorda ask` can compare one row instead of importing alembic."""

HEAD = "0006_feedback_reasons"
