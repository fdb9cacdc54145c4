"""The layer rules, kept true by reading every module's imports (function-level and relative
ones too; `if TYPE_CHECKING:` blocks are not imports at run time and are left out):

- core is platform-neutral: it imports no SDK, no database library, and nothing from storage,
  adapters or bot;
- adapters translate between a platform and core: they import no storage and nothing from bot;
- storage implements core's ports: it imports nothing from adapters or bot;
- no module imports itself back through others (no import cycles);
- bot/ is in rooms by kind, and a room imports only the rooms below it (ROOMS): settings, then
  models, then wiring, then kb, then serve (which may run an ingest), then cli, then the entry
  points (bot.entry, bot.__main__).

And the ground floor, read with the `if TYPE_CHECKING:` imports too (a type checker, and a
reader, follows them):
- `core.contracts` (types, records, ports, errors) imports no other core module: only the
  standard library, and numpy for type hints;
- storage imports, of core, only `core.contracts` and the PURE algorithms it needs, each of which
  imports only contracts, the standard library and numpy;
- no import cycle, not even one closed by a type-only import.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "adapters", "storage", "bot")
# what a platform-neutral core must not depend on: platforms, databases, models, web, CLI
SDKS = {
    "telegram", "slack_bolt", "slack_sdk", "chromadb", "FlagEmbedding", "torch", "transformers",
    "llama_cpp", "sqlalchemy", "sqlmodel", "alembic", "psycopg", "aiohttp", "httpx", "openai",
    "prometheus_client", "typer", "rich", "pydantic", "pydantic_settings",
}  # fmt: skip
FORBIDDEN = {
    "core": {"storage", "adapters", "bot"} | SDKS,
    "adapters": {"storage", "bot"},
    "storage": {"adapters", "bot"},
}


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            if "versions" in path.parts:  # Alembic revisions: generated, loaded by Alembic
                continue
            name = ".".join(path.relative_to(REPO).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    """`if TYPE_CHECKING:` / `if typing.TYPE_CHECKING:` (not `if not TYPE_CHECKING:`)."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_in(
    source: str, module: str, *, package: bool = False, type_checking: bool = False
) -> set[str]:
    """Every module name `module` imports at run time, at any depth of its source: top level,
    inside functions and methods (lazy imports run too, just later), relative ones resolved.
    Only the body of an `if TYPE_CHECKING:` block is left out (its `else:` runs), unless
    `type_checking`: then those imports count too (a type checker follows them)."""
    tree = ast.parse(source)
    type_only = set() if type_checking else {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and _is_type_checking(block.test)
        for stmt in block.body
        for node in ast.walk(stmt)
    }
    here = module.split(".") if package else module.split(".")[:-1]
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # `from . import x`, `from ..storage import y`
                base = here[: len(here) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            names.add(origin)
            names |= {f"{origin}.{alias.name}" for alias in node.names}
    return names


def _imports(name: str, path: Path, *, type_checking: bool = False) -> set[str]:
    return imports_in(
        path.read_text(encoding="utf-8"), name, package=path.name == "__init__.py",
        type_checking=type_checking,
    )


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan): each is a cycle."""
    edges = {
        name: {m for m in imported if m in graph and m != name}
        for name, imported in graph.items()
    }
    cycles: list[list[str]] = []
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for name in sorted(edges):
        if name not in index:
            visit(name)
    return cycles


MODULES = _modules()
GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}
# the same, with the imports under `if TYPE_CHECKING:`: what a reader and a type checker follow
TYPED_GRAPH = {name: _imports(name, path, type_checking=True) for name, path in MODULES.items()}


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_only_what_its_rule_allows(layer: str) -> None:
    broken = sorted(
        f"{name} imports {imported}"
        for name, imported_names in GRAPH.items()
        if name.split(".")[0] == layer
        for imported in imported_names
        if imported.split(".")[0] in FORBIDDEN[layer]
    )
    assert broken == []


def test_no_import_cycles() -> None:
    assert import_cycles(GRAPH) == []


def test_the_rules_see_real_imports() -> None:
    """The reader is not blind: a known import of each layer is found."""
    assert "core.planning.answering" in GRAPH["core.pipeline.pipeline"]
    assert "storage.engine" in GRAPH["storage.db"]
    assert "telegram" in {m.split(".")[0] for m in GRAPH["adapters.telegram.application"]}
    # imported inside a method only
    assert "bot.wiring.maintenance" in GRAPH["bot.wiring.core_services"]


def test_a_lazy_import_closing_a_loop_is_a_cycle() -> None:
    """The reader sees imports inside functions and methods, and relative ones: a module
    importing another lazily, to dodge an import-time cycle, still closes the loop."""
    graph = {
        "bot.cli.commands": imports_in(
            "from bot.cli.maintenance import register\n", "bot.cli.commands"
        ),
        "bot.cli.maintenance": imports_in(
            "class C:\n    def run(self):\n        if True:\n            from . import commands\n",
            "bot.cli.maintenance",
        ),
    }
    assert import_cycles(graph) == [["bot.cli.commands", "bot.cli.maintenance"]]


def test_type_checking_imports_are_not_run_time_edges() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from bot.wiring.build import App\n"
        "if not TYPE_CHECKING:\n    from bot.wiring.metrics import Metrics\n"
    )
    found = imports_in(source, "bot.serve.health")
    assert "bot.wiring.build" not in found and "bot.wiring.metrics" in found


def test_relative_imports_are_resolved() -> None:
    assert "storage.tables" in imports_in("from .tables import X\n", "storage.fact_store")
    assert "storage.tables" in imports_in("from . import tables\n", "storage", package=True)
    assert "core.contracts.types" in imports_in(
        "from ..core.contracts import types\n", "storage.fact_store"
    )


# -- core's layout: subpackages by idea -------------------------------------------------------

# the vocabulary of all (the floor is core/contracts/): language detection, and the fiscal
# calendar every part labels and bounds periods with
SHARED_CORE = {"language", "fiscal_calendar"}


def test_core_is_grouped_into_subpackages_each_naming_its_modules() -> None:
    """Besides the few modules every part shares, core's modules live in subpackages, and each
    subpackage's `__all__` names exactly the modules it holds (none imported on import), so a
    new module lands in the idea it belongs to and the listing stays true."""
    core = REPO / "core"
    flat = {p.stem for p in core.glob("*.py")} - {"__init__"}
    assert flat == SHARED_CORE, f"put {sorted(flat - SHARED_CORE)} in a subpackage"
    packages = [p for p in core.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    assert len(packages) >= 6
    for package in packages:
        init = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
        assert ast.get_docstring(init), f"{package.name} says what it is for"
        declared = next(
            ast.literal_eval(node.value) for node in init.body
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets))
        held = sorted(p.stem for p in package.glob("*.py") if p.stem != "__init__")
        assert sorted(declared) == held, package.name
        assert not any(isinstance(n, ast.Import | ast.ImportFrom) for n in init.body), package


def _core_package(module: str) -> str | None:
    """`core.figures.render` -> "figures"; a shared module (`core.language`) is its own."""
    parts = module.split(".")
    return parts[1] if parts[0] == "core" and len(parts) > 1 else None


def _package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    packages: dict[str, set[str]] = {}
    for name, imported in graph.items():
        if (here := _core_package(name)) is None:
            continue
        packages.setdefault(here, set())
        packages[here] |= {
            there for m in imported
            if (there := _core_package(m)) is not None and there != here
        }
    return packages


def test_no_loops_between_core_subpackages_type_only_imports_included() -> None:
    """Core's subpackages stand on floors: an answer's pipeline above the plan cache and the
    planner, and so down to the contracts. Two subpackages importing each other, even through
    others or by a type-only import, is a loop."""
    packages = _package_graph(TYPED_GRAPH)
    assert {"pipeline", "fastpath", "planning", "chat", "contracts"} <= set(packages)
    assert import_cycles(packages) == []


def test_the_package_rule_sees_a_loop() -> None:
    graph = {"core.a.x": {"core.b.y"}, "core.b.y": {"core.c.z"}, "core.c.z": {"core.a.x.F"},
             "core.a.x.F": set()}
    assert import_cycles(_package_graph(graph)) == [["a", "b", "c"]]


# what adapters may use of core (docs/architecture.md): the chat flows, the sentences and
# presentation, the contracts, and the shared vocabulary
ADAPTERS_USE = {"chat", "catalog", "contracts", "language"}


def test_adapters_use_only_the_documented_core_modules() -> None:
    broken = sorted(
        f"{name} imports {imported}"
        for name, imported_names in TYPED_GRAPH.items()
        if name.split(".")[0] == "adapters"
        for imported in imported_names
        if (package := _core_package(imported)) is not None
        and package not in ADAPTERS_USE
    )
    assert broken == []


# -- bot's rooms: subpackages by kind, imports pointing down ---------------------------------

# each room, with the rooms it may import (its own always): the composition root's direction
ROOMS: dict[str, set[str]] = {
    "settings": set(),  # what the deployer sets: imports no other room
    "models": {"settings"},  # embedders and chat models, chosen by the settings
    "wiring": {"settings", "models"},  # settings -> storage -> core -> adapters, the builder
    "kb": {"settings", "models", "wiring"},  # knowledge-base tools: no serving
    "serve": {"settings", "models", "wiring", "kb"},  # `ricorda serve`: refreshes by an ingest
    "cli": {"settings", "models", "wiring", "kb", "serve"},  # the typer commands
}
BOT_TOP = {"__main__", "entry"}  # the entry points, above every room
BOT_DATA = {"demo"}  # the demo knowledge base: data, no modules


def _room(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "bot" and len(parts) > 1 and parts[1] in ROOMS else None


def test_bot_is_in_rooms_each_naming_its_modules() -> None:
    """bot/ holds its entry points and its rooms; every other module lives in the room of its
    kind, and each room's `__all__` names exactly its modules (none imported on import)."""
    bot = REPO / "bot"
    flat = {p.stem for p in bot.glob("*.py")} - {"__init__"}
    assert flat == BOT_TOP, f"put {sorted(flat - BOT_TOP)} in a room of bot/ ({sorted(ROOMS)})"
    folders = {p.name for p in bot.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(ROOMS) | BOT_DATA, "a new room of bot/ is declared in ROOMS"
    for room in ROOMS:
        init = ast.parse((bot / room / "__init__.py").read_text(encoding="utf-8"))
        assert ast.get_docstring(init), f"bot/{room} says what it is for"
        declared = next(
            ast.literal_eval(node.value) for node in init.body
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets))
        held = sorted(p.stem for p in (bot / room).glob("*.py") if p.stem != "__init__")
        assert sorted(declared) == held, room
        assert not any(isinstance(n, ast.Import | ast.ImportFrom) for n in init.body), room


