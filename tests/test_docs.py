"""The documentation: the README is a front door that renders on a package index, the
site builds with ``mkdocs build --strict``, every page is in its navigation, and the
generated references say what the code does."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from conftest import slow
from etwmc import __version__
from etwmc.cli import build_parser, main
from etwmc.codes import REGISTRY
from etwmc.commands import COMMANDS
from etwmc.config import KEY_HELP, LINT_KEY_HELP

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
HOOK = DOCS / "hooks" / "etwmc_site.py"

# The docs tools are the `docs` dependency group; CI installs it, so there a missing
# MkDocs fails instead of skipping.
needs_mkdocs = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None and not os.environ.get("CI"),
    reason="MkDocs is not installed (pip install --group docs)",
)


# --------------------------------------------------------------------------- the README


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def test_readme_starts_with_the_two_commands() -> None:
    blocks = re.findall(r"```sh\n(.*?)```", _readme(), re.S)
    first = blocks[0].strip().splitlines()
    assert "etwmc compile examples/" in first[0]
    assert "pytest" in first[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert first[1].strip() in ci
    # A fresh virtual environment's pip may predate dependency groups (pip 25.1).
    assert "pip install -q --upgrade 'pip>=25.1'" in first[1]
    assert "--group dev" in first[1] and "[dev]" not in first[1]


def test_readme_is_a_front_door() -> None:
    text = _readme()
    assert len(text.splitlines()) < 250
    assert "https://etwmc.github.io/etwmc/" in text
    assert "<!-- codes:start -->" not in text  # the code table lives in the site's rules


def test_readme_links_are_absolute() -> None:
    """The README is the package's long description: on a package index a relative link
    leads nowhere."""
    text = _readme()
    targets = re.findall(r"\]\(([^)\s]+)", text) + re.findall(r"<(https?://[^>]+)>", text)
    targets += re.findall(r'(?:href|src)="([^"]+)"', text)
    assert targets
    relative = [t for t in targets if not t.startswith("https://")]
    assert relative == []


def test_commands_in_the_table_exist() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in re.findall(r"^\| `etwmc (\w+)", _readme(), re.M):
        assert name in sub.choices, name  # type: ignore[operator]


# --------------------------------------------------------------------------- pre-commit


def _documented_revs() -> dict[str, list[str]]:
    files = [README, ROOT / ".pre-commit-hooks.yaml", *sorted(DOCS.glob("*.md"))]
    found = {}
    for f in files:
        revs = re.findall(r"^\W*rev:\s*(\S+)", f.read_text(encoding="utf-8"), re.M)
        if revs:
            found[f.name] = revs
    return found


def test_pre_commit_docs_name_a_revision_that_exists() -> None:
    """pre-commit checks out ``rev``: the documentation may not show a tag the repository
    does not have.  Until a release is tagged it shows ``main``, which ``pre-commit
    autoupdate`` (the command it gives) replaces with the newest commit's SHA."""
    import subprocess

    revs = _documented_revs()
    assert "integration.md" in revs and "linting.md" in revs
    try:
        tags = set(
            subprocess.run(
                ["git", "tag", "--list"], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout.split()
        )
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    for page, rs in revs.items():
        for rev in rs:
            assert rev == "main" or rev in tags or re.fullmatch(r"[0-9a-f]{40}", rev), (page, rev)
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "git tag -a v" in contributing
    integration = (DOCS / "integration.md").read_text(encoding="utf-8")
    assert "pre-commit autoupdate --repo https://github.com/etwmc/etwmc" in integration
    assert "git ls-remote" in integration


def test_documented_hooks_exist() -> None:
    declared = set(re.findall(r"^- id: (\S+)", (ROOT / ".pre-commit-hooks.yaml").read_text(), re.M))
    for page in ("integration.md", "linting.md"):
        shown = re.findall(r"- id: (\S+)", (DOCS / page).read_text(encoding="utf-8"))
        assert shown and set(shown) <= declared, page


# --------------------------------------------------------------------------- the navigation


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [p for item in nav for p in _nav_pages(item)]
    if isinstance(nav, dict):
        return [p for value in nav.values() for p in _nav_pages(value)]
    return []


@needs_mkdocs
def test_every_docs_page_is_in_the_nav() -> None:
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = set(_nav_pages(config["nav"]))
    pages = {
        p.relative_to(DOCS).as_posix()
        for p in DOCS.rglob("*.md")
        if not p.relative_to(DOCS).as_posix().startswith("hooks/")
    }
    outside = sorted(pages - nav)
    assert outside == [], f"add these pages to the nav in mkdocs.yml: {outside}"
    assert config["site_url"] == "https://etwmc.github.io/etwmc/"


# --------------------------------------------------------------------------- the site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def _page(site: Path, name: str) -> str:
    return (site / name / "index.html").read_text(encoding="utf-8")


@slow
@needs_mkdocs
def test_every_code_has_its_page(site: Path) -> None:
    index = _page(site, "rules")
    for code in REGISTRY.values():
        page = _page(site, f"rules/{code.id}")
        assert code.id in page
        assert f'href="{code.id}/"' in index, code.id


def _help(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue()


@slow
@needs_mkdocs
def test_the_command_reference_lists_every_option(site: Path) -> None:
    reference = _page(site, "cli")
    for command in COMMANDS:
        assert f"etwmc {command.name}" in reference
        if command.raw:
            continue
        # The option lines of the help: "  -o, --output-dir DIR  output folder".
        heads = re.findall(r"^  (-\S.*?)(?:  |$)", _help([command.name, "--help"]), re.M)
        options = {o for head in heads for o in re.findall(r"(?<![\w-])--?[\w-]+", head)}
        options -= {"-h", "--help"}  # every command's, said once on the page
        assert options
        for option in options:
            assert f"<code>{option}</code>" in reference, (command.name, option)


@slow
@needs_mkdocs
def test_the_configuration_reference_lists_every_key(site: Path) -> None:
    page = _page(site, "configuration")
    for key in [*KEY_HELP, *LINT_KEY_HELP]:
        assert f"<td><code>{key}</code></td>" in page, key
    assert "did you mean" in page


@slow
@needs_mkdocs
def test_the_changelog_and_contributing_notes_are_pages(site: Path) -> None:
    assert f"releases/tag/v{__version__}" in _page(site, "changelog")
    assert 'id="releasing"' in _page(site, "contributing")


# --------------------------------------------------------------------------- the hook


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("etwmc_site", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_mkdocs
def test_a_rule_page_is_the_written_explanation_when_there_is_one(tmp_path: Path) -> None:
    hook = _hook()
    (tmp_path / "ETW401.md").write_text("# ETW401: undefined level\n\nWhy it matters.\n")
    (tmp_path / "ETW402.md").write_text("What it does, without a title.\n")
    assert hook.rule_page("ETW401", tmp_path) == "# ETW401: undefined level\n\nWhy it matters.\n"
    assert hook.rule_page("ETW402", tmp_path).startswith("# ETW402: an event references")
    (tmp_path / "ETW140.md").write_text("# ETW140: not inside <maps>\n\nPut it in `<maps>`.\n")
    assert hook.rule_page("ETW140", tmp_path) == (  # a title names an element, not HTML
        "# ETW140: not inside &lt;maps>\n\nPut it in `<maps>`.\n"
    )
    stub = hook.rule_page("ETW403", tmp_path)  # no page written: the registry's entry
    assert stub.startswith("# ETW403: ") and "**Severity:** error" in stub
    assert "ignore[ETW403]" in stub
