"""``etwmc lint`` reports everything ``etwmc compile`` can report about a manifest, so
``lint --werror`` passes exactly when ``compile --werror`` does: on the real corpus and
on manifests mutated to trip the checks that only producing outputs makes (names,
traits, cultures, message-table limits)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import GOLDEN, corpus_files, require_shared
from etwmc.compile import compile_manifest
from etwmc.diagnostics import Diagnostic, Severity, has_errors
from etwmc.lint import lint_files
from etwmc.options import CompileOptions

VALID = sorted((Path(__file__).resolve().parent / "manifests" / "valid").glob("*.man"))


def _loud(diags: list[Diagnostic]) -> set[tuple[str, int]]:
    return {(d.code, d.span.line) for d in diags if d.severity >= Severity.WARNING}


def _agree(path: Path) -> None:
    linted = lint_files([path])
    compiled = compile_manifest(path)
    assert has_errors(linted) == (not compiled.ok), _loud(compiled.diagnostics)
    # Every error and warning the compile reports, lint reports at the same place, and
    # lint's own warnings are the compile's: so --werror fails both or neither.
    assert _loud(compiled.diagnostics) == _loud(linted), path
    if compiled.ok:
        assert has_errors(lint_files([path], werror=True)) == (
            not compile_manifest(path, CompileOptions(werror=True)).ok
        )


@pytest.mark.parametrize("path", corpus_files(), ids=[p.name for p in corpus_files()])
def test_corpus(path: Path) -> None:
    require_shared()
    _agree(path)


# Mutations aimed at what only the outputs check, each a text edit of a valid manifest.
def _long_string(text: str) -> str:
    return re.sub(
        r'(<string id="[^"]*" value=")([^"]*)"', r"\1" + "x" * 40_000 + '"', text, count=1
    )


def _unknown_culture(text: str) -> str:
    return text.replace('culture="en-US"', 'culture="zz-QQ"', 1)


def _long_traits_name(text: str) -> str:
    # The provider's name goes into its traits: 240 more characters do not fit in 255.
    return re.sub(
        r'<provider name="([^"]*)"([^>]*)>',
        lambda m: (
            f'<provider name="{"N" * 240}{m.group(1)}"{m.group(2)}><traits includeName="true"/>'
        ),
        text,
        count=1,
    )


def _colliding_names(text: str) -> str:
    # Event symbols that are distinct C identifiers but one Python name ("_E1", "E1").
    n = 0

    def rename(m: re.Match[str]) -> str:
        nonlocal n
        n += 1
        return f'symbol="{"_" if n % 2 else ""}E{(n + 1) // 2}"'

    return re.sub(r'(?<=<event )([^>]*?)symbol="[^"]*"', lambda m: m.group(1) + rename(m), text)


MUTATIONS: dict[str, Callable[[str], str]] = {
    "long string": _long_string,
    "unknown culture": _unknown_culture,
    "long traits name": _long_traits_name,
    "colliding names": _colliding_names,
}


def _sources() -> list[Path]:
    golden = sorted((GOLDEN / "event-trace-kit").glob("*.man")) if GOLDEN.is_dir() else []
    return VALID + golden


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_mutations_aimed_at_output_checks(mutation: str, tmp_path: Path) -> None:
    changed = 0
    for src in _sources():
        text = src.read_text(encoding="utf-8-sig", errors="replace")
        mutated = MUTATIONS[mutation](text)
        if mutated == text:
            continue
        changed += 1
        path = tmp_path / src.name
        path.write_text(mutated, encoding="utf-8")
        _agree(path)
    assert changed, "the mutation changed no manifest"


def test_random_attribute_mutations(tmp_path: Path) -> None:
    """Attribute values swapped between places, at random (seeded): whatever breaks,
    lint and compile say so together."""
    rng = random.Random(20261123)
    attr = re.compile(r'(\w+)="([^"]*)"')
    for src in _sources():
        text = src.read_text(encoding="utf-8-sig", errors="replace")
        values = [m.group(2) for m in attr.finditer(text)]
        spots = list(attr.finditer(text))
        if not spots:
            continue
        for i in range(6):
            m = rng.choice(spots)
            value = rng.choice(values)
            mutated = text[: m.start(2)] + value + text[m.end(2) :]
            path = tmp_path / f"{src.stem}-{i}.man"
            path.write_text(mutated, encoding="utf-8")
            _agree(path)
