"""The package passes its own quality bars: mypy --strict and ruff (lint and format).

The tools keep their caches out of the checkout: a run of the suite neither reads what
an earlier run (or a developer's own mypy) left there nor writes to it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import slow

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    path = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def _run(*cmd: str) -> None:
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@slow
def test_mypy_strict(tmp_path: Path) -> None:
    # configuration (strict, files) in pyproject.toml
    _run(_tool("mypy"), "--cache-dir", str(tmp_path / "mypy-cache"))


def test_ruff_lint() -> None:
    _run(_tool("ruff"), "check", "--no-cache", "etwmc", "tests", "bench", "docs/hooks")


def test_ruff_format() -> None:
    _run(_tool("ruff"), "format", "--check", "--no-cache", "etwmc", "tests", "bench", "docs/hooks")
