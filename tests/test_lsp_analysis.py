"""The language server's diagnostics (etwmc.lsp.analysis): lint's codes, severities and
places, the project's settings, and what a document that is not well-formed gets."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from conftest import corpus_files, require_shared
from etwmc.lint import lint_file
from etwmc.lsp.analysis import (
    LineMap,
    Settings,
    View,
    analyse,
    encode,
    settings_for,
)
from etwmc.lsp.text import Pos, Range, Source
from etwmc.rulepages import all_pages, url

EDITOR = Path(__file__).parent / "manifests" / "lsp" / "editor.man"


def _editor() -> str:
    return EDITOR.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", corpus_files()[::4], ids=lambda p: p.name)
def test_diagnostics_are_lint_s(path: Path) -> None:
    """Same codes, severities and starting places as `etwmc lint` on the file."""
    require_shared()
    data = path.read_bytes()
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        text = data.decode("utf-16")
    else:
        text = data.decode("utf-8-sig")
    linted = lint_file(str(path))
    analysis = analyse(text, str(path))
    mine = [(p.code, p.severity, p.range.start) for p in analysis.problems]
    theirs = [
        (d.code, d.severity, Pos(max(d.span.line - 1, 0), max(d.span.col - 1, 0)))
        for d in linted.diagnostics
    ]
    assert sorted(mine) == sorted(theirs)
    assert (analysis.manifest is not None) == (linted.manifest is not None)


def test_lint_keeps_the_model() -> None:
    linted = lint_file(str(EDITOR))
    assert linted.manifest is not None
    assert [p.name for p in linted.manifest.providers] == ["Etwmc-Test-Editor"]


def test_each_diagnostic_covers_what_it_is_about() -> None:
    text = _editor().replace('level="Trace" opcode', 'level="Trac" opcode')
    analysis = analyse(text, "editor.man")
    src = analysis.source
    shown = {
        p.code: src.text[src.offset(p.range.start) : src.offset(p.range.end)]
        for p in analysis.problems
    }
    assert shown["ETW401"] == 'level="Trac"'
    assert shown["ETW480"] == 'tid="T_Spare"'
    assert shown["ETW482"] == 'name="Spare"'
    problem = next(p for p in analysis.problems if p.code == "ETW401")
    assert problem.message.endswith("\ndid you mean 'Trace'?")
    assert problem.href == "https://etwmc.github.io/etwmc/rules/ETW401/" == url("ETW401")


def test_every_diagnostic_links_to_its_code_s_page() -> None:
    text = _editor().replace('level="Trace" opcode', 'level="Trac" opcode')
    pages = {p.code: p.url for p in all_pages()}
    problems = analyse(text, "editor.man").problems
    assert problems and all(p.href == pages[p.code] for p in problems)


def test_the_project_s_selection_suppressions_and_werror_apply(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.etwmc]\nwerror = true\n[tool.etwmc.lint]\nignore = ["ETW482"]\n', encoding="utf-8"
    )
    path = tmp_path / "m" / "editor.man"
    path.parent.mkdir()
    settings, problem = settings_for(str(path))
    assert problem is None and settings.werror
    text = _editor().replace(
        '<template tid="T_Spare">', '<template tid="T_Spare"> <!-- etwmc: ignore[ETW480] -->'
    )
    found = {(p.code, p.severity.label) for p in analyse(text, str(path), None, settings).problems}
    assert found == set()  # ETW482 ignored, ETW480 suppressed: nothing left to promote
    found = {
        (p.code, p.severity.label) for p in analyse(_editor(), str(path), None, settings).problems
    }
    assert found == {("ETW480", "error")}  # werror


def test_a_broken_configuration_is_reported_and_the_defaults_apply(tmp_path: Path) -> None:
    (tmp_path / "etwmc.toml").write_text("[lint]\nselect = ['nope']\n", encoding="utf-8")
    settings, problem = settings_for(str(tmp_path / "x.man"))
    assert settings == Settings() and problem is not None and "nope" in problem


def test_a_document_that_is_not_well_formed_keeps_what_can_be_placed() -> None:
    good = analyse(_editor(), "editor.man")
    assert {p.code for p in good.problems} == {"ETW480", "ETW482"}
    # A tag being typed on a new line between the keywords and the templates.
    broken_text = _editor().replace("        <maps>", '        <keyword name="\n        <maps>')
    broken = analyse(broken_text, "editor.man", 2, Settings(), good)
    assert not broken.well_formed
    codes = [p.code for p in broken.problems]
    assert "ETW004" in codes and "ETW482" in codes and "ETW480" in codes
    moved = next(p for p in broken.problems if p.code == "ETW480")
    before = next(p for p in good.problems if p.code == "ETW480")
    assert moved.range.start.line == before.range.start.line + 1  # one line was added
    # A problem on an edited line is dropped: it cannot be placed.
    edited = _editor().replace('name="Spare" mask="0x8"/>', 'name="Spare" mask="0x8"')
    broken = analyse(edited, "editor.man", 3, Settings(), good)
    assert "ETW482" not in [p.code for p in broken.problems]


def test_line_maps_move_lines_around_the_edit() -> None:
    old = Source("a\nb\nc\nd\n")
    new = Source("a\nX\nY\nc\nd\n")
    lines = LineMap(old, new)
    assert [lines.forward(n) for n in range(5)] == [0, None, 3, 4, 5]
    assert [lines.back(n) for n in range(6)] == [0, None, None, 2, 3, 4]
    assert lines.range(Range(Pos(2, 1), Pos(3, 0))) == Range(Pos(3, 1), Pos(4, 0))
    assert lines.range(Range(Pos(1, 0), Pos(1, 1))) is None
    same = LineMap(old, Source(old.text))
    assert same.identity and same.forward(2) == 2


def test_a_view_maps_offsets_between_versions() -> None:
    good = analyse(_editor(), "editor.man")
    text = "<!-- new first line -->\n" + _editor()
    view = View.of(Source(text), good)
    at = text.index('tid="T_Spare"')
    back = view.to_basis(at)
    assert back is not None and good.text[back : back + 13] == 'tid="T_Spare"'
    r = view.to_current(back, back + 3)
    assert r is not None and r.start == Source(text).pos(at)


@pytest.mark.parametrize("codec", ["utf-8", "utf-16", "windows-1252"])
def test_the_declared_encoding_is_the_one_parsed(codec: str) -> None:
    text = _editor().replace('encoding="UTF-8"', f'encoding="{codec}"').replace("😀", "")
    data = encode(text)
    assert data == text.encode(codec)
    assert {p.code for p in analyse(text, "editor.man").problems} == {"ETW480", "ETW482"}


def test_text_an_encoding_cannot_hold_is_parsed_as_utf8() -> None:
    text = _editor().replace('encoding="UTF-8"', 'encoding="us-ascii"')
    assert encode(text) == text.encode("utf-8")


def test_a_byte_order_mark_keeps_columns() -> None:
    text = "\ufeff" + _editor().replace('<?xml version="1.0" encoding="UTF-8"?>\n', "").replace(
        "<instrumentationManifest xmlns", '<instrumentationManifest x="1" xmlns', 1
    )
    bad = [p for p in analyse(text, "editor.man").problems if p.code == "ETW110"]
    (problem,) = bad
    start = Source(text).offset(problem.range.start)
    assert text[start : start + 5] == 'x="1"'


def test_a_message_text_file_is_linted_as_etwmc_lint_lints_one() -> None:
    text = "; é\nMessageId=1\nSymbolicName=A\nLanguage=English\nHello\n.\nBogus=1\n"
    assert encode(text, "m.mc").startswith(codecs.BOM_UTF8)  # non-ASCII: UTF-8, marked
    assert encode("MessageId=1\n", "m.mc") == b"MessageId=1\n"
    analysis = analyse(text, "m.mc")
    assert not analysis.well_formed  # no model: diagnostics only
    theirs = lint_file("m.mc", encode(text, "m.mc")).diagnostics
    assert [(p.code, p.range.start) for p in analysis.problems] == [
        (d.code, Pos(d.span.line - 1, d.span.col - 1)) for d in theirs
    ]
    assert [p.code for p in analysis.problems] == ["ETW902"]
