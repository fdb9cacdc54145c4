"""Declared document sources: a document's classification never depends on which folder
`ricorda ingest` was given, symlinks are never followed, a moved file is reclassified, two
folders keep their own documents, and a data dir from before sources existed keeps working.

End to end through `bot.kb.ingest.ingest_paths` and the answerer, with embedded Chroma and the
offline hashing embedder: what an uncleared chat is shown is the promise under test."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import App, build_app
from core.contracts.errors import ConfigError
from core.contracts.types import Request
from core.knowledge.glossary import parse_glossary

DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"
UNCLEARED, CLEARED = "telegram:1", "telegram:9001"
SECRET = "ZEPHYR-4242"
SECRET_TEXT = f"# Project Zephyr\n\nProject Zephyr is confidential. Internal code {SECRET}.\n"
PUBLIC_TEXT = "# Supplier portal\n\nThe supplier portal opens at eight. Payment terms: 60 days.\n"
QUESTION = "What is Project Zephyr?"


def glossary_text(sources: str = "") -> str:
    """The demo glossary with its [[documents]] replaced by `sources` (none: undeclared)."""
    text = (DEMO / "glossary.toml").read_text(encoding="utf-8")
    return text.split("\n[[documents]]")[0] + sources


def kb(tmp_path: Path, sources: str = "") -> Path:
    """tmp/kb with glossary.toml and docs/ (public file, restricted/ secret)."""
    root = tmp_path / "kb"
    (root / "docs" / "restricted").mkdir(parents=True)
    (root / "glossary.toml").write_text(glossary_text(sources), encoding="utf-8")
    (root / "docs" / "supplier_portal.md").write_text(PUBLIC_TEXT, encoding="utf-8")
    (root / "docs" / "restricted" / "zephyr.md").write_text(SECRET_TEXT, encoding="utf-8")
    return root


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    application = build_app(load_settings(data_dir=tmp_path / "data", embedder="hashing"))
    yield application
    application.close()


def ingest(app: App, *paths: Path, prune: bool = False) -> list[str]:
    summary = ingest_paths(app, list(paths), prune=prune)
    assert not summary.problems, summary.problems
    return summary.lines


def ask(app: App, chat: str, question: str = QUESTION) -> str:
    answer = app.core.pipeline.answer(Request(question, chat=chat))
    return json.dumps(answer.to_dict(), ensure_ascii=False)


def docs(app: App) -> dict[str, bool]:
    return {d.path: d.restricted for d in app.core.documents.chunks.documents()}


def counts(app: App) -> tuple[int, int]:
    index = app.core.documents.vector_index()
    return index.public.count(), index.restricted.count()  # type: ignore[attr-defined]


DECLARED = '\n[[documents]]\nsource = "handbook"\npath = "docs"\n'


# -- a restricted folder named by itself --------------------------------------------------


def test_undeclared_restricted_folder_alone_stays_restricted(tmp_path: Path, app: App) -> None:
    root = kb(tmp_path)
    ingest(app, root / "glossary.toml", root / "docs" / "restricted")
    assert docs(app) == {"zephyr.md": True}
    assert SECRET not in ask(app, UNCLEARED)
    assert SECRET in ask(app, CLEARED)


def test_declared_restricted_subfolder_alone_stays_restricted(tmp_path: Path, app: App) -> None:
    root = kb(tmp_path, DECLARED)
    ingest(app, root / "glossary.toml")
    ingest(app, root / "docs" / "restricted")
    ingest(app, Path(os.path.relpath(root / "docs" / "restricted")))  # spelled another way
    assert docs(app) == {"handbook/restricted/zephyr.md": True}
    assert counts(app) == (0, 1)
    assert SECRET not in ask(app, UNCLEARED)
    assert SECRET in ask(app, CLEARED)


def test_any_folder_of_a_restricted_source_is_restricted(tmp_path: Path, app: App) -> None:
    root = kb(tmp_path, '\n[[documents]]\nsource = "board"\npath = "docs"\nrestricted = true\n')
    (root / "docs" / "minutes").mkdir()
    (root / "docs" / "minutes" / "march.md").write_text(SECRET_TEXT, encoding="utf-8")
    ingest(app, root / "glossary.toml", root / "docs" / "minutes")
    assert docs(app) == {"board/minutes/march.md": True}
    assert SECRET not in ask(app, UNCLEARED)


def test_a_folder_outside_every_declared_source_is_refused(tmp_path: Path, app: App) -> None:
    root = kb(tmp_path, DECLARED)
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "zephyr.md").write_text(SECRET_TEXT, encoding="utf-8")
    ingest(app, root / "glossary.toml")
    summary = ingest_paths(app, [other])
    assert summary.problems and "not inside any document source" in summary.problems[0]
    assert docs(app) == {}


def test_a_declared_nested_source_not_made_yet_is_noted_not_an_error(
    tmp_path: Path, app: App
) -> None:
    """The board's folder is declared before the board has written anything: ingesting the
    parent folder reads the public files and says the board's folder is not there."""
    board = '\n[[documents]]\nsource = "board"\npath = "docs/board"\nrestricted = true\n'
    root = kb(tmp_path, DECLARED + board)
    lines = ingest(app, root / "glossary.toml", root / "docs")
    assert any("source board: its folder" in line and "does not exist" in line for line in lines)
    assert "handbook/supplier_portal.md" in docs(app)


