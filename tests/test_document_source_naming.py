"""Which source a folder named to `ricorda ingest` belongs to (core.knowledge.document_sources):
the policy alone, without a database or an embedder. What a chat is then shown is tested end
to end in tests/test_document_sources.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.contracts.documents import DocumentSource
from core.contracts.errors import IngestError
from core.knowledge.document_sources import source_of_folder, sources_to_ingest, undeclared_source


def folder(tmp_path: Path, *parts: str) -> Path:
    path = tmp_path.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_the_first_undeclared_folder_is_the_default_source(tmp_path: Path) -> None:
    docs = folder(tmp_path, "docs")
    assert undeclared_source(docs, []) == DocumentSource("default", docs.resolve(), False, False)


def test_a_second_undeclared_folder_is_named_after_itself_and_made_unique(tmp_path: Path) -> None:
    first = DocumentSource("default", folder(tmp_path, "a").resolve(), False, False)
    handbook = DocumentSource("hand-book", folder(tmp_path, "x", "hand-book").resolve(), False,
                              False)
    other = folder(tmp_path, "y", "hand book")  # spaces are not kept in a name
    assert undeclared_source(other, [first, handbook]).name == "hand-book-2"


def test_a_folder_inside_a_known_undeclared_source_joins_it(tmp_path: Path) -> None:
    docs = DocumentSource("default", folder(tmp_path, "docs").resolve(), False, False)
    inner = folder(tmp_path, "docs", "team")
    assert undeclared_source(inner, [docs]).name == "default"


def test_restricted_follows_the_resolved_path_not_the_spelling(tmp_path: Path) -> None:
    secret = folder(tmp_path, "restricted", "plans")
    link = tmp_path / "plans-link"
    link.symlink_to(secret, target_is_directory=True)
    assert undeclared_source(link, []).restricted  # named through a link, still restricted
    assert not undeclared_source(folder(tmp_path, "public"), []).restricted


def test_adoption_leaves_default_free_until_a_folder_claims_it(tmp_path: Path) -> None:
    adopted = DocumentSource("default", Path(""), False, False)  # from before sources existed
    docs = folder(tmp_path, "docs")
    assert undeclared_source(docs, [adopted]).name == "default"


def test_declared_sources_decide_alone(tmp_path: Path) -> None:
    handbook = DocumentSource("handbook", folder(tmp_path, "kb").resolve(), False)
    legal = DocumentSource("legal", folder(tmp_path, "kb", "legal").resolve(), True)
    source, nested = source_of_folder(tmp_path / "kb", [handbook, legal], [])
    assert source is handbook and nested == {legal.root}
    assert sources_to_ingest(tmp_path / "kb", [handbook, legal], []) == [
        (tmp_path / "kb", handbook), (legal.root, legal)]
    with pytest.raises(IngestError, match="not inside any document source"):
        source_of_folder(folder(tmp_path, "elsewhere"), [handbook, legal], [])


def test_a_file_is_not_a_folder(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# notes\n", encoding="utf-8")
    with pytest.raises(IngestError, match="not a folder"):
        source_of_folder(path, [], [])
