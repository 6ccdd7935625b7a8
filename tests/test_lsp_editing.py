"""The language server's help while typing, computed without a server: completion
(etwmc.lsp.completion) and the quick fixes (etwmc.lsp.actions)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from etwmc import winmeta as wm
from etwmc.lsp.actions import code_actions
from etwmc.lsp.analysis import Analysis, View, analyse
from etwmc.lsp.completion import Item, complete
from etwmc.lsp.hover import hover
from etwmc.lsp.navigate import RenameRefused, definition, prepare_rename, references, rename
from etwmc.lsp.outline import outline
from etwmc.lsp.scan import scan
from etwmc.lsp.text import Pos, Range, Source, apply_change

EDITOR = Path(__file__).parent / "manifests" / "lsp" / "editor.man"
EVERYWHERE = Range(Pos(0, 0), Pos(10**6, 0))


def _good() -> Analysis:
    return analyse(EDITOR.read_text(encoding="utf-8"), "editor.man")


def _complete(text: str, cursor: str, snippets: bool = False) -> tuple[list[Item], Source]:
    """Complete at the place marked | in ``text`` (the mark removed), against the model
    of the unedited manifest."""
    at = text.index(cursor) + cursor.index("|")
    current = Source(text[:at] + text[at + 1 :])
    return complete(View.of(current, _good()), at, snippets=snippets), current


def _edited(old: str, new: str) -> str:
    text = EDITOR.read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


def _labels(items: list[Item]) -> list[str]:
    return [i.label for i in items]


def _replaced(source: Source, item: Item) -> str:
    return source.text[source.offset(item.replace.start) : source.offset(item.replace.end)]


def test_elements_the_schema_allows_in_the_parent() -> None:
    text = _edited("<opcodes>\n          <opcode", "<opcodes>\n          <op|\n          <opcode")
    items, source = _complete(text, "<op|")
    assert _labels(items) == ["opcode"]
    text = _edited("        <events>\n", "        <events>\n          <|\n")
    items, _ = _complete(text, "<|")
    assert _labels(items)[0] == "event"
    text = _edited("        <levels>\n", "        <|\n        <levels>\n")
    items, _ = _complete(text, "<|")
    assert {"channels", "levels", "tasks", "keywords", "templates", "events"} <= set(_labels(items))
    assert all(i.replace.start == i.replace.end for i in items)


def test_attributes_not_yet_written() -> None:
    text = _edited('<event value="7" symbol', '<event value="7" | symbol')
    items, _ = _complete(text, "| symbol", snippets=True)
    labels = _labels(items)
    assert "level" not in labels and "value" not in labels and "symbol" not in labels
    assert {"task", "opcode", "template", "version"} <= set(labels)
    task = next(i for i in items if i.label == "task")
    assert task.insert == 'task="$1"' and task.snippet
    plain, _ = _complete(text, "| symbol")
    assert next(i for i in plain if i.label == "task").insert == 'task=""'
    # A partly typed attribute name is replaced whole.
    text = _edited('<event value="7" symbol', '<event value="7" tem|pl symbol')
    items, source = _complete(text, "tem|pl")
    item = next(i for i in items if i.label == "template")
    assert (
        _replaced(source, item)
        == "tempt"[:0] + "tempt".replace("t", "t")[:0] + "templ"[:0] + "tem" + "pl"
    )


def test_levels_provider_s_first_then_win() -> None:
    text = _edited('level="Trace"', 'level="Tr|"')
    items, source = _complete(text, 'level="Tr|"')
    labels = _labels(items)
    assert labels[0] == "Trace" and "win:Informational" in labels
    assert not any("Reserved" in x for x in labels)
    assert all(_replaced(source, i) == "Tr" for i in items)


def test_opcodes_of_the_event_s_task_first() -> None:
    text = _edited('opcode="Handshake"', 'opcode="|"')
    items, _ = _complete(text, 'opcode="|"')
    labels = _labels(items)
    assert labels[:2] == ["Handshake", "Retry"] and "win:Start" in labels


def test_keywords_complete_one_token() -> None:
    text = _edited('keywords="Network Disk"', 'keywords="Network D|isk"')
    items, source = _complete(text, "D|isk")
    labels = _labels(items)
    assert "Network" not in labels  # already written
    assert labels[:2] == ["Disk", "Spare"] and "win:AuditSuccess" in labels
    assert all(_replaced(source, i) == "Disk" for i in items)


def test_channels_templates_maps_and_strings() -> None:
    items, _ = _complete(_edited('channel="app"', 'channel="|"'), 'channel="|"')
    assert _labels(items)[:2] == ["app", "op"]
    items, _ = _complete(_edited('template="T_Connect"', 'template="|"'), 'template="|"')
    assert _labels(items) == ["T_Connect", "T_Spare"]
    items, _ = _complete(_edited('map="State"', 'map="|"'), 'map="|"')
    assert _labels(items) == ["State"]
    items, source = _complete(
        _edited('message="$(string.event.2)"', 'message="$(str|ing.event.2)"'), "$(str|"
    )
    assert "$(string.event.7)" in _labels(items)
    item = next(i for i in items if i.label == "$(string.event.7)")
    assert item.detail == "Grüße 😀 aus der Ferne"
    assert _replaced(source, item) == "$(string.event.2)"


def test_types_and_the_out_types_of_an_in_type() -> None:
    items, _ = _complete(_edited('inType="win:UInt16" outType', 'inType="|" outType'), 'inType="|"')
    assert set(_labels(items)) == set(wm.IN_TYPES)
    text = _edited('inType="win:UInt16" outType="win:Port"', 'outType="|" inType="win:UInt16"')
    items, _ = _complete(text, 'outType="|"')
    assert _labels(items) == list(wm.IN_TYPES["win:UInt16"].outs)


def test_the_next_free_event_id_and_keyword_bit() -> None:
    items, _ = _complete(_edited('<event value="7"', '<event value="|7"'), 'value="|7"')
    assert _labels(items) == ["8"]
    items, _ = _complete(_edited('name="Spare" mask="0x8"', 'name="Spare" mask="|"'), 'mask="|"')
    assert _labels(items) == ["0x4"]  # bits 0, 1 and 3 are taken


def test_counts_name_earlier_integer_fields() -> None:
    text = _edited('count="Count"', 'count="|"')
    items, _ = _complete(text, 'count="|"')
    assert _labels(items) == ["Port", "State", "Count"]  # Host is a string


def test_allowed_words_and_booleans() -> None:
    items, _ = _complete(_edited('type="Operational"', 'type="|"'), 'type="|"')
    assert _labels(items) == list(wm.CHANNEL_TYPES)
    items, _ = _complete(_edited('enabled="true"', 'enabled="|"'), 'enabled="|"')
    assert _labels(items) == ["true", "false"]


def test_no_completion_in_comments_text_or_closed_values() -> None:
    for text, cursor in [
        (_edited("<!-- The language", "<!-- The la|nguage"), "la|nguage"),
        (_edited('value="Trace"/>', 'value="Trace"/>|'), "/>|"),
        (_edited('level="Trace"', 'level="Trace"|'), '"Trace"|'),
    ]:
        items, _ = _complete(text, cursor)
        assert items == [], cursor


def test_completion_without_any_model() -> None:
    """A new document that never was well-formed: the schema and win: names still come."""
    text = '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">\n<'
    items = complete(View.of(Source(text), None), len(text))
    assert {"instrumentation", "localization"} <= set(_labels(items))
    text = '<instrumentationManifest><instrumentation><events><provider><events><event level="'
    assert "win:Verbose" in _labels(complete(View.of(Source(text), None), len(text)))
    assert _labels(complete(View.of(Source("<"), None), 1)) == ["instrumentationManifest"]


def _fixed(analysis: Analysis, code: str) -> tuple[str, str]:
    view = View.of(analysis.source, analysis)
    actions = [a for a in code_actions(view, EVERYWHERE) if a.problem.code == code]
    assert len(actions) == 1, [a.title for a in actions]
    text = analysis.text
    for e in sorted(actions[0].edits, key=lambda e: e.range.start, reverse=True):
        text = apply_change(text, e.range.start, e.range.end, e.new_text)
    return actions[0].title, text


@pytest.mark.parametrize(
    ("old", "new", "code", "title", "fixed"),
    [
        (
            'level="Trace" opcode',
            'level="Trac" opcode',
            "ETW401",
            "Change to 'Trace'",
            'level="Trace"',
        ),
        (
            'keywords="Network Disk"',
            'keywords="Network Dsk"',
            "ETW404",
            "Change to 'Disk'",
            '"Network Disk"',
        ),
        (
            'template="T_Connect"',
            'template="T_Conect"',
            "ETW406",
            "Change to 'T_Connect'",
            '"T_Connect"',
        ),
        (
            '<keyword name="Disk" mask',
            '<keyword name="Disk" msk',
            "ETW110",
            "Change to 'mask'",
            'name="Disk" mask="0x2"',
        ),
        ("<keywords>", "<keywrds>", "ETW100", "Change to 'keywords'", "<keywords>\n"),
    ],
)
def test_did_you_mean_fixes(old: str, new: str, code: str, title: str, fixed: str) -> None:
    text = EDITOR.read_text(encoding="utf-8").replace(old, new, 1)
    if code == "ETW100":
        text = text.replace("</keywords>", "</keywrds>", 1)
    made, result = _fixed(analyse(text, "editor.man"), code)
    assert made == title and fixed in result
    assert code not in {p.code for p in analyse(result, "editor.man").problems}


def test_add_a_missing_string_to_the_first_culture() -> None:
    text = EDITOR.read_text(encoding="utf-8").replace("$(string.event.2)", "$(string.event.new)")
    title, result = _fixed(analyse(text, "editor.man"), "ETW408")
    assert title == "Add the string 'event.new' to the string table"
    assert '\n        <string id="event.new" value=""/>\n      </stringTable>' in result
    assert result.index('event.new" value') < result.index('culture="de-DE"')
    assert "ETW408" not in {p.code for p in analyse(result, "editor.man").problems}


def test_add_a_missing_string_and_the_localization_section() -> None:
    text = EDITOR.read_text(encoding="utf-8")
    text = text[: text.index("  <localization>")] + "</instrumentationManifest>\n"
    title, result = _fixed(analyse(text, "editor.man"), "ETW408")
    assert "<localization>" in result and result.endswith("</instrumentationManifest>\n")
    assert title == "Add the string 'level.Trace' to the string table"  # the first reported
    left = [p.diagnostic.message for p in analyse(result, "editor.man").problems]
    assert left and not any("'level.Trace'" in m for m in left)  # the others still missing


@pytest.mark.parametrize(
    ("code", "title", "gone"),
    [
        ("ETW482", "Remove the unused keyword 'Spare'", '<keyword name="Spare" mask="0x8"/>\n'),
        ("ETW480", "Remove the unused template 'T_Spare'", '<template tid="T_Spare">'),
    ],
)
def test_remove_unused_items(code: str, title: str, gone: str) -> None:
    made, result = _fixed(_good(), code)
    assert made == title and gone not in result
    original = EDITOR.read_text(encoding="utf-8")
    assert len(result.splitlines()) < len(original.splitlines())  # its lines went too
    assert code not in {p.code for p in analyse(result, "editor.man").problems}


def test_fixes_are_offered_only_for_the_selected_diagnostics() -> None:
    analysis = _good()
    view = View.of(analysis.source, analysis)
    start = next(p for p in analysis.problems if p.code == "ETW480").range.start
    here = Range(start, start)
    assert [a.problem.code for a in code_actions(view, here)] == ["ETW480"]
    assert code_actions(view, Range(Pos(0, 0), Pos(0, 0))) == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.floats(0, 1), st.integers(0, 40), st.text("<>/=\"' $():%&;\n😀ab", max_size=6)
        ),
        min_size=1,
        max_size=4,
    ),
    st.lists(st.floats(0, 1), min_size=1, max_size=6),
)
def test_any_edit_leaves_every_answer_an_answer(
    edits: list[tuple[float, int, str]], cursors: list[float]
) -> None:
    """Random cuts and insertions in a manifest, then every request at random places,
    against the edited text's own check and against the last good one: no exception."""
    good = _good()
    text = good.text
    for where, cut, new in edits:
        at = int(where * len(text))
        text = text[:at] + new + text[at + cut :]
    edited = analyse(text, "editor.man", 2, last_good=good)
    basis = edited if edited.well_formed else good
    view = View.of(edited.source, basis)
    for c in cursors:
        offset = int(c * len(text))
        complete(view, offset, snippets=True)
        hover(view, offset)
        definition(view, offset)
        references(view, offset)
        if prepare_rename(view, offset) is not None:
            with contextlib.suppress(RenameRefused):  # a place on an edited line
                rename(view, offset, "renamed")
        pos = edited.source.pos(offset)
        code_actions(view, Range(pos, pos))
    outline(edited.source, scan(text))