# -- symbolic links --------------------------------------------------------------------


def test_symlinks_into_restricted_or_outside_are_skipped(tmp_path: Path, app: App) -> None:
    root = kb(tmp_path, DECLARED)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "salaries.md").write_text(f"Salaries {SECRET}.\n", encoding="utf-8")
    public = root / "docs"
    (public / "zephyr_link.md").symlink_to(public / "restricted" / "zephyr.md")
    (public / "salaries.md").symlink_to(outside / "salaries.md")
    (public / "outside_dir").symlink_to(outside, target_is_directory=True)
    (public / "restricted_dir").symlink_to(public / "restricted", target_is_directory=True)
    lines = ingest(app, root / "glossary.toml", public)
    assert docs(app) == {
        "handbook/supplier_portal.md": False,
        "handbook/restricted/zephyr.md": True,
    }
    text = "\n".join(lines)
    for link in ("zephyr_link.md", "salaries.md", "outside_dir", "restricted_dir"):
        assert f"skipped {link}: symbolic link, not followed" in text
    assert "4 skipped" in text
    assert SECRET not in ask(app, UNCLEARED)


# -- files moving between classifications -----------------------------------------------


@pytest.mark.parametrize("prune", [False, True])
def test_a_file_moved_into_restricted_is_reclassified(
    tmp_path: Path, app: App, prune: bool
) -> None:
    root = kb(tmp_path, DECLARED)
    (root / "docs" / "restricted" / "zephyr.md").rename(root / "docs" / "zephyr.md")
    ingest(app, root / "glossary.toml", root / "docs")
    assert docs(app)["handbook/zephyr.md"] is False
    assert SECRET in ask(app, UNCLEARED)  # public while it was public
    assert counts(app) == (2, 0)

    (root / "docs" / "zephyr.md").rename(root / "docs" / "restricted" / "zephyr.md")
    lines = ingest(app, root / "docs", prune=prune)
    assert docs(app) == {
        "handbook/supplier_portal.md": False,
        "handbook/restricted/zephyr.md": True,
    }
    assert counts(app) == (1, 1)  # its vectors moved to the restricted collection
    assert SECRET not in ask(app, UNCLEARED)  # this process follows at once
    assert SECRET in ask(app, CLEARED)
    assert any("moved handbook/zephyr.md" in line for line in lines) or prune


def test_a_file_moved_and_edited_into_restricted_is_reclassified(
    tmp_path: Path, app: App
) -> None:
    root = kb(tmp_path, DECLARED)
    (root / "docs" / "restricted" / "zephyr.md").rename(root / "docs" / "zephyr.md")
    ingest(app, root / "glossary.toml", root / "docs")
    (root / "docs" / "zephyr.md").unlink()
    (root / "docs" / "restricted" / "zephyr.md").write_text(
        SECRET_TEXT + "\nNow board only.\n", encoding="utf-8"
    )
    ingest(app, root / "docs")
    assert "handbook/zephyr.md" not in docs(app)
    assert SECRET not in ask(app, UNCLEARED)


def test_a_file_moved_out_of_restricted_becomes_public(tmp_path: Path, app: App) -> None:
    root = kb(tmp_path, DECLARED)
    ingest(app, root / "glossary.toml", root / "docs")
    (root / "docs" / "restricted" / "zephyr.md").rename(root / "docs" / "zephyr.md")
    ingest(app, root / "docs")
    assert docs(app) == {"handbook/supplier_portal.md": False, "handbook/zephyr.md": False}
    assert counts(app) == (2, 0)
    assert SECRET in ask(app, UNCLEARED)


