"""The language server's positions (etwmc.lsp.text) and its tolerant reading of XML
(etwmc.lsp.scan): lines as the protocol counts them, code units in each encoding, and
a reading that finds what a parser finds in a well-formed file and never fails."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from conftest import corpus_files, require_shared, sized_cases
from etwmc.lsp.scan import scan, start_tag
from etwmc.lsp.text import Pos, Source, apply_change, from_units, to_units, units


def test_lines_break_at_lf_crlf_and_cr_only() -> None:
    s = Source("a\r\nb\rc\nd\u2028e\x85f")
    assert s.line_count == 4
    assert s.lines() == ["a", "b", "c", "d\u2028e\x85f"]
    assert s.pos(s.text.index("e")) == Pos(3, 2)
    assert s.offset(Pos(3, 2)) == s.text.index("e")


def test_positions_past_the_end_are_clamped() -> None:
    s = Source("ab\ncd\n")
    assert s.offset(Pos(0, 99)) == 2  # the end of line 0, not into line 1
    assert s.offset(Pos(99, 0)) == len(s.text)
    assert s.offset(Pos(-1, 5)) == 0
    assert s.pos(10_000) == Pos(2, 0)
    assert s.line(7) == ""


@pytest.mark.parametrize(
    ("encoding", "expected"),
    [("utf-16", [0, 1, 3, 4]), ("utf-8", [0, 2, 6, 7]), ("utf-32", [0, 1, 2, 3])],
)
def test_code_units_per_encoding(encoding: str, expected: list[int]) -> None:
    line = "é😀x"
    assert [to_units(line, c, encoding) for c in range(4)] == expected
    assert [from_units(line, u, encoding) for u in expected] == [0, 1, 2, 3]
    assert units(line, encoding) == expected[-1]


def test_a_unit_count_inside_a_character_reaches_it() -> None:
    # The middle of a surrogate pair (UTF-16) or of a UTF-8 sequence is not a place;
    # the character it falls in counts as reached, and a count past the end is the end.
    assert from_units("😀x", 1, "utf-16") == 1
    assert from_units("😀x", 2, "utf-8") == 1
    assert from_units("ab", 99, "utf-16") == 2


def test_changes_apply_to_code_point_ranges() -> None:
    text = "line 1\r\nsmile 😀 here\nlast"
    changed = apply_change(text, Pos(1, 6), Pos(1, 7), "☺")
    assert changed == "line 1\r\nsmile ☺ here\nlast"
    assert apply_change(text, None, None, "all new") == "all new"
    assert apply_change("ab", Pos(0, 2), Pos(0, 0), "-") == "-"  # a reversed range


def _lxml_elements(data: bytes) -> list[tuple[str, dict[str, str]]]:
    root = etree.fromstring(data, etree.XMLParser(resolve_entities=False))
    out = []
    for e in root.iter():
        if isinstance(e.tag, str):
            attrs = {etree.QName(k).localname: v for k, v in e.attrib.items()}
            out.append((etree.QName(e).localname, attrs))
    return out


@pytest.mark.parametrize("path", sized_cases(corpus_files()))
def test_the_reading_of_a_real_manifest_is_the_parser_s(path: Path) -> None:
    """Every element lxml finds, in order, with every attribute value that holds no
    reference or line break (those the parser rewrites)."""
    require_shared()
    data = path.read_bytes()
    try:
        expected = _lxml_elements(data)
    except etree.XMLSyntaxError:
        pytest.skip("not well-formed")
    text = data.decode("utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig")
    found = []
    for e in scan(text).walk():
        attrs = {
            a.name.rpartition(":")[2]: a.value for a in e.attrs if not a.name.startswith("xmlns")
        }
        found.append((e.local, attrs))
    assert [n for n, _ in found] == [n for n, _ in expected]
    for (_, mine), (_, theirs) in zip(found, expected, strict=True):
        for k, v in mine.items():
            if "&" not in v and "\n" not in v and "\t" not in v:
                assert theirs.get(k) == v


def test_elements_know_where_they_end() -> None:
    text = "<a x=\"1\">\n  <b y='2'/>\n  <c>text</c>\n</a>"
    (a,) = scan(text).roots
    b, c = a.children
    assert text[a.start : a.end] == text
    assert text[b.start : b.end] == "<b y='2'/>" and b.empty
    assert text[c.start : c.end] == "<c>text</c>" and text[c.end_tag : c.end] == "</c>"
    (y,) = b.attrs
    assert text[y.value_start : y.value_end] == "2" and text[y.start : y.end] == "y='2'"


def test_half_typed_text_is_read_without_swallowing_what_follows() -> None:
    text = '<a>\n  <b x="1" y="open\n  <c z="2"/>\n  <d\n</a>'
    (a,) = scan(text).roots
    assert [e.name for e in a.children] == ["b", "c", "d"]
    b = a.children[0]
    assert b.attrs[1].value == "open\n  " and not b.attrs[1].closed and not b.closed
    assert a.closed and a.end == len(text)


def test_comments_cdata_and_stray_end_tags_are_skipped() -> None:
    text = "<a><!-- <b> --><![CDATA[<c>]]></x><?pi <d>?><e/></a>"
    (a,) = scan(text).roots
    assert [e.name for e in a.children] == ["e"]


def test_a_reading_stopped_at_a_cursor_says_where_it_is() -> None:
    text = '<a><b x="1" y="va'
    r = scan(text)
    assert r.inside == "tag" and r.tag is not None and r.tag.name == "b"
    assert [e.name for e in r.open] == ["a"]
    assert scan("<a><!-- open").inside == "comment"
    assert scan("<a></").inside == "end-tag"
    r = scan("<a><", 4)
    assert r.inside == "tag" and r.tag is not None and r.tag.name == ""


def test_a_start_tag_is_read_to_its_end() -> None:
    text = '<event value="1" | level="x" task="t"/>'
    e = start_tag(text, 0)
    assert e is not None and e.get("task") == "t" and e.get("level") == "x"
    assert start_tag(text, 5) is None


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="<>/=\"' abc!-?[]\n\u2028é", max_size=200), st.integers(0, 250))
def test_any_text_is_read(text: str, cursor: int) -> None:
    r = scan(text, cursor)
    for e in r.walk():
        assert 0 <= e.start <= e.tag_end <= max(e.end, e.tag_end) <= len(text)
        for a in e.attrs:
            assert e.start < a.start <= len(text)


def test_reading_is_linear() -> None:
    """A hundred thousand unclosed tags and values are read in one pass."""
    hostile = '<a b="' * 50_000 + "<c " * 50_000
    started = time.process_time()
    r = scan(hostile)
    assert time.process_time() - started < 20
    assert sum(1 for _ in r.walk()) == 100_000


@pytest.mark.parametrize("text", ["<a></b>", "<a><!-- c -->", "<a><![CDATA[x]]>", "<a><?p?>"])
def test_a_cursor_inside_markup_s_opening(text: str) -> None:
    """Reading stops at a cursor between the characters that open an end tag, a comment,
    CDATA or a processing instruction (what the text holds after the cursor is unread)."""
    for cursor in range(len(text) + 1):
        scan(text, cursor)
