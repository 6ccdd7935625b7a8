"""The language server's answers, computed without a server: the index of names
(etwmc.lsp.index), go to definition, references and rename (etwmc.lsp.navigate),
hover (etwmc.lsp.hover) and the outline (etwmc.lsp.outline)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CORPUS, require_shared
from etwmc.descriptors import descriptor
from etwmc.lsp.analysis import View, analyse
from etwmc.lsp.hover import hover
from etwmc.lsp.navigate import (
    RenameRefused,
    definition,
    prepare_rename,
    references,
    rename,
)
from etwmc.lsp.outline import outline
from etwmc.lsp.scan import scan
from etwmc.lsp.text import Range, Source, apply_change

EDITOR = Path(__file__).parent / "manifests" / "lsp" / "editor.man"


def _view(text: str | None = None) -> View:
    a = analyse(text if text is not None else EDITOR.read_text(encoding="utf-8"), "editor.man")
    return View.of(a.source, a)


def _at(view: View, needle: str, after: int = 0, nth: int = 0) -> int:
    text = view.current.text
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at + after


def _texts(view: View, ranges: list[Range]) -> list[str]:
    src = view.current
    return [src.text[src.offset(r.start) : src.offset(r.end)] for r in ranges]


def _lines(view: View, ranges: list[Range]) -> list[int]:
    return [r.start.line + 1 for r in ranges]


def _applied(text: str, edits: list) -> str:  # type: ignore[type-arg]
    for e in sorted(edits, key=lambda e: e.range.start, reverse=True):
        text = apply_change(text, e.range.start, e.range.end, e.new_text)
    return text


def test_every_occurrence_is_written_where_the_index_says() -> None:
    view = _view()
    assert view.basis is not None
    index = view.basis.index
    text = view.current.text
    kinds = {o.symbol.kind for o in index.occurrences}
    assert kinds == {"level", "task", "opcode", "keyword", "channel", "template", "map", "string"}
    for o in index.occurrences:
        written = text[o.start : o.end]
        if o.symbol.kind == "channel":
            assert written in ("app", "op", "Application", "Etwmc-Test-Editor/Operational")
        else:
            assert written == o.symbol.name


def test_definition_from_a_reference_and_from_itself() -> None:
    view = _view()
    for needle, after, expected in [
        ('keywords="Network Disk"', 18, ["Disk"]),  # the second token
        ('level="Trace"', 8, ["Trace"]),
        ('opcode="Handshake"', 9, ["Handshake"]),
        ('template="T_Connect"', 11, ["T_Connect"]),
        ('map="State"', 6, ["State"]),
        ('channel="op"', 10, ["op"]),
        ("$(string.event.7)", 12, ["event.7", "event.7"]),  # in both cultures
        ('<keyword name="Network"', 17, ["Network"]),
    ]:
        found = definition(view, _at(view, needle, after))
        assert _texts(view, found) == expected, needle
    (line,) = _lines(view, definition(view, _at(view, 'channel="op"', 10)))
    assert 'chid="op"' in view.current.line(line - 1)


def test_win_items_have_no_definition_in_the_text() -> None:
    view = _view()
    assert definition(view, _at(view, 'level="win:Informational"', 10)) == []
    # ... but their references are found, across the whole manifest.
    assert len(references(view, _at(view, 'level="win:Informational"', 10))) == 1


def test_references_with_and_without_declarations() -> None:
    view = _view()
    at = _at(view, '<keyword name="Network"', 17)
    both = references(view, at, include_declaration=True)
    uses = references(view, at, include_declaration=False)
    assert _texts(view, both) == ["Network"] * 3
    assert len(uses) == 2 and set(uses) < set(both)
    strings = references(view, _at(view, "$(string.keyword.Network)", 12))
    assert _texts(view, strings) == ["keyword.Network"] * 3  # one use, two cultures


def test_nothing_to_find_between_names() -> None:
    view = _view()
    at = _at(view, "<localization>")
    assert definition(view, at) == [] and references(view, at) == []
    assert prepare_rename(view, at) is None


@pytest.mark.parametrize(
    ("needle", "after", "new", "count"),
    [
        ('<keyword name="Network"', 17, "Net", 3),
        ('task="Connect"', 7, "Link", 2),
        ('opcode="Handshake"', 9, "Greet", 2),
        ('template="T_Connect"', 11, "T_Link", 2),
        ('map="State"', 6, "Status", 2),
        ('chid="op"', 7, "oper", 3),
        ('level="Trace"', 8, "Detail", 2),
        ("$(string.event.1)", 11, "event.connected", 3),
    ],
)
def test_rename_changes_every_place_and_the_manifest_stays_valid(
    needle: str, after: int, new: str, count: int
) -> None:
    view = _view()
    at = _at(view, needle, after)
    prepared = prepare_rename(view, at)
    assert prepared is not None
    edits = rename(view, at, new)
    assert len(edits) == count and all(e.new_text == new for e in edits)
    assert prepared[0] in [e.range for e in edits]
    renamed = _applied(view.current.text, edits)
    before = sorted((p.code, p.range.start) for p in analyse(view.current.text, "e.man").problems)
    after_ = sorted((p.code, p.range.start) for p in analyse(renamed, "e.man").problems)
    assert after_ == before  # same diagnostics: every reference still resolves


def test_rename_refuses_what_cannot_be_renamed() -> None:
    view = _view()
    with pytest.raises(RenameRefused, match="predefined"):
        rename(view, _at(view, 'level="win:Informational"', 10), "x")
    with pytest.raises(RenameRefused, match="imported channel"):
        rename(view, _at(view, '<importChannel name="Application"', 24), "x")
    with pytest.raises(RenameRefused, match="space"):
        rename(view, _at(view, '<keyword name="Disk"', 16), "two words")
    with pytest.raises(RenameRefused, match="attribute"):
        rename(view, _at(view, '<keyword name="Disk"', 16), 'a"b')
    with pytest.raises(RenameRefused, match="XML name"):
        rename(view, _at(view, '<keyword name="Disk"', 16), "9lives")
    with pytest.raises(RenameRefused, match="no manifest name"):
        rename(view, _at(view, "<localization>"), "x")
    assert prepare_rename(view, _at(view, 'level="win:Informational"', 10)) is None
    # The chid of an imported channel may be renamed.
    assert len(rename(view, _at(view, 'chid="app"', 7), "application")) == 2


def test_rename_of_a_string_id_may_hold_spaces() -> None:
    view = _view()
    edits = rename(view, _at(view, "$(string.event.2)", 11), "event two")
    assert len(edits) == 3


def test_a_partly_edited_document_uses_the_last_good_model() -> None:
    good = _view()
    assert good.basis is not None
    # A new, half-typed line above the events shifts them by one line.
    text = good.current.text.replace(
        "        <events>\n", '        <events>\n          <event value="\n', 1
    )
    view = View.of(Source(text), good.basis)
    found = definition(view, _at(view, 'template="T_Connect"', 11))
    assert _texts(view, found) == ["T_Connect"]
    # Renaming Network would need the edited line's part of the text: still possible,
    # every place is on an unchanged line.
    assert len(rename(view, _at(view, '<keyword name="Network"', 17), "Net")) == 3
    # A name on the edited line itself is not offered.
    text2 = text.replace('keywords="Network Disk"', 'keywords="Network Disk" x="', 1)
    view2 = View.of(Source(text2), good.basis)
    assert definition(view2, _at(view2, 'keywords="Network Disk"', 11)) == []
    with pytest.raises(RenameRefused, match="changed"):
        rename(view2, _at(view2, '<keyword name="Network"', 17), "Net")


def test_hover_on_an_event_shows_its_descriptor_message_and_fields() -> None:
    view = _view()
    found = hover(view, _at(view, '<event value="1"', 3))
    assert found is not None
    text, r = found
    assert view.current.line(r.start.line).lstrip().startswith('<event value="1"')
    m = view.basis.manifest if view.basis else None
    assert m is not None
    p = m.providers[0]
    eid, version, channel, level, opcode, task, keyword = descriptor(p, p.events[0])
    assert f"id       {eid}" in text and f"channel  {channel}" in text
    assert f"level    {level}" in text and f"opcode   {opcode}" in text
    assert f"task     {task}" in text and f"keyword  0x{keyword:X}" in text
    assert keyword == 0x3 | 1 << 62  # Network, Disk and the bit of the second channel
    assert "Connected to {Host}:{Port} (state {State}, {Count} items)" in text
    assert "5. Items: win:UInt32 -> xs:unsignedInt count=Count" in text
    assert "3. State: win:UInt32 -> xs:unsignedInt map=State" in text


@pytest.mark.parametrize(
    ("needle", "after", "expected"),
    [
        ('keywords="Network Disk"', 18, ["**keyword** `Disk`", "mask 0x2 (bit 1)"]),
        ('<keyword name="Network"', 17, ["mask 0x1 (bit 0)", "message: Network"]),
        ('level="Trace"', 8, ["**level** `Trace`", "value 16"]),
        ('level="win:Warning"', 9, ["value 3", "predefined", "message: Warning"]),
        ('task="Connect"', 7, ["value 1", "opcode Handshake = 10"]),
        ('opcode="Handshake"', 9, ["value 10", "an opcode of task Connect (1)"]),
        ('channel="op"', 10, ["value 16, type Operational", "keyword bit 62"]),
        ('map="State"', 6, ["**valueMap** `State`", "0  Idle", "1  Busy"]),
        ("$(string.event.7)", 12, ["en-US: Grüße 😀 aus der Ferne", "de-DE: Grüße 😀 von fern"]),
        ('outType="win:Port"', 10, ["**outType** `win:Port`", "for inTypes: win:UInt16"]),
        ('inType="win:UInt16"', 10, ["2 bytes", "outTypes: xs:unsignedShort, win:Port"]),
        ('<provider name="Etwmc', 3, ["**provider** `Etwmc-Test-Editor`", "3 events"]),
        ('<template tid="T_Spare"', 3, ["1. Unused: win:UInt8 -> xs:unsignedByte"]),
    ],
)
def test_hover_on_names(needle: str, after: int, expected: list[str]) -> None:
    view = _view()
    found = hover(view, _at(view, needle, after))
    assert found is not None
    for piece in expected:
        assert piece in found[0]


def test_hover_shows_manifest_text_only_inside_code() -> None:
    """A manifest string cannot become a link, an image or a fence break in a hover."""
    hostile = "```\n[click](https://example.invalid) ![x](y) ````"
    text = EDITOR.read_text(encoding="utf-8").replace(
        'value="Retrying"', 'value="' + hostile.replace("\n", "&#xA;") + '"'
    )
    view = _view(text)
    found = hover(view, _at(view, "$(string.event.2)", 11, nth=0))
    assert found is not None
    body = found[0]
    fence = "`````"  # longer than the longest backtick run the text holds
    assert f"{fence}text\n" in body and body.rstrip().endswith(fence)
    outside = body.split(fence)[0] + body.split(fence)[-1]
    assert "[click]" not in outside and "![x]" not in outside


def test_outline_lists_the_provider_and_its_parts() -> None:
    text = EDITOR.read_text(encoding="utf-8")
    source = Source(text)
    (provider,) = outline(source, scan(text))
    assert provider.name == "Etwmc-Test-Editor" and provider.kind == "provider"
    names = [(c.kind, c.name, c.detail) for c in provider.children]
    assert ("event", "event 7", "Greeting") in names
    assert ("template", "T_Spare", None) in names
    assert ("channel", "Application", None) in names
    task = next(c for c in provider.children if c.kind == "task")
    assert [(o.kind, o.name) for o in task.children] == [("opcode", "Handshake")]
    for c in provider.children:
        assert c.range.start <= c.selection.start and c.selection.end <= c.range.end


def test_outline_follows_half_typed_text() -> None:
    text = EDITOR.read_text(encoding="utf-8").replace(
        '<event value="7"', '<event value="8" symbol="New\n          <event value="7"'
    )
    (provider,) = outline(Source(text), scan(text))
    events = [c.name for c in provider.children if c.kind == "event"]
    assert events == ["event 1", "event 2", "event 8", "event 7"]


def test_a_large_real_manifest_is_indexed() -> None:
    require_shared()
    path = CORPUS / "microsoft__perfview__ClrEtwAll.man"
    a = analyse(path.read_text(encoding="utf-8"), str(path))
    view = View.of(a.source, a)
    at = _at(view, 'keywords ="GCKeyword"', 13)
    refs = references(view, at, include_declaration=False)
    m = a.manifest
    assert m is not None
    uses = sum(
        1 for p in m.providers for e in p.events for k in e.keywords if k.name == "GCKeyword"
    )
    assert len(refs) == uses > 20