def test_a_source_declared_restricted_later_reclassifies_its_documents(
    tmp_path: Path, app: App
) -> None:
    root = kb(tmp_path, DECLARED)
    ingest(app, root / "glossary.toml", root / "docs")
    assert docs(app)["handbook/supplier_portal.md"] is False
    (root / "glossary.toml").write_text(
        glossary_text(DECLARED + "restricted = true\n"), encoding="utf-8"
    )
    ingest(app, root / "glossary.toml", root / "docs")
    assert set(docs(app).values()) == {True}
    assert "Payment terms" not in ask(app, UNCLEARED, "When does the supplier portal open?")


# -- two folders, one data dir --------------------------------------------------------------


def two_folders(tmp_path: Path, sources: str) -> Path:
    root = kb(tmp_path, sources)
    (root / "docs2").mkdir()
    (root / "docs" / "china_revenue_2025.md").write_text(
        "# China\n\nFirst folder: footfall fell in Shanghai.\n", encoding="utf-8"
    )
    (root / "docs2" / "china_revenue_2025.md").write_text(
        "# China\n\nSecond folder: online grew in Beijing.\n", encoding="utf-8"
    )
    return root


@pytest.mark.parametrize(
    "sources",
    [DECLARED + '\n[[documents]]\nsource = "archive"\npath = "docs2"\n', ""],
    ids=["declared", "undeclared"],
)
def test_two_folders_keep_their_own_documents(tmp_path: Path, app: App, sources: str) -> None:
    root = two_folders(tmp_path, sources)
    ingest(app, root / "glossary.toml", root / "docs", root / "docs2")
    chunks = app.core.documents.chunks.all_chunks()
    texts = {c.doc: c.text for c in chunks if "china_revenue" in c.doc}
    assert len(texts) == 2
    assert any("Shanghai" in t for t in texts.values())
    assert any("Beijing" in t for t in texts.values())
    (root / "docs2" / "china_revenue_2025.md").unlink()
    ingest(app, root / "docs2", prune=True)  # prunes the second folder only
    left = [d for d in docs(app) if "china_revenue" in d]
    assert len(left) == 1
    assert any("Shanghai" in c.text for c in app.core.documents.chunks.all_chunks())
    assert len(docs(app)) == 3  # the first folder's three documents are all still there


def test_ingesting_docs_also_ingests_the_sources_declared_inside_it(
    tmp_path: Path, app: App
) -> None:
    root = kb(
        tmp_path,
        DECLARED + '\n[[documents]]\nsource = "board"\npath = "docs/board"\nrestricted = true\n',
    )
    (root / "docs" / "board").mkdir()
    (root / "docs" / "board" / "minutes.md").write_text(SECRET_TEXT, encoding="utf-8")
    ingest(app, root / "glossary.toml", root / "docs")
    assert docs(app) == {
        "handbook/supplier_portal.md": False,
        "handbook/restricted/zephyr.md": True,
        "board/minutes.md": True,
    }


# -- a data dir made before sources existed ------------------------------------------------

LEGACY_SCHEMA = """
CREATE TABLE documents (path VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, restricted BOOLEAN NOT
  NULL, ingested_at DATETIME NOT NULL, n_chunks INTEGER NOT NULL, PRIMARY KEY (path));
CREATE TABLE chunks (id VARCHAR NOT NULL, doc VARCHAR NOT NULL, ordinal INTEGER NOT NULL,
  locator VARCHAR NOT NULL, text TEXT NOT NULL, restricted BOOLEAN NOT NULL, metadata JSON NOT
  NULL, PRIMARY KEY (id), FOREIGN KEY(doc) REFERENCES documents (path) ON DELETE CASCADE);
CREATE INDEX ix_chunks_doc_ordinal ON chunks (doc, ordinal);
CREATE INDEX ix_chunks_restricted ON chunks (restricted);
"""