def test_a_room_imports_only_the_rooms_below_it() -> None:
    """Type-only imports count: a reader follows them too. The entry points may use any room."""
    def forbidden(room: str, imported: str) -> bool:
        if imported.split(".")[:2] in (["bot", "entry"], ["bot", "__main__"]):
            return True
        other = _room(imported)
        return other is not None and other != room and other not in ROOMS[room]

    broken = sorted(
        f"{name} imports {imported}"
        for name, imported_names in TYPED_GRAPH.items()
        if (room := _room(name))
        for imported in imported_names
        if forbidden(room, imported)
    )
    assert broken == []


def test_the_room_rule_sees_real_imports() -> None:
    assert "bot.models.embedders" in GRAPH["bot.wiring.document_services"]
    assert "bot.wiring.build" in GRAPH["bot.kb.ingest"]
    assert "bot.serve.run" in GRAPH["bot.cli.commands"]  # imported inside a command only


# -- the ground floor: core.contracts, and the pure algorithms storage may use -----------------

CONTRACTS = "core.contracts"
# Algorithms storage runs itself, declared here: each is a pure function of its inputs (no
# store, no clock, no model) and imports only contracts, the standard library, numpy and the
# pure libraries named with it, so storage reaching for one does not pull core's logic under it.
PURE = {
    "core.fastpath.cosine_index": set(),  # the L0 nearest-neighbour index the fast-path store keeps
    "core.documents.lexical": {"jieba"},  # the BM25 index the lexical snapshot saves and loads;
    # jieba segments Chinese words (a pure tokenizer, imported on the first Chinese text)
    "core.documents.chunking": set(),  # paragraph splitting for the document readers
    "core.knowledge.unit_kinds": set(),  # unit conversion for fact files in declared units
    "core.knowledge.wide_tables": set(),  # a report table's cells read as fact rows
}
ALLOWED_THIRD_PARTY = {"numpy"}
# Type-only circles not yet broken, each named with what breaks it; the list only shrinks.
KNOWN_TYPED_CYCLES: list[list[str]] = []  # none: keep it that way


