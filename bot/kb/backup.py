"""`ricorda backup DEST` and `ricorda restore SRC`: the data dir copied while `serve` answers.

What a data dir holds and how each part is copied:
- `ricorda.db` (SQLite): SQLite's online backup API, a consistent copy of the database as of
  one moment even while other processes read and write it (WAL mode);
- `chroma/` (the embedded vector store, storage.vector_store): its `chroma.sqlite3` through
  the same API and its index folders file by file. `serve` only reads them; an ingest that
  writes documents during the copy is detected (a file changed under us) and the copy is
  taken again;
- `lexical/` (the BM25 snapshot, storage.lexical_snapshot): a cache, copied when it can be
  (it is replaced whole by a rename), rebuilt from the chunks when it is missing.
The `.env` beside them holds tokens and is never copied: secrets stay where they are.
With PostgreSQL (RICORDA_DATABASE_URL) the database is backed up with `pg_dump`
(docs/keeping-right.md); the vector store and the lexical snapshot are still copied here.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.contracts.errors import ConfigError, StorageError

if TYPE_CHECKING:
    from bot.settings.model import Settings

MANIFEST = "ricorda-backup.json"
DATABASE = "ricorda.db"
CHROMA = "chroma"
LEXICAL = "lexical"
ATTEMPTS = 3
IGNORED = (".env",)  # what may sit in a fresh data dir before a restore (deployment secrets)


@dataclass
class CopyReport:
    lines: list[str] = field(default_factory=list)


def backup_data_dir(settings: Settings, dest: Path) -> CopyReport:
    """Copy the data dir's state into `dest` (a new or empty folder)."""
    source = settings.data_dir
    if not source.is_dir():
        raise ConfigError(f"no data dir at {source}: nothing to back up")
    _require_empty(dest, "the backup folder", force=False)
    report = CopyReport()
    postgres = bool(settings.database_url)
    for attempt in range(1, ATTEMPTS + 1):
        _clear(dest)
        dest.mkdir(parents=True, exist_ok=True, mode=0o700)
        before = _fingerprint(source / CHROMA)
        if not postgres:
            _sqlite_backup(source / DATABASE, dest / DATABASE)
        chroma = _copy_chroma(source / CHROMA, dest / CHROMA)
        if _fingerprint(source / CHROMA) == before:
            break
        if attempt == ATTEMPTS:
            raise StorageError("the documents changed during the backup each time it was "
                               "taken: run it again when the ingest has finished")
    report.lines.append("database: PostgreSQL, not copied here: back it up with pg_dump "
                        "(docs/keeping-right.md)" if postgres else
                        f"database: {DATABASE} copied with SQLite's online backup")
    report.lines.append(f"vector store: {chroma}")
    report.lines.append(f"lexical index: {_copy_lexical(source / LEXICAL, dest / LEXICAL)}")
    manifest = {"format": 1, "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                "ricorda": _version(), "schema": _schema(dest / DATABASE),
                "database": "postgresql" if postgres else "sqlite"}
    (dest / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    make_private(dest)  # a backup holds every question asked: readable by its owner only
    report.lines.append(f"backup written to {dest} (schema {manifest['schema'] or 'n/a'})")
    return report


def restore_data_dir(settings: Settings, src: Path, *, force: bool) -> CopyReport:
    """Copy a backup into the data dir, then bring its schema up to this version's."""
    from storage.migrations import upgrade

    manifest = _read_manifest(src)
    target = settings.data_dir
    _require_empty(target, "the data dir", force=force)
    sqlite_backup = manifest.get("database") == "sqlite"
    if sqlite_backup and settings.database_url:
        raise ConfigError("this backup holds a SQLite database but RICORDA_DATABASE_URL is "
                          "set: unset it to restore into the data dir's SQLite")
    if not sqlite_backup and not settings.database_url:
        raise ConfigError("this backup's database is PostgreSQL: set RICORDA_DATABASE_URL to "
                          "the database you restored with pg_restore")
    target.mkdir(parents=True, exist_ok=True, mode=0o700)
    for name in (DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm", CHROMA, LEXICAL):
        _remove(target / name)
    report = CopyReport()
    if sqlite_backup:
        _sqlite_backup(src / DATABASE, target / DATABASE)
    for name in (CHROMA, LEXICAL):
        if (src / name).is_dir():
            shutil.copytree(src / name, target / name)
    make_private(target)
    before, after = upgrade(settings.database)
    report.lines.append(f"restored {src} (taken {manifest.get('created', '?')} by ricorda "
                        f"{manifest.get('ricorda', '?')}) into {target}")
    report.lines.append(f"database schema: {before or 'none'} -> {after}" if before != after
                        else f"database schema up to date ({after})")
    if not sqlite_backup:
        report.lines.append("database: PostgreSQL: restore it with pg_restore "
                            "(docs/keeping-right.md)")
    return report


def make_private(folder: Path) -> None:
    """Folders 0700 and files 0600 under `folder` (and itself): the database and the indexes
    hold the company's figures, documents and every question asked."""
    folder.chmod(0o700)
    for path in folder.rglob("*"):
        if not path.is_symlink():
            path.chmod(0o700 if path.is_dir() else 0o600)


def _require_empty(folder: Path, what: str, *, force: bool) -> None:
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{what} {folder} is a file, not a folder")
    if force or not folder.exists():
        return
    kept = [p.name for p in folder.iterdir() if p.name not in IGNORED]
    if kept:
        raise ConfigError(f"{what} {folder} is not empty ({', '.join(sorted(kept)[:3])}"
                          f"{', ...' if len(kept) > 3 else ''}): "
                          + ("give --force to replace what it holds" if what == "the data dir"
                             else "give a new or empty folder"))


def _read_manifest(src: Path) -> dict[str, object]:
    try:
        data = json.loads((src / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise ConfigError(f"{src} is not a ricorda backup (no readable {MANIFEST})") from None
    if not isinstance(data, dict) or data.get("format") != 1:
        raise ConfigError(f"{src}/{MANIFEST}: a backup format this ricorda does not read")
    if data.get("database") == "sqlite" and not (src / DATABASE).is_file():
        raise ConfigError(f"{src} is missing {DATABASE}: the backup is incomplete")
    return data


def _sqlite_backup(source: Path, dest: Path) -> None:
    """SQLite's online backup: consistent while other connections read and write."""
    if not source.is_file():
        raise ConfigError(f"no database at {source}: nothing to copy")
    try:
        with _closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)) as src, \
                _closing(sqlite3.connect(dest)) as out:
            src.backup(out)
    except sqlite3.Error as exc:
        raise StorageError(f"copying {source} failed: {exc}") from exc


class _closing:
    """sqlite3's own context manager commits but does not close."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.close()


def _copy_chroma(source: Path, dest: Path) -> str:
    if not source.is_dir():
        return "none in the data dir (RICORDA_CHROMA_URL: back the server up on its side)"
    dest.mkdir(parents=True)
    for path in sorted(source.rglob("*")):
        target = dest / path.relative_to(source)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif path.name == "chroma.sqlite3":
            _sqlite_backup(path, target)
        elif not path.name.startswith("chroma.sqlite3-"):  # its WAL: inside the backup
            shutil.copy2(path, target)
    return f"{CHROMA}/ copied"


def _copy_lexical(source: Path, dest: Path) -> str:
    for _ in range(ATTEMPTS):  # a save replaces the folder whole: copy between two saves
        if not (source / "header.json").is_file():
            return "none yet (built at the first document question)"
        try:
            shutil.copytree(source, dest)
            return f"{LEXICAL}/ copied"
        except (OSError, shutil.Error):
            _remove(dest)
    return "not copied (it kept changing): rebuilt from the documents after a restore"


def _fingerprint(folder: Path) -> list[tuple[str, int, int]]:
    if not folder.is_dir():
        return []
    return sorted((str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns)
                  for p in folder.rglob("*") if p.is_file())


def _schema(database: Path) -> str | None:
    if not database.is_file():
        return None
    with _closing(sqlite3.connect(database)) as conn:
        try:
            row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        except sqlite3.Error:
            return None
    return str(row[0]) if row else None


def _version() -> str:
    from bot.wiring.version import version

    return version()


def _clear(folder: Path) -> None:
    if folder.is_dir():
        for path in folder.iterdir():
            _remove(path)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
