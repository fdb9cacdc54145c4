"""The layer rules, kept true by reading every module's imports (function-level ones too;
`if TYPE_CHECKING:` blocks are not imports at run time and are left out):

- core is platform-neutral: it imports no SDK, no database library, and nothing from storage,
  adapters or bot;
- adapters translate between a platform and core: they import no storage and nothing from bot;
- storage implements core's ports: it imports nothing from adapters or bot;
- no module imports itself back through others (no import cycles).
"""

from __future__ import annotations

import ast
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


def _imports(path: Path) -> set[str]:
    """Every module name imported at run time, at any depth of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for stmt in block.body
        for node in ast.walk(stmt)
    }
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


MODULES = _modules()
GRAPH = {name: _imports(path) for name, path in MODULES.items()}


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
    edges = {
        name: {m for m in imported if m in MODULES and m != name}
        for name, imported in GRAPH.items()
    }
    cycles: list[list[str]] = []
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges[node]:
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
    assert cycles == []


def test_the_rules_see_real_imports() -> None:
    """The reader is not blind: a known import of each layer is found."""
    assert "core.answering" in GRAPH["core.cascade"]
    assert "storage.engine" in GRAPH["storage.db"]
    assert "telegram" in {m.split(".")[0] for m in GRAPH["adapters.telegram.application"]}
