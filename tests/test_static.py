"""The package passes its own quality bars: mypy --strict and ruff (lint and format)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    path = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def _run(*cmd: str) -> None:
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict() -> None:
    _run(_tool("mypy"))  # configuration (strict, files) in pyproject.toml


def test_ruff_lint() -> None:
    _run(_tool("ruff"), "check", "etwmc", "tests", "bench", "docs/hooks")


def test_ruff_format() -> None:
    _run(_tool("ruff"), "format", "--check", "etwmc", "tests", "bench", "docs/hooks")
