"""The message tables, the .rc and the .dbg mc writes for a message text file.

One table per language some message has a text in, named after the language's file
(``MSG00409.bin``; ``BASE_MSG00409.bin`` with ``-b``).  Its entries hold every text of
that language exactly as written, each source line ended by CR LF (the last one too,
unless ``-n``), in UTF-16LE (``-U``, the default), the ANSI code page (``-A``) or UTF-8
(``-U8``); the one table writer is :mod:`etwmc.wevt.msgtable`'s.

The .rc names each table once: ``LANGUAGE 0x<primary>,0x<sub>`` then
``1 11 "<file>.bin"`` (RT_MESSAGETABLE, name 1), languages by name descending as in the
.rc files mc wrote that we hold.  With a manifest compiled in the same run, the .rc
also names the manifest's tables and its WEVT_TEMPLATE (:mod:`etwmc.mctext.combine`).

The .dbg (``-x``) maps each message id to its symbolic name for debugging output.
"""

from __future__ import annotations

from ..naming import sanitize
from ..record import Record
from ..wevt.msgtable import (
    MESSAGE_RESOURCE_ANSI,
    MESSAGE_RESOURCE_UNICODE,
    TableEntry,
    text_entry,
)
from ..wevt.rc import message_table_statements
from .model import MessageFile, Name

UNICODE = MESSAGE_RESOURCE_UNICODE


class TableStyle(Record):
    """How entries are stored: ``flags`` one of the ``MESSAGE_RESOURCE_*`` encodings,
    ``codec`` the ANSI code page, ``final_line_end`` False for mc's ``-n``."""

    flags: int = MESSAGE_RESOURCE_UNICODE
    codec: str = "cp1252"
    final_line_end: bool = True


def table_file(language: Name, base: str | None) -> str:
    """The table's file name; ``base`` is set with ``-b``."""
    assert language.file is not None
    return f"{base}_{language.file}.bin" if base else f"{language.file}.bin"


def entries(mf: MessageFile, language: Name, style: TableStyle) -> dict[int, TableEntry]:
    """Id -> entry of every text of ``language``.  Raises UnicodeEncodeError when an
    ANSI entry's code page cannot hold its text (checked beforehand: ETW920)."""
    out: dict[int, TableEntry] = {}
    for m in mf.messages:
        text = m.text(language.name)
        if text is not None:
            stored = text.stored(final_line_end=style.final_line_end)
            out[m.id] = text_entry(stored, style.flags, style.codec)
    return out


def rc_lines(langid: int, file: str) -> str:
    return message_table_statements(langid & 0x3FF, langid >> 10, file)


def render_rc(mf: MessageFile, base: str | None) -> str:
    return "".join(rc_lines(lang.value, table_file(lang, base)) for lang in mf.used_languages())


def render_dbg(mf: MessageFile, name: str) -> str:
    """The .dbg file: ``name`` (the input's base name) names its array, made a C
    identifier; the type is the MessageIdTypedef of the first message (DWORD without)."""
    messages = mf.messages
    kind = next((m.typedef for m in messages), None) or "DWORD"
    lines = [
        "//",
        "// This file maps message Id values in to a text string that contains",
        "// the symbolic name used for the message Id.  Useful for debugging",
        "// output.",
        "//",
        "",
        "struct {",
        f"    {kind} MessageId;",
        "    char *SymbolicName;",
        f"}} {sanitize(name)}SymbolicNames[] = {{",
    ]
    lines += [f' ({kind}) {m.symbol}, "{m.symbol}",' for m in messages if m.symbol is not None]
    lines += [f" ({kind}) 0xFFFFFFFF, NULL", "};"]
    return "\n".join(lines) + "\n"


__all__ = [
    "MESSAGE_RESOURCE_ANSI",
    "TableStyle",
    "entries",
    "rc_lines",
    "render_dbg",
    "render_rc",
    "table_file",
]
