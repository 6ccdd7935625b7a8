"""What the wheel tells a package index and pip: one version, the project's URLs,
classifiers a package index accepts, no published development extra, no exact pin in
what users install, the typing marker, a long description without relative links; and
the changelog kept in Keep a Changelog's shape."""

from __future__ import annotations

import email
import email.message
import re
import tomllib
import zipfile
from pathlib import Path

import pytest

from etwmc import __version__
from etwmc.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOCS_URL = "https://etwmc.github.io/etwmc/"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def wheel(etwmc_wheel: Path) -> zipfile.ZipFile:
    return zipfile.ZipFile(etwmc_wheel)


@pytest.fixture(scope="module")
def metadata(wheel: zipfile.ZipFile) -> email.message.Message:
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return email.message_from_bytes(wheel.read(name))


def test_the_version_is_kept_once(metadata: email.message.Message) -> None:
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "etwmc/__init__.py"
    assert metadata["Version"] == __version__


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"etwmc {__version__}\n"


def test_a_generated_module_names_the_version(tmp_path: Path) -> None:
    assert main(["compile", str(ROOT / "examples" / "hello.man"), "-o", str(tmp_path)]) == 0
    header = (tmp_path / "hello.py").read_text(encoding="utf-8").splitlines()[0]
    assert f"etwmc {__version__}" in header


def test_project_urls(metadata: email.message.Message) -> None:
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL", []))
    assert urls["Homepage"] == urls["Repository"] == "https://github.com/etwmc/etwmc"
    assert urls["Documentation"] == DOCS_URL
    assert urls["Changelog"] == "https://github.com/etwmc/etwmc/blob/main/CHANGELOG.md"


def test_classifiers(metadata: email.message.Message, wheel: zipfile.ZipFile) -> None:
    from trove_classifiers import classifiers as known

    found = metadata.get_all("Classifier", [])
    assert set(found) <= known
    versions = {c.rsplit(" :: ", 1)[1] for c in found if re.fullmatch(r".*:: 3\.\d+", c)}
    assert versions == {"3.11", "3.12", "3.13"}
    assert metadata["Requires-Python"] == ">=3.11"
    assert any(c.startswith("Development Status :: ") for c in found)
    assert "Typing :: Typed" in found and "etwmc/py.typed" in wheel.namelist()
    # The licence is the SPDX expression; a package index refuses a licence classifier
    # beside one.
    assert metadata["License-Expression"] == "MIT"
    assert not [c for c in found if c.startswith("License ::")]


def test_no_development_extra_and_no_exact_pin(metadata: email.message.Message) -> None:
    # What users install: the compiler, and the language server for editors.
    assert sorted(metadata.get_all("Provides-Extra")) == ["compiler", "lsp"]
    from packaging.requirements import Requirement

    requirements = [Requirement(r) for r in metadata.get_all("Requires-Dist", [])]
    pinned = [r for r in requirements for s in r.specifier if s.operator in ("==", "===")]
    assert requirements and pinned == []
    groups = PYPROJECT["dependency-groups"]
    assert {"include-group": "docs"} in groups["dev"]
    assert any(r.startswith("mkdocs") for r in groups["docs"])


def test_the_long_description_has_no_relative_link(metadata: email.message.Message) -> None:
    assert metadata["Description-Content-Type"] == "text/markdown"
    text = metadata.get_payload()
    assert isinstance(text, str) and "# etwmc" in text
    targets = re.findall(r"\]\(([^)\s]+)", text) + re.findall(r'(?:href|src)="([^"]+)"', text)
    assert targets and all(t.startswith("https://") for t in targets)


def test_the_changelog_has_this_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    headings = re.findall(r"^## (.*)$", text, re.M)
    assert headings
    for heading in headings:
        assert re.fullmatch(
            r"\[Unreleased\]|\[\d+\.\d+\.\d+\] - (\d{4}-\d{2}-\d{2}|Unreleased)", heading
        ), heading
    assert any(h.startswith(f"[{__version__}] - ") for h in headings)
    for section in re.findall(r"^### (.*)$", text, re.M):
        assert section in {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    versions = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", text, re.M)
    for version in versions:
        assert f"[{version}]: https://github.com/etwmc/etwmc/" in text, version