def _module_of(name: str) -> str:
    """The module an imported name lives in: `core.contracts.ports.Chunk` -> its module."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _core_and_foreign(name: str) -> tuple[set[str], set[str]]:
    """The core modules `name` imports (type-only included), and the third-party packages."""
    imported = {_module_of(m) for m in TYPED_GRAPH[name]}
    core = {m for m in imported if m.split(".")[0] == "core" and m != name}
    foreign = {
        m.split(".")[0] for m in imported
        if m.split(".")[0] not in PACKAGES and m.split(".")[0] not in sys.stdlib_module_names
        and m != "__future__"
    }
    return core, foreign


def _is_contract(module: str) -> bool:
    return module == CONTRACTS or module.startswith(CONTRACTS + ".")


def test_contracts_import_no_other_core_module() -> None:
    contracts = [name for name in MODULES if _is_contract(name)]
    assert len(contracts) >= 5
    broken = []
    for name in contracts:
        core, foreign = _core_and_foreign(name)
        broken += [f"{name} imports {m}" for m in sorted(core) if not _is_contract(m)]
        broken += [f"{name} imports {m}" for m in sorted(foreign - ALLOWED_THIRD_PARTY)]
        run_time = {m.split(".")[0] for m in GRAPH[name]} & ALLOWED_THIRD_PARTY
        broken += [f"{name} imports {m} at run time" for m in sorted(run_time)]
    assert broken == []


def test_storage_imports_only_contracts_and_pure_algorithms() -> None:
    broken = sorted(
        f"{name} imports {m}"
        for name in MODULES if name.split(".")[0] == "storage"
        for m in _core_and_foreign(name)[0]
        if not _is_contract(m) and m not in PURE
    )
    assert broken == []


@pytest.mark.parametrize("module", sorted(PURE))
def test_pure_algorithms_import_only_contracts_stdlib_and_numpy(module: str) -> None:
    assert module in MODULES, f"{module} is declared PURE but does not exist"
    core, foreign = _core_and_foreign(module)
    assert sorted(m for m in core if not _is_contract(m)) == []
    assert foreign <= ALLOWED_THIRD_PARTY | PURE[module]


def test_no_import_cycles_type_only_imports_included() -> None:
    assert import_cycles(TYPED_GRAPH) == KNOWN_TYPED_CYCLES


def test_type_only_imports_close_cycles_in_the_typed_graph() -> None:
    """The circle issue 27 found: a port naming a record of a logic module that imports the
    port. Invisible at run time, a cycle once type-only imports count."""
    ports = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from core.b import R\n"
    logic = "from core.a import Port\n"
    typed = {
        "core.a": imports_in(ports, "core.a", type_checking=True),
        "core.b": imports_in(logic, "core.b", type_checking=True),
    }
    run_time = {"core.a": imports_in(ports, "core.a"), "core.b": imports_in(logic, "core.b")}
    assert import_cycles(run_time) == []
    assert import_cycles(typed) == [["core.a", "core.b"]]
