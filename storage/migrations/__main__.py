"""`python -m storage.migrations revision "message"`: write the next migration.

It migrates a scratch SQLite database to the current head, then lets Alembic compare it with
the SQLModel tables and write the difference as versions/NNNN_message.py. Read the file (Alembic
cannot see renames; data moves are yours to write), then set HEAD in head.py to its id.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from sqlalchemy import create_engine


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "revision":
        print(__doc__.strip(), file=sys.stderr)
        return 2
    from alembic import command
    from alembic.script import ScriptDirectory

    from storage.migrations import HERE, alembic_config

    message = argv[1]
    script = ScriptDirectory.from_config(alembic_config())
    number = len(list(script.walk_revisions())) + 1
    rev_id = f"{number:04d}_{re.sub(r'[^a-z0-9]+', '_', message.lower()).strip('_')[:40]}"
    with tempfile.TemporaryDirectory() as scratch:
        engine = create_engine(f"sqlite:///{Path(scratch) / 'scratch.db'}")
        with engine.begin() as conn:
            config = alembic_config(conn)
            command.upgrade(config, "head")
            command.revision(config, message, autogenerate=True, rev_id=rev_id)
        engine.dispose()
    print(f"wrote {HERE / 'versions'}/{rev_id}_*.py: read it, then set HEAD = {rev_id!r} in "
          "storage/migrations/head.py")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
