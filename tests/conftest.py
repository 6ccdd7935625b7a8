"""Shared test helpers: where the real-manifest corpus and the mc.exe goldens live."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
GOLDEN = SHARED / "golden"


def corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(
        p for p in CORPUS.iterdir() if p.suffix in (".man", ".xml", ".manifest") and p.is_file()
    )


def expected_failures() -> set[str]:
    f = CORPUS / "expected-failures.txt"
    if not f.is_file():
        return set()
    return {line.strip() for line in f.read_text().splitlines() if line.strip()}


def require_shared() -> None:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present next to this checkout")
