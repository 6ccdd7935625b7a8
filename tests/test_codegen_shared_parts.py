"""Parts of the outputs made once and shared are the text the whole would have been, and
the binary pieces the WEVT and message-table writers assemble have their documented
layout (bench/run.py's scale group measures the time)."""

from __future__ import annotations

import struct
import textwrap
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from etwmc.python import literals
from etwmc.python.docstrings import WIDTH, docstring, message, paragraphs_text
from etwmc.python.events import Shape
from etwmc.python.imports import Imports
from etwmc.python.payload import Plan
from etwmc.wevt.crim import sized_string
from etwmc.wevt.msgtable import encode_table, read_message_table, text_entry


def _reference(indent: str, summary: str, paragraphs: Sequence[str | Sequence[str]]) -> str:
    """The docstring as documented: a line per text, each text escaped on its own."""
    lines = [f'{indent}"""{literals.escaped(summary, chr(34))}']
    for p in paragraphs:
        lines.append("")
        if isinstance(p, str):
            words = " ".join(p.split())
            lines += [
                indent + literals.escaped(w, '"')
                for w in textwrap.wrap(words, WIDTH - len(indent), break_on_hyphens=False)
            ]
            continue
        for line in p:
            text = " ".join(line.split())
            lead = " " * (len(line) - len(line.lstrip(" ")))
            lines.append(f"{indent}{lead}{literals.escaped(text, chr(34))}" if text else "")
    lines.append(f'{indent}"""')
    return "\n".join(lines)


_TEXTS = [
    "",
    " ",
    "plain words",
    'a "quoted" word',
    "back\\slash",
    "caf\u00e9 \U0001f600",
    "line\nbreak\u2028and\ttab",
    "word " * 30,
    "x" * 84,
    "x" * 85,
    "a-b " * 25,
]


@pytest.mark.parametrize("indent", ["", "    "])
@pytest.mark.parametrize("text", _TEXTS)
def test_a_docstring_escapes_and_lays_out_each_line_as_documented(indent: str, text: str) -> None:
    summary_texts = ["S.", text] if "\n" not in text else ["S.", text, "S\nT"]
    for summary in summary_texts:
        paragraphs: list[str | list[str]] = [
            text,
            [f"Level: {text}", "", f"    {text}: x."],
            "Message: " + text,
        ]
        assert docstring(indent, summary, paragraphs) == _reference(indent, summary, paragraphs)


@pytest.mark.parametrize("text", _TEXTS)
def test_a_shared_tail_is_what_the_docstring_makes_of_its_paragraphs(text: str) -> None:
    head: list[str | list[str]] = [f"Message: {text}", ["Level: x.", text]]
    tail: list[str | Sequence[str]] = [["Args:", f"    a: {text}", "    b: see above."]]
    whole = docstring("    ", "S.", [*head, *tail])
    assert docstring("    ", "S.", head, paragraphs_text("    ", tail)) == whole
    assert paragraphs_text("    ", []) == ""


@pytest.mark.parametrize("text", ["", "a", "ab", "abc", "abcd", "\U0001f600", "x\U0001f600"])
def test_a_sized_string_is_its_size_its_text_a_nul_and_padding(text: str) -> None:
    data = text.encode("utf-16-le", "surrogatepass") + b"\0\0"
    total = (4 + len(data) + 3) // 4 * 4
    assert sized_string(text) == struct.pack("<I", total) + data.ljust(total - 4, b"\0")


def test_message_table_entries_of_every_padding_read_back() -> None:
    texts = {0x10 + i: "x" * i + "\r\n" for i in range(6)} | {0x40: "caf\u00e9\r\n"}
    entries = {mid: text_entry(t) for mid, t in texts.items()}
    entries[0x41] = text_entry("ansi\r\n", flags=0)
    table = encode_table(entries)
    decoded = read_message_table(table)
    assert decoded == {mid: t[:-2] for mid, t in texts.items()} | {0x41: "ansi"}
    # Each entry's length field counts its header and pads its text to 4 bytes.
    (blocks,) = struct.unpack_from("<I", table, 0)
    lo, hi, off = struct.unpack_from("<III", table, 4)
    for mid in range(lo, hi + 1):
        length, _ = struct.unpack_from("<HH", table, off)
        assert length % 4 == 0 and length >= 4 + len(entries[mid][1])
        assert table[off + 4 + len(entries[mid][1]) : off + length] == bytes(
            length - 4 - len(entries[mid][1])
        )
        off += length
    assert blocks == 2  # 0x10-0x15, 0x40-0x41


_MESSAGE_PIECES = st.sampled_from(
    ["word", "Two words", " ", "  ", "%1", "%2", "%3", "%4", "%12", "%0", "%%", "%n", "%1!d!",
     "%", "!", '"', "\\", "\t", "\n", "caf\u00e9", "x" * 40, "{a}", ":"]
)  # fmt: skip


@given(st.lists(_MESSAGE_PIECES, min_size=1, max_size=12).map("".join))
def test_an_event_message_paragraph_is_the_documented_one(text: str) -> None:
    # The plain-words path of Shape.message_paragraph makes what the general one does:
    # "Message: " and the message with its inserts named, escaped and wrapped.
    names = ["alpha", "b_1", "c"]
    shape = Shape(Plan("_T0", [], [], [], None, names), Imports())
    expected = "\n" + paragraphs_text("    ", [f"Message: {message(text, names)}"])
    assert shape.message_paragraph(text) == expected
