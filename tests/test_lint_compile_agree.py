"""``etwmc lint`` reports everything ``etwmc compile`` can report about a manifest, so
``lint --werror`` passes exactly when ``compile --werror`` does: on the real corpus and
on manifests mutated to trip the checks that only producing outputs makes (names,
traits, cultures, message-table limits); and whatever a selection (``--select``,
``--ignore``, ``per-file-ignores``) or a suppression comment leaves out, lint fails
exactly when compile does."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import GOLDEN, corpus_files, require_shared, sized_cases, slow
from etwmc.compile import compile_manifest
from etwmc.diagnostics import Diagnostic, Severity, finalize, has_errors
from etwmc.lint import lint_file, lint_files
from etwmc.options import CompileOptions
from etwmc.python.context import build_context, context_diagnostics
from etwmc.selection import Selection, apply
from etwmc.validate import check_file

MANIFESTS = Path(__file__).resolve().parent / "manifests"
VALID = sorted((MANIFESTS / "valid").glob("*.man"))
INVALID = sorted((MANIFESTS / "invalid").glob("*.man"))


def _loud(diags: list[Diagnostic]) -> set[tuple[str, int]]:
    return {(d.code, d.span.line) for d in diags if d.severity >= Severity.WARNING}


def _same_generator_diagnostics(path: Path) -> None:
    # lint asks the Python generator for its diagnostics without laying out the module:
    # the same list, in the same order, as building the module's context gives.
    manifest = check_file(path).manifest
    if manifest is None:
        return
    built = build_context(manifest, version="", source="")[1]
    checked = context_diagnostics(manifest)
    assert [(d, d.attr) for d in checked] == [(d, d.attr) for d in built], path


def _agree(path: Path) -> None:
    _same_generator_diagnostics(path)
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


@pytest.mark.parametrize("path", sized_cases(corpus_files()))
def test_corpus(path: Path) -> None:
    require_shared()
    _agree(path)


@pytest.mark.parametrize("path", VALID + INVALID, ids=[p.name for p in VALID + INVALID])
def test_fixtures_generator_diagnostics(path: Path) -> None:
    _same_generator_diagnostics(path)


_FUNCTION_NAMES = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Etwmc-Test-FunctionNames" guid="{5B0A4D6E-2C1F-4E8A-9D3B-7A6C5E4F3D21}"
        symbol="P" resourceFileName="f.dll" messageFileName="f.dll">
      <templates>
        <template tid="T">
          <data name="a-b" inType="win:UInt32"/><data name="a_b" inType="win:UInt8"/>
          <data name="n" inType="win:UInt16" count="missing"/>
        </template>
      </templates>
      <events>
        <event value="1" symbol="Load" opcode="win:Start" template="T"/>
        <event value="2" name="write Load"/>
        <event value="3" name="start Load" opcode="win:Stop"/>
        <event value="4" name="stop start Load"/>
        <event value="5" name="is_enabled Load" template="T"/>
      </events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
"""


def test_generator_diagnostics_of_colliding_function_names(tmp_path: Path) -> None:
    # Event names that become the function names of other events (write_, start_, stop_,
    # is_enabled_), and a template with two fields of one Python name and an unresolved
    # count.
    path = tmp_path / "names.man"
    path.write_text(_FUNCTION_NAMES, encoding="utf-8")
    manifest = check_file(path).manifest
    assert manifest is not None
    built = build_context(manifest, version="", source="")[1]
    assert {d.code for d in built} >= {"ETW600", "ETW601"}, built
    assert sum(d.code == "ETW600" for d in built) >= 4, built
    _same_generator_diagnostics(path)


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


@slow
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


# --------------------------------------------------------------------------- selections


# What a project can tell lint to leave out: flags and configuration (a selection), and
# suppression comments in the manifest.  Errors make a manifest uncompilable, so none
# of these may let lint pass a manifest that compile and the build plugins fail.
SELECTIONS: dict[str, Selection] = {
    "ignore every code": Selection(ignore=("ETW",)),
    "select one band": Selection(select=("ETW2",)),
    "ignore the references band": Selection(ignore=("ETW4",)),
    "per-file ignore of every code": Selection(per_file_ignores={"*.man": ("ETW",)}),
    "ignore warnings' bands": Selection(ignore=("ETW29", "ETW48")),
}


def _agree_selected(path: Path, selection: Selection) -> None:
    linted = lint_file(path)
    for werror in (False, True):
        # As `etwmc lint` reports them (etwmc.commands.lint) and `etwmc compile` decides.
        reported = finalize(
            apply(linted.diagnostics, selection, {linted.path: linted.lines}), werror=werror
        )
        compiled = compile_manifest(path, CompileOptions(werror=werror), selection=selection)
        assert has_errors(reported) == (not compiled.ok), (path, werror, _loud(reported))
        assert _loud(compiled.diagnostics) == _loud(reported), (path, werror)


@pytest.mark.parametrize("selection", sorted(SELECTIONS))
@pytest.mark.parametrize("path", VALID + INVALID, ids=[p.name for p in VALID + INVALID])
def test_selections_never_hide_what_fails_a_compile(path: Path, selection: str) -> None:
    _agree_selected(path, SELECTIONS[selection])


@slow
def test_selections_on_the_corpus() -> None:
    require_shared()
    for path in corpus_files():
        _agree_selected(path, SELECTIONS["ignore every code"])


def _suppressed_everywhere(text: str) -> str:
    """A suppression comment for every code on every line that ends a tag, and one for
    the whole file."""
    lines = [
        line + " <!-- etwmc: ignore -->" if line.rstrip().endswith(">") else line
        for line in text.splitlines()
    ]
    return "\n".join(lines).replace(
        "<instrumentationManifest", "<!-- etwmc: ignore-file --><instrumentationManifest", 1
    )


@pytest.mark.parametrize("path", INVALID, ids=[p.name for p in INVALID])
def test_suppression_comments_never_hide_what_fails_a_compile(path: Path, tmp_path: Path) -> None:
    text = path.read_text(encoding="utf-8-sig")
    suppressed = tmp_path / path.name
    suppressed.write_text(_suppressed_everywhere(text), encoding="utf-8")
    _agree_selected(suppressed, Selection())
    if has_errors(compile_manifest(suppressed, selection=Selection()).diagnostics):
        # Where a comment would have hidden an error, lint says so at the comment.
        linted = lint_file(suppressed)
        reported = apply(linted.diagnostics, Selection(), {linted.path: linted.lines})
        assert any(d.code == "ETW015" for d in reported), path
