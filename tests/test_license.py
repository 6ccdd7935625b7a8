"""The LICENSE file says what pyproject.toml declares."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_license_file_matches_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert project["license"] == "MIT"
    assert text.startswith("MIT License\n")
    (author,) = project["authors"]
    holder = text.splitlines()[2]
    assert holder.startswith("Copyright (c) ") and holder.endswith(" " + author["name"])
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