def test_a_data_dir_from_before_sources_is_adopted(tmp_path: Path) -> None:
    """The two document tables exactly as the previous release created them, with rows."""
    root = kb(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    db = sqlite3.connect(data / "ricorda.db")
    db.executescript(LEGACY_SCHEMA)
    db.execute(
        "INSERT INTO documents VALUES ('supplier_portal.md', ?, 0, '2026-01-01 00:00:00', 1)",
        (__import__("hashlib").sha256(PUBLIC_TEXT.encode()).hexdigest(),),
    )
    db.execute(
        "INSERT INTO chunks VALUES ('c1', 'supplier_portal.md', 0, 'section=Supplier portal', "
        "?, 0, '{}')",
        (PUBLIC_TEXT,),
    )
    db.commit()
    db.close()

    app = build_app(load_settings(data_dir=data, embedder="hashing"))
    try:
        notices = app.storage.notices
        assert notices and "1 documents" in notices[0] and "'default'" in notices[0]
        assert [(d.path, d.source) for d in app.core.documents.chunks.documents()] == [
            ("supplier_portal.md", "default")
        ]
        lines = ingest(app, root / "glossary.toml", root / "docs")
        assert lines[0].startswith("notice: 1 documents ingested before document sources")
        assert docs(app) == {"supplier_portal.md": False, "restricted/zephyr.md": True}
    finally:
        app.close()
    again = build_app(load_settings(data_dir=data, embedder="hashing"))
    try:
        assert again.storage.notices == []  # adopted once
        assert "supplier portal" in ask(again, UNCLEARED, "When does the supplier portal open?")
    finally:
        again.close()


# -- the [[documents]] declaration ------------------------------------------------------------


def test_documents_are_declared_relative_to_the_glossary_file(tmp_path: Path) -> None:
    path = tmp_path / "kb" / "glossary.toml"
    g = parse_glossary(glossary_text(DECLARED + 'restricted = false\n'), source=str(path))
    assert [(s.name, s.root, s.restricted) for s in g.documents] == [
        ("handbook", (tmp_path / "kb" / "docs").resolve(), False)
    ]


@pytest.mark.parametrize(
    ("body", "key", "problem"),
    [
        ('source = "a/b"\npath = "docs"', "documents[0].source", "letters, digits"),
        ('source = "a"', "documents[0].path", "must be a folder"),
        ('source = "a"\npath = "docs"\nrestricted = "yes"', "documents[0].restricted", "true"),
        ('source = "a"\npath = "docs"\nclassified = true', "documents[0].classified", "unknown"),
        ('source = "a"\npath = "docs"\n\n[[documents]]\nsource = "a"\npath = "x"',
         "documents[1].source", "declared twice"),
        ('source = "a"\npath = "docs"\n\n[[documents]]\nsource = "b"\npath = "./docs"',
         "documents[1].path", "already declared"),
    ],
)
def test_a_bad_declaration_names_file_line_and_key(body: str, key: str, problem: str) -> None:
    text = glossary_text("\n[[documents]]\n" + body + "\n")
    with pytest.raises(ConfigError) as err:
        parse_glossary(text, source="kb/glossary.toml")
    message = str(err.value)
    assert message.startswith("kb/glossary.toml, line ") and f"key '{key}'" in message
    assert problem in message
    line = int(message.split("line ")[1].split(",")[0])
    assert line > len(glossary_text().splitlines())  # points into the [[documents]] part


def test_a_glossary_that_reclassifies_a_source_reingests_it(tmp_path: Path, app: App) -> None:
    """Only the glossary is ingested: its source's documents follow at once."""
    root = kb(tmp_path, DECLARED)
    ingest(app, root / "glossary.toml", root / "docs")
    (root / "glossary.toml").write_text(
        glossary_text(DECLARED + "restricted = true\n"), encoding="utf-8"
    )
    lines = ingest(app, root / "glossary.toml")
    assert any("handbook: its classification changed; re-ingesting" in line for line in lines)
    assert set(docs(app).values()) == {True}
    assert counts(app) == (0, 2)
    assert "supplier portal" not in ask(app, UNCLEARED, "When does the supplier portal open?")


def test_a_reclassified_source_whose_folder_is_elsewhere_is_reclassified_in_place(
    tmp_path: Path, app: App
) -> None:
    root = kb(tmp_path, DECLARED)
    ingest(app, root / "glossary.toml", root / "docs")
    elsewhere = tmp_path / "elsewhere"  # the glossary moved to a machine without the folder
    elsewhere.mkdir()
    (elsewhere / "glossary.toml").write_text(
        glossary_text(DECLARED + "restricted = true\n"), encoding="utf-8"
    )
    lines = ingest(app, elsewhere / "glossary.toml")
    assert any("1 documents reclassified in place" in line for line in lines), lines  # public one
    assert set(docs(app).values()) == {True}
    assert counts(app) == (0, 1)  # its vectors dropped; the restricted one untouched
    assert "supplier portal" not in ask(app, UNCLEARED, "When does the supplier portal open?")
    assert "supplier portal" in ask(app, CLEARED, "When does the supplier portal open?")
