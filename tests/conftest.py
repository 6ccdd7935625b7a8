"""Shared test helpers: where the real-manifest corpus and the mc.exe goldens live, the
``slow`` cases of sweeps over files, and setup that several test modules share (built
once per session, read only)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from mingw_helpers import Prefixes

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
GOLDEN = SHARED / "golden"

slow = pytest.mark.slow

# Hypothesis's deadline is wall time per example: on a loaded machine (the suite's own
# workers under -n, or other jobs) it fails an example that did no more work than usual.
# A test that bounds work asserts it in CPU time (test_wevt_fuzz.py, test_parse.py).
settings.register_profile("etwmc", deadline=None)
settings.load_profile("etwmc")

# A case of a sweep over manifests is slow above this size: the cost of a case follows the
# size of its manifest (the corpus's largest, 850 KB, costs one to two CPU seconds in a
# round trip; most are under 60 KB and cost milliseconds).
LARGE_MANIFEST = 100_000
# Traces: one of the shared traces is 4.4 MB, every other 400 KB or less.
LARGE_TRACE = 1_000_000


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


def sized_cases(
    paths: Iterable[Path],
    *,
    limit: int = LARGE_MANIFEST,
    ids: Callable[[Path], str] = lambda p: p.name,
    value: Callable[[Path], object] = lambda p: p,
) -> list[Any]:
    """The cases of a sweep over files (``value`` of each path, named by ``ids``), those
    larger than ``limit`` bytes marked slow: the fast subset keeps every small file of the
    sweep, the full suite runs them all."""
    return [
        pytest.param(
            value(p),
            id=ids(p),
            marks=[slow] if p.is_file() and p.stat().st_size > limit else [],
        )
        for p in paths
    ]


# Per test module (its path): how many tests were collected, and how many of them are slow,
# before `-m` deselects any (tests/test_suite.py checks that every module keeps a fast test).
SLOW_COUNTS = pytest.StashKey[dict[str, tuple[int, int]]]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    counts: dict[str, tuple[int, int]] = {}
    for item in items:
        module = item.nodeid.split("::")[0]
        total, slow_ones = counts.get(module, (0, 0))
        counts[module] = (total + 1, slow_ones + (item.get_closest_marker("slow") is not None))
    config.stash[SLOW_COUNTS] = counts


@pytest.fixture(scope="session")
def etwmc_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built once by its own backend (no network), read only."""
    out = tmp_path_factory.mktemp("etwmc-wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "--target", "wheel", "--directory", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (wheel,) = out.glob("etwmc-*.whl")
    wheel.chmod(0o444)  # shared by several tests: none may change it
    return wheel


@pytest.fixture(scope="session")
def mingw_prefixes(tmp_path_factory: pytest.TempPathFactory) -> Prefixes:
    """<windows.h> and <ntifs.h> precompiled for mingw-w64, each on first use."""
    return Prefixes(tmp_path_factory.mktemp("mingw-prefixes"))
