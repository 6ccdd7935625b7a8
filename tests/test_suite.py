"""The test suite's own rules: CI and the README run the whole suite on every core, the
``slow`` marker is registered and strict, sweeps over files mark their large files slow,
and the fast subset (``-m "not slow"``) keeps a test of every module."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from conftest import LARGE_MANIFEST, ROOT, SLOW_COUNTS, sized_cases

# Modules that are builds with real tools, or races between real processes, from end to
# end: the fast subset has the quicker evidence for what they prove (mc's header text
# byte for byte, the build plugins' in-process generation and an editable build, the
# writer's folder lock raced by threads in test_writer.py).
ALL_SLOW = {
    "tests/test_concurrent_compiles.py",  # two compiles into one folder, 25 times
    "tests/test_examples_isolated.py",  # pip's build isolation with the wheel of etwmc
    "tests/test_examples_mc.py",  # CMake and Meson cross-builds with mingw-w64
    "tests/test_mctext_compile.py",  # mingw-w64 compiles every golden header, twice
}


def _pytest_command(text: str) -> str:
    (command,) = re.findall(r"\.venv/bin/python -m pytest[^\n&|;]*", text)
    return command.strip()


def test_ci_and_the_readme_run_the_whole_suite_on_every_core() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.findall(r"```sh\n(.*?)```", readme, re.S)[0].splitlines()[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert _pytest_command(block) == _pytest_command(ci) == ".venv/bin/python -m pytest -q -n auto"
    assert '-m "not slow"' in readme  # the fast subset is named where the command is


def test_markers_are_strict_and_slow_is_registered() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pytest_ini = config["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in pytest_ini["addopts"].split()
    assert "--dist loadscope" in pytest_ini["addopts"]
    assert [m.split(":")[0] for m in pytest_ini["markers"]] == ["slow"]
    assert any(r.startswith("pytest-xdist") for r in config["dependency-groups"]["dev"])


def test_sized_cases_mark_only_large_files(tmp_path: Path) -> None:
    small, large = tmp_path / "small.man", tmp_path / "large.man"
    small.write_bytes(b"x" * LARGE_MANIFEST)
    large.write_bytes(b"x" * (LARGE_MANIFEST + 1))
    missing = tmp_path / "missing.man"
    cases = sized_cases([small, large, missing])
    assert [c.id for c in cases] == ["small.man", "large.man", "missing.man"]
    assert [c.values for c in cases] == [(small,), (large,), (missing,)]
    assert [[m.name for m in c.marks] for c in cases] == [[], ["slow"], []]
    (named,) = sized_cases(
        [large], limit=2 * LARGE_MANIFEST, ids=lambda p: p.stem.upper(), value=lambda p: p.stem
    )
    assert (named.id, named.values, list(named.marks)) == ("LARGE", ("large",), [])


def test_every_module_keeps_a_fast_test(request: pytest.FixtureRequest) -> None:
    counts = request.config.stash[SLOW_COUNTS]
    all_slow = {m for m, (total, slow_ones) in counts.items() if total == slow_ones}
    assert all_slow <= ALL_SLOW, f"no fast test left in {sorted(all_slow - ALL_SLOW)}"
