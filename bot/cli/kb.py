"""`ricorda init`, `ricorda check` and `ricorda kb`: start, validate and inspect a knowledge base.

Registered on the main CLI by `register(app)` (bot.cli.commands). `init` and `check` read files only
(no data dir is opened); `kb` reads the loaded knowledge base.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from bot.cli.output import fail, safe


def register(app: typer.Typer) -> None:
    app.command("init")(init)
    app.command("check")(check)
    app.command("kb")(kb)


def init(
    facts: Annotated[Path, typer.Argument(
        help="The fact table (.csv or .xlsx), long or a report table as it is.")],
    docs: Annotated[
        Path | None, typer.Argument(help="A folder of documents, declared as a source.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write the glossary here, not to stdout.")
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite --out if it exists.")] = False,
) -> None:
    """Write a starter glossary from the codes a fact file uses: metrics with their units,
    entities, channels, the fiscal year end and the document folder, with "TODO" names to fill
    in. It ingests as it is; `ricorda check` lists what is left to fill in."""
    from bot.kb.init import starter_glossary
    from core.contracts.errors import RicordaError

    if facts.suffix.lower() not in (".csv", ".xlsx"):
        fail(f"{facts}: not a fact table; give a .csv or .xlsx file", code=2)
    if not facts.is_file():
        fail(f"{facts}: no such file", code=2)
    if docs is not None and not docs.is_dir():
        fail(f"{docs}: not a folder of documents", code=2)
    if out is not None and out.exists() and not force:
        fail(f"{out} already exists: give --force to overwrite it, or another --out", code=2)
    try:
        text = starter_glossary(facts, docs, out=out)
    except RicordaError as exc:
        fail(str(exc))
        return
    if out is None:
        typer.echo(text, nl=False)
        return
    out.write_text(text, encoding="utf-8")
    given = "" if "[[facts]]" in text else f" {facts}"  # a report table is declared in it
    typer.echo(f"wrote {out}: fill in the TODO names, then `ricorda check {out}{given}`",
               err=True)


def check(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="glossary.toml, fact tables and document folders (default: "
                       "./glossary.toml and the .csv/.xlsx files beside it)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Validate a glossary, fact tables and documents without loading or writing anything.
    Exit 0 when they would ingest cleanly, 1 when there are errors (each with file:line and
    the fix)."""
    from bot.kb.check import run_checks
    from core.contracts.errors import RicordaError

    try:
        result = run_checks(list(paths or []))
    except RicordaError as exc:
        fail(str(exc), code=2)
        return
    if as_json:
        typer.echo(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        typer.echo(safe(result.text()))
    if result.errors:
        raise typer.Exit(1)


def kb(
    ctx: typer.Context,
    chat: Annotated[
        str | None,
        typer.Option("--chat", help="Show what this chat is cleared to see (default: a chat "
                     "that is not cleared: no restricted entity or source)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print it as JSON.")] = False,
) -> None:
    """Show what is loaded: metrics with the entities and periods that have figures, derived
    metrics, entities, channels and document sources with their classification and counts."""
    from bot.cli.output import open_app_or_exit
    from bot.kb.show import kb_summary, kb_text
    from core.contracts.errors import RicordaError

    app_ = open_app_or_exit(ctx)
    try:
        glossary = app_.core.glossary
        cleared = chat is not None and glossary.is_cleared(chat)
        chunks = app_.core.documents.chunks
        summary = kb_summary(glossary, app_.storage.facts.all_facts(), chunks.documents(),
                             chunks.sources(), cleared=cleared)
    except RicordaError as exc:
        fail(str(exc))
        return
    finally:
        app_.close()
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False))
    else:
        typer.echo(safe(kb_text(summary)))
